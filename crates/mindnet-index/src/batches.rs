//! The batches of a sync: each batch of notes planned again, embedded and
//! linked on this thread while the batch before it is written on another.

use crate::batch::{BatchVectors, embed_batch};
use crate::digests::Digests;
use crate::{
    Action, LinkJudge, Pending, Progress, Ready, SyncError, SyncOptions, SyncReport, Work, read,
    smart, write,
};
use mindnet_core::{Edge, Warning};
use mindnet_embed::Embedder;
use mindnet_ingest::Config;
use mindnet_ingest::plan::{Planned, Planner};
use mindnet_store::{NoteState, Store};
use std::collections::HashMap;
use std::sync::RwLock;
use std::time::Instant;

/// What each batch of notes is planned, embedded and linked with; what it
/// did is counted into `report`.
pub(crate) struct Batches<'a> {
    pub planner: &'a Planner<'a>,
    pub by_id: &'a HashMap<&'a str, &'a NoteState>,
    pub config: &'a Config,
    pub judge: &'a dyn LinkJudge,
    pub embedder: &'a dyn Embedder,
    pub progress: &'a dyn Progress,
    pub verdicts: &'a smart::Verdicts,
    pub targets: smart::Targets<'a>,
    /// Title vectors the smart edges compare, embedded once per sync.
    pub titles: HashMap<String, Vec<f32>>,
    pub report: &'a mut SyncReport,
}

impl Batches<'_> {
    /// Plans, embeds and links one batch of notes.
    fn prepare(&mut self, batch: &[Work]) -> Result<Ready, SyncError> {
        let mut planned = self.pending(batch);
        let embed_started = Instant::now();
        let vectors = embed_batch(self.embedder, &planned)?;
        self.report.embed_seconds += embed_started.elapsed().as_secs_f64();
        let embedded: usize = vectors.iter().flatten().map(Vec::len).sum();
        self.progress.advance(embedded);
        self.report.embedded_chunks += embedded;
        let edges = self.edges(&mut planned, &vectors);
        Ok(Ready {
            notes: batch.len(),
            pending: planned,
            vectors,
            edges,
            deletes: Vec::new(),
        })
    }

    /// The batch's notes read again, each with whether it needs vectors.
    fn pending(&mut self, batch: &[Work]) -> Vec<Pending> {
        let places: Vec<usize> = batch.iter().map(|w| w.place).collect();
        let mut planned: Vec<Pending> = Vec::with_capacity(batch.len());
        for (w, p) in batch.iter().zip(self.planner.bundles(&places)) {
            let bundle = match p {
                Planned::Bundle { bundle, .. } => *bundle,
                // Read a moment ago: the next sync finds out what happened.
                Planned::Unreadable(w) => {
                    self.report.warnings.push(w);
                    continue;
                }
            };
            let digests = Digests::of(&bundle, self.config, self.judge);
            // A file changed since it was looked at: embedded whatever it was.
            let embed = match self.by_id.get(bundle.note.note_id.as_str()) {
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
        planned
    }

    /// Each note's edges: the plan's and the smart ones (the digest stays
    /// the plan's).
    fn edges(
        &mut self,
        planned: &mut [Pending],
        vectors: &[Option<Vec<Vec<f32>>>],
    ) -> Vec<Vec<Edge>> {
        let mut edges: Vec<Vec<Edge>> = Vec::with_capacity(planned.len());
        for (p, v) in planned.iter_mut().zip(vectors) {
            let b = &p.bundle;
            let mut source = BatchVectors {
                chunks: &b.chunks,
                vectors: v.as_deref(),
                embedder: self.embedder,
                titles: &mut self.titles,
            };
            let (smart, problems) = smart::edges_of(
                b,
                &self.config.registry,
                &self.targets,
                self.judge,
                self.verdicts,
                &mut source,
            );
            for problem in problems {
                self.report
                    .warnings
                    .push(Warning::new(&b.note.path, 0, problem));
            }
            let mut all = std::mem::take(&mut p.bundle.edges);
            all.extend(smart);
            edges.push(all);
        }
        edges
    }
}

/// How the writing ended.
pub(crate) enum Written {
    /// Every batch, and the deletions.
    All,
    /// Stopped when asked, after this many notes.
    Stopped(usize),
}

/// Writes the work in batches: batch n is written on a thread of its own
/// while batch n + 1 is planned and embedded, so the writes cost the
/// embedding only the share of a core they take, not their whole time.
/// The deletions go with the first batch (or alone).
pub(crate) fn write_all<S: Store + ?Sized>(
    store: &RwLock<S>,
    work: &[Work],
    deletes: Vec<String>,
    opts: &SyncOptions,
    batches: &mut Batches<'_>,
) -> Result<Written, SyncError> {
    std::thread::scope(|scope| -> Result<Written, SyncError> {
        let (to_writer, ready) = std::sync::mpsc::sync_channel::<Ready>(1);
        let writer = scope.spawn(move || -> Result<usize, SyncError> {
            let mut committed = 0;
            for batch in ready {
                write(store).write_batch(&batch.writes(), &batch.deletes)?;
                committed += batch.notes;
                // Under the read lock, as at the end: queries go on.
                read(store).optimize_midway()?;
            }
            Ok(committed)
        });
        let mut deletes = Some(deletes);
        let mut stopped = false;
        let mut prepared = Ok(());
        for batch in work.chunks(opts.batch_notes.max(1)) {
            if batches.progress.stopped() {
                stopped = true;
                break;
            }
            let ready = match batches.prepare(batch) {
                Ok(ready) => ready,
                Err(e) => {
                    prepared = Err(e);
                    break;
                }
            };
            let ready = Ready {
                deletes: deletes.take().unwrap_or_default(),
                ..ready
            };
            // Fails only when the writer failed: its error follows.
            if to_writer.send(ready).is_err() {
                break;
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
        Ok(if stopped {
            Written::Stopped(written)
        } else {
            Written::All
        })
    })
}
