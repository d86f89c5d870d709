//! The store on a Qdrant server or cluster (STO-1): the same three
//! collections as the embedded store, `<prefix>_notes`, `<prefix>_chunks`
//! and `<prefix>_edges`, with the same payloads, point ids and indexes.
//!
//! - BM25 vectors are computed here, with the embedded store's analyser, and
//!   sent as sparse vectors; the server applies the IDF (`modifier: idf`), as
//!   Qdrant Edge does. Both give the same scores.
//! - The index's metadata (model, dimension, language, import times) and the
//!   write journal (STO-3) live in the notes collection's `metadata`, so
//!   every client of the server sees them.
//! - A write batch: the journal names its notes, their chunks and edges are
//!   written (`wait=true`), then the note points, the commit markers, and the
//!   journal is cleared. A batch cut short leaves the journal; the next open
//!   removes what those notes wrote, and they are imported again.

use crate::catalog::built_once;
use crate::commit::{self, Kept, Point, Writer};
use crate::filter::FilterSyntax;
use crate::lease::Lease;
use crate::meta::{FORMAT, ModelInfo, StoreMeta};
use crate::payload::{
    self, BM25, BOOL_FIELDS, CHUNKS, COLLECTIONS, DENSE, EDGES, NOTE_STATE_FIELDS, NOTES, decode,
};
use crate::rest::Rest;
use crate::{
    CandidateScores, Catalog, ChunkFilter, ChunkHit, CollectionIndexes, Counts, EdgeCache,
    NoteWrite, Store, StoreError, StoredNote,
};
use mindnet_core::ids::point_id;
use mindnet_core::{Chunk, Edge, Note};
use qdrant_edge::SparseVector;
use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};
use reqwest::Method;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// Where the index lives on a server, and how new collections are laid out.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The REST address, e.g. `http://localhost:6333`.
    pub url: String,
    pub api_key: Option<String>,
    /// Collections are `<prefix>_notes`, `<prefix>_chunks`, `<prefix>_edges`.
    pub prefix: String,
    /// Shards per new collection (a cluster spreads them over its nodes).
    pub shards: u32,
    /// Copies of each shard (a cluster survives losing `replicas - 1` nodes).
    pub replicas: u32,
    /// Longest wait for one request.
    pub timeout: Duration,
}

impl ServerConfig {
    pub fn new(url: &str) -> Self {
        ServerConfig {
            url: url.to_string(),
            api_key: None,
            prefix: "mindnet".into(),
            shards: 1,
            replicas: 1,
            timeout: Duration::from_secs(60),
        }
    }
}

pub struct ServerStore {
    cols: Collections,
    meta: StoreMeta,
    bm25: EdgeBm25,
    catalog: OnceLock<Catalog>,
    building: Mutex<()>,
    edge_cache: EdgeCache,
    /// Taken by `begin_write` (or the first write), held until `end_write`
    /// or the store is dropped.
    lease: Mutex<Option<Lease>>,
    /// The index's write generation as this process last saw it: every
    /// batch counts it up, so a writer can tell that another process wrote
    /// since (and its catalog is stale).
    seen: AtomicU64,
}

/// The index's collections on the server: the requests both the reads and
/// the write protocol make.
struct Collections {
    rest: Rest,
    prefix: String,
}

/// Points per upsert request: large enough to amortise the round trip,
/// small enough to stay far below the server's request size limit.
const CHUNK_BATCH: usize = 256;
const EDGE_BATCH: usize = 1024;
const PAGE: usize = 1024;
/// Keys of the notes collection's metadata.
const META_KEY: &str = "mindnet";
const JOURNAL_KEY: &str = "pending";
const GENERATION_KEY: &str = "generation";

fn match_value(field: &str, value: Value) -> Value {
    json!({ "key": field, "match": { "value": value } })
}

fn match_any(field: &str, values: &[String]) -> Value {
    json!({ "key": field, "match": { "any": values } })
}

fn must(conditions: Vec<Value>) -> Value {
    json!({ "must": conditions })
}

