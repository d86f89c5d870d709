//! `history`: the latest searches and chat questions, from the logs.

use crate::Settings;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_retrieve::log::Logs;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The latest searches and chat questions, newest first.
pub struct HistoryOp;

impl Operation for HistoryOp {
    type Request = HistoryRequest;
    type Response = HistoryResponse;
    const NAME: &'static str = "history";
    const ABOUT: &'static str = "The latest searches and chat questions, newest first.";
    const EXAMPLE: &'static str = r#"{"limit": 5}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Files;
    const ROUTE: Route = Route::get("/history");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<HistoryRequest>> = None;

    fn run(ws: &Workspace, req: &HistoryRequest) -> Result<HistoryResponse, AppError> {
        history(ws.settings(), req)
    }

    fn run_on_files(
        settings: &Settings,
        req: &HistoryRequest,
    ) -> Option<Result<HistoryResponse, AppError>> {
        Some(history(settings, req))
    }
}

/// `GET /history`: the latest searches and chat questions, newest first.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
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

/// The latest searches and chat questions, newest first.
fn history(settings: &Settings, req: &HistoryRequest) -> Result<HistoryResponse, AppError> {
    let limit = req.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(AppError::bad_request(format!(
            "`limit` must be 1 to 500, not {limit}"
        )));
    }
    let entries = Logs::new(&settings.data)
        .recent_searches(limit)?
        .into_iter()
        .map(|r| HistoryEntry {
            query_id: r.query_id,
            text: r.query_text,
            timestamp: r.timestamp,
            intent: r.intent,
            hits: r.hits.len(),
        })
        .collect();
    Ok(HistoryResponse { entries })
}
