//! `related`: the notes that belong with a note, each with the reasons
//! it ranks where it does (meaning, shared names, typed edges, type and
//! status), for a pane beside the note being written. The note's own title
//! and opening are the query, run as a search runs, without entering the
//! search history (a pane asks on every note the user opens).

use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::ops::query::{QueryRequest, search_k};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How much of the note's text, after its title, makes the query: its
/// opening says what it is about, and a longer query dilutes the lexical
/// part.
const QUERY_CHARS: usize = 600;

const DEFAULT_RELATED: usize = 10;

/// The notes that belong with a note, with the reasons for each.
pub struct RelatedOp;

impl Operation for RelatedOp {
    type Request = RelatedRequest;
    type Response = RelatedResponse;
    const NAME: &'static str = "related";
    const ABOUT: &'static str =
        "The notes that belong with a note, each with the reasons it ranks where it does.";
    const EXAMPLE: &'static str = r#"{"note": "Qdrant als Vektordatenbank", "k": 5}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/related");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::BadRequest, ErrorCode::NotFound];
    const TOOL: Option<Tool<RelatedRequest>> = None;

    fn run(ws: &Workspace, req: &RelatedRequest) -> Result<RelatedResponse, AppError> {
        related(ws, req)
    }
}

// The request of `related`.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RelatedRequest {
    /// The note's title, alias, vault path or id.
    pub note: String,
    /// How many notes (1 to 50, default 10).
    #[serde(default)]
    pub k: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RelatedResponse {
    pub note_id: String,
    pub title: String,
    pub path: String,
    /// The related notes, best first, the note itself left out; each with
    /// its score, its breakdown and its reasons, as a search gives them.
    pub hits: Vec<crate::api::Hit>,
}

fn related(ws: &Workspace, req: &RelatedRequest) -> Result<RelatedResponse, AppError> {
    let k = search_k(req.k, DEFAULT_RELATED)?;
    let (state, opening) = {
        let store = ws.read();
        let state = find_note(&*store, &req.note)?;
        let chunks = store.chunks_of(&state.note_id)?;
        let text: String = chunks
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        (state, text.chars().take(QUERY_CHARS).collect::<String>())
    };
    let query = ws.query_of(&QueryRequest {
        k: Some(k + 1),
        ..QueryRequest::new(format!("{}\n{opening}", state.title))
    })?;
    let result: crate::api::QueryResponse = ws.answer(&query)?.into();
    let mut hits: Vec<crate::api::Hit> = result
        .hits
        .into_iter()
        .filter(|h| h.note_id != state.note_id)
        .collect();
    hits.truncate(k);
    Ok(RelatedResponse {
        note_id: state.note_id,
        title: state.title,
        path: state.path,
        hits,
    })
}
