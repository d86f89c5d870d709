//! `note`: a note as the index holds it.

use crate::api::{ChunkInfo, EdgeInfo, NoteInfo};
use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A note as the index holds it: its chunks, and its edges in and out.
pub struct NoteOp;

impl Operation for NoteOp {
    type Request = NoteKey;
    type Response = NoteResponse;
    const NAME: &'static str = "note";
    const ABOUT: &'static str =
        "A note as the index holds it: its chunks, and its edges in and out.";
    const EXAMPLE: &'static str = r#"{"id": "Qdrant als Vektordatenbank"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/notes/{*id}");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::NotFound];
    const TOOL: Option<Tool<NoteKey>> = None;

    fn run(ws: &Workspace, req: &NoteKey) -> Result<NoteResponse, AppError> {
        note(ws, &req.id)
    }
}

/// `GET /notes/{id}`: which note.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
pub struct NoteKey {
    /// note id, vault path or title
    pub id: String,
}

/// `GET /notes/{id}`: the note, its chunks, and its edges in and out
/// (structure edges between its own chunks are left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NoteResponse {
    pub note: NoteInfo,
    pub chunks: Vec<ChunkInfo>,
    pub edges_out: Vec<EdgeInfo>,
    pub edges_in: Vec<EdgeInfo>,
}

/// The note, its chunks and its edges in and out.
fn note(ws: &Workspace, key: &str) -> Result<NoteResponse, AppError> {
    let store = ws.read();
    let state = find_note(&*store, key)?;
    let id = &state.note_id;
    let note = store
        .note(id)?
        .ok_or_else(|| AppError::not_found(format!("no note `{key}` in the index")))?;
    let vocab = &ws.config().vocab;
    let edges_out: Vec<EdgeInfo> = store
        .edges_of(id)?
        .into_iter()
        .filter(|e| !vocab.is_structural(&e.kind))
        .map(Into::into)
        .collect();
    let edges_in: Vec<EdgeInfo> = store
        .note_edges(id)?
        .incoming
        .iter()
        .filter(|e| e.note_id != *id && !vocab.is_structural(&e.kind))
        .cloned()
        .map(Into::into)
        .collect();
    Ok(NoteResponse {
        note: note.into(),
        chunks: store.chunks_of(id)?.into_iter().map(Into::into).collect(),
        edges_out,
        edges_in,
    })
}