/// Edges with any of these values in `field`, of none of the `left_out`
/// kinds (`kind` is indexed, so they are never read).
fn edge_filter(field: &str, values: &[String], left_out: &[String]) -> Value {
    let mut filter = must(vec![match_any(field, values)]);
    if !left_out.is_empty() {
        filter["must_not"] = json!([match_any("kind", left_out)]);
    }
    filter
}

fn uuid(key: &str) -> String {
    point_id(key).to_string()
}

/// The server's spelling of a `ChunkFilter` (REST JSON).
struct ServerFilters;

impl FilterSyntax for ServerFilters {
    type Condition = Value;
    type Filter = Value;
    fn any_of(field: &str, values: &[String]) -> Value {
        match_any(field, values)
    }
    fn chunk_ids(chunks: &[String]) -> Value {
        let ids: Vec<String> = chunks.iter().map(|c| uuid(c)).collect();
        json!({ "has_id": ids })
    }
    fn either(conditions: Vec<Value>) -> Value {
        json!({ "should": conditions })
    }
    fn all(conditions: Vec<Value>) -> Value {
        must(conditions)
    }
}

fn sparse(v: &SparseVector) -> Value {
    json!({ "indices": v.indices, "values": v.values })
}

fn hits(result: &Value) -> Vec<ChunkHit> {
    result["points"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let field = |k: &str| p["payload"][k].as_str().map(str::to_string);
            Some(ChunkHit {
                chunk_id: field("chunk_id")?,
                note_id: field("note_id")?,
                score: p["score"].as_f64()? as f32,
            })
        })
        .collect()
}

