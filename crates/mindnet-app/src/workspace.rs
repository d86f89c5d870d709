//! `Workspace`: one open index, its embedder and its configuration, shared
//! by every thread of a process (rust-analyzer's `AnalysisHost`, with the
//! store's `RwLock` as the snapshot boundary).
//!
//! Invariants:
//! - Reads run concurrently; each holds the read lock for the whole of its
//!   search, so it sees the store between two batch commits: every note
//!   whole or not at all (STO-3).
//! - A sync embeds without any lock and takes the write lock only to commit
//!   a batch of notes, so queries keep answering during a sync.
//! - One sync at a time (`sync_lock`); the catalog and the edge graph live
//!   in the store and are updated by the same commit.
//! - The query embedding is computed before the read lock is taken.

use crate::api::{QueryResponse, SyncProgress, SyncSummary};
use crate::ops::query::{DEFAULT_K, MAX_K, QueryRequest};
use crate::ops::sync::SyncRequest;
use crate::{AppError, Settings, open};
use mindnet_core::time::now;
use mindnet_embed::Embedder;
use mindnet_index::{Progress, SyncOptions};
use mindnet_ingest::Config;
use mindnet_retrieve::causal::DecisionEngine;
use mindnet_retrieve::log::Logs;
use mindnet_retrieve::{Filters, Query, Retriever, RetrieverConfig};
use mindnet_store::Store;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, RwLockReadGuard};
use std::time::Instant;

/// Whether opening may create a new, empty index (for the chosen model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Imports, evaluations and the server: a vault without an index gets one.
    CreateIfMissing,
    /// Reads: no index is an error that says to import first.
    Existing,
}

pub struct Workspace {
    settings: Settings,
    config: Config,
    retriever: RetrieverConfig,
    engine: DecisionEngine,
    embedder: Box<dyn Embedder>,
    store: open::SharedStore,
    pub(crate) logs: Logs,
    pub(crate) chat: crate::chat::ChatServices,
    sync_lock: Mutex<()>,
    /// Held by every operation that changes notes (`writes.rs`), from its
    /// read of a file to its sync: two writers never interleave.
    write_lock: Mutex<()>,
    progress: Tracker,
    /// Set when the process shuts down: a running sync stops after its
    /// current batch.
    stop: AtomicBool,
}

/// Counts the running sync for `status`, and forwards to a caller's progress.
#[derive(Default)]
struct Tracker {
    state: Mutex<SyncProgress>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Forward<'a> {
    tracker: &'a Tracker,
    outer: &'a dyn Progress,
    stop: &'a AtomicBool,
}

impl Progress for Forward<'_> {
    fn start(&self, n: usize) {
        let mut s = lock(&self.tracker.state);
        s.to_embed = n;
        s.embedded = 0;
        drop(s);
        self.outer.start(n);
    }
    fn advance(&self, n: usize) {
        lock(&self.tracker.state).embedded += n;
        self.outer.advance(n);
    }
    fn finish(&self) {
        self.outer.finish();
    }
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.outer.stopped()
    }
}

/// The whole pool of a search in rank order (note ids), and its second hop.
pub(crate) struct RankedPool {
    pub notes: Vec<String>,
    pub hop: Option<HopTrace>,
}

/// The second hop of a search, by note id: the hit it followed, the names
/// and the notes it found, best first.
pub(crate) struct HopTrace {
    pub from: String,
    pub names: Vec<String>,
    pub notes: Vec<String>,
}

/// Every intent the name walk is for (`walk.intents` of the retriever)
/// is one the decision engine defines: a name that is not would never
/// match, and the walk would be off without a word.
fn walk_intents_defined(
    settings: &Settings,
    retriever: &RetrieverConfig,
    engine: &DecisionEngine,
) -> Result<(), AppError> {
    let Some(unknown) = retriever
        .walk
        .intents
        .iter()
        .find(|i| !engine.intents.contains_key(*i))
    else {
        return Ok(());
    };
    let file = |f: &Option<std::path::PathBuf>, name: &str| {
        f.as_ref()
            .map_or(format!("<built-in {name}>"), |p| p.display().to_string())
    };
    let known: Vec<&str> = engine.intents.keys().map(String::as_str).collect();
    Err(AppError::bad_request(format!(
        "{}: walk.intents: `{unknown}` is no intent of {} (its intents: {})",
        file(&settings.files.retriever, "retriever.yaml"),
        file(&settings.files.decision_engine, "decision_engine.yaml"),
        known.join(", ")
    )))
}

