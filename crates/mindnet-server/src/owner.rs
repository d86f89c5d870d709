//! One owner of an index. A running server records its address in
//! `<data>/server.json`; another mindnet process that wants the same index
//! reads it and talks to that server instead of waiting for the lock.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const FILE: &str = "server.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnerRecord {
    pub pid: u32,
    /// `host:port` to connect to.
    pub address: String,
    pub started: String,
    pub version: String,
    /// Requests need `Authorization: Bearer …` (`MINDNET_API_TOKEN`).
    pub token_required: bool,
}

impl OwnerRecord {
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }
}

pub fn path(data: &Path) -> PathBuf {
    data.join(FILE)
}

pub fn read(data: &Path) -> Option<OwnerRecord> {
    let text = std::fs::read(path(data)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Written atomically, so a reader never sees half a record.
pub fn write(data: &Path, record: &OwnerRecord) -> std::io::Result<()> {
    std::fs::create_dir_all(data)?;
    let bytes = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    mindnet_core::file::write_atomically(&path(data), &bytes)
}

/// Removes the record if it is still ours.
pub fn remove(data: &Path, pid: u32) {
    if read(data).is_some_and(|r| r.pid == pid) {
        let _ = std::fs::remove_file(path(data));
    }
}

/// The server that owns the index in `data`, if one is running and answers
/// for this very data dir. A record left by a server that died is ignored.
pub fn live(data: &Path) -> Option<OwnerRecord> {
    let record = read(data)?;
    let client = crate::Client::new(&record.url(), None, Duration::from_secs(2)).ok()?;
    let health = client.health().ok()?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    same(Path::new(&health.data), data).then_some(record)
}
