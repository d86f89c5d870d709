//! `sync`: brings the index up to date with the vault.

use crate::api::SyncSummary;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Bring the index up to date with the vault, or with the files that changed.
pub struct SyncOp;

impl Operation for SyncOp {
    type Request = SyncRequest;
    type Response = SyncSummary;
    const NAME: &'static str = "sync";
    const ABOUT: &'static str =
        "Bring the index up to date with the vault, or with the files that changed.";
    const EXAMPLE: &'static str = r#"{}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/sync").without_deadline();
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<SyncRequest>> = None;

    fn run(ws: &Workspace, req: &SyncRequest) -> Result<SyncSummary, AppError> {
        ws.sync(req, &())
    }
}

/// A sync of the whole vault, or of the files that changed.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
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
