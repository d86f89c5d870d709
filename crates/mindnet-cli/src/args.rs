//! The flags several commands share, and how they become the application
//! layer's `SettingsInput`. No defaults are decided here: `Settings`
//! settles them, so the CLI and the server agree.

use mindnet_app::{ConfigFiles, Settings, SettingsInput};
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// Type registry (default: $MINDNET_TYPES_FILE, else <DATA>/config/types.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub types: Option<PathBuf>,
    /// Edge vocabulary (default: $MINDNET_EDGE_VOCABULARY_FILE, else <DATA>/config/edge_vocabulary.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub vocabulary: Option<PathBuf>,
    /// Retriever weights (default: $MINDNET_RETRIEVER_FILE, else <DATA>/config/retriever.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub retriever: Option<PathBuf>,
    /// Intents and causal traversal (default: $MINDNET_DECISION_ENGINE_FILE, else <DATA>/config/decision_engine.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub decision_engine: Option<PathBuf>,
    /// Chat prompts, read on every message (default: $MINDNET_PROMPTS_FILE, else <DATA>/config/prompts.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub prompts: Option<PathBuf>,
}

impl ConfigArgs {
    pub fn files(&self) -> ConfigFiles {
        ConfigFiles {
            types: self.types.clone(),
            vocabulary: self.vocabulary.clone(),
            retriever: self.retriever.clone(),
            decision_engine: self.decision_engine.clone(),
            lint: None,
            prompts: self.prompts.clone(),
        }
    }
}

/// Where the index lives.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DataArgs {
    /// Index folder (default: <VAULT>/.mindnet). With --qdrant-url it keeps
    /// the logs and the configuration; the index is on the server.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Keep the index on a Qdrant server or cluster (its REST address, e.g.
    /// http://localhost:6333; for a cluster every node's, separated by
    /// commas) instead of in the data dir. Default:
    /// $MINDNET_QDRANT_URL. Also read: MINDNET_QDRANT_API_KEY,
    /// COLLECTION_PREFIX (default `mindnet`), MINDNET_QDRANT_SHARDS and
    /// MINDNET_QDRANT_REPLICAS (for new collections).
    #[arg(long, value_name = "URL")]
    pub qdrant_url: Option<String>,
}

/// What every reading command needs: the vault and its index.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct IndexLocation {
    /// The vault (default: $MINDNET_VAULT_ROOT, else the current folder).
    #[arg(long)]
    pub vault: Option<PathBuf>,
    #[command(flatten)]
    pub data: DataArgs,
}

/// The settings of a command: its location, model and configuration files.
pub fn settings(
    vault: Option<PathBuf>,
    data: &DataArgs,
    embedder: Option<String>,
    config: &ConfigArgs,
) -> Settings {
    Settings::resolve(SettingsInput {
        vault,
        data: data.data.clone(),
        qdrant_url: data.qdrant_url.clone(),
        embedder,
        files: config.files(),
        ..Default::default()
    })
}
