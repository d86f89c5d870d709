//! The `Store` trait on the embedded shards: every read and write of the index.

use super::EmbeddedStore;
use super::MIDWAY_SEGMENTS;
use super::OPTIMIZE_EVERY_CHUNKS;
use super::filters::jp;
use super::filters::note_filter;
use super::writer::Shards;
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
use crate::meta;
use crate::meta::StoreMeta;
use crate::payload;
use crate::payload::CHUNKS;
use crate::payload::COLLECTIONS;
use crate::payload::DENSE;
use crate::payload::NOTES;
use crate::payload::decode;
use crate::search::EmbeddedFilters;
use crate::space;
use mindnet_core::Chunk;
use mindnet_core::Edge;
use mindnet_core::Note;
use mindnet_core::ids::point_id;
use qdrant_edge::Condition;
use qdrant_edge::CountRequest;
use qdrant_edge::EdgeShard;
use qdrant_edge::FieldCondition;
use qdrant_edge::Filter;
use qdrant_edge::Match;
use qdrant_edge::PointId;
use qdrant_edge::ValueVariants;
use qdrant_edge::VectorStructInternal;
use qdrant_edge::WithPayloadInterface;
use qdrant_edge::WithVector;
use serde_json::Map;
use serde_json::Value;
use std::sync::atomic::Ordering;
pub(super) fn unresolved() -> Filter {
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
        edges_by::<EmbeddedFilters>("note_id", note_ids, left_out, |f| self.edges_where(f))
    }

    fn edges_into(&self, targets: &[String], left_out: &[String]) -> Result<Vec<Edge>, StoreError> {
        edges_by::<EmbeddedFilters>("target_id", targets, left_out, |f| self.edges_where(f))
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
