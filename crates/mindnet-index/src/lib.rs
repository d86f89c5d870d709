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

use crate::batch::BatchVectors;
use crate::batch::embed_batch;
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

fn known_notes<'a>(states: impl IntoIterator<Item = &'a NoteState>) -> Vec<NoteEntry> {
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
    let stamps = match &opts.manifest_dir {
        Some(dir) => {
            manifest::remove(dir).map_err(|source| SyncError::Io {
                path: manifest::path(dir),
                source,
            })?;
            // Only a sync of the whole vault writes a new manifest.
            match opts.only {
                None => Some(manifest::stamps(vault)?),
                Some(_) => None,
            }
        }
        None => None,
    };
    let states = read(store).note_states()?;
    let mut import = import.clone();
    let partial = match &opts.only {
        Some(only) => plan_partial(vault, config, &import, store, &states, only)?,
        None => None,
    };
    // Without a list, or for a change a partial plan cannot decide alone
    // (an `id:` taken from another note): the whole vault.
    let (planner, scope) = match partial {
        Some(p) => (p.planner, Some(p.scope)),
        None => {
            if !opts.sync_deletes {
                import.known_notes = known_notes(&states);
            }
            (Planner::new(vault, config, &import)?, None)
        }
    };
    tracing::debug!("vault read at {:.3} s", started.elapsed().as_secs_f64());
    let by_id: HashMap<&str, &NoteState> = states.iter().map(|s| (s.note_id.as_str(), s)).collect();

    let mut report = SyncReport::default();
    let judge: Arc<dyn LinkJudge> = opts.judge.clone().unwrap_or_else(|| {
        Arc::new(SimilarityJudge {
            rules: config.registry.smart_edges.clone(),
        })
    });
    let digests = |b: &NoteBundle| Digests::of(b, config, judge.as_ref());
    // What each note needs, from its digests against the stored ones; a
    // few hundred notes are planned at a time, so that the whole vault's
    // chunks and edges are never in memory at once.
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
            let d = digests(&bundle);
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
    tracing::debug!("vault planned at {:.3} s", started.elapsed().as_secs_f64());
    let mut deletes = match &scope {
        // A listed file that no longer yields a note leaves the index.
        Some(scope) => deletions(states.iter().filter(|s| scope.contains(&s.path)), &planner),
        None if opts.sync_deletes => deletions(&states, &planner),
        None => Vec::new(),
    };
    report.deleted = deletes.len();

    let to_embed: usize = work
        .iter()
        .filter(|w| w.action != Action::Relinked)
        .map(|w| w.chunks)
        .sum();
    progress.start(to_embed);
    let verdicts = smart::Verdicts::load(opts.manifest_dir.as_deref());
    let mut targets: smart::Targets<'_> = states
        .iter()
        .map(|s| (s.note_id.as_str(), (s.title.as_str(), s.note_type.as_str())))
        .collect();
    for n in planner.notes() {
        targets.insert(&n.note_id, (&n.title, &n.note_type));
    }
    let mut titles: HashMap<String, Vec<f32>> = HashMap::new();
    if !work.is_empty() || !deletes.is_empty() {
        write(store).start_import()?;
    }
    // Plans, embeds and links one batch of notes.
    let mut prepare = |batch: &[Work]| -> Result<Ready, SyncError> {
        let places: Vec<usize> = batch.iter().map(|w| w.place).collect();
        let mut planned: Vec<Pending> = Vec::with_capacity(batch.len());
        for (w, p) in batch.iter().zip(planner.bundles(&places)) {
            let bundle = match p {
                Planned::Bundle { bundle, .. } => *bundle,
                // Read a moment ago: the next sync finds out what happened.
                Planned::Unreadable(w) => {
                    report.warnings.push(w);
                    continue;
                }
            };
            let digests = digests(&bundle);
            // A file changed since it was looked at: embedded whatever it was.
            let embed = match by_id.get(bundle.note.note_id.as_str()) {
                Some(s) if w.action == Action::Relinked => {
                    s.hash != bundle.note.hash || s.chunks_digest != digests.chunks
                }
                _ => true,
            };
            planned.push(Pending {
                bundle,
                embed,
                digests,
            });
        }
        let embed_started = Instant::now();
        let vectors = embed_batch(embedder, &planned)?;
        report.embed_seconds += embed_started.elapsed().as_secs_f64();
        let embedded: usize = vectors.iter().flatten().map(Vec::len).sum();
        progress.advance(embedded);
        report.embedded_chunks += embedded;
        // The plan's edges and the smart ones; the digest stays the plan's.
        let mut edges: Vec<Vec<Edge>> = Vec::with_capacity(planned.len());
        for (p, v) in planned.iter_mut().zip(&vectors) {
            let b = &p.bundle;
            let mut source = BatchVectors {
                chunks: &b.chunks,
                vectors: v.as_deref(),
                embedder,
                titles: &mut titles,
            };
            let (smart, problems) = smart::edges_of(
                b,
                &config.registry,
                &targets,
                judge.as_ref(),
                &verdicts,
                &mut source,
            );
            for problem in problems {
                report.warnings.push(Warning::new(&b.note.path, 0, problem));
            }
            let mut all = std::mem::take(&mut p.bundle.edges);
            all.extend(smart);
            edges.push(all);
        }
        Ok(Ready {
            notes: batch.len(),
            pending: planned,
            vectors,
            edges,
            deletes: Vec::new(),
        })
    };
    // Batch n is written on a thread of its own while batch n + 1 is
    // planned and embedded: the writes cost the embedding only the share of
    // a core they take, not their whole time.
    let (stopped, written) = std::thread::scope(|scope| -> Result<(bool, usize), SyncError> {
        let (to_writer, batches) = std::sync::mpsc::sync_channel::<Ready>(1);
        let writer = scope.spawn(move || -> Result<usize, SyncError> {
            let mut committed = 0;
            for batch in batches {
                write(store).write_batch(&batch.writes(), &batch.deletes)?;
                committed += batch.notes;
                // Under the read lock, as at the end: queries go on.
                read(store).optimize_midway()?;
            }
            Ok(committed)
        });
        let mut deletes = Some(std::mem::take(&mut deletes));
        let mut stopped = false;
        let mut prepared = Ok(());
        for batch in work.chunks(opts.batch_notes.max(1)) {
            if progress.stopped() {
                stopped = true;
                break;
            }
            match prepare(batch) {
                Ok(ready) => {
                    let ready = Ready {
                        deletes: deletes.take().unwrap_or_default(),
                        ..ready
                    };
                    // Fails only when the writer failed: its error follows.
                    if to_writer.send(ready).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    prepared = Err(e);
                    break;
                }
            }
        }
        if let Some(deletes) = deletes.filter(|d| !d.is_empty() && !stopped) {
            let _ = to_writer.send(Ready {
                deletes,
                ..Ready::default()
            });
        }
        drop(to_writer);
        let written = match writer.join() {
            Ok(written) => written?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        prepared?;
        Ok((stopped, written))
    })?;
    if stopped {
        progress.finish();
        return Err(SyncError::Stopped {
            committed: written,
            total: work.len(),
        });
    }
    progress.finish();
    verdicts.save();
    tracing::debug!("writes done at {:.3} s", started.elapsed().as_secs_f64());

    let counts = read(store).counts()?;
    report.notes = counts.notes;
    report.chunks = counts.chunks;
    report.edges = counts.edges;
    report.unresolved = counts.unresolved;
    let planned_notes = planner.notes().len();
    report.skipped = planner.plan.skipped;
    report.warnings.append(&mut warnings);
    report.warnings.extend(planner.plan.warnings);
    report.warnings.sort();
    report.warnings.dedup();
    report.seconds = started.elapsed().as_secs_f64();
    write(store).finish_import(report.seconds)?;
    // Under the read lock: queries go on while the index is built.
    read(store).optimize()?;
    // A partial sync leaves the manifest removed: other files may have
    // changed, and the next import must look at every note.
    if let (Some(dir), Some(files), None) = (&opts.manifest_dir, stamps, &scope) {
        manifest::write(dir, config, &import, files, &report, planned_notes);
    }
    Ok(report)
}
