//! `ask`: a causal question, answered by walking the typed links.

use crate::api::{Lang, QueryResponse};
use crate::operation::ToolArgs;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::ops::query::QueryRequest;
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Answer a causal question (\"Warum …?\", \"Welche Folgen …?\") with its explanation chain.
pub struct AskOp;

impl Operation for AskOp {
    type Request = AskRequest;
    type Response = QueryResponse;
    const NAME: &'static str = "ask";
    const ABOUT: &'static str =
        "Answer a causal question (\"Warum …?\", \"Welche Folgen …?\") with its explanation chain.";
    const EXAMPLE: &'static str = r#"{"question": "Warum habe ich mich für Qdrant entschieden?"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/ask");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<AskRequest>> = Some(
        Tool::new(
            "ask",
            "Explain why, or what followed",
            "Answers a causal question (\"Warum …?\", \"Why …?\", \"Welche Folgen …?\", \
            \"What followed from …?\") by walking the typed links between notes. Returns the \
            chain of causes or effects as text with the evidence for each step, every path found, \
            the explanation subgraph and a Mermaid diagram of it. For plain lookups use search.",
        )
        .with_args::<AskArgs>(),
    );

    fn run(ws: &Workspace, req: &AskRequest) -> Result<QueryResponse, AppError> {
        ask(ws, req)
    }
}

pub const ASK_K: usize = 5;

/// A causal question ("Warum …?"): the explanation chain and the best notes.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    pub question: String,
    #[serde(default)]
    pub intent: Option<String>,
    #[serde(default)]
    pub lang: Lang,
    #[serde(default)]
    pub no_traversal: bool,
    /// Number of best notes (default 5).
    #[serde(default)]
    pub k: Option<usize>,
}

/// A causal question: its explanation chain and the best notes. Every
/// field of the question is named, so a new one is decided here.
fn ask(ws: &Workspace, req: &AskRequest) -> Result<QueryResponse, AppError> {
    let AskRequest {
        question,
        intent,
        lang,
        no_traversal,
        k,
    } = req;
    let q = ws.query_of(&QueryRequest {
        k: Some(k.unwrap_or(ASK_K)),
        intent: intent.clone(),
        lang: *lang,
        no_traversal: *no_traversal,
        ..QueryRequest::new(question.clone())
    })?;
    ws.run_query(&q)
}

// The `ask` tool's arguments. (A plain comment: a doc comment would become
// the tool's schema description.)
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// A why or what-follows question, e.g. "Warum haben wir Redis
    /// eingeführt?" or "What followed from the migration?".
    pub question: String,
    /// Force an intent (`why`, `consequence`, …) instead of detecting it
    /// from the question.
    #[serde(default)]
    pub intent: Option<String>,
    /// How many notes besides the chain (default 5).
    #[serde(default)]
    pub k: Option<usize>,
    /// The language of the explanation: `de` (default) or `en`.
    #[serde(default)]
    pub lang: Option<String>,
}

impl ToolArgs for AskArgs {
    type Request = AskRequest;
    fn into_request(self) -> Result<AskRequest, AppError> {
        Ok(AskRequest {
            question: self.question,
            intent: self.intent,
            lang: Lang::parse_field("lang", self.lang.as_deref())?.unwrap_or_default(),
            no_traversal: false,
            k: self.k,
        })
    }
}
