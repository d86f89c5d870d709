//! Every default and every environment variable of mindnet, settled in one
//! place (ripgrep's `HiArgs`). A transport turns its own input (flags, a
//! request) into a `SettingsInput`; `Settings::resolve` decides the rest, so
//! the CLI and the server can never disagree about where an index lives or
//! which configuration file wins.
//!
//! Order of precedence for each file: the explicit input, then the
//! environment, then `<VAULT>/.mindnet/config/<file>`, then the built-in copy.

use crate::AppError;
use mindnet_chat::{LlmConfig, Provider};
use mindnet_core::{EdgeVocabulary, TypeRegistry};
use mindnet_embed::{EmbedSettings, Int8};
use mindnet_ingest::Config;
use mindnet_lint::LintConfig;
use mindnet_retrieve::RetrieverConfig;
use mindnet_retrieve::causal::DecisionEngine;
use mindnet_store::ServerConfig;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The embedding model of a new index.
pub const DEFAULT_EMBEDDER: &str = "e5-small";
/// Language of notes without `lang:` (and of BM25).
pub const DEFAULT_LANG: &str = "de";
/// Notes larger than this are skipped (exports and logs, not notes).
pub const DEFAULT_MAX_NOTE_MB: u64 = 8;
/// `mindnet serve`: production and development ports (the seeds' 8001/8002).
pub const PORT: u16 = 8001;
pub const DEV_PORT: u16 = 8002;
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
pub const DEFAULT_API_TIMEOUT: Duration = Duration::from_secs(60);
/// Steps each way of `mindnet chain` (at most `MAX_CHAIN_HOPS`).
pub const DEFAULT_CHAIN_HOPS: u8 = 3;
pub const MAX_CHAIN_HOPS: u8 = 6;
/// Quiet time after the last file event before the watcher syncs.
pub const WATCH_DEBOUNCE: Duration = Duration::from_millis(300);

/// Requests to an embedding server wait this long.
pub const DEFAULT_EMBEDDING_TIMEOUT: Duration = Duration::from_secs(120);
pub const DEFAULT_OLLAMA_URL: &str = "http://127.0.0.1:11434";
pub const DEFAULT_EMBEDDING_URL: &str = "http://127.0.0.1:8080";
pub const DEFAULT_PYTHON: &str = "python3";

/// mindnet's folder in the user cache: `$XDG_CACHE_HOME/mindnet`, else
/// `~/.cache/mindnet` (the models, and the indexes of `mindnet tune`).
pub fn cache_root() -> PathBuf {
    var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("mindnet")
}

/// Where `mindnet tune` keeps the indexes of judged sets: next to the model
/// cache (`$XDG_CACHE_HOME/mindnet/tune`, else `~/.cache/mindnet/tune`).
pub fn tune_index_dir() -> PathBuf {
    cache_root().join("tune")
}

/// What the embedders are told: the model cache (`$MINDNET_MODEL_DIR`, else
/// `<cache>/models`), the Python that fetches a model, the embedding
/// servers, and the int8 products (`MINDNET_EMBED_INT8=off` keeps f32,
/// `=portable` runs the reference loops).
fn embed_settings() -> EmbedSettings {
    EmbedSettings {
        model_dir: var(env::MODEL_DIR)
            .map(PathBuf::from)
            .unwrap_or_else(|| cache_root().join("models")),
        python: var(env::PYTHON).unwrap_or_else(|| DEFAULT_PYTHON.to_string()),
        ollama_url: var(env::OLLAMA_URL).unwrap_or_else(|| DEFAULT_OLLAMA_URL.to_string()),
        openai_url: var(env::EMBEDDING_URL).unwrap_or_else(|| DEFAULT_EMBEDDING_URL.to_string()),
        timeout: var(env::EMBEDDING_TIMEOUT)
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or(DEFAULT_EMBEDDING_TIMEOUT, Duration::from_secs_f64),
        api_key: var(env::EMBEDDING_API_KEY),
        int8: match var(env::EMBED_INT8).as_deref() {
            Some("off" | "0" | "false") => Int8::Off,
            Some("portable") => Int8::Portable,
            _ => Int8::Detect,
        },
    }
}

