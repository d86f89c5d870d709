//! A small blocking client of Qdrant's REST API: one request, one JSON
//! answer, every failure a `StoreError` that names the server. REST rather
//! than gRPC: it needs no second async runtime beside the one `qdrant-edge`
//! brings, its JSON is the payload format we store anyway, and every call of
//! the store is blocking (transports run it on blocking threads).

use crate::StoreError;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::time::Duration;

#[derive(Clone)]
pub(crate) struct Rest {
    base: String,
    api_key: Option<String>,
    http: reqwest::blocking::Client,
    timeout: Duration,
}

/// How long a connection may take to open: a wrong address fails fast.
const CONNECT: Duration = Duration::from_secs(5);

impl Rest {
    pub fn new(url: &str, api_key: Option<String>, timeout: Duration) -> Result<Self, StoreError> {
        let base = url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(StoreError::Server {
                url: url.to_string(),
                message: "not an http(s) URL; the Qdrant REST port is usually 6333 (http://localhost:6333)".into(),
            });
        }
        let http = reqwest::blocking::Client::builder()
            .connect_timeout(CONNECT.min(timeout))
            .timeout(timeout)
            .build()
            .map_err(|e| StoreError::Server {
                url: base.clone(),
                message: e.to_string(),
            })?;
        Ok(Rest {
            base,
            api_key,
            http,
            timeout,
        })
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    /// The `result` of a request; `None` when the server answers 404.
    pub fn call_opt(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Option<Value>, StoreError> {
        let (status, value) = self.send(&method, path, body)?;
        if status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        self.result(&method, path, status, value).map(Some)
    }

    /// Creates a collection (`PUT` of its path). One that another process
    /// created meanwhile is as good: the server answers 409 Conflict.
    pub fn create(&self, path: &str, body: &Value) -> Result<(), StoreError> {
        let (status, value) = self.send(&Method::PUT, path, Some(body))?;
        if status == StatusCode::CONFLICT {
            return Ok(());
        }
        self.result(&Method::PUT, path, status, value).map(|_| ())
    }

    fn send(
        &self,
        method: &Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), StoreError> {
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if let Some(key) = &self.api_key {
            req = req.header("api-key", key);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req.send().map_err(|e| self.transport(method, path, &e))?;
        let status = resp.status();
        let text = resp.text().map_err(|e| self.transport(method, path, &e))?;
        let value = serde_json::from_str(&text).unwrap_or_else(|_| json!({ "raw": text }));
        Ok((status, value))
    }

    /// The `result` of an answer, or the server's error in it.
    fn result(
        &self,
        method: &Method,
        path: &str,
        status: StatusCode,
        mut value: Value,
    ) -> Result<Value, StoreError> {
        if !status.is_success() {
            let detail = value["status"]["error"]
                .as_str()
                .or(value["raw"].as_str())
                .unwrap_or("no detail")
                .trim()
                .to_string();
            let hint = match status.as_u16() {
                401 | 403 => " (check MINDNET_QDRANT_API_KEY)",
                _ => "",
            };
            return Err(StoreError::Server {
                url: self.base.clone(),
                message: format!("{method} {path}: {status}: {detail}{hint}"),
            });
        }
        Ok(value["result"].take())
    }

    /// The `result` of a request whose target must exist.
    pub fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, StoreError> {
        self.call_opt(method.clone(), path, body)?
            .ok_or_else(|| StoreError::Server {
                url: self.base.clone(),
                message: format!("{method} {path}: 404 Not Found"),
            })
    }

    fn transport(&self, method: &Method, path: &str, e: &reqwest::Error) -> StoreError {
        if e.is_timeout() {
            return StoreError::Unreachable {
                url: self.base.clone(),
                message: format!(
                    "{method} {path}: no answer within {} s",
                    self.timeout.as_secs()
                ),
            };
        }
        // The innermost cause says what went wrong ("Connection refused").
        let mut cause: &dyn std::error::Error = e;
        while let Some(next) = cause.source() {
            cause = next;
        }
        StoreError::Unreachable {
            url: self.base.clone(),
            message: cause.to_string(),
        }
    }
}