fn object(v: Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

impl ServerStore {
    fn save_meta(&self) -> Result<(), StoreError> {
        let meta = serde_json::to_value(&self.meta).map_err(|e| StoreError::Server {
            url: self.cols.rest.url().to_string(),
            message: format!("cannot encode the index metadata: {e}"),
        })?;
        self.cols.set_metadata(json!({ META_KEY: meta }))
    }

    /// Opens the index on the server, creating its collections for `model`
    /// if there are none. An index built by another model is refused before
    /// anything is written.
    pub fn open(config: &ServerConfig, model: &ModelInfo, lang: &str) -> Result<Self, StoreError> {
        let rest = Rest::new(&config.url, config.api_key.clone(), config.timeout)?;
        let found = read_meta(&rest, &config.prefix)?;
        let meta = match found {
            Some(m) if m.model != *model => {
                return Err(StoreError::ServerModelMismatch {
                    url: rest.url().to_string(),
                    prefix: config.prefix.clone(),
                    stored: m.model.name,
                    stored_dim: m.model.dim,
                    requested: model.name.clone(),
                    requested_dim: model.dim,
                });
            }
            Some(m) => m,
            None => {
                let m = StoreMeta {
                    format: FORMAT,
                    model: model.clone(),
                    lang: lang.to_string(),
                    created: crate::meta::now_rfc3339(),
                    last_import: None,
                    last_import_seconds: None,
                    import_started: None,
                };
                create_collections(&rest, config, &m)?;
                m
            }
        };
        Self::open_with(rest, config, meta)
    }

    /// Opens an existing index whatever its model (for `status` and `check`).
    pub fn open_existing(config: &ServerConfig) -> Result<Self, StoreError> {
        let rest = Rest::new(&config.url, config.api_key.clone(), config.timeout)?;
        let meta = read_meta(&rest, &config.prefix)?.ok_or_else(|| StoreError::Server {
            url: rest.url().to_string(),
            message: format!(
                "no mindnet index here (no collection `{}_{NOTES}`); run `mindnet import <VAULT> --qdrant-url {}` first",
                config.prefix,
                rest.url()
            ),
        })?;
        Self::open_with(rest, config, meta)
    }

    fn open_with(rest: Rest, config: &ServerConfig, meta: StoreMeta) -> Result<Self, StoreError> {
        let bm25 = EdgeBm25::new(EdgeBm25Config {
            language: Some(meta.lang.clone()),
            ..EdgeBm25Config::default()
        })
        .map_err(|e| StoreError::Qdrant(format!("BM25 for language `{}`: {e}", meta.lang)))?;
        let cols = Collections {
            rest,
            prefix: config.prefix.clone(),
        };
        let generation = cols.generation()?;
        Ok(ServerStore {
            cols,
            meta,
            bm25,
            catalog: OnceLock::new(),
            building: Mutex::new(()),
            edge_cache: EdgeCache::default(),
            lease: Mutex::new(None),
            seen: AtomicU64::new(generation),
        })
    }

    /// The metadata of the index on the server, without opening it.
    pub fn stored_meta(config: &ServerConfig) -> Result<Option<StoreMeta>, StoreError> {
        let rest = Rest::new(&config.url, config.api_key.clone(), config.timeout)?;
        read_meta(&rest, &config.prefix)
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        self.cols.rest.url()
    }

    fn edges_where(&self, filter: Value) -> Result<Vec<Edge>, StoreError> {
        payload::sorted_edges(self.cols.scroll(EDGES, Some(filter), json!(true))?)
    }

    fn query(
        &self,
        mut body: Value,
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        body["limit"] = json!(limit);
        body["with_payload"] = json!(["chunk_id", "note_id"]);
        if let Some(f) = filter.spelled::<ServerFilters>() {
            body["filter"] = f;
        }
        Ok(hits(&self.cols.post(CHUNKS, "/points/query", body)?))
    }
}

impl Collections {
    /// The notes the write journal names, if there is one.
    fn journal(&self) -> Result<Option<Vec<String>>, StoreError> {
        let pending = self.metadata()?[JOURNAL_KEY].take();
        if pending.is_null() {
            return Ok(None);
        }
        serde_json::from_value(pending)
            .map(Some)
            .map_err(|e| StoreError::Server {
                url: self.rest.url().to_string(),
                message: format!(
                    "the write journal of an interrupted import (`metadata.{JOURNAL_KEY}` of `{p}_{NOTES}`) is unreadable ({e}), so which notes it left half written is unknown; nothing was changed. Delete the collections `{p}_*` and import again to rebuild the index",
                    p = self.prefix
                ),
            })
    }

    fn path(&self, collection: &str, rest: &str) -> String {
        format!("/collections/{}_{collection}{rest}", self.prefix)
    }

    fn post(&self, collection: &str, rest: &str, body: Value) -> Result<Value, StoreError> {
        self.rest
            .call(Method::POST, &self.path(collection, rest), Some(&body))
    }

    /// Sets keys of the notes collection's metadata (the others stay).
    fn set_metadata(&self, keys: Value) -> Result<(), StoreError> {
        self.rest.call(
            Method::PATCH,
            &self.path(NOTES, ""),
            Some(&json!({ "metadata": keys })),
        )?;
        Ok(())
    }

    fn metadata(&self) -> Result<Value, StoreError> {
        let mut info = self.rest.call(Method::GET, &self.path(NOTES, ""), None)?;
        Ok(info["config"]["metadata"].take())
    }

    /// How many batches the index has had written (0 before the first).
    fn generation(&self) -> Result<u64, StoreError> {
        match self.metadata()?[GENERATION_KEY].take() {
            Value::Null => Ok(0),
            v => v.as_u64().ok_or_else(|| StoreError::Payload {
                collection: NOTES,
                message: format!("`metadata.{GENERATION_KEY}` is {v}, not a count"),
            }),
        }
    }

    /// Every payload of the points matching `filter`.
    fn scroll(
        &self,
        collection: &str,
        filter: Option<Value>,
        with_payload: Value,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        let mut points = self.points(collection, filter, with_payload, json!(false))?;
        // Taken, not cloned: a page of edges is megabytes of JSON.
        Ok(points
            .iter_mut()
            .filter_map(|p| object(p["payload"].take()))
            .collect())
    }

    /// Every point matching `filter`, page by page.
    fn points(
        &self,
        collection: &str,
        filter: Option<Value>,
        with_payload: Value,
        with_vector: Value,
    ) -> Result<Vec<Value>, StoreError> {
        let mut out = Vec::new();
        let mut offset = Value::Null;
        loop {
            let mut body = json!({
                "limit": PAGE,
                "with_payload": with_payload,
                "with_vector": with_vector,
            });
            if let Some(f) = &filter {
                body["filter"] = f.clone();
            }
            if !offset.is_null() {
                body["offset"] = offset;
            }
            let mut page = self.post(collection, "/points/scroll", body)?;
            if let Value::Array(points) = page["points"].take() {
                out.extend(points);
            }
            offset = page["next_page_offset"].take();
            if offset.is_null() {
                return Ok(out);
            }
        }
    }

    fn count(&self, collection: &str, filter: Option<Value>) -> Result<usize, StoreError> {
        let mut body = json!({ "exact": true });
        if let Some(f) = filter {
            body["filter"] = f;
        }
        let r = self.post(collection, "/points/count", body)?;
        Ok(r["count"].as_u64().unwrap_or(0) as usize)
    }
}

/// The write lease; taken if this process does not hold it. Taking it also
/// reads the index's write generation, and undoes a batch an earlier writer
/// left cut short: its notes are removed completely and will be imported
/// again as new. Only the lease holder may do this; any other writer could
/// be writing those notes at this moment.
fn held<'a>(
    cols: &Collections,
    slot: &'a mut Option<Lease>,
    seen: &AtomicU64,
) -> Result<&'a Lease, StoreError> {
    let lease = match slot.take() {
        Some(l) => l,
        None => {
            let lease = Lease::take(&cols.rest, &cols.prefix)?;
            seen.store(cols.generation()?, Ordering::SeqCst);
            if let Some(ids) = cols.journal()? {
                let mut w = Committer {
                    cols,
                    lease: &lease,
                    seen,
                };
                commit::undo(&mut w, &ids)?;
            }
            lease
        }
    };
    Ok(slot.insert(lease))
}

