//! Which configuration files a command runs with: an explicit flag, then the
//! environment, then the vault's own `.mindnet/config/`, then the built-in copy.

use anyhow::Result;
use mindnet_core::{EdgeVocabulary, TypeRegistry};
use mindnet_ingest::Config;
use mindnet_retrieve::RetrieverConfig;
use mindnet_retrieve::causal::DecisionEngine;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// Type registry (default: $MINDNET_TYPES_FILE, else <VAULT>/.mindnet/config/types.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub types: Option<PathBuf>,
    /// Edge vocabulary (default: $MINDNET_EDGE_VOCABULARY_FILE, else <VAULT>/.mindnet/config/edge_vocabulary.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub vocabulary: Option<PathBuf>,
    /// Retriever weights (default: $MINDNET_RETRIEVER_FILE, else <VAULT>/.mindnet/config/retriever.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub retriever: Option<PathBuf>,
    /// Intents and causal traversal (default: $MINDNET_DECISION_ENGINE_FILE, else <VAULT>/.mindnet/config/decision_engine.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub decision_engine: Option<PathBuf>,
}

fn pick(flag: &Option<PathBuf>, env: &str, vault: &Path, file: &str) -> Option<PathBuf> {
    flag.clone()
        .or_else(|| std::env::var_os(env).map(PathBuf::from))
        .or_else(|| {
            let p = vault.join(".mindnet").join("config").join(file);
            p.is_file().then_some(p)
        })
}

impl ConfigArgs {
    pub fn load(&self, vault: &Path) -> Result<Config> {
        let vocab = match pick(
            &self.vocabulary,
            "MINDNET_EDGE_VOCABULARY_FILE",
            vault,
            "edge_vocabulary.yaml",
        ) {
            Some(p) => {
                tracing::info!("edge vocabulary: {}", p.display());
                EdgeVocabulary::load(&p)?
            }
            None => EdgeVocabulary::builtin(),
        };
        let registry = match pick(&self.types, "MINDNET_TYPES_FILE", vault, "types.yaml") {
            Some(p) => {
                tracing::info!("type registry: {}", p.display());
                TypeRegistry::load(&p, &vocab)?
            }
            None => TypeRegistry::builtin(&vocab),
        };
        Ok(Config { registry, vocab })
    }

    pub fn load_engine(&self, vault: &Path) -> Result<DecisionEngine> {
        Ok(
            match pick(
                &self.decision_engine,
                "MINDNET_DECISION_ENGINE_FILE",
                vault,
                "decision_engine.yaml",
            ) {
                Some(p) => {
                    tracing::info!("decision engine: {}", p.display());
                    DecisionEngine::load(&p)?
                }
                None => DecisionEngine::builtin(),
            },
        )
    }

    pub fn load_retriever(&self, vault: &Path) -> Result<RetrieverConfig> {
        Ok(
            match pick(
                &self.retriever,
                "MINDNET_RETRIEVER_FILE",
                vault,
                "retriever.yaml",
            ) {
                Some(p) => {
                    tracing::info!("retriever config: {}", p.display());
                    RetrieverConfig::load(&p)?
                }
                None => RetrieverConfig::builtin(),
            },
        )
    }
}
