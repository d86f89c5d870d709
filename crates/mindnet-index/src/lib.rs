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
//!
//! Here: the options, the report and `sync`. `digests.rs` decides what a
//! note needs, `batch.rs` embeds a batch, `partial.rs` plans a sync of some
//! files; `manifest.rs` answers an unchanged vault without opening the
//! index, `smart.rs` proposes links.

use crate::batches::{Batches, Written, write_all};
use crate::digests::Digests;
use crate::partial::deletions;
use crate::partial::plan_partial;
use mindnet_core::{Edge, NoteBundle, Warning};
use mindnet_embed::{EmbedError, Embedder};
use mindnet_ingest::plan::{Planned, Planner};
use mindnet_ingest::resolve::NoteEntry;
use mindnet_ingest::{Config, ImportOptions, IngestError, Skipped};
use mindnet_store::{NoteState, NoteWrite, Store, StoreError};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

pub mod manifest;
pub mod smart;

pub use smart::{LinkCandidate, LinkJudge, SimilarityJudge};

mod batch;
mod batches;
mod digests;
mod partial;

pub use digests::{chunks_digest, edges_digest};

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
    /// Only these files changed (vault-relative, `/`-separated): plan them,
    /// and the notes whose links their names can change, instead of the
    /// whole vault. A listed file that is gone is deleted.
    pub only: Option<BTreeSet<String>>,
    /// Who judges smart edges; `None`: the similarity rule of types.yaml.
    pub judge: Option<Arc<dyn LinkJudge>>,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            sync_deletes: false,
            purge_before_upsert: false,
            batch_notes: 32,
            manifest_dir: None,
            only: None,
            judge: None,
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
    /// Of `seconds`, the time spent embedding chunks.
    pub embed_seconds: f64,
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

/// Notes planned at a time to decide what each needs.
const DECIDE_NOTES: usize = 256;

/// A note that needs writing: its place in the plan.
struct Work {
    place: usize,
    action: Action,
    chunks: usize,
}

/// A note of the batch being written.
struct Pending {
    bundle: NoteBundle,
    /// Whether its chunks need vectors (not for a relinked note).
    embed: bool,
    digests: Digests,
}

/// A batch ready to be written: its notes with their vectors and edges
/// (the plan's and the smart ones), and the notes to delete.
#[derive(Default)]
struct Ready {
    /// Notes of the batch, written or not (one may have become unreadable).
    notes: usize,
    pending: Vec<Pending>,
    vectors: Vec<Option<Vec<Vec<f32>>>>,
    edges: Vec<Vec<Edge>>,
    deletes: Vec<String>,
}

impl Ready {
    fn writes(&self) -> Vec<NoteWrite<'_>> {
        self.pending
            .iter()
            .zip(&self.vectors)
            .zip(&self.edges)
            .map(|((p, v), edges)| NoteWrite {
                note: &p.bundle.note,
                chunks: &p.bundle.chunks,
                vectors: v.as_deref(),
                edges,
                chunks_digest: &p.digests.chunks,
                edges_digest: &p.digests.edges,
            })
            .collect()
    }
}

/// Indexed notes as the link resolver knows them (a partial plan resolves
/// against them; a move resolves before and after with them).
pub fn known_notes<'a>(states: impl IntoIterator<Item = &'a NoteState>) -> Vec<NoteEntry> {
    states
        .into_iter()
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

/// This process as the index's one writer for the length of a sync: the
/// plan is made from what the index holds once no one else writes to it.
struct Writing<'a, S: Store + ?Sized>(&'a RwLock<S>);

impl<'a, S: Store + ?Sized> Writing<'a, S> {
    fn begin(store: &'a RwLock<S>) -> Result<Self, SyncError> {
        // Waiting for another writer holds no lock: readers go on.
        if read(store).begin_write()? {
            write(store).reload();
        }
        Ok(Writing(store))
    }
}

impl<S: Store + ?Sized> Drop for Writing<'_, S> {
    fn drop(&mut self) {
        read(self.0).end_write();
    }
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
    let _writing = Writing::begin(store)?;
    let stamps = manifest_stamps(vault, opts)?;
    let states = read(store).note_states()?;
    let mut import = import.clone();
    let (planner, scope) = planner(vault, config, &mut import, store, &states, opts)?;
    tracing::debug!("vault read at {:.3} s", started.elapsed().as_secs_f64());
    let by_id: HashMap<&str, &NoteState> = states.iter().map(|s| (s.note_id.as_str(), s)).collect();
    let judge: Arc<dyn LinkJudge> = opts.judge.clone().unwrap_or_else(|| {
        Arc::new(SimilarityJudge {
            rules: config.registry.smart_edges.clone(),
        })
    });
    let mut report = SyncReport::default();
    let decided = decide(&planner, &by_id, config, judge.as_ref(), opts, &mut report);
    tracing::debug!("vault planned at {:.3} s", started.elapsed().as_secs_f64());
    let deletes = match &scope {
        // A listed file that no longer yields a note leaves the index.
        Some(scope) => deletions(states.iter().filter(|s| scope.contains(&s.path)), &planner),
        None if opts.sync_deletes => deletions(&states, &planner),
        None => Vec::new(),
    };
    report.deleted = deletes.len();
    let work = decided.work;
    progress.start(
        work.iter()
            .filter(|w| w.action != Action::Relinked)
            .map(|w| w.chunks)
            .sum(),
    );
    if !work.is_empty() || !deletes.is_empty() {
        write(store).start_import()?;
    }
    let verdicts = smart::Verdicts::load(opts.manifest_dir.as_deref());
    let mut batches = Batches {
        planner: &planner,
        by_id: &by_id,
        config,
        judge: judge.as_ref(),
        embedder,
        progress,
        verdicts: &verdicts,
        targets: targets(&states, &planner),
        titles: HashMap::new(),
        report: &mut report,
    };
    let written = write_all(store, &work, deletes, opts, &mut batches)?;
    progress.finish();
    if let Written::Stopped(committed) = written {
        return Err(SyncError::Stopped {
            committed,
            total: work.len(),
        });
    }
    verdicts.save();
    tracing::debug!("writes done at {:.3} s", started.elapsed().as_secs_f64());
    let planned_notes = planner.notes().len();
    report.warnings.extend(decided.warnings);
    finish(store, &mut report, planner, started)?;
    // A partial sync leaves the manifest removed: other files may have
    // changed, and the next import must look at every note.
    if let (Some(dir), Some(files), None) = (&opts.manifest_dir, stamps, &scope) {
        manifest::write(dir, config, &import, files, &report, planned_notes);
    }
    Ok(report)
}

