//! `query`: hybrid search (dense, BM25, the graph) with the reasons of
//! every rank.

use crate::api::{Lang, Mode, QueryResponse};
use crate::operation::ToolArgs;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Hybrid search with explanations: one hit per note, each with its reasons.
pub struct QueryOp;

impl Operation for QueryOp {
    type Request = QueryRequest;
    type Response = QueryResponse;
    const NAME: &'static str = "query";
    const ABOUT: &'static str =
        "Hybrid search with explanations: one hit per note, each with its reasons.";
    const EXAMPLE: &'static str = r#"{"text": "Warum habe ich mich für Qdrant entschieden?"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/query");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<QueryRequest>> = Some(
        Tool::new(
            "search",
            "Search the notes",
            "Hybrid search (meaning, keywords and the link graph) over the user's notes. \
            Returns the best notes with title, path, the matching section, a snippet, a score and \
            the reasons for each rank. Use it first for any question about what the user knows or \
            wrote; then read_note for a whole note.",
        )
        .with_args::<SearchArgs>(),
    );

    fn run(ws: &Workspace, req: &QueryRequest) -> Result<QueryResponse, AppError> {
        query(ws, req)
    }
}

/// Defaults of a query, in one place.
pub const DEFAULT_K: usize = 10;

pub const MAX_K: usize = 200;

/// A search. Only `text` is required.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct QueryRequest {
    /// The question or search text.
    pub text: String,
    #[serde(default)]
    pub mode: Mode,
    /// Number of hits (default 10, at most 200).
    #[serde(default)]
    pub k: Option<usize>,
    /// Only notes of these types.
    #[serde(default)]
    pub types: Vec<String>,
    /// Only notes carrying every one of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub statuses: Vec<String>,
    /// Only notes whose vault path starts with one of these.
    #[serde(default)]
    pub paths: Vec<String>,
    /// The raw chunk list instead of one hit per note.
    #[serde(default)]
    pub chunks: bool,
    /// No graph expansion (edge bonus and centrality are 0).
    #[serde(default)]
    pub no_graph: bool,
    /// Overrides the detected intent (why, consequence, empathy, development, fact).
    #[serde(default)]
    pub intent: Option<String>,
    #[serde(default)]
    pub lang: Lang,
    /// No causal traversal: causal intents get the seeds alone (for A/B).
    #[serde(default)]
    pub no_traversal: bool,
}

impl QueryRequest {
    /// A plain search for `text`: every field named, so a field added to
    /// the request is decided here for every caller that builds one.
    pub fn new(text: impl Into<String>) -> Self {
        QueryRequest {
            text: text.into(),
            mode: Mode::default(),
            k: None,
            types: Vec::new(),
            tags: Vec::new(),
            statuses: Vec::new(),
            paths: Vec::new(),
            chunks: false,
            no_graph: false,
            intent: None,
            lang: Lang::default(),
            no_traversal: false,
        }
    }
}

/// Hybrid search with explanations; one hit per note unless `chunks`.
fn query(ws: &Workspace, req: &QueryRequest) -> Result<QueryResponse, AppError> {
    let q = ws.query_of(req)?;
    ws.run_query(&q)
}

/// A search returns at most this many hits to an assistant (its context
/// is small; `MAX_K` is for programs).
pub const MAX_SEARCH_K: usize = 50;

/// How many notes an assistant's search asks for, `default` when not
/// said, checked against `MAX_SEARCH_K`.
pub(crate) fn search_k(k: Option<usize>, default: usize) -> Result<usize, AppError> {
    let k = k.unwrap_or(default);
    if (1..=MAX_SEARCH_K).contains(&k) {
        Ok(k)
    } else {
        Err(AppError::bad_request(format!(
            "`k` must be 1 to {MAX_SEARCH_K}, not {k}"
        )))
    }
}

/// `search` filters: a hit must pass every filter that is given.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilters {
    /// Note types, e.g. `decision`, `experience`, `concept` (any of them).
    #[serde(default, rename = "type")]
    pub types: Vec<String>,
    /// Tags without `#` (any of them).
    #[serde(default, rename = "tag")]
    pub tags: Vec<String>,
    /// Statuses: `stable`, `active`, `draft`, … (any of them).
    #[serde(default, rename = "status")]
    pub statuses: Vec<String>,
    /// Vault folders or note paths, e.g. `projekte/` (any of them).
    #[serde(default, rename = "path")]
    pub paths: Vec<String>,
}

// The `search` tool's arguments. (A plain comment: a doc comment would become
// the tool's schema description.)
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for: a question or keywords, best in the notes' language.
    pub query: String,
    #[serde(default)]
    pub filters: SearchFilters,
    /// How many notes to return (1 to 50, default 10).
    #[serde(default)]
    pub k: Option<usize>,
}

impl ToolArgs for SearchArgs {
    type Request = QueryRequest;
    fn into_request(self) -> Result<QueryRequest, AppError> {
        let k = search_k(self.k, DEFAULT_K)?;
        let SearchFilters {
            types,
            tags,
            statuses,
            paths,
        } = self.filters;
        Ok(QueryRequest {
            k: Some(k),
            types,
            tags,
            statuses,
            paths,
            ..QueryRequest::new(self.query)
        })
    }
}
