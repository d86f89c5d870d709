//! The default store: three Qdrant Edge shards under `<data>/qdrant/`.

use crate::catalog::built_once;
use crate::commit::{self, Kept, Point, Writer};
use crate::meta::{self, ModelInfo, StoreMeta, io, write_durably};
use crate::payload::{
    self, BM25, BOOL_FIELDS, CHUNKS, COLLECTIONS, DENSE, EDGES, NOTE_STATE_FIELDS, NOTES, decode,
};
use crate::space;
use crate::{
    Catalog, ChunkFilter, ChunkHit, CollectionIndexes, Counts, EdgeCache, NoteState, NoteWrite,
    Store, StoreError, StoredNote,
};
use mindnet_core::ids::point_id;
use mindnet_core::{Chunk, Edge, Note};
use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};
use qdrant_edge::{
    Condition, CountRequest, CreateIndex, Distance, EdgeConfigBuilder, EdgeOptimizersConfig,
    EdgeShard, EdgeSparseVectorParamsBuilder, EdgeVectorParamsBuilder, FieldCondition,
    FieldIndexOperations, Filter, JsonPath, Match, Modifier, PayloadFieldSchema, PayloadSchemaType,
    PointId, PointInsertOperations, PointOperations, PointStruct, ScrollRequest, UpdateOperation,
    ValueVariants, Vector, VectorStructInternal, Vectors, WalOptions, WithPayloadInterface,
    WithVector,
};
use serde_json::{Map, Value};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// A payload field name as Qdrant's path type; our names are plain identifiers.
pub(crate) fn jp(field: &str) -> JsonPath {
    field
        .parse()
        .unwrap_or_else(|_| panic!("`{field}` is a valid payload path"))
}

fn note_filter(note_id: &str) -> Filter {
    field_filter("note_id", note_id)
}

pub(crate) fn field_filter(field: &str, value: &str) -> Filter {
    Filter::new_must(Condition::Field(FieldCondition::new_match(
        jp(field),
        Match::new_value(ValueVariants::String(value.to_string())),
    )))
}

fn no_vectors() -> Vectors {
    Vectors(VectorStructInternal::Named(Default::default()))
}

/// Any of these values in a keyword field.
pub(crate) fn any_of(field: &str, values: &[String]) -> Condition {
    Condition::Field(FieldCondition::new_match(
        jp(field),
        Match::from(values.to_vec()),
    ))
}

fn any_filter(field: &str, values: &[String]) -> Filter {
    Filter::new_must(any_of(field, values))
}

/// Edges with any of these values in `field`, of none of the `left_out`
/// kinds (`kind` is indexed, so they are never read).
fn edge_filter(field: &str, values: &[String], left_out: &[String]) -> Filter {
    Filter {
        must: Some(vec![any_of(field, values)]),
        must_not: (!left_out.is_empty()).then(|| vec![any_of("kind", left_out)]),
        ..Default::default()
    }
}

/// The three shards as the write protocol (`commit`) sees them.
struct Shards<'s> {
    dir: &'s Path,
    notes: &'s EdgeShard,
    chunks: &'s EdgeShard,
    edges: &'s EdgeShard,
}

impl<'s> Shards<'s> {
    fn shard(&self, collection: &str) -> &'s EdgeShard {
        match collection {
            NOTES => self.notes,
            CHUNKS => self.chunks,
            _ => self.edges,
        }
    }
}

