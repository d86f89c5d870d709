//! Status, health and syncs.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Warning {
    pub path: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.path, self.line, self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SyncSummary {
    pub new: usize,
    pub changed: usize,
    pub relinked: usize,
    pub unchanged: usize,
    pub deleted: usize,
    /// Totals in the index afterwards.
    pub notes: usize,
    pub chunks: usize,
    pub edges: usize,
    pub unresolved: usize,
    pub embedded_chunks: usize,
    pub skipped: Vec<Skipped>,
    pub warnings: Vec<Warning>,
    pub seconds: f64,
    /// Of `seconds`, the time spent embedding chunks.
    #[serde(default)]
    pub embed_seconds: f64,
}

/// A sync of the whole vault, or of the files that changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncRequest {
    /// Only these files changed (vault-relative, `/`-separated): they are
    /// planned, with the notes whose links their names can change; a listed
    /// file that is gone is deleted. Empty: the whole vault.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Remove notes whose file is gone.
    #[serde(default)]
    pub sync_deletes: bool,
    /// Rewrite every note, changed or not.
    #[serde(default)]
    pub purge_before_upsert: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SyncProgress {
    pub running: bool,
    /// Chunks embedded so far in the running sync, and how many it needs.
    pub embedded: usize,
    pub to_embed: usize,
    pub started: Option<String>,
    /// The last finished sync.
    pub last: Option<SyncSummary>,
    pub last_finished: Option<String>,
    pub last_error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StatusResponse {
    pub vault: String,
    /// The data dir: logs, configuration, and the index when embedded.
    pub data: String,
    /// Where the index lives: the data dir, or collections on a server.
    pub index: String,
    pub model: String,
    pub dim: usize,
    pub lang: String,
    pub notes: usize,
    pub chunks: usize,
    pub edges: usize,
    pub unresolved: usize,
    pub created: String,
    pub last_import: Option<String>,
    pub last_import_seconds: Option<f64>,
    /// When the import began that is writing, or was cut short; the next
    /// import completes it.
    pub unfinished_import: Option<String>,
    pub sync: SyncProgress,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HealthResponse {
    /// `ok`, or `opening` while the index is not ready.
    pub status: String,
    pub version: String,
    /// The index folder this server owns.
    pub data: String,
}

/// `GET /history`: the latest searches and chat questions, newest first.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, utoipa::IntoParams,
)]
#[serde(deny_unknown_fields)]
pub struct HistoryRequest {
    /// How many (default 50, at most 500).
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HistoryEntry {
    pub query_id: String,
    pub text: String,
    pub timestamp: String,
    pub intent: String,
    pub hits: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HistoryResponse {
    pub entries: Vec<HistoryEntry>,
}

/// `GET /config`: what this server runs with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConfigResponse {
    pub vault: String,
    pub data: String,
    pub model: String,
    pub lang: String,
    /// Each configuration file by name: its path, or `built-in`.
    pub files: Vec<ConfigFile>,
    /// `extractive`, or the LLM's provider and model; an invalid LLM setting
    /// is named here.
    pub llm: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConfigFile {
    pub name: String,
    pub path: String,
}

// The request of an operation that takes nothing (`GET /status`, `GET
// /config`, the `status` tool). A plain comment: a doc comment would become
// the `status` tool's schema description.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// `GET /tags`: every tag of the index and how many notes carry it.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Serialize,
    Deserialize,
    ToSchema,
    utoipa::IntoParams,
    schemars::JsonSchema,
)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TagsRequest {
    /// Only tags that start with this (case-insensitive), e.g. `projekt/`.
    #[serde(default)]
    pub prefix: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TagCount {
    /// The tag as the notes write it, without `#`.
    pub tag: String,
    /// How many notes carry it.
    pub notes: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TagsResponse {
    /// Most used first; equals by name.
    pub tags: Vec<TagCount>,
}