/// The collections as the write protocol (`commit`) sees them, while this
/// process holds the write lease.
struct Committer<'s> {
    cols: &'s Collections,
    lease: &'s Lease,
    seen: &'s AtomicU64,
}

impl Writer for Committer<'_> {
    fn set_journal(&mut self, ids: Option<&[&str]>) -> Result<(), StoreError> {
        self.lease.ensure()?;
        match ids {
            Some(ids) => self.cols.set_metadata(json!({ JOURNAL_KEY: ids })),
            // A batch done: one generation more.
            None => {
                let next = self.seen.load(Ordering::SeqCst) + 1;
                self.cols
                    .set_metadata(json!({ JOURNAL_KEY: null, GENERATION_KEY: next }))?;
                self.seen.store(next, Ordering::SeqCst);
                Ok(())
            }
        }
    }

    fn delete_note_points(&mut self, ids: &[String]) -> Result<(), StoreError> {
        let points: Vec<String> = ids.iter().map(|id| uuid(id)).collect();
        self.cols.post(
            NOTES,
            "/points/delete?wait=true",
            json!({ "points": points }),
        )?;
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
        self.cols.post(
            collection,
            "/points/delete?wait=true",
            json!({ "filter": must(vec![match_any("note_id", note_ids)]) }),
        )?;
        Ok(())
    }

    fn put(&mut self, collection: &'static str, points: Vec<Point<'_>>) -> Result<(), StoreError> {
        let batch = if collection == CHUNKS {
            CHUNK_BATCH
        } else {
            EDGE_BATCH
        };
        let mut points = points.into_iter().map(|p| {
            let vector = match p.vectors {
                Some(v) => json!({ DENSE: v.dense, BM25: sparse(&v.bm25) }),
                None => json!({}),
            };
            json!({ "id": uuid(&p.key), "vector": vector, "payload": p.payload })
        });
        loop {
            let list: Vec<Value> = points.by_ref().take(batch).collect();
            if list.is_empty() {
                return Ok(());
            }
            if collection == NOTES {
                // The commit markers: never from a writer that lost its lease.
                self.lease.ensure()?;
            }
            self.cols.rest.call(
                Method::PUT,
                &self.cols.path(collection, "/points?wait=true"),
                Some(&json!({ "points": list })),
            )?;
        }
    }

    /// Every request was acknowledged with `wait=true`: applied, and in the
    /// server's write-ahead log.
    fn flush(&mut self, _collection: &'static str) {}
}

