//! `sync`: brings a store up to date with a vault (IMP-10 to IMP-13).
//!
//! The whole vault is planned every time (parsing is cheap: see
//! docs/benchmarks.md); what is written is decided per note by comparing
//! digests with the stored note:
//! - `new`: not in the store;
//! - `changed`: its file or its chunks changed: re-embedded and replaced;
//! - `relinked`: only its edges changed (a link target appeared or vanished):
//!   edges replaced, no embedding;
//! - `unchanged`: nothing is written;
//! - `deleted`: its file is gone (only with `sync_deletes`).

use mindnet_core::{Chunk, Edge, NoteBundle, Warning};
use mindnet_embed::{EmbedError, Embedder};
use mindnet_ingest::resolve::NoteEntry;
use mindnet_ingest::{Config, ImportOptions, ImportPlan, IngestError, Skipped, plan_vault};
use mindnet_store::{NoteState, NoteWrite, Store, StoreError};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

pub mod manifest;

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("embedding note {path}: {source}")]
    Embed { path: String, source: EmbedError },
    /// Asked to stop (a server shutting down): every committed batch is
    /// whole; the rest is done by the next sync.
    #[error("the sync was stopped after {committed} of {total} notes")]
    Stopped { committed: usize, total: usize },
}

#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// Remove notes whose file is gone.
    pub sync_deletes: bool,
    /// Rewrite every note, changed or not.
    pub purge_before_upsert: bool,
    /// Notes per write batch; each batch is one commit.
    pub batch_notes: usize,
    /// The index folder, to keep `manifest.json` in; `None`: no manifest.
    pub manifest_dir: Option<PathBuf>,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            sync_deletes: false,
            purge_before_upsert: false,
            batch_notes: 32,
            manifest_dir: None,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct SyncReport {
    pub new: usize,
    pub changed: usize,
    pub relinked: usize,
    pub unchanged: usize,
    pub deleted: usize,
    /// Totals in the store after the sync.
    pub notes: usize,
    pub chunks: usize,
    pub edges: usize,
    pub unresolved: usize,
    pub embedded_chunks: usize,
    pub skipped: Vec<Skipped>,
    pub warnings: Vec<Warning>,
    pub seconds: f64,
}

/// Told about progress; the CLI draws a bar from it, the server counts.
pub trait Progress: Sync {
    /// Called once the plan is known: how many chunks must be embedded.
    fn start(&self, _chunks_to_embed: usize) {}
    fn advance(&self, _chunks_embedded: usize) {}
    fn finish(&self) {}
    /// Asked between batches: stop after the last committed one.
    fn stopped(&self) -> bool {
        false
    }
}

impl Progress for () {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    New,
    Changed,
    Relinked,
    Unchanged,
}

fn digest<T: Serialize>(value: &T) -> String {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    mindnet_core::ids::hex(&Sha256::digest(&bytes))
}

pub fn chunks_digest(chunks: &[Chunk]) -> String {
    digest(&chunks)
}

pub fn edges_digest(edges: &[Edge]) -> String {
    digest(&edges)
}

fn known_notes(states: &[NoteState]) -> Vec<NoteEntry> {
    states
        .iter()
        .map(|s| NoteEntry {
            note_id: s.note_id.clone(),
            rel_path: s.path.clone(),
            title: s.title.clone(),
            aliases: s.aliases.clone(),
            note_type: s.note_type.clone(),
        })
        .collect()
}

/// A shared store for reading. A writer that panicked left the batch's
/// journal behind, so reading on is safe: the next open repairs it.
fn read<S: Store + ?Sized>(store: &RwLock<S>) -> RwLockReadGuard<'_, S> {
    store.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<S: Store + ?Sized>(store: &RwLock<S>) -> RwLockWriteGuard<'_, S> {
    store.write().unwrap_or_else(PoisonError::into_inner)
}