impl Workspace {
    /// Opens the index of `settings` with the configuration files the
    /// settings name.
    pub fn open(settings: Settings, mode: OpenMode) -> Result<Self, AppError> {
        let config = settings.load_config()?;
        let retriever = settings.load_retriever()?;
        let engine = settings.load_engine()?;
        walk_intents_defined(&settings, &retriever, &engine)?;
        let embedder = open::embedder(&settings)?;
        let t = Instant::now();
        let store = match mode {
            OpenMode::CreateIfMissing => open::store_for(&settings, embedder.as_ref())?,
            OpenMode::Existing => open::existing_store(&settings)?,
        };
        tracing::debug!("index opened in {:.3} s", t.elapsed().as_secs_f64());
        store
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .edge_cache()
            .leave_out(config.vocab.structural_kinds());
        let ws = Workspace {
            logs: Logs::new(&settings.data),
            chat: crate::chat::ChatServices::new(&settings),
            settings,
            config,
            retriever,
            engine,
            embedder,
            store,
            sync_lock: Mutex::new(()),
            write_lock: Mutex::new(()),
            progress: Tracker::default(),
            stop: AtomicBool::new(false),
        };
        ws.finish_interrupted_move();
        Ok(ws)
    }

    /// A move a kill interrupted is finished (`move_journal.rs`) and its
    /// files synced, before anything reads the index.
    fn finish_interrupted_move(&self) {
        let Ok(vault) = self.settings.require_vault() else {
            return;
        };
        let Some((say, paths)) =
            crate::move_journal::finish_interrupted(vault, &self.settings.data)
        else {
            return;
        };
        tracing::warn!("{say}");
        if let Err(e) = self.sync_paths(paths) {
            tracing::warn!("sync after the interrupted move: {}", e.message);
        }
    }

    /// The lock of the operations that change notes.
    pub(crate) fn writing(&self) -> MutexGuard<'_, ()> {
        lock(&self.write_lock)
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn embedder(&self) -> &dyn Embedder {
        self.embedder.as_ref()
    }

