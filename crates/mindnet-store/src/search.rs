//! Chunk searches for the retriever: dense, lexical (BM25) and both fused by
//! reciprocal rank fusion in one Qdrant query. Results carry the chunk and
//! note ids (read from the payload), so callers never see Qdrant's point ids.

use crate::embedded::EmbeddedStore;
use crate::embedded::filters::{self, jp};
use crate::filter::FilterSyntax;
use crate::payload::{BM25, DENSE};
use crate::{ChunkFilter, ChunkHit, StoreError};
use mindnet_core::ids::point_id;
use qdrant_edge::{
    Condition, Filter, Fusion, HasIdCondition, NamedQuery, PointId, Prefetch, QueryEnum,
    QueryRequest, ScoredPoint, ScoringQuery, SparseVector, VectorInternal, WithPayloadInterface,
    WithVector,
};

/// The embedded store's spelling of a `ChunkFilter`.
pub(crate) struct EmbeddedFilters;

impl FilterSyntax for EmbeddedFilters {
    type Condition = Condition;
    type Filter = Filter;
    fn any_of(field: &str, values: &[String]) -> Condition {
        filters::any_of(field, values)
    }
    fn chunk_ids(chunks: &[String]) -> Condition {
        let ids: HasIdCondition = chunks.iter().map(|c| PointId::Uuid(point_id(c))).collect();
        Condition::HasId(ids)
    }
    fn either(conditions: Vec<Condition>) -> Condition {
        Condition::Filter(Filter {
            should: Some(conditions),
            ..Default::default()
        })
    }
    fn all(conditions: Vec<Condition>) -> Filter {
        Filter {
            must: Some(conditions),
            ..Default::default()
        }
    }
    fn edges(field: &str, values: &[String], left_out: &[String]) -> Filter {
        filters::edge_filter(field, values, left_out)
    }
}

fn nearest(using: &str, v: VectorInternal) -> ScoringQuery {
    ScoringQuery::Vector(QueryEnum::Nearest(NamedQuery {
        query: v,
        using: Some(using.to_string()),
    }))
}

fn ids_payload() -> WithPayloadInterface {
    WithPayloadInterface::Fields(vec![jp("chunk_id"), jp("note_id")])
}

fn to_hits(points: Vec<ScoredPoint>) -> Vec<ChunkHit> {
    points
        .into_iter()
        .filter_map(|p| {
            let payload = p.payload?.0;
            let field = |k: &str| payload.get(k)?.as_str().map(str::to_string);
            Some(ChunkHit {
                chunk_id: field("chunk_id")?,
                note_id: field("note_id")?,
                score: p.score,
            })
        })
        .collect()
}

impl EmbeddedStore {
    fn sparse_query(&self, text: &str) -> VectorInternal {
        let v: SparseVector = self.bm25_query(text);
        VectorInternal::from(v)
    }

    fn run(
        &self,
        query: ScoringQuery,
        prefetches: Vec<Prefetch>,
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        let points = self.chunk_shard().query(QueryRequest {
            prefetches,
            query: Some(query),
            filter: filter.spelled::<EmbeddedFilters>(),
            score_threshold: None,
            limit,
            offset: 0,
            params: None,
            with_vector: WithVector::Bool(false),
            with_payload: ids_payload(),
        })?;
        Ok(to_hits(points))
    }

    pub(crate) fn search_dense_impl(
        &self,
        dense: &[f32],
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        let q = nearest(DENSE, VectorInternal::from(dense.to_vec()));
        self.run(q, Vec::new(), filter, limit)
    }

    pub(crate) fn search_lexical_impl(
        &self,
        text: &str,
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        self.run(
            nearest(BM25, self.sparse_query(text)),
            Vec::new(),
            filter,
            limit,
        )
    }

    pub(crate) fn search_fused_impl(
        &self,
        dense: &[f32],
        text: &str,
        filter: &ChunkFilter,
        per_source: usize,
        rrf_k: usize,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError> {
        let prefetch = |query: ScoringQuery| Prefetch {
            prefetches: Vec::new(),
            query: Some(query),
            limit: per_source,
            params: None,
            filter: filter.spelled::<EmbeddedFilters>(),
            score_threshold: None,
        };
        let prefetches = vec![
            prefetch(nearest(DENSE, VectorInternal::from(dense.to_vec()))),
            prefetch(nearest(BM25, self.sparse_query(text))),
        ];
        let fusion = ScoringQuery::Fusion(Fusion::Rrf {
            k: rrf_k,
            weights: None,
        });
        let hits = self.run(
            fusion,
            prefetches,
            &ChunkFilter::default(),
            crate::fused_request(limit),
        )?;
        Ok(crate::cut_fused(hits, limit))
    }
}
