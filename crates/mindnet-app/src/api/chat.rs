//! `chat`: a message in, an answer with its route, mode, sources and
//! citations out; streamed as events, or whole.

use super::{Causal, Hit, Lang};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Sources of a chat answer unless `k` says otherwise.
pub const CHAT_K: usize = 6;
/// Sessions kept at once (files in `<data>/chat/`), turns kept per
/// session, and the largest session file: the oldest go first.
pub const MAX_SESSIONS: usize = 256;
pub const MAX_TURNS: usize = 40;
pub const MAX_SESSION_BYTES: usize = 256 * 1024;
/// A session untouched this long is forgotten (a week).
pub const SESSION_TTL: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    pub message: String,
    /// Continues a conversation; a new session id is returned without it.
    #[serde(default)]
    pub session: Option<String>,
    /// Number of sources (default 6, at most 20).
    #[serde(default)]
    pub k: Option<usize>,
    /// Language of the chat's own texts; default German.
    #[serde(default)]
    pub lang: Lang,
    /// Answer extractively even when an LLM is configured.
    #[serde(default)]
    pub extractive: bool,
    /// Skips the router: one of the strategies of decision_engine.yaml.
    #[serde(default)]
    pub strategy: Option<String>,
}

/// Why the router chose the strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RouteInfo {
    /// keywords, pattern, intent, centroid, llm, default, interview, request.
    pub by: String,
    pub detail: String,
    /// A `?` or a leading question word: never an interview.
    pub question: bool,
    /// The type of an interview's note.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub note_type: Option<String>,
}

/// Which machinery wrote the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AnswerMode {
    /// `extractive` (sentences of the notes), `llm`, or `interview` (the
    /// schema's questions, no LLM).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `[n]` in the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Citation {
    pub n: usize,
    pub note_id: String,
    pub title: String,
    pub path: String,
    pub section: String,
    pub chunk_id: String,
}

/// A numbered source with its score breakdown and reasons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Source {
    pub n: usize,
    /// Found by the strategic retrieval (filtered to `inject_types`).
    pub injected: bool,
    /// The strategy's factor for the note's type (1 for none).
    pub boost: f64,
    pub hit: Hit,
}

/// An interview's draft, healed and checked against the type's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DraftInfo {
    #[serde(rename = "type")]
    pub note_type: String,
    pub title: Option<String>,
    /// Frontmatter and body; what `/ingest/save` should get as `text`.
    pub markdown: String,
    /// What the healing parser repaired.
    pub repairs: Vec<String>,
    /// Required fields of the schema with no section in the draft.
    pub missing: Vec<String>,
    /// Every question asked (false while the interview goes on).
    pub complete: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChatTimings {
    pub retrieval_ms: f64,
    pub first_token_ms: Option<f64>,
    pub total_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChatResponse {
    /// Rate the answer (`generated_answer`) or a source (`POST /feedback`).
    pub query_id: String,
    pub session: String,
    pub strategy: String,
    /// The causal intent of the message (why, consequence, …, fact).
    pub intent: String,
    pub route: RouteInfo,
    pub mode: AnswerMode,
    pub answer: String,
    pub citations: Vec<Citation>,
    pub sources: Vec<Source>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causal: Option<Causal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<DraftInfo>,
    /// Problems that did not stop the answer (a broken prompts.yaml, an
    /// LLM that failed and was replaced by the extractive answer).
    pub warnings: Vec<String>,
    pub timings: ChatTimings,
}

/// The first event of a streamed answer: everything but the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChatMeta {
    pub query_id: String,
    pub session: String,
    pub strategy: String,
    pub intent: String,
    pub route: RouteInfo,
    pub mode: AnswerMode,
    pub sources: Vec<Source>,
}

/// What a streaming chat sends, in order: `meta` once, `token`s, then
/// `done` with the whole response (or `error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ChatEvent {
    Meta(Box<ChatMeta>),
    Token { text: String },
    Done { response: Box<ChatResponse> },
}
