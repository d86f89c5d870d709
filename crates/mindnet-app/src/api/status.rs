//! Health, syncs and their summaries.

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
pub struct HealthResponse {
    /// `ok`, or `opening` while the index is not ready.
    pub status: String,
    pub version: String,
    /// The index folder this server owns.
    pub data: String,
}

// The request of an operation that takes nothing (`GET /status`, `GET
// /config`, the `status` tool). A plain comment: a doc comment would become
// the `status` tool's schema description.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}
