//! LLM providers (CHAT-6): OpenAI-compatible `/v1/chat/completions` (SSE
//! streaming, `response_format` json_schema) and Ollama's native
//! `/api/chat` (NDJSON streaming), behind one call. Traffic control:
//! `realtime` requests (the chat) pass straight through; `background`
//! requests (smart edges during an import) wait on a semaphore, so an
//! import never starves the chat. Every failure is a message that names
//! the server, never a hang: the timeout bounds the connect, the wait for
//! the answer's head and every read of its body.

use serde::Serialize;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Which protocol the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Provider {
    /// `/v1/chat/completions` (llama.cpp's server, vLLM, LM Studio, …).
    OpenAi,
    /// Ollama's `/api/chat`.
    Ollama,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    pub provider: Provider,
    /// The server's base URL (`http://127.0.0.1:11434`, or one ending in `/v1`).
    pub url: String,
    pub model: String,
    pub timeout: Duration,
    /// Background requests running at once.
    pub background_limit: usize,
    pub api_key: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Realtime,
    Background,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct LlmRequest<'a> {
    pub messages: &'a [ChatMessage],
    pub priority: Priority,
    /// A JSON schema the answer must follow (structured calls).
    pub json_schema: Option<&'a Value>,
    pub max_tokens: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LlmReply {
    pub text: String,
    /// The model the server says answered (else the configured one).
    pub model: String,
    /// The caller stopped the stream (a client that went away).
    pub cancelled: bool,
    pub first_token: Option<Duration>,
    pub total: Duration,
    /// Time spent waiting for a background slot.
    pub queued: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error(
        "the LLM server at {url} cannot be reached ({detail}); is it running? (MINDNET_LLM_URL / MINDNET_OLLAMA_URL)"
    )]
    Connect { url: String, detail: String },
    #[error("the LLM server at {url} did not answer within {secs} s (MINDNET_LLM_TIMEOUT)")]
    Timeout { url: String, secs: u64 },
    #[error(
        "the LLM server at {url} has no model `{model}` ({detail}); pull it, or set MINDNET_LLM_MODEL"
    )]
    ModelNotFound {
        url: String,
        model: String,
        detail: String,
    },
    #[error("the LLM server at {url} answered {status}: {detail}")]
    Status {
        url: String,
        status: u16,
        detail: String,
    },
    #[error("the LLM server at {url} sent what mindnet cannot read: {detail}")]
    Protocol { url: String, detail: String },
    #[error("invalid LLM configuration: {0}")]
    Config(String),
}

/// A counting semaphore for background requests.
#[derive(Debug)]
struct Gate {
    limit: usize,
    busy: Mutex<usize>,
    freed: Condvar,
}

struct Slot<'a>(&'a Gate);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut busy = self.0.busy.lock().unwrap_or_else(|e| e.into_inner());
        *busy -= 1;
        self.0.freed.notify_one();
    }
}

impl Gate {
    fn acquire(&self) -> Slot<'_> {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        while *busy >= self.limit {
            busy = self.freed.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
        *busy += 1;
        Slot(self)
    }
}

/// A configured LLM, shared by every request of a process.
#[derive(Debug)]
pub struct Llm {
    config: LlmConfig,
    client: reqwest::blocking::Client,
    gate: Gate,
}