/// The index's metadata from the notes collection; `None` when there is no
/// index under this prefix.
fn read_meta(rest: &Rest, prefix: &str) -> Result<Option<StoreMeta>, StoreError> {
    let Some(info) = rest.call_opt(Method::GET, &format!("/collections/{prefix}_{NOTES}"), None)?
    else {
        return Ok(None);
    };
    let stored = &info["config"]["metadata"][META_KEY];
    if stored.is_null() {
        // The notes collection is created last, with its metadata: without
        // it, this is no mindnet index (or a creation cut short).
        return Err(StoreError::Server {
            url: rest.url().to_string(),
            message: format!(
                "the collection `{prefix}_{NOTES}` holds no mindnet metadata; it was not made by mindnet, or its creation was cut short (delete it, or set another COLLECTION_PREFIX)"
            ),
        });
    }
    let meta: StoreMeta =
        serde_json::from_value(stored.clone()).map_err(|e| StoreError::Payload {
            collection: NOTES,
            message: format!("unreadable index metadata: {e}"),
        })?;
    if meta.format > FORMAT {
        return Err(StoreError::Server {
            url: rest.url().to_string(),
            message: format!(
                "the index format {} is newer than this mindnet understands ({FORMAT})",
                meta.format
            ),
        });
    }
    Ok(Some(meta))
}

/// Creates what is missing of the three collections and their payload
/// indexes; the notes collection last, with the metadata that marks the
/// index as complete.
fn create_collections(
    rest: &Rest,
    config: &ServerConfig,
    meta: &StoreMeta,
) -> Result<(), StoreError> {
    let layout = json!({
        "shard_number": config.shards.max(1),
        "replication_factor": config.replicas.max(1),
    });
    for collection in [CHUNKS, EDGES, NOTES] {
        let path = format!("/collections/{}_{collection}", config.prefix);
        let existing = rest.call_opt(Method::GET, &path, None)?;
        if existing.is_none() {
            let mut body = layout.clone();
            if collection == CHUNKS {
                body["vectors"] =
                    json!({ DENSE: { "size": meta.model.dim, "distance": "Cosine" } });
                body["sparse_vectors"] = json!({ BM25: { "modifier": "idf" } });
            } else {
                body["vectors"] = json!({});
            }
            rest.create(&path, &body)?;
        }
        let schema = match &existing {
            Some(info) => info["payload_schema"].clone(),
            None => json!({}),
        };
        for field in payload::indexes(collection) {
            if schema.get(*field).is_some() {
                continue;
            }
            let kind = if BOOL_FIELDS.contains(field) {
                "bool"
            } else {
                "keyword"
            };
            rest.call(
                Method::PUT,
                &format!("{path}/index?wait=true"),
                Some(&json!({ "field_name": field, "field_schema": kind })),
            )?;
        }
    }
    rest.call(
        Method::PATCH,
        &format!("/collections/{}_{NOTES}", config.prefix),
        Some(&json!({ "metadata": { META_KEY: meta } })),
    )?;
    Ok(())
}

impl Store for ServerStore {
    fn meta(&self) -> &StoreMeta {
        &self.meta
    }

