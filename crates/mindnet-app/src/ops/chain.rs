//! `chain`: a note's causes and effects, from the index or from the files.

use crate::Settings;
use crate::api::Direction;
use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::ops::neighbors::edges_within;
use crate::settings::{DEFAULT_CHAIN_HOPS, MAX_CHAIN_HOPS};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_core::ids::note_of;
use mindnet_lint::{ChainDirection, ChainNote};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::ToSchema;

/// Preview the causal neighbourhood of a note: its causes and effects, as a tree.
pub struct ChainOp;

impl Operation for ChainOp {
    type Request = ChainRequest;
    type Response = ChainResponse;
    const NAME: &'static str = "chain";
    const ABOUT: &'static str =
        "Preview the causal neighbourhood of a note: its causes and effects, as a tree.";
    const EXAMPLE: &'static str = r#"{"note": "Qdrant als Vektordatenbank"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::FilesOrIndex;
    const ROUTE: Route = Route::post("/chain");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::NotFound];
    const TOOL: Option<Tool<ChainRequest>> = None;

    fn run(ws: &Workspace, req: &ChainRequest) -> Result<ChainResponse, AppError> {
        chain(ws, req)
    }

    /// With `files`, or in a vault without an index: from the files.
    fn run_on_files(
        settings: &Settings,
        req: &ChainRequest,
    ) -> Option<Result<ChainResponse, AppError>> {
        (req.files || !settings.has_index()).then(|| chain_from_files(settings, req))
    }
}

/// `mindnet chain`: a note's causes and effects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct ChainRequest {
    /// The note's title or vault path.
    pub note: String,
    #[serde(default = "both")]
    pub direction: crate::api::Direction,
    /// Steps each way (1 to 6, default 3).
    #[serde(default)]
    pub hops: Option<usize>,
    /// Read the files even when an index exists.
    #[serde(default)]
    pub files: bool,
}

fn both() -> crate::api::Direction {
    crate::api::Direction::Both
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChainNode {
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The kind read from the parent.
    pub kind: String,
    /// The same edge read from cause to effect.
    pub forward_kind: String,
    /// Already on this branch (a cycle): not expanded again.
    pub repeated: bool,
    #[schema(no_recursion)]
    pub children: Vec<ChainNode>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChainResponse {
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub causes: Vec<ChainNode>,
    pub effects: Vec<ChainNode>,
}

impl From<mindnet_lint::ChainNode> for ChainNode {
    fn from(n: mindnet_lint::ChainNode) -> Self {
        let mindnet_lint::ChainNode {
            title,
            path,
            note_type,
            kind,
            forward_kind,
            repeated,
            children,
        } = n;
        ChainNode {
            title,
            path,
            note_type,
            kind,
            forward_kind,
            repeated,
            children: children.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<mindnet_lint::ChainPreview> for ChainResponse {
    fn from(p: mindnet_lint::ChainPreview) -> Self {
        let mindnet_lint::ChainPreview {
            title,
            path,
            note_type,
            causes,
            effects,
        } = p;
        ChainResponse {
            title,
            path,
            note_type,
            causes: causes.into_iter().map(Into::into).collect(),
            effects: effects.into_iter().map(Into::into).collect(),
        }
    }
}

/// A note's causes and effects from the index's edge graph, which also
/// knows the edges derived from types and the matrix; with `files`,
/// from the vault's files as they are now.
fn chain(ws: &Workspace, req: &ChainRequest) -> Result<ChainResponse, AppError> {
    if req.files {
        return chain_from_files(ws.settings(), req);
    }
    let (direction, hops) = chain_args(req)?;
    let store = ws.read();
    let notes = store.note_states()?;
    let nodes: Vec<ChainNote> = notes
        .iter()
        .map(|n| ChainNote {
            path: n.path.clone(),
            title: n.title.clone(),
            note_type: n.note_type.clone(),
        })
        .collect();
    let wanted = find_note(&*store, &req.note)?;
    let start = notes
        .iter()
        .position(|n| n.note_id == wanted.note_id)
        .ok_or_else(|| AppError::not_found(format!("no note `{}` in the index", req.note)))?;
    let index: HashMap<&str, usize> = notes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.note_id.as_str(), i))
        .collect();
    let vocab = &ws.config().vocab;
    let mut steps = Vec::new();
    for e in edges_within(&*store, &notes[start].note_id, hops)? {
        let target = note_of(&e.target_id);
        let (Some(&owner), Some(&other)) = (index.get(e.note_id.as_str()), index.get(target))
        else {
            continue;
        };
        if owner == other {
            continue;
        }
        if let Some(step) = mindnet_lint::Step::of(vocab, owner, other, &e.kind) {
            steps.push(step);
        }
    }
    Ok(mindnet_lint::chain_of(&nodes, steps, start, direction, hops).into())
}

/// Direction and hop count of a chain request, checked.
pub(crate) fn chain_args(req: &ChainRequest) -> Result<(ChainDirection, usize), AppError> {
    let hops = req.hops.unwrap_or(usize::from(DEFAULT_CHAIN_HOPS));
    if !(1..=usize::from(MAX_CHAIN_HOPS)).contains(&hops) {
        return Err(AppError::bad_request(format!(
            "`hops` must be 1 to {MAX_CHAIN_HOPS}, not {hops}"
        )));
    }
    let direction = match req.direction {
        Direction::Backward => ChainDirection::Backward,
        Direction::Forward => ChainDirection::Forward,
        Direction::Both => ChainDirection::Both,
    };
    Ok((direction, hops))
}

/// The chain read from the files alone (no index needed).
pub(crate) fn chain_from_files(
    settings: &crate::Settings,
    req: &ChainRequest,
) -> Result<ChainResponse, AppError> {
    let (direction, hops) = chain_args(req)?;
    let config = settings.load_config()?;
    let vault = settings.require_vault()?;
    Ok(mindnet_lint::chain_preview(vault, &config, &req.note, direction, hops)?.into())
}