impl Llm {
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        if config.model.trim().is_empty() {
            return Err(LlmError::Config("MINDNET_LLM_MODEL is empty".into()));
        }
        if !(config.url.starts_with("http://") || config.url.starts_with("https://")) {
            return Err(LlmError::Config(format!(
                "{:?} is no http(s) URL",
                config.url
            )));
        }
        // No idle connection is kept for reuse: llama.cpp's server closes a
        // kept-alive connection on its own schedule, and a request sent on
        // one it is closing fails with "connection closed before message
        // completed" (seen in CI). A new local connection costs far less than
        // one generated token.
        let client = reqwest::blocking::Client::builder()
            .pool_max_idle_per_host(0)
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .build()
            .map_err(|e| LlmError::Config(e.to_string()))?;
        Ok(Llm {
            gate: Gate {
                limit: config.background_limit.max(1),
                busy: Mutex::new(0),
                freed: Condvar::new(),
            },
            config,
            client,
        })
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// Background requests holding a slot now.
    pub fn background_running(&self) -> usize {
        *self.gate.busy.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn endpoint(&self) -> String {
        let base = self.config.url.trim_end_matches('/');
        match self.config.provider {
            Provider::Ollama => format!("{base}/api/chat"),
            Provider::OpenAi if base.ends_with("/v1") => format!("{base}/chat/completions"),
            Provider::OpenAi => format!("{base}/v1/chat/completions"),
        }
    }

    /// A structured call is a decision (the router, the link judge), so it
    /// samples greedily: the same message gets the same decision.
    fn body(&self, req: &LlmRequest<'_>) -> Value {
        let c = &self.config;
        match c.provider {
            Provider::OpenAi => {
                let mut b = json!({"model": c.model, "messages": req.messages, "stream": true});
                if let Some(n) = req.max_tokens {
                    b["max_tokens"] = json!(n);
                }
                if let Some(schema) = req.json_schema {
                    b["temperature"] = json!(0);
                    b["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": {"name": "answer", "strict": true, "schema": schema}
                    });
                }
                b
            }
            Provider::Ollama => {
                let mut b = json!({"model": c.model, "messages": req.messages, "stream": true});
                if let Some(n) = req.max_tokens {
                    b["options"]["num_predict"] = json!(n);
                }
                if let Some(schema) = req.json_schema {
                    b["options"]["temperature"] = json!(0);
                    b["format"] = schema.clone();
                }
                b
            }
        }
    }

    fn error(&self, e: reqwest::Error) -> LlmError {
        let url = self.config.url.clone();
        if e.is_timeout() {
            LlmError::Timeout {
                url,
                secs: self.config.timeout.as_secs(),
            }
        } else if e.is_connect() {
            LlmError::Connect {
                url,
                detail: source_text(&e),
            }
        } else {
            LlmError::Protocol {
                url,
                detail: source_text(&e),
            }
        }
    }

    /// Sends `req`, streaming each piece of text to `on_token`; when it
    /// returns false the stream is dropped, which closes the connection and
    /// so stops the generation on the server.
    pub fn chat(
        &self,
        req: &LlmRequest<'_>,
        on_token: &mut dyn FnMut(&str) -> bool,
    ) -> Result<LlmReply, LlmError> {
        let queued_at = Instant::now();
        let _slot = (req.priority == Priority::Background).then(|| self.gate.acquire());
        let queued = match req.priority {
            Priority::Realtime => Duration::ZERO,
            Priority::Background => queued_at.elapsed(),
        };
        let start = Instant::now();
        let mut http = self.client.post(self.endpoint()).json(&self.body(req));
        if let Some(key) = &self.config.api_key {
            http = http.bearer_auth(key);
        }
        let resp = http.send().map_err(|e| self.error(e))?;
        let status = resp.status();
        if !status.is_success() {
            let detail = resp.text().unwrap_or_default();
            let detail = error_message(&detail);
            let lower = detail.to_lowercase();
            if status.as_u16() == 404
                || (lower.contains("model")
                    && (lower.contains("not found") || lower.contains("does not exist")))
            {
                return Err(LlmError::ModelNotFound {
                    url: self.config.url.clone(),
                    model: self.config.model.clone(),
                    detail,
                });
            }
            return Err(LlmError::Status {
                url: self.config.url.clone(),
                status: status.as_u16(),
                detail,
            });
        }
        let mut reply = LlmReply {
            text: String::new(),
            model: self.config.model.clone(),
            cancelled: false,
            first_token: None,
            total: Duration::ZERO,
            queued,
        };
        let mut reader = BufReader::new(resp);
        let mut line = String::new();
        loop {
            line.clear();
            let n = reader
                .read_line(&mut line)
                .map_err(|e| self.read_error(e))?;
            if n == 0 {
                break;
            }
            let Some(piece) = self.piece(line.trim(), &mut reply)? else {
                continue;
            };
            if piece.done {
                break;
            }
            if piece.text.is_empty() {
                continue;
            }
            reply.first_token.get_or_insert_with(|| start.elapsed());
            reply.text.push_str(&piece.text);
            if !on_token(&piece.text) {
                reply.cancelled = true;
                break;
            }
        }
        reply.total = start.elapsed();
        Ok(reply)
    }

