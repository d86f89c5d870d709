//! Hybrid retrieval (RET-1 … RET-5 of `docs/requirements.md`): seeds from
//! dense and BM25 search fused by RRF, graph expansion over the edges around
//! each note (`Store::note_edges`), the score of RET-2 with every term
//! exposed, and reasons generated from those terms (RET-4).
//!
//! Data flow of one query (`Retriever::search`):
//! 1. seeds: one fused Qdrant query (`semantic` mode: dense only);
//! 2. expansion: notes linked to the seed notes, up to `expansion.depth` hops;
//! 3. candidates: every chunk of the seeds and the expanded notes is scored
//!    against the query (dense and BM25, restricted to those chunks);
//! 4. score: `score.rs`; reasons: `explain.rs`.

pub mod causal;
pub mod config;
pub mod eval;
mod explain;
mod hop;
pub mod intent;
pub mod log;
pub mod pool;
mod rank;
pub mod score;
mod walk;

pub use config::RetrieverConfig;
pub use explain::Lang;
pub use pool::Pool;
pub use rank::ranked_notes;

use mindnet_core::{CausalTypes, EdgeVocabulary};
use mindnet_embed::{EmbedError, Embedder};
use mindnet_store::{Catalog, ChunkFilter, NoteState, Store, StoreError};
use serde::{Deserialize, Serialize};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum RetrieveError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("embedding the query: {0}")]
    Embed(#[from] EmbedError),
    #[error("the index is empty; run `mindnet import <VAULT>` first")]
    EmptyIndex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Dense vectors only, no graph.
    Semantic,
    /// BM25 only, no graph: a keyword search, and the baseline the papers
    /// report beside every method.
    Lexical,
    /// Dense + BM25 seeds, graph expansion, re-ranking.
    #[default]
    Hybrid,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "semantic" => Ok(Mode::Semantic),
            "lexical" => Ok(Mode::Lexical),
            "hybrid" => Ok(Mode::Hybrid),
            other => Err(format!(
                "unknown mode `{other}` (semantic, lexical or hybrid)"
            )),
        }
    }
}

/// Restrictions on the hits (RET-5). Empty lists allow everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filters {
    pub types: Vec<String>,
    /// The note must carry every one of these tags.
    pub tags: Vec<String>,
    pub statuses: Vec<String>,
    /// The note's path must start with one of these prefixes.
    pub paths: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Query {
    pub text: String,
    pub mode: Mode,
    pub k: usize,
    /// Expand through the graph (hybrid mode only). Off: B_edge = B_cent = 0.
    pub graph: bool,
    pub filters: Filters,
    /// The best chunk per note only.
    pub group_by_note: bool,
    /// Overrides the detected intent.
    pub intent: Option<String>,
    pub lang: Lang,
    /// Walk the graph for causal intents (off: the seeds alone, for A/B).
    pub traverse: bool,
}

impl Query {
    pub fn new(text: impl Into<String>) -> Self {
        Query {
            text: text.into(),
            mode: Mode::Hybrid,
            k: 10,
            graph: true,
            filters: Filters::default(),
            group_by_note: false,
            intent: None,
            lang: Lang::De,
            traverse: true,
        }
    }
}

/// Every term of RET-2 and the factors behind it. `semantic + edge_bonus +
/// centrality + hop + walk = total`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreBreakdown {
    /// W_sem · S_sem · max(W_type, 0) · M_status
    pub semantic: f64,
    /// W_edge · B_edge · G
    pub edge_bonus: f64,
    /// W_cent · B_cent · G
    pub centrality: f64,
    /// W_hop · B_hop: the second hop over a shared name (0 in logs
    /// written before it).
    #[serde(default)]
    pub hop: f64,
    /// W_walk · B_walk · G: the name walk (0 in logs written before it).
    #[serde(default)]
    pub walk: f64,
    pub total: f64,
    pub s_sem: f64,
    /// Cosine similarity of the dense vectors.
    pub cosine: f64,
    /// BM25 relative to the query's best BM25 among the candidates (hybrid).
    pub lexical: f64,
    pub w_type: f64,
    pub m_status: f64,
    /// B_edge and B_cent, each already multiplied by `hub`.
    pub b_edge: f64,
    pub b_cent: f64,
    /// The note's place in the second search, (k + 1) / (k + 1 + rank).
    #[serde(default)]
    pub b_hop: f64,
    /// What the name walk brought the note, relative to the note it
    /// brought most.
    #[serde(default)]
    pub b_walk: f64,
    /// Hub damping: degree^(−hub_damping) of the note.
    #[serde(default = "one")]
    pub hub: f64,
    /// G: how much the graph terms count for this note, by its own S_sem.
    #[serde(default = "one")]
    pub gate: f64,
    pub w_sem: f64,
    pub w_edge: f64,
    pub w_cent: f64,
    #[serde(default)]
    pub w_hop: f64,
    #[serde(default)]
    pub w_walk: f64,
}

/// Breakdowns logged before `hub` and `gate` existed had neither: 1.
fn one() -> f64 {
    1.0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub chunk_id: String,
    pub note_id: String,
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub status: String,
    pub section: String,
    pub text: String,
    pub score: f64,
    pub score_breakdown: ScoreBreakdown,
    pub reasons: Vec<String>,
    /// How the chunk became a candidate: `seed` or `graph`.
    pub via: String,
    /// Grouped by note: the note's other chunks that rank near the top.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Section>,
}

