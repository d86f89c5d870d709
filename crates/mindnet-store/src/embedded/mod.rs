//! The default store: three Qdrant Edge shards under `<data>/qdrant/`.
//!
//! Here: the store and opening it. `shards.rs` loads a shard, `filters.rs`
//! spells filters, `writer.rs` is the write protocol's view of the shards,
//! `reads.rs` implements `Store`, `optimize.rs` builds the vector index.

use crate::commit::{self};
use crate::embedded::filters::jp;
use crate::embedded::shards::bm25;
use crate::embedded::shards::open_shard;
use crate::embedded::shards::wal;
use crate::embedded::writer::Shards;
use crate::meta::{self, ModelInfo, StoreMeta, io};
use crate::payload::{self, BM25, CHUNKS, DENSE, EDGES, NOTE_STATE_FIELDS, NOTES};
use crate::space;
use crate::{Catalog, EdgeCache, NoteState, StoreError};
use mindnet_core::Edge;
use qdrant_edge::bm25_embed::EdgeBm25;
use qdrant_edge::{
    Distance, EdgeConfigBuilder, EdgeShard, EdgeSparseVectorParamsBuilder, EdgeVectorParamsBuilder,
    Filter, Modifier, ScrollRequest, WithPayloadInterface, WithVector,
};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::AtomicUsize;

pub(crate) mod filters;
mod optimize;
mod reads;
mod shards;
mod writer;

const JOURNAL: &str = "pending.json";

/// Whether the index folder `dir` holds the write journal of a batch that
/// never finished (or a torn one): only opening the index repairs it, or
/// refuses it.
pub fn journal_left(dir: &Path) -> bool {
    dir.join(JOURNAL).exists()
}
/// Held while a new index is created.
const CREATE_LOCK: &str = "create.lock";
const PAGE: usize = 1024;
/// Chunks written before a long import stops to optimize. Every BM25 vector
/// goes into the appendable segment's in-memory posting lists, and Qdrant
/// Edge's insert rewrites every earlier entry of each of its terms' lists,
/// so writing grows quadratic in that segment's size. Optimizing midway
/// indexes the segment, makes it immutable and starts an empty appendable
/// one. Measured in docs/benchmarks.md ("Qdrant server backend: cost as the
/// vault grows").
const OPTIMIZE_EVERY_CHUNKS: usize = 20_000;
/// The segment count Qdrant's merge optimizer keeps during a long import:
/// high enough that it never merges there. With the default (half the cores,
/// at least 2) every midway optimize merged all segments and rebuilt their
/// HNSW graph (12, 26, 57 s at 20k, 40k, 60k chunks), quadratic again; the
/// final `optimize` merges once.
const MIDWAY_SEGMENTS: usize = 1_000;

pub struct EmbeddedStore {
    dir: PathBuf,
    meta: StoreMeta,
    notes: EdgeShard,
    chunks: EdgeShard,
    edges: EdgeShard,
    bm25: EdgeBm25,
    /// Neighbourhoods read so far; every write forgets what it changed.
    edge_cache: EdgeCache,
    /// Built on first use, then kept current by every write.
    catalog: OnceLock<Catalog>,
    /// Held while the catalog is built, so concurrent first readers build it
    /// once.
    building: std::sync::Mutex<()>,
    /// Chunks written since the last `optimize`; see `OPTIMIZE_EVERY_CHUNKS`.
    unoptimized: AtomicUsize,
}

impl EmbeddedStore {
    /// Opens the index in `dir`, creating it for `model` if there is none.
    /// An index built by another model is refused before anything is touched.
    pub fn open(dir: &Path, model: &ModelInfo, lang: &str) -> Result<Self, StoreError> {
        match meta::read(dir)? {
            Some(m) if m.model != *model => Err(StoreError::ModelMismatch {
                path: dir.to_path_buf(),
                stored: m.model.name,
                stored_dim: m.model.dim,
                requested: model.name.clone(),
                requested_dim: model.dim,
            }),
            Some(m) => Self::open_with(dir, m),
            None => Self::create(dir, model, lang),
        }
    }