/// Environment variables, by name, in one list (API-2).
pub mod env {
    pub const VAULT_ROOT: &str = "MINDNET_VAULT_ROOT";
    pub const EMBEDDING_MODEL: &str = "MINDNET_EMBEDDING_MODEL";
    pub const TYPES_FILE: &str = "MINDNET_TYPES_FILE";
    pub const EDGE_VOCABULARY_FILE: &str = "MINDNET_EDGE_VOCABULARY_FILE";
    pub const RETRIEVER_FILE: &str = "MINDNET_RETRIEVER_FILE";
    pub const DECISION_ENGINE_FILE: &str = "MINDNET_DECISION_ENGINE_FILE";
    /// The seeds' name for the decision engine file (API-2).
    pub const DECISION_CONFIG: &str = "MINDNET_DECISION_CONFIG";
    pub const LINT_FILE: &str = "MINDNET_LINT_FILE";
    pub const API_TOKEN: &str = "MINDNET_API_TOKEN";
    /// Seconds per request.
    pub const API_TIMEOUT: &str = "MINDNET_API_TIMEOUT";
    /// Bytes per request body.
    pub const API_BODY_LIMIT: &str = "MINDNET_API_BODY_LIMIT";
    /// Comma-separated origins allowed to call the API from a browser.
    pub const API_ORIGINS: &str = "MINDNET_API_ORIGINS";
    pub const PROMPTS_FILE: &str = "MINDNET_PROMPTS_FILE";
    /// An OpenAI-compatible server (`/v1/chat/completions`).
    pub const LLM_URL: &str = "MINDNET_LLM_URL";
    /// An Ollama server (`/api/chat`).
    pub const OLLAMA_URL: &str = "MINDNET_OLLAMA_URL";
    pub const LLM_MODEL: &str = "MINDNET_LLM_MODEL";
    /// Seconds for the connect, the answer's head and each read of its body.
    pub const LLM_TIMEOUT: &str = "MINDNET_LLM_TIMEOUT";
    /// Background LLM requests (smart edges) at once.
    pub const LLM_BACKGROUND_LIMIT: &str = "MINDNET_LLM_BACKGROUND_LIMIT";
    pub const LLM_API_KEY: &str = "MINDNET_LLM_API_KEY";
    /// A Qdrant server's REST address: the index lives there, not in the data dir.
    pub const QDRANT_URL: &str = "MINDNET_QDRANT_URL";
    pub const QDRANT_API_KEY: &str = "MINDNET_QDRANT_API_KEY";
    /// Collections `<prefix>_notes`, `_chunks`, `_edges` (the data model).
    pub const COLLECTION_PREFIX: &str = "COLLECTION_PREFIX";
    /// Shards and replicas of collections created on a cluster.
    pub const QDRANT_SHARDS: &str = "MINDNET_QDRANT_SHARDS";
    pub const QDRANT_REPLICAS: &str = "MINDNET_QDRANT_REPLICAS";
    /// The model cache.
    pub const MODEL_DIR: &str = "MINDNET_MODEL_DIR";
    /// The Python whose pip fetches a model.
    pub const PYTHON: &str = "MINDNET_PYTHON";
    /// An OpenAI-compatible embedding server (`openai:<model>`).
    pub const EMBEDDING_URL: &str = "MINDNET_EMBEDDING_URL";
    /// Seconds per request to an embedding server.
    pub const EMBEDDING_TIMEOUT: &str = "MINDNET_EMBEDDING_TIMEOUT";
    pub const EMBEDDING_API_KEY: &str = "MINDNET_EMBEDDING_API_KEY";
    /// `off`, `portable`, or unset (int8 where the CPU can).
    pub const EMBED_INT8: &str = "MINDNET_EMBED_INT8";
}

