//! `migrate`: an index moved between backends (a data dir and a Qdrant
//! server, either way, or two of one kind) without re-embedding. Each batch
//! of notes is read whole from the source (payloads and dense vectors) and
//! written to the target with the target's own commit protocol, so a
//! migration cut short is a target with whole notes only. At the end both
//! must hold the same counts and the same ids.

use crate::{AppError, Progress};
use mindnet_store::{EmbeddedStore, ModelInfo, ServerConfig, ServerStore, Store, StoreMeta};
use std::path::PathBuf;
use std::time::Instant;

/// Notes per copied batch (one commit on the target).
const BATCH: usize = 64;

/// One end of a migration.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexAt {
    /// An index folder (`<VAULT>/.mindnet`).
    Dir(PathBuf),
    Server(ServerConfig),
}

impl IndexAt {
    /// An `http(s)://` address is a server (its API key and collection
    /// prefix from the environment, unless `prefix` is given); anything else
    /// an index folder, or a vault whose `.mindnet` holds one.
    pub fn parse(spec: &str, prefix: Option<String>) -> Result<IndexAt, AppError> {
        if spec.starts_with("http://") || spec.starts_with("https://") {
            let mut config = crate::settings::server_config(spec).map_err(AppError::bad_request)?;
            if let Some(p) = prefix {
                config.prefix = p;
            }
            return Ok(IndexAt::Server(config));
        }
        let dir = PathBuf::from(spec);
        let inner = dir.join(".mindnet");
        if !dir.join("meta.json").exists() && inner.join("meta.json").exists() {
            return Ok(IndexAt::Dir(inner));
        }
        Ok(IndexAt::Dir(dir))
    }

    pub fn describe(&self) -> String {
        match self {
            IndexAt::Dir(d) => d.display().to_string(),
            IndexAt::Server(s) => format!("the collections `{}_*` at {}", s.prefix, s.url),
        }
    }

    fn open_existing(&self) -> Result<Box<dyn Store>, AppError> {
        Ok(match self {
            IndexAt::Dir(d) => {
                if StoreMeta::read_from(d)?.is_none() {
                    return Err(AppError::not_found(format!(
                        "no mindnet index in {}",
                        d.display()
                    )));
                }
                Box::new(EmbeddedStore::open_existing(d)?)
            }
            IndexAt::Server(s) => Box::new(ServerStore::open_existing(s)?),
        })
    }

    fn create(&self, model: &ModelInfo, lang: &str) -> Result<Box<dyn Store>, AppError> {
        Ok(match self {
            IndexAt::Dir(d) => Box::new(EmbeddedStore::open(d, model, lang)?),
            IndexAt::Server(s) => Box::new(ServerStore::open(s, model, lang)?),
        })
    }

    fn has_index(&self) -> Result<bool, AppError> {
        Ok(match self {
            IndexAt::Dir(d) => StoreMeta::read_from(d)?.is_some(),
            IndexAt::Server(s) => ServerStore::stored_meta(s)?.is_some(),
        })
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MigrateReport {
    pub from: String,
    pub to: String,
    pub model: String,
    pub notes: usize,
    pub chunks: usize,
    pub edges: usize,
    pub seconds: f64,
}

/// Copies the index at `from` to `to`, which must not hold an index yet.
pub fn migrate(
    from: &IndexAt,
    to: &IndexAt,
    progress: &dyn Progress,
) -> Result<MigrateReport, AppError> {
    let started = Instant::now();
    if from == to {
        return Err(AppError::bad_request(
            "`--from` and `--to` are the same index",
        ));
    }
    let source = from.open_existing()?;
    if to.has_index()? {
        return Err(AppError::conflict(format!(
            "{} already holds an index; delete it (or choose another folder or COLLECTION_PREFIX) and migrate again. Nothing was changed.",
            to.describe()
        )));
    }
    let meta = source.meta().clone();
    let mut target = to.create(&meta.model, &meta.lang)?;
    let ids: Vec<String> = source
        .note_states()?
        .into_iter()
        .map(|s| s.note_id)
        .collect();
    progress.start(ids.len());
    for batch in ids.chunks(BATCH) {
        if progress.stopped() {
            return Err(AppError::unavailable("the migration was stopped"));
        }
        let notes = source.export(batch)?;
        let writes: Vec<_> = notes.iter().map(|n| n.as_write()).collect();
        target.write_batch(&writes, &[])?;
        target.optimize_midway()?;
        progress.advance(batch.len());
    }
    progress.finish();
    target.finish_import(started.elapsed().as_secs_f64())?;
    // An embedded target would otherwise search without its vector index
    // until its next import.
    target.optimize()?;
    let (a, b) = (source.counts()?, target.counts()?);
    if a != b {
        return Err(AppError::internal(format!(
            "the copy differs: {} holds {a:?}, {} holds {b:?}",
            from.describe(),
            to.describe()
        )));
    }
    for collection in ["notes", "chunks", "edges"] {
        if mindnet_store::ids(&*source, collection)? != mindnet_store::ids(&*target, collection)? {
            return Err(AppError::internal(format!(
                "the copy differs: the {collection} of {} and {} are not the same ids",
                from.describe(),
                to.describe()
            )));
        }
    }
    Ok(MigrateReport {
        from: from.describe(),
        to: to.describe(),
        model: meta.model.name,
        notes: a.notes,
        chunks: a.chunks,
        edges: a.edges,
        seconds: started.elapsed().as_secs_f64(),
    })
}
