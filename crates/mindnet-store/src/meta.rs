//! `meta.json` beside the shards: which model built the index, and when it
//! was last imported. Written atomically (temp file + rename).

use crate::StoreError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FORMAT: u32 = 1;
const FILE: &str = "meta.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub name: String,
    pub dim: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreMeta {
    pub format: u32,
    pub model: ModelInfo,
    /// BM25 language of the chunk texts.
    pub lang: String,
    pub created: String,
    pub last_import: Option<String>,
    pub last_import_seconds: Option<f64>,
    /// When the import that is writing now, or was cut short, began; `None`
    /// once it finished. Until then edges may point to notes it has not
    /// written yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_started: Option<String>,
}

impl StoreMeta {
    /// The metadata of the index in `dir`, if there is one.
    pub fn read_from(dir: &Path) -> Result<Option<StoreMeta>, StoreError> {
        read(dir)
    }

    /// Notes an import that found nothing to write, without opening the index.
    pub fn record_import(dir: &Path, seconds: f64) -> Result<StoreMeta, StoreError> {
        let mut meta = read(dir)?.ok_or_else(|| io(&path(dir), "missing"))?;
        meta.finish_import(dir, seconds)?;
        Ok(meta)
    }

    /// Stamps a finished import and writes the metadata to `dir`.
    pub(crate) fn finish_import(&mut self, dir: &Path, seconds: f64) -> Result<(), StoreError> {
        self.stamp_finished(seconds);
        write(dir, self)
    }

    pub(crate) fn stamp_finished(&mut self, seconds: f64) {
        self.last_import = Some(mindnet_core::time::now());
        self.last_import_seconds = Some(seconds);
        self.import_started = None;
    }

    /// Marks an import as begun, unless an unfinished one is marked already
    /// (whose notes it goes on writing).
    pub(crate) fn stamp_started(&mut self) -> bool {
        if self.import_started.is_some() {
            return false;
        }
        self.import_started = Some(mindnet_core::time::now());
        true
    }
}

pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

pub fn read(dir: &Path) -> Result<Option<StoreMeta>, StoreError> {
    let p = path(dir);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&p, e)),
    };
    let meta: StoreMeta = serde_json::from_str(&text).map_err(|e| StoreError::Io {
        path: p.clone(),
        message: format!("unreadable: {e}"),
    })?;
    if meta.format > FORMAT {
        return Err(StoreError::Format {
            path: p,
            found: meta.format,
            supported: FORMAT,
        });
    }
    Ok(Some(meta))
}

pub fn write(dir: &Path, meta: &StoreMeta) -> Result<(), StoreError> {
    let p = path(dir);
    let text = serde_json::to_string_pretty(meta).map_err(|e| io(&p, e))?;
    write_durably(&p, text.as_bytes())
}

pub(crate) fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    mindnet_core::file::write_atomically(path, bytes).map_err(|e| io(path, e))
}

pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}
