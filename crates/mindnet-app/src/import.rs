//! `import`: the batch form of a sync, for a process that does not keep the
//! index open. An unchanged vault is answered from `manifest.json` without
//! opening the index or loading the model.

use crate::api::SyncSummary;
use crate::ops::sync::SyncRequest;
use crate::{AppError, OpenMode, Settings, Workspace};
use mindnet_index::{Progress, SyncOptions, manifest};
use mindnet_store::StoreMeta;

/// What an import did, and the model of the index it left.
#[derive(Debug, Clone)]
pub struct ImportOutcome {
    pub summary: SyncSummary,
    pub model: String,
    pub dim: usize,
}

pub fn import(
    settings: &Settings,
    req: &SyncRequest,
    progress: &dyn Progress,
) -> Result<ImportOutcome, AppError> {
    let vault = settings.require_vault()?;
    let config = settings.load_config()?;
    // Refuses another model before anything is looked at.
    crate::open::model_name(settings, settings.stored_meta()?.as_ref())?;
    let opts = SyncOptions {
        sync_deletes: req.sync_deletes,
        purge_before_upsert: req.purge_before_upsert,
        manifest_dir: settings.manifest_dir(),
        ..SyncOptions::default()
    };
    if let Some(dir) = settings.manifest_dir()
        && let Some(report) =
            manifest::unchanged(&dir, vault, &config, &settings.import_options(), &opts)
    {
        tracing::info!("nothing changed since the last import (manifest.json)");
        let meta = StoreMeta::record_import(&settings.data, report.seconds)?;
        return Ok(ImportOutcome {
            summary: report.into(),
            model: meta.model.name,
            dim: meta.model.dim,
        });
    }
    let ws = Workspace::open(settings.clone(), OpenMode::CreateIfMissing)?;
    let summary = ws.sync(req, progress)?;
    let meta = ws.read().meta().clone();
    Ok(ImportOutcome {
        summary,
        model: meta.model.name,
        dim: meta.model.dim,
    })
}

/// The plan of the whole vault (`import --dry-run`): everything but the
/// embeddings, nothing written. `shuffle_seed` reads the files in a shuffled
/// order (a determinism test).
pub fn plan(
    settings: &Settings,
    shuffle_seed: Option<u64>,
) -> Result<mindnet_ingest::ImportPlan, AppError> {
    let vault = settings.require_vault()?;
    let config = settings.load_config()?;
    let opts = mindnet_ingest::ImportOptions {
        shuffle_seed,
        ..settings.import_options()
    };
    Ok(mindnet_ingest::plan_vault(vault, &config, &opts)?)
}
