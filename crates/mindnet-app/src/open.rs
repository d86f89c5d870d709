//! Opening an index and its embedder: which model, and when its weights load.

use crate::{AppError, Settings, settings::DEFAULT_EMBEDDER};
use mindnet_embed::{Embedder, LazyEmbedder, ModelId};
use mindnet_store::{EmbeddedStore, ModelInfo, StoreMeta};
use std::path::Path;

fn say(msg: &str) {
    // Model fetches can take a minute; the user sees why.
    eprintln!("{msg}");
}

/// The model to use: the settings' choice (flag or environment), else the
/// model the index in the data dir was built with, else the default. A
/// different model than the index's is refused.
pub fn model_name(settings: &Settings, stored: Option<&StoreMeta>) -> Result<String, AppError> {
    let data = &settings.data;
    let name = settings
        .embedder
        .clone()
        .or_else(|| stored.map(|m| m.model.name.clone()))
        .unwrap_or_else(|| DEFAULT_EMBEDDER.to_string());
    if let Some(m) = stored
        && m.model.name != name
    {
        return Err(AppError::conflict(format!(
            "the index in {} was built with the embedding model `{}`, not `{name}`; re-import with `--embedder {}`, or delete {} to rebuild it with `{name}`. Nothing was changed.",
            data.display(),
            m.model.name,
            m.model.name,
            data.display()
        )));
    }
    Ok(name)
}

/// The embedder of `model_name`, refused before any model is loaded. When
/// the index names its model, the weights load only once something needs
/// embedding.
pub fn embedder(settings: &Settings) -> Result<Box<dyn Embedder>, AppError> {
    let stored = StoreMeta::read_from(&settings.data)?;
    let name = model_name(settings, stored.as_ref())?;
    if let Some(m) = stored {
        let id = ModelId {
            name: m.model.name.clone(),
            dim: m.model.dim,
        };
        let opener = move || mindnet_embed::open(&m.model.name, &say);
        return Ok(Box::new(LazyEmbedder::new(id, Box::new(opener))));
    }
    mindnet_embed::open(&name, &say).map_err(|e| {
        let e = AppError::from(e);
        AppError::new(
            e.code,
            format!("cannot open the embedder `{name}`: {}", e.message),
        )
    })
}

/// The index in `data`, created for the embedder's model if there is none.
pub fn store_for(
    data: &Path,
    embedder: &dyn Embedder,
    lang: &str,
) -> Result<EmbeddedStore, AppError> {
    let id = embedder.id();
    let model = ModelInfo {
        name: id.name.clone(),
        dim: id.dim,
    };
    Ok(EmbeddedStore::open(data, &model, lang)?)
}

/// The existing index in `data`, whatever its model.
pub fn existing_store(data: &Path) -> Result<EmbeddedStore, AppError> {
    if StoreMeta::read_from(data)?.is_none() {
        return Err(AppError::not_found(format!(
            "no mindnet index in {}; run `mindnet import <VAULT>` first",
            data.display()
        )));
    }
    Ok(EmbeddedStore::open_existing(data)?)
}

/// The integrity check of the index (`mindnet check`).
pub fn check(settings: &Settings) -> Result<mindnet_store::CheckReport, AppError> {
    Ok(existing_store(&settings.data)?.check()?)
}
