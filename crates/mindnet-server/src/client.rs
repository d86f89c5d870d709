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
}