/// Another matching chunk of a hit's note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub chunk_id: String,
    pub section: String,
    pub text: String,
    pub score: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    pub embed_ms: f64,
    pub search_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    pub query_id: String,
    pub query: String,
    pub mode: Mode,
    pub intent: String,
    pub graph: bool,
    pub hits: Vec<Hit>,
    /// For intents that need an explanation chain: paths and subgraph.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub causal: Option<causal::CausalAnswer>,
    pub timings: Timings,
}

/// A random (version 4) UUID. The bytes come from std's randomly keyed
/// SipHash over a counter and the clock, which avoids switching on uuid's
/// `v4` feature (it would rebuild Qdrant for one id per query).
pub fn random_uuid() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let state = std::collections::hash_map::RandomState::new();
    let mut bytes = [0u8; 16];
    for (i, half) in bytes.chunks_mut(8).enumerate() {
        let mut h = state.build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        half.copy_from_slice(&h.finish().to_le_bytes());
    }
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// A view of a store for queries. Cheap to build: the note catalog and the
/// edge graph live with the store, so a long-running process builds one per
/// question against the store as it is at that moment.
pub struct Retriever<'a> {
    store: &'a dyn Store,
    embedder: &'a dyn Embedder,
    vocab: &'a EdgeVocabulary,
    /// What the note types mean for causality (`types.yaml`).
    causal_types: &'a CausalTypes,
    config: &'a RetrieverConfig,
    engine: &'a causal::DecisionEngine,
    notes: &'a Catalog,
}

impl<'a> Retriever<'a> {
    /// Reads the note catalog if the store has not yet (the edge graph when
    /// first needed); queries then touch Qdrant only for vector and BM25
    /// scores.
    pub fn new(
        store: &'a dyn Store,
        embedder: &'a dyn Embedder,
        vocab: &'a EdgeVocabulary,
        causal_types: &'a CausalTypes,
        config: &'a RetrieverConfig,
        engine: &'a causal::DecisionEngine,
    ) -> Result<Self, RetrieveError> {
        let notes = store.catalog()?;
        if notes.is_empty() {
            return Err(RetrieveError::EmptyIndex);
        }
        // The edge graph is loaded by the store on first use: semantic and
        // --no-graph queries never pay for it.
        Ok(Retriever {
            store,
            embedder,
            vocab,
            causal_types,
            config,
            engine,
            notes,
        })
    }

    pub fn config(&self) -> &RetrieverConfig {
        self.config
    }

    pub fn engine(&self) -> &causal::DecisionEngine {
        self.engine
    }

    pub fn note(&self, note_id: &str) -> Option<&NoteState> {
        self.notes.get(note_id)
    }

    pub fn embed(&self, text: &str) -> Result<Vec<f32>, RetrieveError> {
        Ok(self.embedder.embed_query(text)?)
    }

    /// Embeds the query, then searches.
    pub fn query(&self, q: &Query) -> Result<QueryResult, RetrieveError> {
        let t = Instant::now();
        let vector = self.embed(&q.text)?;
        let embed_ms = t.elapsed().as_secs_f64() * 1000.0;
        let mut r = self.search(q, &vector)?;
        r.timings.embed_ms = embed_ms;
        Ok(r)
    }

    /// Searches with an embedded query (the embedding can be reused, e.g. by
    /// an A/B evaluation).
    pub fn search(&self, q: &Query, vector: &[f32]) -> Result<QueryResult, RetrieveError> {
        let t = Instant::now();
        let intent = self.intent_of(q);
        let graph = q.graph && q.mode == Mode::Hybrid;
        let rank::Ranked { hits, relevance } = rank::rank(self, q, vector, &intent, graph)?;
        let ranked = t.elapsed();
        let causal = if self.engine.rule(&intent).need_explanation_chain {
            Some(self.explain_causally(&intent, &relevance, q.traverse)?)
        } else {
            None
        };
        let size = self.store.edge_cache().size();
        tracing::debug!(
            "ranked in {:.1} ms, causal chain in {:.1} ms; edges of {} notes read so far ({} edges)",
            ranked.as_secs_f64() * 1000.0,
            (t.elapsed() - ranked).as_secs_f64() * 1000.0,
            size.notes,
            size.edges
        );
        Ok(QueryResult {
            query_id: random_uuid(),
            query: q.text.clone(),
            mode: q.mode,
            intent,
            graph,
            hits,
            causal,
            timings: Timings {
                embed_ms: 0.0,
                search_ms: t.elapsed().as_secs_f64() * 1000.0,
            },
        })
    }

    /// The question's intent: as given, else detected.
    fn intent_of(&self, q: &Query) -> String {
        q.intent
            .clone()
            .unwrap_or_else(|| intent::detect(self.engine, &q.text))
    }

    /// The user's filters as a store filter: tags and paths become the set
    /// of notes that pass them.
    fn chunk_filter(&self, f: &Filters) -> ChunkFilter {
        let notes = (!f.tags.is_empty() || !f.paths.is_empty()).then(|| {
            let mut ids: Vec<String> = self
                .notes
                .iter()
                .filter(|n| self.passes(n, f))
                .map(|n| n.note_id.clone())
                .collect();
            ids.sort();
            ids
        });
        ChunkFilter {
            types: f.types.clone(),
            statuses: f.statuses.clone(),
            notes,
            chunks: None,
        }
    }

    fn passes(&self, n: &NoteState, f: &Filters) -> bool {
        (f.types.is_empty() || f.types.contains(&n.note_type))
            && (f.statuses.is_empty() || f.statuses.iter().any(|s| s == n.status.as_str()))
            && f.tags.iter().all(|t| n.tags.contains(t))
            && (f.paths.is_empty() || f.paths.iter().any(|p| n.path.starts_with(p.as_str())))
    }
}