impl Writer for Shards<'_> {
    fn set_journal(&mut self, ids: Option<&[&str]>) -> Result<(), StoreError> {
        let journal = self.dir.join(JOURNAL);
        match ids {
            Some(ids) => {
                let text = serde_json::to_vec(ids).map_err(|e| io(&journal, e))?;
                write_durably(&journal, &text)
            }
            None => std::fs::remove_file(&journal).map_err(|e| io(&journal, e)),
        }
    }

    fn delete_note_points(&mut self, ids: &[String]) -> Result<(), StoreError> {
        let points = ids.iter().map(|id| PointId::Uuid(point_id(id))).collect();
        self.notes.update(UpdateOperation::PointOperation(
            PointOperations::DeletePoints { ids: points },
        ))?;
        Ok(())
    }

    fn delete_owned(
        &mut self,
        collection: &'static str,
        note_ids: &[String],
    ) -> Result<(), StoreError> {
        if note_ids.is_empty() {
            return Ok(());
        }
        let shard = self.shard(collection);
        shard.update(UpdateOperation::PointOperation(
            PointOperations::DeletePointsByFilter(any_filter("note_id", note_ids)),
        ))?;
        Ok(())
    }

    fn put(&mut self, collection: &'static str, points: Vec<Point<'_>>) -> Result<(), StoreError> {
        if points.is_empty() {
            return Ok(());
        }
        let batch = if collection == CHUNKS { 256 } else { 1024 };
        let shard = self.shard(collection);
        let mut structs = points.into_iter().map(|p| {
            let vectors = match p.vectors {
                Some(v) => Vectors::new_named([
                    (DENSE, Vector::from(v.dense.to_vec())),
                    (BM25, Vector::from(v.bm25)),
                ]),
                None => no_vectors(),
            };
            PointStruct::new(PointId::Uuid(point_id(&p.key)), vectors, p.payload)
        });
        loop {
            let list: Vec<_> = structs.by_ref().take(batch).map(Into::into).collect();
            if list.is_empty() {
                break;
            }
            shard.update(UpdateOperation::PointOperation(
                PointOperations::UpsertPoints(PointInsertOperations::PointsList(list)),
            ))?;
        }
        Ok(())
    }

    fn flush(&mut self, collection: &'static str) {
        self.shard(collection).flush();
    }
}

