//! The client of a running server, for the CLI: the same operations as a
//! `Workspace`, over HTTP, with the same request and response types and
//! the same errors (the server's JSON error becomes the `AppError` it was).

use mindnet_app::api::*;
use mindnet_app::{AppError, ErrorBody, ErrorCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::time::Duration;

pub struct Client {
    base: String,
    token: Option<String>,
    http: reqwest::blocking::Client,
}

impl Client {
    pub fn new(base: &str, token: Option<String>, timeout: Duration) -> Result<Self, AppError> {
        let http = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| AppError::internal(format!("HTTP client: {e}")))?;
        Ok(Client {
            base: base.trim_end_matches('/').to_string(),
            token,
            http,
        })
    }

    fn send<T: DeserializeOwned>(
        &self,
        req: reqwest::blocking::RequestBuilder,
        what: &str,
    ) -> Result<T, AppError> {
        let req = match &self.token {
            Some(t) => req.bearer_auth(t),
            None => req,
        };
        let resp = req.send().map_err(|e| {
            AppError::unavailable(format!("{}{what}: cannot reach the server: {e}", self.base))
        })?;
        let status = resp.status().as_u16();
        let bytes = resp
            .bytes()
            .map_err(|e| AppError::internal(format!("{}{what}: {e}", self.base)))?;
        if (200..300).contains(&status) {
            return serde_json::from_slice(&bytes).map_err(|e| {
                AppError::internal(format!("{}{what}: unexpected answer: {e}", self.base))
            });
        }
        Err(match serde_json::from_slice::<ErrorBody>(&bytes) {
            Ok(body) => body.error,
            Err(_) => AppError::new(
                ErrorCode::from_http_status(status),
                format!(
                    "{}{what}: HTTP {status}: {}",
                    self.base,
                    String::from_utf8_lossy(&bytes)
                ),
            ),
        })
    }

    fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, AppError> {
        self.send(
            self.http.post(format!("{}{path}", self.base)).json(body),
            path,
        )
    }

    fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, AppError> {
        self.send(self.http.get(format!("{}{path}", self.base)), path)
    }

    pub fn health(&self) -> Result<HealthResponse, AppError> {
        self.get("/health")
    }

    pub fn status(&self) -> Result<StatusResponse, AppError> {
        self.get("/status")
    }

    pub fn query(&self, req: &QueryRequest) -> Result<QueryResponse, AppError> {
        self.post("/query", req)
    }

    pub fn ask(&self, req: &AskRequest) -> Result<QueryResponse, AppError> {
        self.post("/ask", req)
    }

    pub fn feedback(&self, req: &FeedbackRequest) -> Result<FeedbackResponse, AppError> {
        self.post("/feedback", req)
    }

    pub fn sync(&self, req: &SyncRequest) -> Result<SyncSummary, AppError> {
        self.post("/sync", req)
    }

    pub fn chain(&self, req: &ChainRequest) -> Result<ChainResponse, AppError> {
        self.post("/chain", req)
    }

    pub fn save(&self, req: &SaveRequest) -> Result<SaveResponse, AppError> {
        self.post("/ingest/save", req)
    }

    /// `POST /chat` as a stream of events; `sink` gets each one, and the
    /// stream is dropped (cancelling the answer) when it returns false.
    pub fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError> {
        use std::io::BufRead;
        let mut http = self
            .http
            .post(format!("{}/chat", self.base))
            .header("accept", "text/event-stream")
            .json(req);
        if let Some(t) = &self.token {
            http = http.bearer_auth(t);
        }
        let what = "/chat";
        let resp = http.send().map_err(|e| {
            AppError::unavailable(format!("{}{what}: cannot reach the server: {e}", self.base))
        })?;
        if !resp.status().is_success() {
            let status = resp.status().as_u16();
            let text = resp.text().unwrap_or_default();
            return Err(match serde_json::from_str::<ErrorBody>(&text) {
                Ok(body) => body.error,
                Err(_) => AppError::new(
                    ErrorCode::from_http_status(status),
                    format!("{}{what}: HTTP {status}: {text}", self.base),
                ),
            });
        }
        let bad = |e: String| AppError::internal(format!("{}{what}: {e}", self.base));
        let mut name = String::new();
        let mut data = String::new();
        for line in std::io::BufReader::new(resp).lines() {
            let line = line.map_err(|e| bad(e.to_string()))?;
            if let Some(v) = line.strip_prefix("event:") {
                name = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            } else if line.is_empty() && !data.is_empty() {
                let payload = std::mem::take(&mut data);
                match name.as_str() {
                    "error" => {
                        let body: ErrorBody =
                            serde_json::from_str(&payload).map_err(|e| bad(e.to_string()))?;
                        return Err(body.error);
                    }
                    "done" => {
                        let r: ChatResponse =
                            serde_json::from_str(&payload).map_err(|e| bad(e.to_string()))?;
                        sink(ChatEvent::Done {
                            response: Box::new(r.clone()),
                        });
                        return Ok(r);
                    }
                    _ => {
                        let e: ChatEvent =
                            serde_json::from_str(&payload).map_err(|e| bad(e.to_string()))?;
                        if !sink(e) {
                            return Err(AppError::unavailable("the answer was cancelled"));
                        }
                    }
                }
            }
        }
        Err(bad("the stream ended before the answer was done".into()))
    }
}