    fn read_error(&self, e: std::io::Error) -> LlmError {
        let timed_out = e.kind() == std::io::ErrorKind::TimedOut
            || e.to_string().to_lowercase().contains("timed out");
        if timed_out {
            LlmError::Timeout {
                url: self.config.url.clone(),
                secs: self.config.timeout.as_secs(),
            }
        } else {
            LlmError::Protocol {
                url: self.config.url.clone(),
                detail: e.to_string(),
            }
        }
    }

    /// One line of the stream: an SSE `data:` line or an NDJSON object.
    fn piece(&self, line: &str, reply: &mut LlmReply) -> Result<Option<Piece>, LlmError> {
        if line.is_empty() || line.starts_with(':') {
            return Ok(None);
        }
        let protocol = |detail: String| LlmError::Protocol {
            url: self.config.url.clone(),
            detail,
        };
        let data = match self.config.provider {
            Provider::OpenAi => match line.strip_prefix("data:") {
                Some(d) if d.trim() == "[DONE]" => {
                    return Ok(Some(Piece {
                        text: String::new(),
                        done: true,
                    }));
                }
                Some(d) => d.trim(),
                None => return Ok(None),
            },
            Provider::Ollama => line,
        };
        let v: Value = serde_json::from_str(data)
            .map_err(|e| protocol(format!("{e} in {}", truncate(data, 200))))?;
        if let Some(err) = v.get("error") {
            return Err(protocol(error_message(&err.to_string())));
        }
        if let Some(m) = v.get("model").and_then(Value::as_str) {
            reply.model = m.to_string();
        }
        Ok(Some(match self.config.provider {
            Provider::OpenAi => Piece {
                text: v["choices"][0]["delta"]["content"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                done: false,
            },
            Provider::Ollama => Piece {
                text: v["message"]["content"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                done: v["done"].as_bool().unwrap_or(false),
            },
        }))
    }

    /// A whole answer, no streaming to the caller.
    pub fn complete(&self, req: &LlmRequest<'_>) -> Result<LlmReply, LlmError> {
        self.chat(req, &mut |_| true)
    }

    /// A structured answer: `schema`-shaped JSON, parsed.
    pub fn structured(
        &self,
        messages: &[ChatMessage],
        schema: &Value,
        priority: Priority,
    ) -> Result<Value, LlmError> {
        let reply = self.complete(&LlmRequest {
            messages,
            priority,
            json_schema: Some(schema),
            max_tokens: Some(200),
        })?;
        let text = reply.text.trim();
        let text = text
            .trim_start_matches("```json")
            .trim_start_matches("```")
            .trim_end_matches("```")
            .trim();
        serde_json::from_str(text).map_err(|e| LlmError::Protocol {
            url: self.config.url.clone(),
            detail: format!(
                "the structured answer is no JSON ({e}): {}",
                truncate(text, 200)
            ),
        })
    }
}

struct Piece {
    text: String,
    done: bool,
}

fn source_text(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        s = format!("{s}: {inner}");
        src = inner.source();
    }
    s
}

/// The `error.message` (OpenAI) or `error` (Ollama) of an error body, else
/// the body itself, shortened.
fn error_message(body: &str) -> String {
    let v: Option<Value> = serde_json::from_str(body).ok();
    let msg = v.as_ref().and_then(|v| {
        v.get("error")
            .and_then(|e| e.get("message").and_then(Value::as_str).or(e.as_str()))
            .or_else(|| v.get("message").and_then(Value::as_str))
            .or_else(|| v.as_str())
            .map(str::to_string)
    });
    truncate(msg.as_deref().unwrap_or(body).trim(), 300)
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
