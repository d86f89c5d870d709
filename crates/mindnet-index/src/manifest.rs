//! `manifest.json` in the index folder: what the vault looked like when the
//! last import finished — each note file's size and modification time, the
//! configuration, and the summary. When none of it differs, the import is
//! done without opening the index or reading a note, as `git status` trusts
//! its index. Any difference (a file added, removed, touched or resized, other
//! config files, another mindnet version) takes the full path, which compares
//! content hashes note by note.
//!
//! Invariants:
//! - The manifest is removed before an import writes anything and written
//!   only after it finished, so it never describes a half-written index.
//! - A file modified within [`RACY`] of being stamped never matches: file
//!   systems with coarse timestamps could otherwise hide a second edit made
//!   in the same tick.

use crate::{SyncOptions, SyncReport};
use mindnet_ingest::scan::scan_vault;
use mindnet_ingest::{Config, ImportOptions, IngestError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub const FILE: &str = "manifest.json";
const RACY: Duration = Duration::from_secs(2);

/// One note file as the file system describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub path: String,
    pub len: u64,
    /// Nanoseconds since the epoch; `None` when too recent to be trusted.
    pub mtime_ns: Option<u128>,
    /// When the file's inode last changed (on Unix, its ctime; elsewhere
    /// its mtime again): a note made unreadable changes nothing else, and
    /// its import must say so. Compared as it is, however recent: the
    /// doubt above is about content, which `mtime_ns` already guards.
    pub ctime_ns: Option<u128>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    fingerprint: String,
    /// Stored notes whose file is not in the vault (kept without `--sync-deletes`).
    stale_notes: usize,
    report: SyncReport,
    files: Vec<Stamp>,
}

pub fn path(data: &Path) -> PathBuf {
    data.join(FILE)
}

/// Everything besides the files that decides what an import produces.
fn fingerprint(config: &Config, import: &ImportOptions) -> String {
    format!(
        "mindnet {}; derivation {}; config {}; lang {}; max {}",
        env!("CARGO_PKG_VERSION"),
        mindnet_ingest::plan::DERIVATION,
        config.digest(),
        import.lang,
        import.max_note_bytes
    )
}

/// The vault's note files, stamped now.
pub fn stamps(vault: &Path) -> Result<Vec<Stamp>, IngestError> {
    let now = SystemTime::now();
    let scan = scan_vault(vault)?;
    Ok(scan
        .files
        .into_iter()
        .map(|f| {
            let meta = std::fs::metadata(&f.abs_path).ok();
            let nanos = |t: SystemTime| t.duration_since(UNIX_EPOCH).ok().map(|d| d.as_nanos());
            let mtime = meta.as_ref().and_then(|m| m.modified().ok());
            let trusted = mtime.filter(|t| now.duration_since(*t).is_ok_and(|age| age >= RACY));
            Stamp {
                path: f.rel_path,
                mtime_ns: trusted.and_then(nanos),
                ctime_ns: meta.as_ref().and_then(changed).and_then(nanos),
                len: meta.map_or(u64::MAX, |m| m.len()),
            }
        })
        .collect())
}

#[cfg(unix)]
fn changed(meta: &std::fs::Metadata) -> Option<SystemTime> {
    use std::os::unix::fs::MetadataExt;
    let secs = u64::try_from(meta.ctime()).ok()?;
    let nanos = u32::try_from(meta.ctime_nsec()).ok()?;
    UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
}

#[cfg(not(unix))]
fn changed(meta: &std::fs::Metadata) -> Option<SystemTime> {
    meta.modified().ok()
}

/// The report of an import that would change nothing, if the manifest says
/// so; `None` means: run the import. A write journal left in the folder
/// (a fault outside any import) also takes the full path, whose open
/// repairs it or says why it cannot.
pub fn unchanged(
    data: &Path,
    vault: &Path,
    config: &Config,
    import: &ImportOptions,
    opts: &SyncOptions,
) -> Option<SyncReport> {
    if opts.purge_before_upsert || mindnet_store::journal_left(data) {
        return None;
    }
    let started = std::time::Instant::now();
    let text = std::fs::read(path(data)).ok()?;
    let m: Manifest = serde_json::from_slice(&text).ok()?;
    if m.fingerprint != fingerprint(config, import) || (opts.sync_deletes && m.stale_notes > 0) {
        return None;
    }
    let now = stamps(vault).ok()?;
    let same = now.len() == m.files.len()
        && now
            .iter()
            .zip(&m.files)
            .all(|(a, b)| a == b && a.mtime_ns.is_some());
    if !same {
        return None;
    }
    let mut r = m.report;
    r.unchanged += r.new + r.changed + r.relinked;
    (r.new, r.changed, r.relinked, r.deleted, r.embedded_chunks) = (0, 0, 0, 0, 0);
    r.seconds = started.elapsed().as_secs_f64();
    Some(r)
}

/// Forgets the manifest before anything is written.
pub fn remove(data: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path(data)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Records a finished import. Failing to write it only costs speed next time.
pub fn write(
    data: &Path,
    config: &Config,
    import: &ImportOptions,
    files: Vec<Stamp>,
    report: &SyncReport,
    planned_notes: usize,
) {
    let m = Manifest {
        fingerprint: fingerprint(config, import),
        stale_notes: report.notes.saturating_sub(planned_notes),
        report: report.clone(),
        files,
    };
    let p = path(data);
    let written = serde_json::to_vec(&m)
        .map_err(std::io::Error::other)
        .and_then(|bytes| mindnet_core::file::write_atomically(&p, &bytes));
    if let Err(e) = written {
        tracing::warn!("{}: cannot write: {e}", p.display());
    }
}