fn wal() -> WalOptions {
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
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Loads a shard, waiting while another process holds its write-ahead log.
fn load_shard(path: &Path) -> Result<EdgeShard, StoreError> {
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

fn open_shard(
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

fn bm25(lang: &str) -> Result<EdgeBm25, StoreError> {
    EdgeBm25::new(EdgeBm25Config {
        language: Some(lang.to_string()),
        ..EdgeBm25Config::default()
    })
    .map_err(|e| StoreError::Qdrant(format!("BM25 for language `{lang}`: {e}")))
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
            created: meta::now_rfc3339(),
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

fn unresolved() -> Filter {
    Filter::new_must(Condition::Field(FieldCondition::new_match(
        jp("resolved"),
        Match::new_value(ValueVariants::Bool(false)),
    )))
}

impl Store for EmbeddedStore {
    fn meta(&self) -> &StoreMeta {
        &self.meta
    }

    fn catalog(&self) -> Result<&Catalog, StoreError> {
        built_once(&self.catalog, &self.building, || {
            Ok(Catalog::from_states(self.load_note_states()?))
        })
    }

    fn write_batch(
        &mut self,
        writes: &[NoteWrite<'_>],
        deletes: &[String],
    ) -> Result<(), StoreError> {
        let texts: usize = writes
            .iter()
            .map(|w| {
                let chunks: usize = w.chunks.iter().map(|c| c.text.len() + c.window.len()).sum();
                w.note.fulltext.len() + chunks
            })
            .sum();
        let chunks: usize = writes.iter().map(|w| w.chunks.len()).sum();
        let edges: usize = writes.iter().map(|w| w.edges.len()).sum();
        let need = space::batch_bytes(texts, chunks, self.meta.model.dim, edges);
        space::ensure_room(&self.dir, need, "writing a batch of notes")?;
        let mut shards = Shards {
            dir: &self.dir,
            notes: &self.notes,
            chunks: &self.chunks,
            edges: &self.edges,
        };
        // Not `self.shards()`: the catalog and the cache are borrowed
        // mutably beside it.
        let kept = Kept {
            bm25: &self.bm25,
            dim: self.meta.model.dim,
            catalog: &mut self.catalog,
            edge_cache: &mut self.edge_cache,
        };
        commit::write_batch(&mut shards, kept, writes, deletes)?;
        self.unoptimized.fetch_add(chunks, Ordering::Relaxed);
        Ok(())
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        let count = |s: &EdgeShard, filter: Option<Filter>| -> Result<usize, StoreError> {
            Ok(s.count(CountRequest {
                filter,
                exact: true,
            })?)
        };
        Ok(Counts {
            notes: count(&self.notes, None)?,
            chunks: count(&self.chunks, None)?,
            edges: count(&self.edges, None)?,
            unresolved: count(&self.edges, Some(unresolved()))?,
        })
    }

    fn chunks_of(&self, note_id: &str) -> Result<Vec<Chunk>, StoreError> {
        let mut v: Vec<Chunk> = self
            .scroll(
                &self.chunks,
                Some(note_filter(note_id)),
                WithPayloadInterface::Bool(true),
            )?
            .into_iter()
            .map(decode(CHUNKS))
            .collect::<Result<_, _>>()?;
        v.sort_by_key(|c| c.ord);
        Ok(v)
    }

    fn edges_of_notes(
        &self,
        note_ids: &[String],
        left_out: &[String],
    ) -> Result<Vec<Edge>, StoreError> {
        if note_ids.is_empty() {
            return Ok(Vec::new());
        }
        self.edges_where(edge_filter("note_id", note_ids, left_out))
    }

    fn edges_into(&self, targets: &[String], left_out: &[String]) -> Result<Vec<Edge>, StoreError> {
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        self.edges_where(edge_filter("target_id", targets, left_out))
    }

    fn unresolved_edges(&self) -> Result<Vec<Edge>, StoreError> {
        self.edges_where(unresolved())
    }

    fn edge_cache(&self) -> &EdgeCache {
        &self.edge_cache
    }

    fn payloads(&self, collection: &str) -> Result<Vec<Map<String, Value>>, StoreError> {
        let with = if collection == NOTES {
            WithPayloadInterface::Selector(qdrant_edge::PayloadSelector::Exclude(
                qdrant_edge::PayloadSelectorExclude {
                    exclude: vec![jp("fulltext")],
                },
            ))
        } else {
            WithPayloadInterface::Bool(true)
        };
        self.scroll(self.shard(collection), None, with)
    }

    fn export(&self, note_ids: &[String]) -> Result<Vec<StoredNote>, StoreError> {
        if note_ids.is_empty() {
            return Ok(Vec::new());
        }
        let owned = || {
            Filter::new_must(Condition::Field(FieldCondition::new_match(
                jp("note_id"),
                Match::from(note_ids.to_vec()),
            )))
        };
        let all = WithPayloadInterface::Bool(true);
        let notes = self.scroll(&self.notes, Some(owned()), all.clone())?;
        let chunks = self
            .scroll_records(
                &self.chunks,
                Some(owned()),
                all.clone(),
                WithVector::Selector(vec![DENSE.into()]),
            )?
            .into_iter()
            .filter_map(|r| {
                let payload = r.payload?.0;
                let dense = match r.vector? {
                    VectorStructInternal::Named(mut v) => match v.remove(DENSE)? {
                        qdrant_edge::VectorInternal::Dense(d) => d,
                        _ => return None,
                    },
                    _ => return None,
                };
                Some((payload, dense))
            })
            .collect();
        let edges = self.scroll(&self.edges, Some(owned()), all)?;
        payload::stored_notes(note_ids, notes, chunks, edges)
    }

    fn payload_indexes(&self) -> Result<Vec<CollectionIndexes>, StoreError> {
        Ok(COLLECTIONS
            .into_iter()
            .map(|collection| {
                let mut fields: Vec<String> = self
                    .shard(collection)
                    .info()
                    .payload_schema
                    .keys()
                    .map(|k| k.to_string())
                    .collect();
                fields.sort();
                CollectionIndexes { collection, fields }
            })
            .collect())
    }

    fn note(&self, note_id: &str) -> Result<Option<Note>, StoreError> {
        let found = self.scroll(
            &self.notes,
            Some(note_filter(note_id)),
            WithPayloadInterface::Bool(true),
        )?;
        found.into_iter().next().map(decode(NOTES)).transpose()
    }

    fn search_dense(
        &self,
        dense: &[f32],
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        self.search_dense_impl(dense, filter, limit)
    }

    fn search_lexical(
        &self,
        text: &str,
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        self.search_lexical_impl(text, filter, limit)
    }

    fn search_fused(
        &self,
        dense: &[f32],
        text: &str,
        filter: &ChunkFilter,
        per_source: usize,
        rrf_k: usize,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        self.search_fused_impl(dense, text, filter, per_source, rrf_k, limit)
    }

    fn chunks_by_id(&self, ids: &[String]) -> Result<Vec<Chunk>, StoreError> {
        let points: Vec<PointId> = ids.iter().map(|c| PointId::Uuid(point_id(c))).collect();
        self.chunks
            .retrieve(&points, Some(WithPayloadInterface::Bool(true)), None)?
            .into_iter()
            .filter_map(|r| r.payload.map(|p| p.0))
            .map(decode(CHUNKS))
            .collect()
    }

    fn start_import(&mut self) -> Result<(), StoreError> {
        if self.meta.stamp_started() {
            meta::write(&self.dir, &self.meta)?;
        }
        Ok(())
    }

    fn finish_import(&mut self, seconds: f64) -> Result<(), StoreError> {
        self.meta.finish_import(&self.dir, seconds)
    }

    fn optimize(&self) -> Result<bool, StoreError> {
        self.optimize_chunks(None)
    }

    fn optimize_midway(&self) -> Result<bool, StoreError> {
        if self.unoptimized.load(Ordering::Relaxed) < OPTIMIZE_EVERY_CHUNKS {
            return Ok(false);
        }
        self.optimize_chunks(Some(MIDWAY_SEGMENTS))
    }
}

impl EmbeddedStore {
    /// Builds the HNSW index of the chunk segments past the indexing
    /// threshold. `segments`: how many segments Qdrant keeps before it
    /// merges (its default when `None`).
    fn optimize_chunks(&self, segments: Option<usize>) -> Result<bool, StoreError> {
        // Only the chunks carry vectors; without an HNSW index every dense
        // search compares the query with every chunk.
        // Reset first: without room, the next batches must not ask again.
        self.unoptimized.store(0, Ordering::Relaxed);
        // The optimizer writes the new segment beside the old one.
        let chunk_dir = self.dir.join("qdrant").join(CHUNKS);
        if let Err(e) = space::ensure_room(
            &self.dir,
            space::used_bytes(&chunk_dir),
            "building the vector index",
        ) {
            tracing::warn!(
                "{e}. Nothing written is lost; until an import has the room to build the vector index, searches compare the query with every chunk"
            );
            return Ok(false);
        }
        // Checked every time: a killed import may have left the midway
        // count. Written (a small file) only when it changes.
        let current = self.chunks.config().optimizers.default_segment_number;
        if current != segments {
            self.chunks.set_optimizers_config(EdgeOptimizersConfig {
                default_segment_number: segments,
                ..Default::default()
            })?;
        }
        let t = std::time::Instant::now();
        let done = self.chunks.optimize()?;
        if done {
            self.chunks.flush();
            tracing::info!(
                "vector index of the chunks built in {:.2} s ({} segments)",
                t.elapsed().as_secs_f64(),
                self.chunks.info().segments_count
            );
        }
        Ok(done)
    }
}