pub const DEFAULT_COLLECTION_PREFIX: &str = "mindnet";
/// Longest wait for one request to a Qdrant server.
pub const QDRANT_TIMEOUT: Duration = Duration::from_secs(60);

pub const DEFAULT_LLM_TIMEOUT: Duration = Duration::from_secs(120);
pub const DEFAULT_LLM_BACKGROUND_LIMIT: usize = 2;

/// The LLM of the chat, as the environment configures it.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum LlmSetting {
    /// No LLM: extractive answers, the schema interview, rule-based smart edges.
    #[default]
    None,
    Configured(LlmConfig),
    /// Set, but wrongly: the chat reports this instead of answering with an LLM.
    Invalid(String),
}

fn llm_setting() -> LlmSetting {
    let (provider, url) = match (var(env::LLM_URL), var(env::OLLAMA_URL)) {
        (None, None) => return LlmSetting::None,
        (Some(_), Some(_)) => {
            return LlmSetting::Invalid(format!(
                "{} and {} are both set; set one",
                env::LLM_URL,
                env::OLLAMA_URL
            ));
        }
        (Some(u), None) => (Provider::OpenAi, u),
        (None, Some(u)) => (Provider::Ollama, u),
    };
    let Some(model) = var(env::LLM_MODEL) else {
        return LlmSetting::Invalid(format!("{} is not set (the model to ask)", env::LLM_MODEL));
    };
    let number = |name: &str, default: u64| -> Result<u64, String> {
        var(name).map_or(Ok(default), |v| {
            v.trim()
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{name}={v:?} is no positive whole number"))
        })
    };
    let timeout = match number(env::LLM_TIMEOUT, DEFAULT_LLM_TIMEOUT.as_secs()) {
        Ok(t) => t,
        Err(e) => return LlmSetting::Invalid(e),
    };
    let limit = match number(
        env::LLM_BACKGROUND_LIMIT,
        DEFAULT_LLM_BACKGROUND_LIMIT as u64,
    ) {
        Ok(n) => n,
        Err(e) => return LlmSetting::Invalid(e),
    };
    LlmSetting::Configured(LlmConfig {
        provider,
        url,
        model,
        timeout: Duration::from_secs(timeout),
        background_limit: limit as usize,
        api_key: var(env::LLM_API_KEY),
    })
}

