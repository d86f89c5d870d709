//! Opening an index and its embedder: which model, and when its weights load.

use crate::{AppError, Settings, settings::DEFAULT_EMBEDDER};
use mindnet_embed::{Embedder, LazyEmbedder, ModelId};
use mindnet_store::{EmbeddedStore, ModelInfo, ServerStore, Store, StoreMeta};
use std::sync::RwLock;

fn say(msg: &str) {
    // Model fetches can take a minute; the user sees why.
    eprintln!("{msg}");
}

/// The model to use: the settings' choice (flag or environment), else the
/// model the index in the data dir was built with, else the default. A
/// different model than the index's is refused.
pub fn model_name(settings: &Settings, stored: Option<&StoreMeta>) -> Result<String, AppError> {
    let name = settings
        .embedder
        .clone()
        .or_else(|| stored.map(|m| m.model.name.clone()))
        .unwrap_or_else(|| DEFAULT_EMBEDDER.to_string());
    if let Some(m) = stored
        && m.model.name != name
    {
        return Err(AppError::conflict(format!(
            "{} built with the embedding model `{}`, not `{name}`; re-import with `--embedder {}`, or delete {} to rebuild it with `{name}`. Nothing was changed.",
            index_phrase(settings),
            m.model.name,
            m.model.name,
            settings.index_location()
        )));
    }
    Ok(name)
}

/// "the index in <dir> was" or "the collections `p_*` at <url> were".
fn index_phrase(settings: &Settings) -> String {
    match &settings.qdrant {
        None => format!("the index in {} was", settings.data.display()),
        Some(_) => format!("{} were", settings.index_location()),
    }
}

/// The embedder of `model_name`, refused before any model is loaded. When
/// the index names its model, the weights load only once something needs
/// embedding.
pub fn embedder(settings: &Settings) -> Result<Box<dyn Embedder>, AppError> {
    let stored = settings.stored_meta()?;
    let name = model_name(settings, stored.as_ref())?;
    if let Some(m) = stored {
        let id = ModelId {
            name: m.model.name.clone(),
            dim: m.model.dim,
        };
        let embed = settings.embed.clone();
        let opener = move || mindnet_embed::open(&m.model.name, &embed, &say);
        return Ok(Box::new(LazyEmbedder::new(id, Box::new(opener))));
    }
    mindnet_embed::open(&name, &settings.embed, &say).map_err(|e| {
        let e = AppError::from(e);
        AppError::new(
            e.code,
            format!("cannot open the embedder `{name}`: {}", e.message),
        )
    })
}

/// A store behind the lock every reader shares and a batch commit takes
/// alone; embedded or on a server, the rest of the app cannot tell.
pub type SharedStore = Box<RwLock<dyn Store>>;

/// The index of `settings`, created for the embedder's model if there is none.
pub fn store_for(settings: &Settings, embedder: &dyn Embedder) -> Result<SharedStore, AppError> {
    let id = embedder.id();
    let model = ModelInfo {
        name: id.name.clone(),
        dim: id.dim,
    };
    let lang = &settings.lang;
    settings.usable()?;
    Ok(match &settings.qdrant {
        None => Box::new(RwLock::new(EmbeddedStore::open(
            &settings.data,
            &model,
            lang,
        )?)),
        Some(server) => Box::new(RwLock::new(ServerStore::open(server, &model, lang)?)),
    })
}

/// The existing index of `settings`, whatever its model.
pub fn existing_store(settings: &Settings) -> Result<SharedStore, AppError> {
    settings.usable()?;
    if let Some(server) = &settings.qdrant {
        return Ok(Box::new(RwLock::new(ServerStore::open_existing(server)?)));
    }
    let data = &settings.data;
    if StoreMeta::read_from(data)?.is_none() {
        return Err(AppError::not_found(format!(
            "no mindnet index in {}; run `mindnet import <VAULT>` first",
            data.display()
        )));
    }
    Ok(Box::new(RwLock::new(EmbeddedStore::open_existing(data)?)))
}

/// Whether the settings name an index (a Qdrant server, or an embedded
/// index in the data folder), without opening it.
pub fn has_index(settings: &Settings) -> bool {
    settings.qdrant.is_some() || StoreMeta::read_from(&settings.data).is_ok_and(|m| m.is_some())
}

/// The integrity check of the index (`mindnet check`).
pub fn check(settings: &Settings) -> Result<mindnet_store::CheckReport, AppError> {
    let store = existing_store(settings)?;
    let vocab = settings.load_config()?.vocab;
    let guard = store.read().unwrap_or_else(|e| e.into_inner());
    Ok(mindnet_store::check(&*guard, vocab.structure())?)
}
