//! The client of a running server, for the CLI: the same operations as a
//! `Workspace`, over HTTP, with the same request and response types and
//! the same errors (the server's JSON error becomes the `AppError` it was).

use crate::paths;
use mindnet_app::api::{ChatEvent, ChatRequest, ChatResponse, HealthResponse};
use mindnet_app::operation::{Method, Operation, Route};
use mindnet_app::ops::chat::ChatOp;
use mindnet_app::service::Service;
use mindnet_app::{AppError, ErrorBody, ErrorCode};
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

    pub fn health(&self) -> Result<HealthResponse, AppError> {
        let url = format!("{}{}", self.base, paths::HEALTH);
        self.send(self.http.get(url), paths::HEALTH)
    }

    /// The address of `O`'s route for `req`: each `{field}` of the path
    /// filled in from the request, percent-encoded (a `{*field}` may hold
    /// several segments).
    fn url_of<O: Operation>(
        &self,
        route: &Route,
        req: &O::Request,
    ) -> Result<reqwest::Url, AppError> {
        let bad = |e: String| AppError::internal(format!("{}{}: {e}", self.base, route.path));
        let mut url = reqwest::Url::parse(&self.base).map_err(|e| bad(e.to_string()))?;
        let fields = serde_json::to_value(req).map_err(|e| bad(e.to_string()))?;
        {
            let mut path = url
                .path_segments_mut()
                .map_err(|()| bad("not a base address".into()))?;
            path.pop_if_empty();
            for segment in route.path.split('/').skip(1) {
                let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
                    path.push(segment);
                    continue;
                };
                let value = fields
                    .get(name.trim_start_matches('*'))
                    .and_then(|v| v.as_str());
                let value = value.ok_or_else(|| bad(format!("the request has no `{name}`")))?;
                if name.starts_with('*') {
                    path.extend(value.split('/'));
                } else {
                    path.push(value);
                }
            }
        }
        Ok(url)
    }
}

impl Service for Client {
    fn call<O: Operation>(&self, req: &O::Request) -> Result<O::Response, AppError> {
        let route = O::ROUTE;
        let url = self.url_of::<O>(&route, req)?;
        let request = match route.method {
            Method::Get if route.in_path() => self.http.get(url),
            Method::Get => self.http.get(url).query(req),
            Method::Post => self.http.post(url).json(req),
        };
        self.send(request, route.path)
    }

    /// `POST /chat` as a stream of events; `sink` gets each one, and the
    /// stream is dropped (cancelling the answer) when it returns false.
    fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError> {
        use std::io::BufRead;
        let mut http = self
            .http
            .post(format!("{}{}", self.base, ChatOp::ROUTE.path))
            .header("accept", "text/event-stream")
            .json(req);
        if let Some(t) = &self.token {
            http = http.bearer_auth(t);
        }
        let what = ChatOp::ROUTE.path;
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