/// Brings the store up to date with the vault. The store is shared: the
/// slow parts (planning, embedding) hold no lock, and each batch of notes is
/// committed under the write lock, so readers on other threads keep going
/// and see every note whole, before or after its batch.
pub fn sync<S: Store + ?Sized>(
    vault: &Path,
    config: &Config,
    import: &ImportOptions,
    store: &RwLock<S>,
    embedder: &dyn Embedder,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> Result<SyncReport, SyncError> {
    let started = Instant::now();
    let stamps = match &opts.manifest_dir {
        Some(dir) => {
            manifest::remove(dir).map_err(|source| SyncError::Io {
                path: manifest::path(dir),
                source,
            })?;
            Some(manifest::stamps(vault)?)
        }
        None => None,
    };
    let states = read(store).note_states()?;
    let mut import = import.clone();
    if !opts.sync_deletes {
        import.known_notes = known_notes(&states);
    }
    tracing::debug!(
        "note states read in {:.3} s",
        started.elapsed().as_secs_f64()
    );
    let plan = plan_vault(vault, config, &import)?;
    tracing::debug!("vault planned at {:.3} s", started.elapsed().as_secs_f64());
    let by_id: HashMap<&str, &NoteState> = states.iter().map(|s| (s.note_id.as_str(), s)).collect();

    let mut report = SyncReport::default();
    let mut work: Vec<(&NoteBundle, Action, String, String)> = Vec::new();
    for b in &plan.bundles {
        let cd = chunks_digest(&b.chunks);
        let ed = edges_digest(&b.edges);
        let action = match by_id.get(b.note.note_id.as_str()) {
            None => Action::New,
            Some(_) if opts.purge_before_upsert => Action::Changed,
            Some(s) if s.hash != b.note.hash || s.chunks_digest != cd => Action::Changed,
            Some(s) if s.edges_digest != ed => Action::Relinked,
            Some(_) => Action::Unchanged,
        };
        match action {
            Action::New => report.new += 1,
            Action::Changed => report.changed += 1,
            Action::Relinked => report.relinked += 1,
            Action::Unchanged => report.unchanged += 1,
        }
        if action != Action::Unchanged {
            work.push((b, action, cd, ed));
        }
    }
    let deletes = if opts.sync_deletes {
        deletions(&states, &plan)
    } else {
        Vec::new()
    };
    report.deleted = deletes.len();

    let to_embed: usize = work
        .iter()
        .filter(|(_, a, _, _)| *a != Action::Relinked)
        .map(|(b, _, _, _)| b.chunks.len())
        .sum();
    progress.start(to_embed);
    let mut first = true;
    let mut committed = 0;
    for batch in work.chunks(opts.batch_notes.max(1)) {
        if progress.stopped() {
            progress.finish();
            return Err(SyncError::Stopped {
                committed,
                total: work.len(),
            });
        }
        let mut vectors: Vec<Option<Vec<Vec<f32>>>> = Vec::with_capacity(batch.len());
        for (b, action, _, _) in batch {
            if *action == Action::Relinked {
                vectors.push(None);
                continue;
            }
            let windows: Vec<&str> = b.chunks.iter().map(|c| c.window.as_str()).collect();
            let v = embedder
                .embed_passages(&windows)
                .map_err(|source| SyncError::Embed {
                    path: b.note.path.clone(),
                    source,
                })?;
            progress.advance(windows.len());
            report.embedded_chunks += windows.len();
            vectors.push(Some(v));
        }
        let writes: Vec<NoteWrite<'_>> = batch
            .iter()
            .zip(&vectors)
            .map(|((b, _, cd, ed), v)| NoteWrite {
                note: &b.note,
                chunks: &b.chunks,
                vectors: v.as_deref(),
                edges: &b.edges,
                chunks_digest: cd,
                edges_digest: ed,
            })
            .collect();
        let dels: &[String] = if first { &deletes } else { &[] };
        write(store).write_batch(&writes, dels)?;
        first = false;
        committed += batch.len();
    }
    if first && !deletes.is_empty() {
        write(store).write_batch(&[], &deletes)?;
    }
    progress.finish();
    tracing::debug!("writes done at {:.3} s", started.elapsed().as_secs_f64());

    let counts = read(store).counts()?;
    report.notes = counts.notes;
    report.chunks = counts.chunks;
    report.edges = counts.edges;
    report.unresolved = counts.unresolved;
    report.skipped = plan.skipped;
    report.warnings = plan.warnings;
    report.seconds = started.elapsed().as_secs_f64();
    write(store).finish_import(report.seconds)?;
    // Under the read lock: queries go on while the index is built.
    read(store).optimize()?;
    if let (Some(dir), Some(files)) = (&opts.manifest_dir, stamps) {
        manifest::write(dir, config, &import, files, &report, plan.bundles.len());
    }
    Ok(report)
}

/// Stored notes whose file is gone, or that a status now excludes. Notes
/// whose file exists but could not be read are kept.
fn deletions(states: &[NoteState], plan: &ImportPlan) -> Vec<String> {
    let planned: HashSet<&str> = plan
        .bundles
        .iter()
        .map(|b| b.note.note_id.as_str())
        .collect();
    let unreadable: HashSet<&str> = plan
        .skipped
        .iter()
        .filter(|s| !s.by_status)
        .map(|s| s.path.as_str())
        .collect();
    states
        .iter()
        .filter(|s| !planned.contains(s.note_id.as_str()) && !unreadable.contains(s.path.as_str()))
        .map(|s| s.note_id.clone())
        .collect()
}