/// The server store's settings: the URL given, the rest from the
/// environment; a layout that is no positive whole number is refused.
pub(crate) fn server_config(url: &str) -> Result<ServerConfig, String> {
    let count = |name: &str| match var(name) {
        None => Ok(1),
        Some(v) => v
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{name}={v:?} is no positive whole number")),
    };
    Ok(ServerConfig {
        url: url.trim().to_string(),
        api_key: var(env::QDRANT_API_KEY),
        prefix: var(env::COLLECTION_PREFIX).unwrap_or_else(|| DEFAULT_COLLECTION_PREFIX.into()),
        shards: count(env::QDRANT_SHARDS)?,
        replicas: count(env::QDRANT_REPLICAS)?,
        timeout: QDRANT_TIMEOUT,
    })
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Configuration files asked for explicitly (flags); `None`: not given.
#[derive(Debug, Clone, Default)]
pub struct ConfigFiles {
    pub types: Option<PathBuf>,
    pub vocabulary: Option<PathBuf>,
    pub retriever: Option<PathBuf>,
    pub decision_engine: Option<PathBuf>,
    pub lint: Option<PathBuf>,
    /// Read on every chat request; a missing file means the built-in prompts.
    pub prompts: Option<PathBuf>,
}

/// What a transport knows before the defaults are applied.
#[derive(Debug, Clone, Default)]
pub struct SettingsInput {
    pub vault: Option<PathBuf>,
    /// The index folder; default `<VAULT>/.mindnet`.
    pub data: Option<PathBuf>,
    pub embedder: Option<String>,
    pub files: ConfigFiles,
    /// Language of notes without `lang:`.
    pub lang: Option<String>,
    pub max_note_mb: Option<u64>,
    /// A Qdrant server's REST address (`--qdrant-url`).
    pub qdrant_url: Option<String>,
}

/// Everything decided: paths, files, model choice.
#[derive(Debug, Clone)]
pub struct Settings {
    pub vault: PathBuf,
    pub data: PathBuf,
    /// The model asked for (input or environment); `None`: the index's, or
    /// the default for a new index.
    pub embedder: Option<String>,
    /// Each file resolved to a path, or `None` for the built-in copy.
    pub files: ConfigFiles,
    pub lang: String,
    pub max_note_bytes: u64,
    pub llm: LlmSetting,
    /// Where the index lives: `None` in the data dir (embedded Qdrant), else
    /// on this server. The data dir keeps the logs and the configuration
    /// either way.
    pub qdrant: Option<ServerConfig>,
    /// A server setting that cannot be used (`MINDNET_QDRANT_SHARDS=abc`):
    /// every command that opens the index refuses with it.
    pub qdrant_problem: Option<String>,
    /// Whether the vault was named (input or `MINDNET_VAULT_ROOT`), not
    /// taken to be the current folder.
    pub vault_named: bool,
    /// The token for a server that owns the index (`MINDNET_API_TOKEN`).
    pub api_token: Option<String>,
    pub embed: EmbedSettings,
}

impl Settings {
    pub fn resolve(input: SettingsInput) -> Settings {
        let named = input
            .vault
            .or_else(|| var(env::VAULT_ROOT).map(PathBuf::from));
        let vault_named = named.is_some();
        let vault = named.unwrap_or_else(|| PathBuf::from("."));
        let data = input.data.unwrap_or_else(|| vault.join(".mindnet"));
        let pick = |given: Option<PathBuf>, vars: &[&str], file: &str| {
            given
                .or_else(|| vars.iter().find_map(|v| var(v)).map(PathBuf::from))
                .or_else(|| {
                    let p = data.join("config").join(file);
                    p.is_file().then_some(p)
                })
                .or_else(|| {
                    // An index kept elsewhere (`--data`) still honours the
                    // vault's own configuration folder.
                    let p = vault.join(".mindnet").join("config").join(file);
                    p.is_file().then_some(p)
                })
        };
        let f = input.files;
        let files = ConfigFiles {
            types: pick(f.types, &[env::TYPES_FILE], "types.yaml"),
            vocabulary: pick(
                f.vocabulary,
                &[env::EDGE_VOCABULARY_FILE],
                "edge_vocabulary.yaml",
            ),
            retriever: pick(f.retriever, &[env::RETRIEVER_FILE], "retriever.yaml"),
            decision_engine: pick(
                f.decision_engine,
                &[env::DECISION_ENGINE_FILE, env::DECISION_CONFIG],
                "decision_engine.yaml",
            ),
            lint: pick(f.lint, &[env::LINT_FILE], "lint.yaml"),
            // Late-bound: the file may appear while the server runs.
            prompts: pick(f.prompts, &[env::PROMPTS_FILE], "prompts.yaml")
                .or_else(|| Some(data.join("config").join("prompts.yaml"))),
        };
        let url = input.qdrant_url.or_else(|| var(env::QDRANT_URL));
        let (qdrant, qdrant_problem) = match url.as_deref().map(server_config) {
            None => (None, None),
            Some(Ok(c)) => (Some(c), None),
            // Still a server: an unusable setting never falls back to the
            // data dir.
            Some(Err(e)) => (url.as_deref().map(ServerConfig::new), Some(e)),
        };
        Settings {
            qdrant,
            qdrant_problem,
            embedder: input.embedder.or_else(|| var(env::EMBEDDING_MODEL)),
            files,
            lang: input.lang.unwrap_or_else(|| DEFAULT_LANG.to_string()),
            max_note_bytes: input
                .max_note_mb
                .unwrap_or(DEFAULT_MAX_NOTE_MB)
                .saturating_mul(1024 * 1024),
            llm: llm_setting(),
            vault,
            vault_named,
            api_token: var(env::API_TOKEN),
            embed: embed_settings(),
            data,
        }
    }

    /// The type registry and edge vocabulary.
    pub fn load_config(&self) -> Result<Config, AppError> {
        let vocab = match &self.files.vocabulary {
            Some(p) => {
                tracing::info!("edge vocabulary: {}", p.display());
                EdgeVocabulary::load(p)?
            }
            None => EdgeVocabulary::builtin(),
        };
        let registry = match &self.files.types {
            Some(p) => {
                tracing::info!("type registry: {}", p.display());
                TypeRegistry::load(p, &vocab)?
            }
            None => TypeRegistry::builtin(&vocab),
        };
        Ok(Config { registry, vocab })
    }

    pub fn load_retriever(&self) -> Result<RetrieverConfig, AppError> {
        Ok(match &self.files.retriever {
            Some(p) => RetrieverConfig::load(p)?,
            None => RetrieverConfig::builtin(),
        })
    }

    pub fn load_engine(&self) -> Result<DecisionEngine, AppError> {
        Ok(match &self.files.decision_engine {
            Some(p) => DecisionEngine::load(p)?,
            None => DecisionEngine::builtin(),
        })
    }

    pub fn load_lint(&self) -> Result<LintConfig, AppError> {
        Ok(match &self.files.lint {
            Some(p) => LintConfig::load(p)?,
            None => LintConfig::builtin(),
        })
    }

    pub fn import_options(&self) -> mindnet_ingest::ImportOptions {
        mindnet_ingest::ImportOptions {
            lang: self.lang.clone(),
            max_note_bytes: self.max_note_bytes,
            ..Default::default()
        }
    }

    /// An index exists (it may still be locked by another process).
    pub fn has_index(&self) -> bool {
        matches!(self.stored_meta(), Ok(Some(_)))
    }

    /// The metadata of the index, from the data dir or the server.
    pub fn stored_meta(&self) -> Result<Option<mindnet_store::StoreMeta>, AppError> {
        self.usable()?;
        Ok(match &self.qdrant {
            None => mindnet_store::StoreMeta::read_from(&self.data)?,
            Some(server) => mindnet_store::ServerStore::stored_meta(server)?,
        })
    }

    /// Refuses an unusable server setting before anything is opened.
    pub fn usable(&self) -> Result<(), AppError> {
        match &self.qdrant_problem {
            Some(p) => Err(AppError::bad_request(p.clone())),
            None => Ok(()),
        }
    }

    /// Where `manifest.json` is kept: only beside an embedded index, whose
    /// writers are all on this machine; a server's index can change from
    /// another client, so each import asks the server.
    pub fn manifest_dir(&self) -> Option<PathBuf> {
        self.qdrant.is_none().then(|| self.data.clone())
    }

    /// Where the index is, for messages: its folder or its server.
    pub fn index_location(&self) -> String {
        match &self.qdrant {
            None => self.data.display().to_string(),
            Some(s) => format!("the collections `{}_*` at {}", s.prefix, s.url),
        }
    }

    /// The vault folder, or an error that says what to give instead.
    pub fn require_vault(&self) -> Result<&Path, AppError> {
        match std::fs::metadata(&self.vault) {
            Ok(m) if m.is_dir() => Ok(&self.vault),
            Ok(_) => Err(AppError::bad_request(format!(
                "{}: not a folder; give the vault's root folder",
                self.vault.display()
            ))),
            Err(e) => Err(AppError::bad_request(format!(
                "{}: cannot open the vault: {e}",
                self.vault.display()
            ))),
        }
    }
}

/// How `mindnet serve` listens, decided from flags and the environment.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    pub listen: SocketAddr,
    /// Required for any listen address that is not loopback.
    pub token: Option<String>,
    pub body_limit: usize,
    pub timeout: Duration,
    /// Origins whose browser requests are allowed (default: none).
    pub origins: Vec<String>,
    pub watch: bool,
}

