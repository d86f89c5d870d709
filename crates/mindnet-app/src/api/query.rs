//! What a search answers: hits, their reasons, the causal explanation.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `semantic`: dense vectors only. `hybrid`: dense + BM25 seeds, graph
/// expansion, re-ranking.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Semantic,
    Lexical,
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

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Semantic => "semantic",
            Mode::Lexical => "lexical",
            Mode::Hybrid => "hybrid",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Lang::De => "de",
            Lang::En => "en",
        })
    }
}

/// Language of reasons and labels.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    De,
    En,
}

impl Lang {
    /// The language an optional argument names, or an error naming the
    /// field.
    pub fn parse_field(field: &str, value: Option<&str>) -> Result<Option<Lang>, crate::AppError> {
        value
            .map(|l| {
                l.parse()
                    .map_err(|e| crate::AppError::bad_request(format!("`{field}`: {e}")))
            })
            .transpose()
    }
}

impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "de" => Ok(Lang::De),
            "en" => Ok(Lang::En),
            other => Err(format!("unknown language `{other}` (de or en)")),
        }
    }
}

/// Every term of the score (`semantic + edge_bonus + centrality + hop =
/// total`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScoreBreakdown {
    pub semantic: f64,
    pub edge_bonus: f64,
    pub centrality: f64,
    /// The second hop: the note shares a rare name with the best hit.
    #[serde(default)]
    pub hop: f64,
    /// The name walk: the note shares rare names with the best hits.
    #[serde(default)]
    pub walk: f64,
    pub total: f64,
    pub s_sem: f64,
    pub cosine: f64,
    pub lexical: f64,
    pub w_type: f64,
    pub m_status: f64,
    pub b_edge: f64,
    pub b_cent: f64,
    /// The note's place in the second search, (k + 1) / (k + 1 + rank).
    #[serde(default)]
    pub b_hop: f64,
    /// What the name walk brought the note, relative to the note it
    /// brought most.
    #[serde(default)]
    pub b_walk: f64,
    /// Hub damping of the graph terms: degree^(−hub_damping).
    pub hub: f64,
    /// How much the graph terms count for this note, by its own match.
    pub gate: f64,
    pub w_sem: f64,
    pub w_edge: f64,
    pub w_cent: f64,
    #[serde(default)]
    pub w_hop: f64,
    #[serde(default)]
    pub w_walk: f64,
}

/// Another matching chunk of a hit's note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SectionHit {
    pub chunk_id: String,
    pub section: String,
    pub text: String,
    pub score: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
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
    /// `seed` or `graph`.
    pub via: String,
    /// One hit per note: the note's other matching sections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<SectionHit>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Backward,
    Forward,
    Both,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PathNote {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
}

/// One step of a path, cause → effect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PathStep {
    pub cause: String,
    pub effect: String,
    pub kind: String,
    pub inverse_kind: String,
    pub edge_id: String,
    pub provenance: String,
    pub evidence_chunk: String,
    pub evidence: String,
}

/// `total = alpha·semantic + beta·coherence + gamma·shape_match`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PathScore {
    pub semantic: f64,
    pub coherence: f64,
    pub shape_match: f64,
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub total: f64,
    pub traversal: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CausalPath {
    /// Cause first.
    pub notes: Vec<PathNote>,
    pub steps: Vec<PathStep>,
    pub seed: String,
    pub score: f64,
    pub score_breakdown: PathScore,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SubgraphNode {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub paths: usize,
    /// `anchor`, `bridge` or `node`.
    pub role: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SubgraphEdge {
    /// Cause.
    pub from: String,
    /// Effect.
    pub to: String,
    pub kind: String,
    pub edge_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Subgraph {
    pub nodes: Vec<SubgraphNode>,
    pub edges: Vec<SubgraphEdge>,
}

/// The explanation chain of a causal question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Causal {
    pub direction: Direction,
    pub preferred_edges: Vec<String>,
    pub target_types: Vec<String>,
    pub max_hops: usize,
    pub paths: Vec<CausalPath>,
    pub subgraph: Subgraph,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Timings {
    pub embed_ms: f64,
    pub search_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct QueryResponse {
    /// Rate a hit with this id (`POST /feedback`).
    pub query_id: String,
    pub query: String,
    pub mode: Mode,
    pub intent: String,
    pub graph: bool,
    pub hits: Vec<Hit>,
    /// For causal intents: the paths and the explanation subgraph.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub causal: Option<Causal>,
    pub timings: Timings,
}