    pub(crate) fn engine(&self) -> &DecisionEngine {
        &self.engine
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, dyn Store> {
        self.store.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Loads what every query needs: the note catalog and the model's
    /// weights.
    pub fn warm_up(&self) -> Result<(), AppError> {
        let t = Instant::now();
        self.read().catalog()?;
        self.embedder.embed_query("warm-up")?;
        tracing::info!("warm in {:.2} s", t.elapsed().as_secs_f64());
        Ok(())
    }

    /// Stops a running sync after its current batch and refuses new ones;
    /// returns once no sync runs.
    pub fn shut_down(&self) {
        self.stop.store(true, Ordering::SeqCst);
        drop(lock(&self.sync_lock));
    }

    /// Brings the index up to date with these files (and the notes whose
    /// links they touch), as a write does before it answers.
    pub(crate) fn sync_paths(&self, mut paths: Vec<String>) -> Result<SyncSummary, AppError> {
        paths.sort();
        paths.dedup();
        let req = SyncRequest {
            paths,
            ..SyncRequest::default()
        };
        self.sync(&req, &())
    }

    /// Brings the index up to date with the whole vault.
    pub fn sync(
        &self,
        req: &SyncRequest,
        progress: &dyn Progress,
    ) -> Result<SyncSummary, AppError> {
        let vault = self.settings.require_vault()?;
        let _one = lock(&self.sync_lock);
        if self.stop.load(Ordering::SeqCst) {
            return Err(AppError::unavailable(
                "shutting down; the sync was not started",
            ));
        }
        {
            let mut s = lock(&self.progress.state);
            s.running = true;
            s.started = Some(now());
            s.embedded = 0;
            s.to_embed = 0;
        }
        let only = if req.paths.is_empty() {
            None
        } else {
            Some(
                req.paths
                    .iter()
                    .map(|p| checked_path(p))
                    .collect::<Result<std::collections::BTreeSet<String>, AppError>>()?,
            )
        };
        let opts = SyncOptions {
            sync_deletes: req.sync_deletes,
            purge_before_upsert: req.purge_before_upsert,
            manifest_dir: self.settings.manifest_dir(),
            only,
            judge: self.chat.link_judge(),
            ..SyncOptions::default()
        };
        let forward = Forward {
            tracker: &self.progress,
            outer: progress,
            stop: &self.stop,
        };
        let result = mindnet_index::sync(
            vault,
            &self.config,
            &self.settings.import_options(),
            &*self.store,
            self.embedder.as_ref(),
            &opts,
            &forward,
        );
        let mut s = lock(&self.progress.state);
        s.running = false;
        s.last_finished = Some(now());
        match result {
            Ok(report) => {
                let summary = SyncSummary::from(report);
                s.last = Some(summary.clone());
                s.last_error = None;
                Ok(summary)
            }
            Err(e) => {
                let e = AppError::from(e);
                s.last_error = Some(e.message.clone());
                Err(e)
            }
        }
    }

    pub(crate) fn query_of(&self, req: &QueryRequest) -> Result<Query, AppError> {
        let text = req.text.trim();
        if text.is_empty() {
            return Err(AppError::bad_request(
                "`text` is empty; give a question or search text",
            ));
        }
        let k = req.k.unwrap_or(DEFAULT_K);
        if !(1..=MAX_K).contains(&k) {
            return Err(AppError::bad_request(format!(
                "`k` must be 1 to {MAX_K}, not {k}"
            )));
        }
        if let Some(intent) = &req.intent
            && !self.engine.intents.contains_key(intent)
        {
            return Err(AppError::bad_request(format!(
                "unknown intent `{intent}`; known: {}",
                self.engine
                    .intents
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(Query {
            text: text.to_string(),
            mode: req.mode.into(),
            k,
            graph: !req.no_graph,
            filters: Filters {
                types: req.types.clone(),
                tags: req.tags.clone(),
                statuses: req.statuses.clone(),
                paths: req.paths.clone(),
            },
            group_by_note: !req.chunks,
            intent: req.intent.clone(),
            lang: req.lang.into(),
            traverse: !req.no_traversal,
        })
    }

    /// Embeds a checked query, searches, and logs the search.
    pub(crate) fn run_query(&self, q: &Query) -> Result<QueryResponse, AppError> {
        let result = self.answer(q)?;
        self.logs.record_search(&result, &now())?;
        Ok(result.into())
    }

    /// A checked query embedded and searched, not logged (`run_query`
    /// logs it; `related` asks on every note a pane shows).
    pub(crate) fn answer(&self, q: &Query) -> Result<mindnet_retrieve::QueryResult, AppError> {
        let t = Instant::now();
        let vector = self.embedder.embed_query(&q.text)?;
        let embed_ms = t.elapsed().as_secs_f64() * 1000.0;
        tracing::debug!("query embedded in {embed_ms:.1} ms (the model loads on first use)");
        let mut result = self.search(q, &vector)?;
        result.timings.embed_ms = embed_ms;
        Ok(result)
    }

    /// A search with an embedded query, under the read lock.
    pub(crate) fn search(
        &self,
        q: &Query,
        vector: &[f32],
    ) -> Result<mindnet_retrieve::QueryResult, AppError> {
        self.with_retriever(|r| r.search(q, vector))
    }

    /// The candidates of a query with the graph, for `tune` to re-score.
    pub(crate) fn pool(
        &self,
        q: &Query,
        vector: &[f32],
    ) -> Result<mindnet_retrieve::Pool, AppError> {
        self.with_retriever(|r| r.pool(q, vector, true))
    }

    /// Every candidate note of a query in score order (the search's order,
    /// past its `k`), for `eval`'s deep recall and ceiling.
    pub(crate) fn ranked_pool(
        &self,
        q: &Query,
        vector: &[f32],
        intent: &str,
    ) -> Result<RankedPool, AppError> {
        self.with_retriever(|r| {
            let graph = q.graph && q.mode == mindnet_retrieve::Mode::Hybrid;
            let pool = r.pool(q, vector, graph)?;
            let scored = mindnet_retrieve::score::score(&pool, r.config(), intent, graph);
            let id = |i: usize| pool.notes[i].note_id.clone();
            Ok(RankedPool {
                notes: mindnet_retrieve::ranked_notes(&pool, &scored),
                hop: pool.bridge.as_ref().map(|b| HopTrace {
                    from: id(b.from),
                    names: b.names.clone(),
                    notes: b.notes.iter().map(|n| id(n.note)).collect(),
                }),
            })
        })
    }

    /// Runs `f` with a retriever over the store, under the read lock.
    fn with_retriever<T>(
        &self,
        f: impl FnOnce(&Retriever<'_>) -> Result<T, mindnet_retrieve::RetrieveError>,
    ) -> Result<T, AppError> {
        let store = self.read();
        let retriever = match Retriever::new(
            &*store,
            self.embedder.as_ref(),
            &self.config.vocab,
            &self.config.registry.causal,
            &self.retriever,
            &self.engine,
        ) {
            Err(mindnet_retrieve::RetrieveError::EmptyIndex) => {
                let s = lock(&self.progress.state).clone();
                return Err(if s.running {
                    AppError::unavailable(format!(
                        "the index is being built: {} of {} chunks embedded; try again when it has finished (GET /status)",
                        s.embedded, s.to_embed
                    ))
                } else {
                    mindnet_retrieve::RetrieveError::EmptyIndex.into()
                });
            }
            other => other?,
        };
        Ok(f(&retriever)?)
    }

    /// What the running (or the last) sync has done.
    pub(crate) fn sync_progress(&self) -> SyncProgress {
        lock(&self.progress.state).clone()
    }
}

/// A vault-relative path as the scanner writes it, or an error.
fn checked_path(p: &str) -> Result<String, AppError> {
    let path = std::path::Path::new(p);
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::Normal(s) => parts.push(s.to_string_lossy().to_string()),
            std::path::Component::CurDir => {}
            _ => {
                return Err(AppError::bad_request(format!(
                    "`paths`: {p:?} must be relative to the vault, without `..`"
                )));
            }
        }
    }
    if parts.is_empty() {
        return Err(AppError::bad_request("`paths`: an empty path"));
    }
    Ok(parts.join("/"))
}