/// What `mindnet serve` was given.
#[derive(Debug, Clone, Default)]
pub struct ServeInput {
    pub listen: Option<SocketAddr>,
    pub dev: bool,
    pub token: Option<String>,
    pub body_limit: Option<usize>,
    pub timeout_secs: Option<u64>,
    pub origins: Vec<String>,
    pub no_watch: bool,
}

impl ServeSettings {
    pub fn resolve(input: ServeInput) -> Result<ServeSettings, AppError> {
        let port = if input.dev { DEV_PORT } else { PORT };
        let listen = input
            .listen
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], port)));
        let token = input.token.or_else(|| var(env::API_TOKEN));
        if !listen.ip().is_loopback() && token.is_none() {
            return Err(AppError::bad_request(format!(
                "refusing to listen on {listen} without a token: anyone on the network could read your notes. Give --token (or set {}), or listen on 127.0.0.1",
                env::API_TOKEN
            )));
        }
        let number = |name: &str| -> Result<Option<u64>, AppError> {
            var(name)
                .map(|v| {
                    v.trim().parse::<u64>().map_err(|_| {
                        AppError::bad_request(format!("{name}={v}: expected a whole number"))
                    })
                })
                .transpose()
        };
        let body_limit = match input.body_limit {
            Some(b) => b,
            None => number(env::API_BODY_LIMIT)?.map_or(DEFAULT_BODY_LIMIT, |b| b as usize),
        };
        let timeout = match input.timeout_secs {
            Some(s) => Duration::from_secs(s),
            None => number(env::API_TIMEOUT)?.map_or(DEFAULT_API_TIMEOUT, Duration::from_secs),
        };
        let mut origins = input.origins;
        if origins.is_empty()
            && let Some(v) = var(env::API_ORIGINS)
        {
            origins = v.split(',').map(|o| o.trim().to_string()).collect();
        }
        origins.retain(|o| !o.is_empty());
        Ok(ServeSettings {
            listen,
            token,
            body_limit,
            timeout,
            origins,
            watch: !input.no_watch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_by_default_and_a_token_for_anything_else() {
        let s = ServeSettings::resolve(ServeInput::default()).unwrap();
        assert_eq!(s.listen, SocketAddr::from(([127, 0, 0, 1], PORT)));
        let dev = ServeSettings::resolve(ServeInput {
            dev: true,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(dev.listen.port(), DEV_PORT);
        let public = ServeInput {
            listen: Some("0.0.0.0:9000".parse().unwrap()),
            ..Default::default()
        };
        if var(env::API_TOKEN).is_none() {
            let e = ServeSettings::resolve(public.clone()).unwrap_err();
            assert!(e.message.contains("without a token"), "{e}");
        }
        let with_token = ServeSettings::resolve(ServeInput {
            token: Some("t".into()),
            ..public
        })
        .unwrap();
        assert_eq!(with_token.token.as_deref(), Some("t"));
    }

    #[test]
    fn the_data_dir_defaults_to_the_vaults_and_files_to_built_in() {
        let dir = tempfile::tempdir().unwrap();
        let s = Settings::resolve(SettingsInput {
            vault: Some(dir.path().to_path_buf()),
            ..Default::default()
        });
        assert_eq!(s.data, dir.path().join(".mindnet"));
        assert_eq!(s.max_note_bytes, DEFAULT_MAX_NOTE_MB * 1024 * 1024);
        // A file in the data dir's config folder wins over the built-in copy.
        std::fs::create_dir_all(s.data.join("config")).unwrap();
        std::fs::write(s.data.join("config/lint.yaml"), "rules: {}\n").unwrap();
        let s = Settings::resolve(SettingsInput {
            vault: Some(dir.path().to_path_buf()),
            ..Default::default()
        });
        if var(env::LINT_FILE).is_none() {
            assert_eq!(s.files.lint, Some(s.data.join("config/lint.yaml")));
        }
    }
}
