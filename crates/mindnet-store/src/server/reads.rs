//! The `Store` trait on a server: every read and write of the index.

use super::ServerStore;
use super::json::ServerFilters;
use super::json::hits;
use super::json::match_any;
use super::json::match_value;
use super::json::must;
use super::json::object;
use super::json::sparse;
use super::json::uuid;
use super::writer::Committer;
use super::writer::held;
use crate::CandidateScores;
use crate::Catalog;
use crate::ChunkFilter;
use crate::ChunkHit;
use crate::CollectionIndexes;
use crate::Counts;
use crate::EdgeCache;
use crate::NoteWrite;
use crate::Store;
use crate::StoreError;
use crate::StoredNote;
use crate::catalog::built_once;
use crate::commit;
use crate::commit::Kept;
use crate::filter::edges_by;
use crate::meta::StoreMeta;
use crate::payload;
use crate::payload::BM25;
use crate::payload::CHUNKS;
use crate::payload::COLLECTIONS;
use crate::payload::DENSE;
use crate::payload::EDGES;
use crate::payload::NOTE_STATE_FIELDS;
use crate::payload::NOTES;
use crate::payload::decode;
use mindnet_core::Chunk;
use mindnet_core::Edge;
use mindnet_core::Note;
use reqwest::Method;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;
use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
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
        edges_by::<ServerFilters>("note_id", note_ids, left_out, |f| self.edges_where(f))
    }

    fn edges_into(&self, targets: &[String], left_out: &[String]) -> Result<Vec<Edge>, StoreError> {
        edges_by::<ServerFilters>("target_id", targets, left_out, |f| self.edges_where(f))
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
            self.cols.set_stamps(&self.meta)?;
        }
        Ok(())
    }

    fn finish_import(&mut self, seconds: f64) -> Result<(), StoreError> {
        self.meta.stamp_finished(seconds);
        self.cols.set_stamps(&self.meta)
    }
}
