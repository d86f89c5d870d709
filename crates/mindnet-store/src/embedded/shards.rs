//! Opening a shard: its write-ahead log, the wait for another process that
//! holds it, the BM25 analyser of the index's language.

use super::filters::jp;
use crate::StoreError;
use crate::meta::io;
use crate::payload::BOOL_FIELDS;
use qdrant_edge::CreateIndex;
use qdrant_edge::EdgeShard;
use qdrant_edge::FieldIndexOperations;
use qdrant_edge::PayloadFieldSchema;
use qdrant_edge::PayloadSchemaType;
use qdrant_edge::UpdateOperation;
use qdrant_edge::WalOptions;
use qdrant_edge::bm25_embed::EdgeBm25;
use qdrant_edge::bm25_embed::EdgeBm25Config;
use std::num::NonZeroUsize;
use std::path::Path;
pub(super) fn wal() -> WalOptions {
    // The WAL of qdrant-edge 0.7 is not replayed on load (our journal covers
    // crashes), so small segments are enough.
    WalOptions {
        segment_capacity: 2 * 1024 * 1024,
        segment_queue_len: 0,
        retain_closed: NonZeroUsize::MIN,
    }
}

/// How long to wait for another process (an import, a server) to release
/// the index before giving up.
pub(super) const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Loads a shard, waiting while another process holds its write-ahead log.
pub(super) fn load_shard(path: &Path) -> Result<EdgeShard, StoreError> {
    let started = std::time::Instant::now();
    let mut told = false;
    loop {
        match EdgeShard::load(path, None) {
            Err(e) if e.to_string().contains("WouldBlock") => {
                if started.elapsed() >= LOCK_WAIT {
                    return Err(StoreError::Busy {
                        path: path.to_path_buf(),
                    });
                }
                if !told {
                    tracing::warn!(
                        "{}: in use by another mindnet process; waiting",
                        path.display()
                    );
                    told = true;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            // Named by the shard: "Read-only file system" alone says not where.
            other => return other.map_err(|e| io(path, e)),
        }
    }
}

pub(super) fn open_shard(
    path: &Path,
    config: impl FnOnce() -> qdrant_edge::EdgeConfig,
    indexes: &[&str],
) -> Result<EdgeShard, StoreError> {
    let shard = if path.join("edge_config.json").is_file() {
        crate::wal::trim(path);
        load_shard(path)?
    } else {
        std::fs::create_dir_all(path).map_err(|e| io(path, e))?;
        EdgeShard::new(path, config()).map_err(|e| io(path, e))?
    };
    // Indexes added in later versions are created on an older index too.
    let existing = shard.info().payload_schema;
    let missing: Vec<&&str> = indexes
        .iter()
        .filter(|f| !existing.keys().any(|k| k.to_string() == **f))
        .collect();
    for field in &missing {
        let schema = if BOOL_FIELDS.contains(field) {
            PayloadSchemaType::Bool
        } else {
            PayloadSchemaType::Keyword
        };
        shard.update(UpdateOperation::FieldIndexOperation(
            FieldIndexOperations::CreateIndex(CreateIndex {
                field_name: jp(field),
                field_schema: Some(PayloadFieldSchema::FieldType(schema)),
            }),
        ))?;
    }
    if !missing.is_empty() {
        shard.flush();
    }
    Ok(shard)
}

pub(super) fn bm25(lang: &str) -> Result<EdgeBm25, StoreError> {
    EdgeBm25::new(EdgeBm25Config {
        language: Some(lang.to_string()),
        ..EdgeBm25Config::default()
    })
    .map_err(|e| StoreError::Qdrant(format!("BM25 for language `{lang}`: {e}")))
}
