//! The model cache as every command finds it, for the tests that need real
//! weights. It reads the two variables `mindnet_app::settings` reads for
//! this (the embedder's tests build without the application layer, so they
//! do not call it): `MINDNET_MODEL_DIR`, else `<cache>/mindnet/models`.

use mindnet_embed::{EmbedSettings, Int8};
use std::path::PathBuf;
use std::time::Duration;

pub fn model_settings() -> EmbedSettings {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let cache = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    EmbedSettings {
        model_dir: var("MINDNET_MODEL_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| cache.join("mindnet/models")),
        python: "python3".into(),
        ollama_url: String::new(),
        openai_url: String::new(),
        timeout: Duration::from_secs(60),
        api_key: None,
        int8: Int8::Detect,
    }
}
