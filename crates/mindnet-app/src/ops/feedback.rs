//! `feedback`: rates a hit of a logged query. Needs no open index: the
//! logs take concurrent writers from several processes.

use crate::Settings;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_core::time::now;
use mindnet_retrieve::log::Logs;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Rate a hit of an earlier query (1-5); appended to logs/feedback.jsonl.
pub struct FeedbackOp;

impl Operation for FeedbackOp {
    type Request = FeedbackRequest;
    type Response = FeedbackResponse;
    const NAME: &'static str = "feedback";
    const ABOUT: &'static str =
        "Rate a hit of an earlier query (1-5); appended to logs/feedback.jsonl.";
    const EXAMPLE: &'static str =
        r#"{"query_id": "q-0000", "node_id": "generated_answer", "score": 4}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Files;
    const ROUTE: Route = Route::post("/feedback");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::NotFound, ErrorCode::Unprocessable];
    const TOOL: Option<Tool<FeedbackRequest>> = None;

    fn run(ws: &Workspace, req: &FeedbackRequest) -> Result<FeedbackResponse, AppError> {
        feedback(ws.settings(), req)
    }

    fn run_on_files(
        settings: &Settings,
        req: &FeedbackRequest,
    ) -> Option<Result<FeedbackResponse, AppError>> {
        Some(feedback(settings, req))
    }
}

/// Rates a hit of an earlier query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackRequest {
    pub query_id: String,
    /// A hit's chunk id or note id, or `generated_answer`.
    pub node_id: String,
    /// 1 (useless) to 5 (exactly right).
    pub score: i64,
    #[serde(default)]
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FeedbackResponse {
    pub query_id: String,
    pub node_id: String,
    pub score: u8,
    pub comment: Option<String>,
    pub timestamp: String,
    /// The log it was appended to.
    pub log: String,
}

/// Rates a hit of a logged query. Needs no open index: the logs take
/// concurrent writers from several processes.
pub(crate) fn feedback(
    settings: &Settings,
    req: &FeedbackRequest,
) -> Result<FeedbackResponse, AppError> {
    let logs = Logs::new(&settings.data);
    let fb = logs.record_feedback(
        &req.query_id,
        &req.node_id,
        req.score,
        req.comment.clone(),
        &now(),
    )?;
    let mindnet_retrieve::log::Feedback {
        query_id,
        node_id,
        score,
        comment,
        timestamp,
    } = fb;
    Ok(FeedbackResponse {
        query_id,
        node_id,
        score,
        comment,
        timestamp,
        log: logs
            .path(mindnet_retrieve::log::FEEDBACK)
            .display()
            .to_string(),
    })
}
