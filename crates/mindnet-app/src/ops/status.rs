//! `status`: what the index holds and what the running sync has done.

use crate::api::{NoArgs, SyncProgress};
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_store::StoreMeta;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Counts, model and last import of the index, and the running sync.
pub struct StatusOp;

impl Operation for StatusOp {
    type Request = NoArgs;
    type Response = StatusResponse;
    const NAME: &'static str = "status";
    const ABOUT: &'static str = "Counts, model and last import of the index, and the running sync.";
    const EXAMPLE: &'static str = r#"{}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/status");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<NoArgs>> = Some(Tool::new(
        "status",
        "Index status",
        "How many notes, chunks and edges the index holds, the embedding model, \
            the last import, and whether a sync is running now.",
    ));

    fn run(ws: &Workspace, _: &NoArgs) -> Result<StatusResponse, AppError> {
        status(ws)
    }
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

fn status(ws: &Workspace) -> Result<StatusResponse, AppError> {
    let (counts, meta) = {
        let store = ws.read();
        (store.counts()?, store.meta().clone())
    };
    let StoreMeta {
        format: _,
        model,
        lang,
        created,
        last_import,
        last_import_seconds,
        import_started,
    } = meta;
    Ok(StatusResponse {
        vault: ws.settings().vault.display().to_string(),
        data: ws.settings().data.display().to_string(),
        index: ws.settings().index_location(),
        model: model.name,
        dim: model.dim,
        lang,
        notes: counts.notes,
        chunks: counts.chunks,
        edges: counts.edges,
        unresolved: counts.unresolved,
        created,
        last_import,
        last_import_seconds,
        unfinished_import: import_started,
        sync: ws.sync_progress(),
    })
}