    /// A new index. Two processes can create one at the same moment (two
    /// imports of a fresh vault): a lock file takes them in turn, and
    /// `meta.json` is written last, so whoever finds it finds the shards
    /// complete.
    fn create(dir: &Path, model: &ModelInfo, lang: &str) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        space::ensure_room(dir, 0, "creating the index")?;
        let path = dir.join(CREATE_LOCK);
        let lock = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
        lock.lock().map_err(|e| io(&path, e))?;
        if meta::read(dir)?.is_some() {
            // The other process made it meanwhile.
            drop(lock);
            return Self::open(dir, model, lang);
        }
        let m = StoreMeta {
            format: meta::FORMAT,
            model: model.clone(),
            lang: lang.to_string(),
            created: mindnet_core::time::now(),
            last_import: None,
            last_import_seconds: None,
            import_started: None,
        };
        let store = Self::open_with(dir, m.clone())?;
        meta::write(dir, &m)?;
        Ok(store)
    }

    /// Opens an existing index whatever its model (for `status` and `check`).
    pub fn open_existing(dir: &Path) -> Result<Self, StoreError> {
        let meta = meta::read(dir)?.ok_or_else(|| StoreError::Io {
            path: dir.to_path_buf(),
            message: "no mindnet index here; run `mindnet import <VAULT>` first".into(),
        })?;
        Self::open_with(dir, meta)
    }

    fn open_with(dir: &Path, meta: StoreMeta) -> Result<Self, StoreError> {
        space::explain_sigbus(dir);
        let root = dir.join("qdrant");
        let dim = meta.model.dim;
        let indexes = payload::indexes;
        let payload_only = || EdgeConfigBuilder::new().wal_options(wal()).build();
        let chunk_config = || {
            EdgeConfigBuilder::new()
                .vector(
                    DENSE,
                    EdgeVectorParamsBuilder::new(dim, Distance::Cosine).build(),
                )
                .sparse_vector(
                    BM25,
                    EdgeSparseVectorParamsBuilder::new()
                        .modifier(Modifier::Idf)
                        .build(),
                )
                .wal_options(wal())
                .build()
        };
        // Loading a shard builds its payload indexes (and the chunks' BM25
        // index) in memory: seconds on a large vault, so the edges and the
        // chunks load side by side. The notes shard first, alone: its lock
        // is the index's lock, so two processes never each hold a part of
        // the index and wait for the other's (a deadlock).
        let t = std::time::Instant::now();
        let notes = open_shard(&root.join(NOTES), payload_only, indexes(NOTES))?;
        let (edges, chunks) = std::thread::scope(|s| {
            let edges = s.spawn(|| open_shard(&root.join(EDGES), payload_only, indexes(EDGES)));
            let chunks = open_shard(&root.join(CHUNKS), chunk_config, indexes(CHUNKS));
            let edges = edges
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (edges, chunks)
        });
        let (edges, chunks) = (edges?, chunks?);
        tracing::debug!("shards loaded in {:.3} s", t.elapsed().as_secs_f64());
        let mut store = EmbeddedStore {
            dir: dir.to_path_buf(),
            bm25: bm25(&meta.lang)?,
            meta,
            notes,
            chunks,
            edges,
            edge_cache: EdgeCache::default(),
            catalog: OnceLock::new(),
            building: std::sync::Mutex::new(()),
            unoptimized: AtomicUsize::new(0),
        };
        store.recover()?;
        Ok(store)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn chunk_shard(&self) -> &EdgeShard {
        &self.chunks
    }

    pub(crate) fn bm25_query(&self, text: &str) -> qdrant_edge::SparseVector {
        self.bm25.embed_query(text)
    }

    /// Undoes a batch a crash interrupted: its notes are removed completely
    /// and will be imported again as new.
    fn recover(&mut self) -> Result<(), StoreError> {
        let path = self.dir.join(JOURNAL);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io(&path, e)),
        };
        let ids: Vec<String> = serde_json::from_str(&text).map_err(|e| StoreError::Journal {
            path: path.clone(),
            message: e.to_string(),
        })?;
        commit::undo(&mut self.shards(), &ids)
    }

    fn shards(&self) -> Shards<'_> {
        Shards {
            dir: &self.dir,
            notes: &self.notes,
            chunks: &self.chunks,
            edges: &self.edges,
        }
    }

    pub(crate) fn scroll(
        &self,
        shard: &EdgeShard,
        filter: Option<Filter>,
        with_payload: WithPayloadInterface,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        Ok(self
            .scroll_records(shard, filter, with_payload, WithVector::Bool(false))?
            .into_iter()
            .filter_map(|r| r.payload.map(|p| p.0))
            .collect())
    }

    fn scroll_records(
        &self,
        shard: &EdgeShard,
        filter: Option<Filter>,
        with_payload: WithPayloadInterface,
        with_vector: WithVector,
    ) -> Result<Vec<qdrant_edge::Record>, StoreError> {
        let mut out = Vec::new();
        let mut offset = None;
        loop {
            let (records, next) = shard.scroll(ScrollRequest {
                offset,
                limit: Some(PAGE),
                filter: filter.clone(),
                with_payload: Some(with_payload.clone()),
                with_vector: with_vector.clone(),
                order_by: None,
            })?;
            out.extend(records);
            match next {
                Some(n) => offset = Some(n),
                None => return Ok(out),
            }
        }
    }

    pub(crate) fn shard(&self, name: &str) -> &EdgeShard {
        self.shards().shard(name)
    }

    /// Reads the note payloads (all but the full text) from the notes shard.
    fn load_note_states(&self) -> Result<Vec<NoteState>, StoreError> {
        let with = WithPayloadInterface::Fields(NOTE_STATE_FIELDS.iter().map(|f| jp(f)).collect());
        self.scroll(&self.notes, None, with)?
            .into_iter()
            .map(payload::note_state)
            .collect()
    }

    /// The edges matching a filter, sorted by edge id.
    fn edges_where(&self, filter: Filter) -> Result<Vec<Edge>, StoreError> {
        payload::sorted_edges(self.scroll(
            &self.edges,
            Some(filter),
            WithPayloadInterface::Bool(true),
        )?)
    }
}
