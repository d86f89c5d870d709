//! `list_notes`: the indexed notes a page at a time (the MCP resources).

use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A page of the indexed notes, in path order.
pub struct ListNotesOp;

impl Operation for ListNotesOp {
    type Request = ListNotesRequest;
    type Response = ListNotesResponse;
    const NAME: &'static str = "list_notes";
    const ABOUT: &'static str = "A page of the indexed notes, in path order.";
    const EXAMPLE: &'static str = r#"{"limit": 5}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/notes");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<ListNotesRequest>> = None;

    fn run(ws: &Workspace, req: &ListNotesRequest) -> Result<ListNotesResponse, AppError> {
        list_notes(ws, req)
    }
}

pub const DEFAULT_PAGE: usize = 200;

pub const MAX_PAGE: usize = 1000;

/// A page of the indexed notes, in path order.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ListNotesRequest {
    /// How many notes to skip.
    #[serde(default)]
    pub offset: usize,
    /// 1 to 1000 (default 200).
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NoteSummary {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ListNotesResponse {
    pub total: usize,
    pub notes: Vec<NoteSummary>,
    /// The offset of the next page, if there is one.
    pub next_offset: Option<usize>,
}

/// A page of the indexed notes in path order.
fn list_notes(ws: &Workspace, req: &ListNotesRequest) -> Result<ListNotesResponse, AppError> {
    let limit = req.limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(AppError::bad_request(format!(
            "`limit` must be 1 to {MAX_PAGE}, not {limit}"
        )));
    }
    let store = ws.read();
    let catalog = store.catalog()?;
    let mut all: Vec<_> = catalog.iter().collect();
    all.sort_by(|a, b| a.path.cmp(&b.path));
    let total = all.len();
    let notes: Vec<NoteSummary> = all
        .into_iter()
        .skip(req.offset)
        .take(limit)
        .map(|n| NoteSummary {
            note_id: n.note_id.clone(),
            title: n.title.clone(),
            note_type: n.note_type.clone(),
            path: n.path.clone(),
        })
        .collect();
    let end = req.offset.saturating_add(notes.len());
    Ok(ListNotesResponse {
        total,
        notes,
        next_offset: (end < total).then_some(end),
    })
}