/// The file stamps a whole sync writes into a new manifest, after removing
/// the old one (any write makes it stale); `None` for a partial sync or
/// without a manifest.
fn manifest_stamps(
    vault: &Path,
    opts: &SyncOptions,
) -> Result<Option<Vec<manifest::Stamp>>, SyncError> {
    let Some(dir) = &opts.manifest_dir else {
        return Ok(None);
    };
    manifest::remove(dir).map_err(|source| SyncError::Io {
        path: manifest::path(dir),
        source,
    })?;
    match opts.only {
        None => Ok(Some(manifest::stamps(vault)?)),
        Some(_) => Ok(None),
    }
}

/// The planner of the notes to look at, and for a partial sync the files
/// it was asked about. Without a list, or for a change a partial plan
/// cannot decide alone (an `id:` taken from another note): the whole vault.
fn planner<'c, S: Store + ?Sized>(
    vault: &Path,
    config: &'c Config,
    import: &mut ImportOptions,
    store: &RwLock<S>,
    states: &[NoteState],
    opts: &SyncOptions,
) -> Result<(Planner<'c>, Option<BTreeSet<String>>), SyncError> {
    let partial = match &opts.only {
        Some(only) => plan_partial(vault, config, import, store, states, only)?,
        None => None,
    };
    if let Some(p) = partial {
        return Ok((p.planner, Some(p.scope)));
    }
    if !opts.sync_deletes {
        import.known_notes = known_notes(states);
    }
    Ok((Planner::new(vault, config, import)?, None))
}

/// What the notes of a plan need, and the warnings of planning them.
struct Decided {
    work: Vec<Work>,
    warnings: Vec<Warning>,
}

/// What each note needs, from its digests against the stored ones,
/// counted into `report`. A few hundred notes are planned at a time, so
/// that the whole vault's chunks and edges are never in memory at once.
fn decide(
    planner: &Planner<'_>,
    by_id: &HashMap<&str, &NoteState>,
    config: &Config,
    judge: &dyn LinkJudge,
    opts: &SyncOptions,
    report: &mut SyncReport,
) -> Decided {
    let mut work: Vec<Work> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let places: Vec<usize> = (0..planner.notes().len()).collect();
    for group in places.chunks(DECIDE_NOTES) {
        for (i, planned) in group.iter().zip(planner.bundles(group)) {
            let (bundle, mut w) = match planned {
                Planned::Bundle { bundle, warnings } => (*bundle, warnings),
                Planned::Unreadable(w) => {
                    warnings.push(w);
                    continue;
                }
            };
            warnings.append(&mut w);
            let d = Digests::of(&bundle, config, judge);
            let stored = by_id.get(bundle.note.note_id.as_str()).copied();
            let action = d.action(stored, &bundle.note.hash, opts);
            match action {
                Action::New => report.new += 1,
                Action::Changed => report.changed += 1,
                Action::Relinked => report.relinked += 1,
                Action::Unchanged => report.unchanged += 1,
            }
            if action != Action::Unchanged {
                work.push(Work {
                    place: *i,
                    action,
                    chunks: bundle.chunks.len(),
                });
            }
        }
    }
    Decided { work, warnings }
}

/// Every note a smart edge can point at, by id: its title and type, the
/// plan's where it has one.
fn targets<'a>(states: &'a [NoteState], planner: &'a Planner<'_>) -> smart::Targets<'a> {
    let mut targets: smart::Targets<'a> = states
        .iter()
        .map(|s| (s.note_id.as_str(), (s.title.as_str(), s.note_type.as_str())))
        .collect();
    for n in planner.notes() {
        targets.insert(&n.note_id, (&n.title, &n.note_type));
    }
    targets
}

/// The index's totals, the plan's skips and warnings, and the time into
/// the report; the import finished and the index built.
fn finish<S: Store + ?Sized>(
    store: &RwLock<S>,
    report: &mut SyncReport,
    planner: Planner<'_>,
    started: Instant,
) -> Result<(), SyncError> {
    let counts = read(store).counts()?;
    report.notes = counts.notes;
    report.chunks = counts.chunks;
    report.edges = counts.edges;
    report.unresolved = counts.unresolved;
    report.skipped = planner.plan.skipped;
    report.warnings.extend(planner.plan.warnings);
    report.warnings.sort();
    report.warnings.dedup();
    report.seconds = started.elapsed().as_secs_f64();
    write(store).finish_import(report.seconds)?;
    // Under the read lock: queries go on while the index is built.
    read(store).optimize()?;
    Ok(())
}