    fn catalog(&self) -> Result<&Catalog, StoreError> {
        built_once(&self.catalog, &self.building, || {
            let states = self
                .cols
                .scroll(NOTES, None, json!(NOTE_STATE_FIELDS))?
                .into_iter()
                .map(payload::note_state)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Catalog::from_states(states))
        })
    }

    fn write_batch(
        &mut self,
        writes: &[NoteWrite<'_>],
        deletes: &[String],
    ) -> Result<(), StoreError> {
        if writes.is_empty() && deletes.is_empty() {
            return Ok(());
        }
        let slot = self.lease.get_mut().unwrap_or_else(|e| e.into_inner());
        let lease = held(&self.cols, slot, &self.seen)?;
        let mut w = Committer {
            cols: &self.cols,
            lease,
            seen: &self.seen,
        };
        let kept = Kept {
            bm25: &self.bm25,
            dim: self.meta.model.dim,
            catalog: &mut self.catalog,
            edge_cache: &mut self.edge_cache,
        };
        commit::write_batch(&mut w, kept, writes, deletes)
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        Ok(Counts {
            notes: self.cols.count(NOTES, None)?,
            chunks: self.cols.count(CHUNKS, None)?,
            edges: self.cols.count(EDGES, None)?,
            unresolved: self.cols.count(
                EDGES,
                Some(must(vec![match_value("resolved", json!(false))])),
            )?,
        })
    }

    fn chunks_of(&self, note_id: &str) -> Result<Vec<Chunk>, StoreError> {
        let filter = must(vec![match_value("note_id", json!(note_id))]);
        let mut v: Vec<Chunk> = self
            .cols
            .scroll(CHUNKS, Some(filter), json!(true))?
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
        self.edges_where(must(vec![match_value("resolved", json!(false))]))
    }

    fn edge_cache(&self) -> &EdgeCache {
        &self.edge_cache
    }

    fn payloads(&self, collection: &str) -> Result<Vec<Map<String, Value>>, StoreError> {
        let with = if collection == NOTES {
            json!({ "exclude": ["fulltext"] })
        } else {
            json!(true)
        };
        self.cols.scroll(collection, None, with)
    }

    fn export(&self, note_ids: &[String]) -> Result<Vec<StoredNote>, StoreError> {
        if note_ids.is_empty() {
            return Ok(Vec::new());
        }
        let owned = || Some(must(vec![match_any("note_id", note_ids)]));
        let notes = self.cols.scroll(NOTES, owned(), json!(true))?;
        let chunks = self
            .cols
            .points(CHUNKS, owned(), json!(true), json!([DENSE]))?
            .into_iter()
            .filter_map(|mut p| {
                let dense: Vec<f32> = serde_json::from_value(p["vector"][DENSE].take()).ok()?;
                Some((object(p["payload"].take())?, dense))
            })
            .collect();
        let edges = self.cols.scroll(EDGES, owned(), json!(true))?;
        payload::stored_notes(note_ids, notes, chunks, edges)
    }

    fn begin_write(&self) -> Result<bool, StoreError> {
        let before = self.seen.load(Ordering::SeqCst);
        let mut slot = self.lease.lock().unwrap_or_else(|e| e.into_inner());
        held(&self.cols, &mut slot, &self.seen)?;
        Ok(self.seen.load(Ordering::SeqCst) != before)
    }

    fn end_write(&self) {
        drop(self.lease.lock().unwrap_or_else(|e| e.into_inner()).take());
    }

    fn reload(&mut self) {
        self.catalog = OnceLock::new();
        self.edge_cache = EdgeCache::default();
    }

    fn unfinished_batch(&self) -> Result<Option<Vec<String>>, StoreError> {
        self.cols.journal()
    }

    fn payload_indexes(&self) -> Result<Vec<CollectionIndexes>, StoreError> {
        COLLECTIONS
            .into_iter()
            .map(|collection| {
                let info =
                    self.cols
                        .rest
                        .call(Method::GET, &self.cols.path(collection, ""), None)?;
                let mut fields: Vec<String> = info["payload_schema"]
                    .as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default();
                fields.sort();
                Ok(CollectionIndexes { collection, fields })
            })
            .collect()
    }

    fn note(&self, note_id: &str) -> Result<Option<Note>, StoreError> {
        let found = self.cols.post(
            NOTES,
            "/points",
            json!({ "ids": [uuid(note_id)], "with_payload": true }),
        )?;
        found
            .as_array()
            .and_then(|a| a.first())
            .and_then(|p| object(p["payload"].clone()))
            .map(decode(NOTES))
            .transpose()
    }

    fn search_dense(
        &self,
        dense: &[f32],
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        self.query(json!({ "query": dense, "using": DENSE }), filter, limit)
    }

    fn search_lexical(
        &self,
        text: &str,
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        let q = self.bm25.embed_query(text);
        if q.indices.is_empty() {
            return Ok(Vec::new());
        }
        self.query(json!({ "query": sparse(&q), "using": BM25 }), filter, limit)
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
        let prefetch = |query: Value, using: &str| {
            let mut p = json!({ "query": query, "using": using, "limit": per_source });
            if let Some(f) = filter.spelled::<ServerFilters>() {
                p["filter"] = f;
            }
            p
        };
        let mut prefetches = vec![prefetch(json!(dense), DENSE)];
        let q = self.bm25.embed_query(text);
        if !q.indices.is_empty() {
            prefetches.push(prefetch(sparse(&q), BM25));
        }
        let body = json!({ "prefetch": prefetches, "query": { "rrf": { "k": rrf_k } } });
        let hits = self.query(body, &ChunkFilter::default(), crate::fused_request(limit))?;
        Ok(crate::cut_fused(hits, limit))
    }

    fn score_candidates(
        &self,
        dense: &[f32],
        text: Option<&str>,
        scope: &ChunkFilter,
        limit: usize,
        with_chunks: bool,
    ) -> Result<CandidateScores, StoreError> {
        let search = |query: Value, using: &str| {
            let payload = if with_chunks && using == DENSE {
                json!(true)
            } else {
                json!(["chunk_id", "note_id"])
            };
            let mut q = json!({
                "query": query,
                "using": using,
                "limit": limit,
                "with_payload": payload,
            });
            if let Some(f) = scope.spelled::<ServerFilters>() {
                q["filter"] = f;
            }
            q
        };
        let mut searches = vec![search(json!(dense), DENSE)];
        let q = text.map(|t| self.bm25.embed_query(t));
        if let Some(q) = q.as_ref().filter(|q| !q.indices.is_empty()) {
            searches.push(search(sparse(q), BM25));
        }
        let mut answers = self.cols.post(
            CHUNKS,
            "/points/query/batch",
            json!({ "searches": searches }),
        )?;
        let mut answers = answers.as_array_mut().into_iter().flatten();
        let (dense, chunks) = match answers.next() {
            Some(a) => {
                let scores = hits(a);
                let chunks = if with_chunks {
                    a["points"]
                        .as_array_mut()
                        .into_iter()
                        .flatten()
                        .filter_map(|p| object(p["payload"].take()))
                        .map(decode(CHUNKS))
                        .collect::<Result<_, _>>()?
                } else {
                    Vec::new()
                };
                (scores, chunks)
            }
            None => (Vec::new(), Vec::new()),
        };
        Ok(CandidateScores {
            dense,
            lexical: answers.next().map(|a| hits(a)).unwrap_or_default(),
            chunks,
        })
    }

    fn chunks_by_id(&self, ids: &[String]) -> Result<Vec<Chunk>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let points: Vec<String> = ids.iter().map(|c| uuid(c)).collect();
        let mut found = self.cols.post(
            CHUNKS,
            "/points",
            json!({ "ids": points, "with_payload": true }),
        )?;
        let mut by_id: HashMap<String, Chunk> = HashMap::new();
        for p in found.as_array_mut().into_iter().flatten() {
            if let Some(m) = object(p["payload"].take()) {
                let c: Chunk = decode(CHUNKS)(m)?;
                by_id.insert(c.chunk_id.clone(), c);
            }
        }
        let mut seen = HashSet::new();
        Ok(ids
            .iter()
            .filter(|id| seen.insert(id.as_str()))
            .filter_map(|id| by_id.remove(id))
            .collect())
    }

    fn start_import(&mut self) -> Result<(), StoreError> {
        if self.meta.stamp_started() {
            self.save_meta()?;
        }
        Ok(())
    }

    fn finish_import(&mut self, seconds: f64) -> Result<(), StoreError> {
        self.meta.stamp_finished(seconds);
        self.save_meta()
    }
}
