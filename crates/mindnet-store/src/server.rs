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

use crate::meta::{FORMAT, ModelInfo, StoreMeta};
use crate::payload::{
    self, BM25, BOOL_FIELDS, CHUNKS, COLLECTIONS, DENSE, EDGES, NOTE_STATE_FIELDS, NOTES, decode,
    payload,
};
use crate::rest::Rest;
use crate::{
    Catalog, ChunkFilter, ChunkHit, CollectionIndexes, Counts, EdgeCache, NoteWrite, Store,
    StoreError, StoredNote,
};
use mindnet_core::ids::point_id;
use mindnet_core::{Chunk, Edge, Note};
use qdrant_edge::SparseVector;
use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};
use reqwest::Method;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
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
    rest: Rest,
    prefix: String,
    meta: StoreMeta,
    bm25: EdgeBm25,
    catalog: OnceLock<Catalog>,
    building: Mutex<()>,
    edge_cache: EdgeCache,
}

/// Points per upsert request: large enough to amortise the round trip,
/// small enough to stay far below the server's request size limit.
const CHUNK_BATCH: usize = 256;
const EDGE_BATCH: usize = 1024;
const PAGE: usize = 1024;
/// Keys of the notes collection's metadata.
const META_KEY: &str = "mindnet";
const JOURNAL_KEY: &str = "pending";

fn match_value(field: &str, value: Value) -> Value {
    json!({ "key": field, "match": { "value": value } })
}

fn match_any(field: &str, values: &[String]) -> Value {
    json!({ "key": field, "match": { "any": values } })
}

fn must(conditions: Vec<Value>) -> Value {
    json!({ "must": conditions })
}

fn uuid(key: &str) -> String {
    point_id(key).to_string()
}

