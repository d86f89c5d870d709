//! The store on a Qdrant server or cluster (STO-1): the same three
//! collections as the embedded store, `<prefix>_notes`, `<prefix>_chunks`
//! and `<prefix>_edges`, with the same payloads, point ids and indexes.
//!
//! - BM25 vectors are computed here, with the embedded store's analyser, and
//!   sent as sparse vectors; the server applies the IDF (`modifier: idf`), as
//!   Qdrant Edge does. Both give the same scores.
//! - The index's metadata (model, dimension, language) lives in the notes
//!   collection's `metadata`, so every client of the server sees it. What
//!   changes with every write (the journal of STO-3, the write generation,
//!   the import times) lives in points of `<prefix>_writer` (`state.rs`).
//! - A write batch: the journal names its notes, their chunks and edges are
//!   written (`wait=true`), then the note points, the commit markers, and the
//!   journal is cleared. A batch cut short leaves the journal; the next open
//!   removes what those notes wrote, and they are imported again.
//!
//! Here: the configuration and opening. `json.rs` spells filters and
//! vectors, `collections.rs` speaks REST to the collections, `state.rs`
//! keeps the write state, `writer.rs` holds the lease and writes batches,
//! `setup.rs` creates an index, and `reads.rs` implements `Store`.

use crate::lease::Lease;
use crate::meta::{FORMAT, ModelInfo, StoreMeta};
use crate::payload::{self, CHUNKS, EDGES, NOTES};
use crate::rest::Rest;
use crate::server::json::ServerFilters;
use crate::server::json::hits;
use crate::server::setup::create_collections;
use crate::server::setup::read_meta;
use crate::{Catalog, ChunkFilter, ChunkHit, EdgeCache, StoreError};
use mindnet_core::Edge;
use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};
use serde_json::{Value, json};
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

mod collections;
mod json;
mod reads;
mod setup;
mod state;
mod writer;

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
/// The key of the index's metadata in the notes collection's.
const META_KEY: &str = "mindnet";
/// Keys of the write state (`state.rs`; before it, of the metadata).
const JOURNAL_KEY: &str = "pending";
const GENERATION_KEY: &str = "generation";

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
                    created: mindnet_core::time::now(),
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
