//! Embedders behind an HTTP API: Ollama's `/api/embed` and the
//! OpenAI-compatible `/v1/embeddings`. Selected as `ollama:<model>` or
//! `openai:<model>`; the server comes from `MINDNET_OLLAMA_URL` or
//! `MINDNET_EMBEDDING_URL`, its key (if any) from `MINDNET_EMBEDDING_API_KEY`.

use crate::{EmbedError, EmbedSettings, Embedder, ModelId, normalize};
use serde_json::{Value, json};
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Ollama,
    OpenAi,
}

pub struct HttpEmbedder {
    api: Api,
    base_url: String,
    model: String,
    api_key: Option<String>,
    client: reqwest::blocking::Client,
    /// Learned from the first answer; later answers must match it.
    id: OnceLock<ModelId>,
    name: String,
}

/// `ollama:<model>` or `openai:<model>`; `None` for any other name.
pub fn open(name: &str, settings: &EmbedSettings) -> Option<Result<Box<dyn Embedder>, EmbedError>> {
    let (api, model) = if let Some(m) = name.strip_prefix("ollama:") {
        (Api::Ollama, m)
    } else if let Some(m) = name.strip_prefix("openai:") {
        (Api::OpenAi, m)
    } else {
        return None;
    };
    let base_url = match api {
        Api::Ollama => &settings.ollama_url,
        Api::OpenAi => &settings.openai_url,
    };
    Some(
        HttpEmbedder::new(api, base_url, model, name, settings)
            .map(|e| Box::new(e) as Box<dyn Embedder>),
    )
}

impl HttpEmbedder {
    pub fn new(
        api: Api,
        base_url: &str,
        model: &str,
        name: &str,
        settings: &EmbedSettings,
    ) -> Result<Self, EmbedError> {
        let client = reqwest::blocking::Client::builder()
            .timeout(settings.timeout)
            .build()
            .map_err(|e| EmbedError::Http {
                url: base_url.into(),
                message: e.to_string(),
            })?;
        let embedder = HttpEmbedder {
            api,
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key: settings.api_key.clone(),
            client,
            id: OnceLock::new(),
            name: name.to_string(),
        };
        // One probe request: the dimension is part of the model's identity.
        embedder.request(&["dimension probe"])?;
        Ok(embedder)
    }

    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let (url, body) = match self.api {
            Api::Ollama => (
                format!("{}/api/embed", self.base_url),
                json!({"model": self.model, "input": texts}),
            ),
            Api::OpenAi => (
                format!("{}/v1/embeddings", self.base_url),
                json!({"model": self.model, "input": texts}),
            ),
        };
        let err = |message: String| EmbedError::Http {
            url: url.clone(),
            message,
        };
        let mut req = self.client.post(&url).json(&body);
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let resp = req
            .send()
            .map_err(|e| err(format!("request failed: {e}")))?;
        let status = resp.status();
        let value: Value = resp
            .json()
            .map_err(|e| err(format!("answer is not JSON ({status}): {e}")))?;
        if !status.is_success() {
            return Err(err(format!("server answered {status}: {value}")));
        }
        let rows: Vec<&Value> = match self.api {
            Api::Ollama => value["embeddings"].as_array().map(|a| a.iter().collect()),
            Api::OpenAi => value["data"]
                .as_array()
                .map(|a| a.iter().map(|d| &d["embedding"]).collect()),
        }
        .ok_or_else(|| err(format!("no embeddings in the answer: {value}")))?;
        if rows.len() != texts.len() {
            return Err(err(format!(
                "{} embeddings for {} texts",
                rows.len(),
                texts.len()
            )));
        }
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let mut v: Vec<f32> = row
                .as_array()
                .ok_or_else(|| err("an embedding is not an array".into()))?
                .iter()
                .map(|x| x.as_f64().unwrap_or(f64::NAN) as f32)
                .collect();
            let id = self.id.get_or_init(|| ModelId {
                name: self.name.clone(),
                dim: v.len(),
            });
            if v.len() != id.dim || v.is_empty() {
                return Err(EmbedError::Dimension {
                    got: v.len(),
                    want: id.dim,
                });
            }
            normalize(&mut v)?;
            out.push(v);
        }
        Ok(out)
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> &ModelId {
        self.id.get().expect("probed at construction")
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(32) {
            out.extend(self.request(batch)?);
        }
        Ok(out)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self.request(&[text])?.remove(0))
    }
}