/// The server filter of a `ChunkFilter` (as the embedded store builds it).
fn chunk_filter(f: &ChunkFilter) -> Option<Value> {
    let mut conditions = Vec::new();
    if !f.types.is_empty() {
        conditions.push(match_any("type", &f.types));
    }
    if !f.statuses.is_empty() {
        conditions.push(match_any("status", &f.statuses));
    }
    let mut scope = Vec::new();
    if let Some(notes) = &f.notes {
        scope.push(match_any("note_id", notes));
    }
    if let Some(chunks) = &f.chunks {
        let ids: Vec<String> = chunks.iter().map(|c| uuid(c)).collect();
        scope.push(json!({ "has_id": ids }));
    }
    if !scope.is_empty() {
        conditions.push(json!({ "should": scope }));
    }
    (!conditions.is_empty()).then(|| must(conditions))
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
        let store = ServerStore {
            rest,
            prefix: config.prefix.clone(),
            meta,
            bm25,
            catalog: OnceLock::new(),
            building: Mutex::new(()),
            edge_cache: EdgeCache::default(),
        };
        store.recover()?;
        Ok(store)
    }

    /// The metadata of the index on the server, without opening it.
    pub fn stored_meta(config: &ServerConfig) -> Result<Option<StoreMeta>, StoreError> {
        let rest = Rest::new(&config.url, config.api_key.clone(), config.timeout)?;
        read_meta(&rest, &config.prefix)
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        self.rest.url()
    }

    fn path(&self, collection: &str, rest: &str) -> String {
        format!("/collections/{}_{collection}{rest}", self.prefix)
    }

    fn post(&self, collection: &str, rest: &str, body: Value) -> Result<Value, StoreError> {
        self.rest
            .call(Method::POST, &self.path(collection, rest), Some(&body))
    }

    fn set_metadata(&self, key: &str, value: Value) -> Result<(), StoreError> {
        self.rest.call(
            Method::PATCH,
            &self.path(NOTES, ""),
            Some(&json!({ "metadata": { key: value } })),
        )?;
        Ok(())
    }

    /// Undoes a batch that was cut short: its notes are removed completely
    /// and will be imported again as new.
    fn recover(&self) -> Result<(), StoreError> {
        let info = self.rest.call(Method::GET, &self.path(NOTES, ""), None)?;
        let pending = &info["config"]["metadata"][JOURNAL_KEY];
        if pending.is_null() {
            return Ok(());
        }
        let ids: Vec<String> =
            serde_json::from_value(pending.clone()).map_err(|e| StoreError::Payload {
                collection: NOTES,
                message: format!("the write journal (`metadata.{JOURNAL_KEY}`) is unreadable: {e}"),
            })?;
        tracing::warn!(
            "an earlier import stopped mid-batch; removing {} incomplete notes",
            ids.len()
        );
        self.delete_notes(&ids)?;
        self.set_metadata(JOURNAL_KEY, Value::Null)
    }

    /// Removes every point of these notes from the three collections.
    fn delete_notes(&self, ids: &[String]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let points: Vec<String> = ids.iter().map(|id| uuid(id)).collect();
        self.post(
            NOTES,
            "/points/delete?wait=true",
            json!({ "points": points }),
        )?;
        self.delete_owned(CHUNKS, ids)?;
        self.delete_owned(EDGES, ids)
    }

    fn delete_owned(&self, collection: &str, note_ids: &[String]) -> Result<(), StoreError> {
        if note_ids.is_empty() {
            return Ok(());
        }
        self.post(
            collection,
            "/points/delete?wait=true",
            json!({ "filter": must(vec![match_any("note_id", note_ids)]) }),
        )?;
        Ok(())
    }

    fn upsert(&self, collection: &str, points: &[Value]) -> Result<(), StoreError> {
        if points.is_empty() {
            return Ok(());
        }
        self.rest.call(
            Method::PUT,
            &self.path(collection, "/points?wait=true"),
            Some(&json!({ "points": points })),
        )?;
        Ok(())
    }

    fn scroll(
        &self,
        collection: &str,
        filter: Option<Value>,
        with_payload: Value,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        let mut out = Vec::new();
        let mut offset = Value::Null;
        loop {
            let mut body = json!({
                "limit": PAGE,
                "with_payload": with_payload,
                "with_vector": false,
            });
            if let Some(f) = &filter {
                body["filter"] = f.clone();
            }
            if !offset.is_null() {
                body["offset"] = offset;
            }
            let mut page = self.post(collection, "/points/scroll", body)?;
            if let Some(points) = page["points"].as_array_mut() {
                // Taken, not cloned: a page of edges is megabytes of JSON.
                out.extend(
                    points
                        .iter_mut()
                        .filter_map(|p| object(p["payload"].take())),
                );
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

    fn edges_where(&self, filter: Value) -> Result<Vec<Edge>, StoreError> {
        let mut v: Vec<Edge> = self
            .scroll(EDGES, Some(filter), json!(true))?
            .into_iter()
            .map(decode(EDGES))
            .collect::<Result<_, _>>()?;
        v.sort_by(|a, b| a.edge_id.cmp(&b.edge_id));
        Ok(v)
    }

    fn query(
        &self,
        mut body: Value,
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        body["limit"] = json!(limit);
        body["with_payload"] = json!(["chunk_id", "note_id"]);
        if let Some(f) = chunk_filter(filter) {
            body["filter"] = f;
        }
        Ok(hits(&self.post(CHUNKS, "/points/query", body)?))
    }
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
            rest.call(Method::PUT, &path, Some(&body))?;
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
        if let Some(c) = self.catalog.get() {
            return Ok(c);
        }
        let _one = self.building.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = self.catalog.get() {
            return Ok(c);
        }
        let states: Vec<_> = self
            .scroll(NOTES, None, json!(NOTE_STATE_FIELDS))?
            .iter()
            .map(payload::note_state)
            .collect();
        Ok(self.catalog.get_or_init(|| Catalog::from_states(states)))
    }

    fn write_batch(
        &mut self,
        writes: &[NoteWrite<'_>],
        deletes: &[String],
    ) -> Result<(), StoreError> {
        if writes.is_empty() && deletes.is_empty() {
            return Ok(());
        }
        for w in writes {
            payload::validate(w, self.meta.model.dim)?;
        }
        let ids: Vec<String> = writes
            .iter()
            .map(|w| w.note.note_id.clone())
            .chain(deletes.iter().cloned())
            .collect();
        self.set_metadata(JOURNAL_KEY, json!(ids))?;

        self.delete_notes(deletes)?;
        let rewritten: Vec<String> = writes
            .iter()
            .filter(|w| w.vectors.is_some())
            .map(|w| w.note.note_id.clone())
            .collect();
        let relinked: Vec<String> = writes.iter().map(|w| w.note.note_id.clone()).collect();
        self.delete_owned(EDGES, &relinked)?;
        self.delete_owned(CHUNKS, &rewritten)?;
        let mut chunk_points = Vec::new();
        let mut edge_points = Vec::new();
        for w in writes {
            if let Some(vectors) = w.vectors {
                for (c, v) in w.chunks.iter().zip(vectors) {
                    let bm25 = self.bm25.embed_document(&c.window);
                    chunk_points.push(json!({
                        "id": uuid(&c.chunk_id),
                        "vector": { DENSE: v, BM25: sparse(&bm25) },
                        "payload": payload(c, &[]),
                    }));
                }
            }
            for e in w.edges {
                edge_points.push(json!({
                    "id": uuid(&e.key()),
                    "vector": {},
                    "payload": payload(e, &[]),
                }));
            }
        }
        for batch in chunk_points.chunks(CHUNK_BATCH) {
            self.upsert(CHUNKS, batch)?;
        }
        for batch in edge_points.chunks(EDGE_BATCH) {
            self.upsert(EDGES, batch)?;
        }
        // The commit markers, last.
        let note_points: Vec<Value> = writes
            .iter()
            .map(|w| {
                let extra = [
                    ("chunks_digest", w.chunks_digest),
                    ("edges_digest", w.edges_digest),
                ];
                json!({
                    "id": uuid(&w.note.note_id),
                    "vector": {},
                    "payload": payload(w.note, &extra),
                })
            })
            .collect();
        self.upsert(NOTES, &note_points)?;
        self.set_metadata(JOURNAL_KEY, Value::Null)?;

        if let Some(catalog) = self.catalog.get_mut() {
            catalog.apply(writes, deletes);
        }
        self.edge_cache.invalidate(
            &ids.iter().map(String::as_str).collect(),
            writes
                .iter()
                .flat_map(|w| w.edges.iter().map(|e| e.target_id.as_str())),
        );
        Ok(())
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        Ok(Counts {
            notes: self.count(NOTES, None)?,
            chunks: self.count(CHUNKS, None)?,
            edges: self.count(EDGES, None)?,
            unresolved: self.count(
                EDGES,
                Some(must(vec![match_value("resolved", json!(false))])),
            )?,
        })
    }

    fn chunks_of(&self, note_id: &str) -> Result<Vec<Chunk>, StoreError> {
        let filter = must(vec![match_value("note_id", json!(note_id))]);
        let mut v: Vec<Chunk> = self
            .scroll(CHUNKS, Some(filter), json!(true))?
            .into_iter()
            .map(decode(CHUNKS))
            .collect::<Result<_, _>>()?;
        v.sort_by_key(|c| c.ord);
        Ok(v)
    }

    fn edges_of(&self, note_id: &str) -> Result<Vec<Edge>, StoreError> {
        self.edges_where(must(vec![match_value("note_id", json!(note_id))]))
    }

    fn edges_of_notes(&self, note_ids: &[String]) -> Result<Vec<Edge>, StoreError> {
        if note_ids.is_empty() {
            return Ok(Vec::new());
        }
        self.edges_where(must(vec![match_any("note_id", note_ids)]))
    }

    fn edges_into(&self, targets: &[String]) -> Result<Vec<Edge>, StoreError> {
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        self.edges_where(must(vec![match_any("target_id", targets)]))
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
        self.scroll(collection, None, with)
    }

    fn export(&self, note_ids: &[String]) -> Result<Vec<StoredNote>, StoreError> {
        if note_ids.is_empty() {
            return Ok(Vec::new());
        }
        let owned = || Some(must(vec![match_any("note_id", note_ids)]));
        let notes = self.scroll(NOTES, owned(), json!(true))?;
        let mut chunks = Vec::new();
        let mut offset = Value::Null;
        loop {
            let mut body = json!({
                "limit": PAGE,
                "with_payload": true,
                "with_vector": [DENSE],
                "filter": owned(),
            });
            if !offset.is_null() {
                body["offset"] = offset;
            }
            let mut page = self.post(CHUNKS, "/points/scroll", body)?;
            for p in page["points"].as_array_mut().into_iter().flatten() {
                let dense: Option<Vec<f32>> =
                    serde_json::from_value(p["vector"][DENSE].take()).ok();
                if let (Some(m), Some(v)) = (object(p["payload"].take()), dense) {
                    chunks.push((m, v));
                }
            }
            offset = page["next_page_offset"].take();
            if offset.is_null() {
                break;
            }
        }
        let edges = self.scroll(EDGES, owned(), json!(true))?;
        payload::stored_notes(note_ids, notes, chunks, edges)
    }

    fn payload_indexes(&self) -> Result<Vec<CollectionIndexes>, StoreError> {
        COLLECTIONS
            .into_iter()
            .map(|collection| {
                let info = self
                    .rest
                    .call(Method::GET, &self.path(collection, ""), None)?;
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
        let found = self.post(
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
            if let Some(f) = chunk_filter(filter) {
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
        self.query(body, &ChunkFilter::default(), limit)
    }

    fn chunks_by_id(&self, ids: &[String]) -> Result<Vec<Chunk>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let points: Vec<String> = ids.iter().map(|c| uuid(c)).collect();
        let mut found = self.post(
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

    fn finish_import(&mut self, seconds: f64) -> Result<(), StoreError> {
        self.meta.last_import = Some(crate::meta::now_rfc3339());
        self.meta.last_import_seconds = Some(seconds);
        let meta = serde_json::to_value(&self.meta).unwrap_or(Value::Null);
        self.set_metadata(META_KEY, meta)
    }
}
