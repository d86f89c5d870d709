//! A small blocking client of Qdrant's REST API: one request, one JSON
//! answer, every failure a `StoreError` that names the server. REST rather
//! than gRPC: it needs no second async runtime beside the one `qdrant-edge`
//! brings, its JSON is the payload format we store anyway, and every call of
//! the store is blocking (transports run it on blocking threads).
//!
//! A cluster is given as several addresses; a node that cannot be reached is
//! passed over, and the request goes to the next (see `Nodes`).

use crate::StoreError;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone)]
pub(crate) struct Rest {
    /// Every address given, and which of them answer; shared by the clones
    /// (the lease's renewer thread has one).
    nodes: Arc<Nodes>,
    api_key: Option<String>,
    http: reqwest::blocking::Client,
    timeout: Duration,
}

/// The nodes of one cluster (or the one server). Requests go to the node
/// that answered last; a node that cannot be reached is passed over for
/// `RETRY_AFTER`, then tried again. Every node of a Qdrant cluster answers
/// every request (it forwards to the shards' replicas), so any live one will
/// do.
struct Nodes {
    /// As the user wrote them, commas and all: what errors name.
    given: String,
    bases: Vec<String>,
    /// The node that answered last.
    current: AtomicUsize,
    /// Per node: until when it is passed over.
    resting: Mutex<Vec<Option<Instant>>>,
}

/// How long a connection may take to open: a wrong address fails fast.
const CONNECT: Duration = Duration::from_secs(5);
/// How long a node that could not be reached is passed over.
const RETRY_AFTER: Duration = Duration::from_secs(5);

impl Nodes {
    /// Nodes in the order to try them: the current one, the others after it,
    /// the resting ones last (all nodes resting is no reason to give up).
    fn order(&self) -> Vec<usize> {
        let n = self.bases.len();
        let first = self.current.load(Ordering::Relaxed) % n;
        let now = Instant::now();
        let resting = self.resting.lock().unwrap_or_else(|e| e.into_inner());
        let (mut live, mut rest): (Vec<usize>, Vec<usize>) = (0..n)
            .map(|i| (first + i) % n)
            .partition(|&i| resting[i].is_none_or(|until| until <= now));
        live.append(&mut rest);
        live
    }

    fn answered(&self, i: usize) {
        self.current.store(i, Ordering::Relaxed);
        self.resting.lock().unwrap_or_else(|e| e.into_inner())[i] = None;
    }

    fn failed(&self, i: usize) {
        self.resting.lock().unwrap_or_else(|e| e.into_inner())[i] =
            Some(Instant::now() + RETRY_AFTER);
    }
}

/// The addresses of `url`: one, or several of one cluster separated by
/// commas (`http://a:6333,http://b:6333`).
fn addresses(url: &str) -> Result<Vec<String>, StoreError> {
    let bases: Vec<String> = url
        .split(',')
        .map(|a| a.trim().trim_end_matches('/').to_string())
        .filter(|a| !a.is_empty())
        .collect();
    if bases.is_empty() {
        return Err(StoreError::Server {
            url: url.to_string(),
            message:
                "no address given; the Qdrant REST port is usually 6333 (http://localhost:6333)"
                    .into(),
        });
    }
    for base in &bases {
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(StoreError::Server {
                url: base.clone(),
                message: "not an http(s) URL; the Qdrant REST port is usually 6333 (http://localhost:6333)".into(),
            });
        }
    }
    Ok(bases)
}

impl Rest {
    pub fn new(url: &str, api_key: Option<String>, timeout: Duration) -> Result<Self, StoreError> {
        let bases = addresses(url)?;
        let http = reqwest::blocking::Client::builder()
            .connect_timeout(CONNECT.min(timeout))
            .timeout(timeout)
            .build()
            .map_err(|e| StoreError::Server {
                url: url.to_string(),
                message: e.to_string(),
            })?;
        let nodes = Nodes {
            given: bases.join(","),
            resting: Mutex::new(vec![None; bases.len()]),
            bases,
            current: AtomicUsize::new(0),
        };
        Ok(Rest {
            nodes: Arc::new(nodes),
            api_key,
            http,
            timeout,
        })
    }

    /// Every address, separated by commas.
    pub fn url(&self) -> &str {
        &self.nodes.given
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

    /// Sends to the current node; one that cannot be reached, or answers
    /// with a server error, is passed over and the next is tried. Every
    /// request of the store may be sent twice: reads, upserts of fixed ids,
    /// deletes by filter and the lease's conditional upsert all come out
    /// the same.
    fn send(
        &self,
        method: &Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), StoreError> {
        let mut last = Err(StoreError::Unreachable {
            url: self.url().to_string(),
            message: "no address".into(),
        });
        for i in self.nodes.order() {
            match self.send_to(i, method, path, body) {
                // A node that is up but cannot serve this now (it is still
                // recovering a shard, or waited for a consensus that did not
                // come): another may; if none can, its answer stands.
                Ok((status, value)) if status.is_server_error() => {
                    self.nodes.failed(i);
                    last = Ok((status, value));
                }
                Ok(answer) => {
                    self.nodes.answered(i);
                    return Ok(answer);
                }
                Err(e) if failed_over(&e) => {
                    self.nodes.failed(i);
                    // A live node's answer says more than a dead one's silence.
                    if last.is_err() {
                        last = Err(self.transport(&self.nodes.bases[i], method, path, &e));
                    }
                }
                Err(e) => return Err(self.transport(&self.nodes.bases[i], method, path, &e)),
            }
        }
        last
    }

    fn send_to(
        &self,
        node: usize,
        method: &Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), reqwest::Error> {
        let base = &self.nodes.bases[node];
        let mut req = self.http.request(method.clone(), format!("{base}{path}"));
        if let Some(key) = &self.api_key {
            req = req.header("api-key", key);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req.send()?;
        let status = resp.status();
        let text = resp.text()?;
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
            if status.is_server_error() && degraded(&detail) {
                let first_line = detail.lines().next().unwrap_or_default();
                return Err(StoreError::Degraded {
                    url: self.url().to_string(),
                    message: format!("{method} {path}: {} ({first_line})", self.shards_down(path)),
                });
            }
            let hint = match status.as_u16() {
                401 | 403 => " (check MINDNET_QDRANT_API_KEY)",
                _ => "",
            };
            return Err(StoreError::Server {
                url: self.url().to_string(),
                message: format!("{method} {path}: {status}: {detail}{hint}"),
            });
        }
        Ok(value["result"].take())
    }

    /// Which shards of the collection in `path` have no active replica,
    /// as the cluster tells (it marks a replica dead once a write to it
    /// failed; until then, only that some shard is unreachable is known).
    fn shards_down(&self, path: &str) -> String {
        let Some(collection) = path
            .strip_prefix("/collections/")
            .and_then(|r| r.split(['/', '?']).next())
        else {
            return "a shard has no live replica".into();
        };
        let some = format!("a shard of `{collection}` has no live replica");
        let Ok((status, mut info)) = self.send(
            &Method::GET,
            &format!("/collections/{collection}/cluster"),
            None,
        ) else {
            return some;
        };
        if !status.is_success() {
            return some;
        }
        let info = info["result"].take();
        let mut active: std::collections::BTreeMap<u64, bool> = Default::default();
        for replica in ["local_shards", "remote_shards"]
            .iter()
            .filter_map(|k| info[*k].as_array())
            .flatten()
        {
            if let Some(id) = replica["shard_id"].as_u64() {
                *active.entry(id).or_default() |= replica["state"] == "Active";
            }
        }
        let down: Vec<String> = active
            .iter()
            .filter(|(_, up)| !**up)
            .map(|(id, _)| id.to_string())
            .collect();
        match down.len() {
            0 => some,
            1 => format!("shard {} of `{collection}` has no active replica", down[0]),
            _ => format!(
                "shards {} of `{collection}` have no active replica",
                down.join(", ")
            ),
        }
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
                url: self.url().to_string(),
                message: format!("{method} {path}: 404 Not Found"),
            })
    }

    fn transport(&self, base: &str, method: &Method, path: &str, e: &reqwest::Error) -> StoreError {
        if e.is_timeout() {
            return StoreError::Unreachable {
                url: base.to_string(),
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
            url: base.to_string(),
            message: cause.to_string(),
        }
    }
}

/// Whether another node may answer what this one could not: it could not
/// be connected to, or it dropped the connection. A timeout of an open
/// connection is not: the node is alive and busy, and the request may be
/// slow anywhere.
fn failed_over(e: &reqwest::Error) -> bool {
    e.is_connect() || (!e.is_timeout() && (e.is_request() || e.is_body()))
}

/// Whether a node's error says that the cluster cannot serve the request
/// for now: a shard without a live replica (or one the node is still
/// recovering), or a consensus that did not come (a leader election).
fn degraded(detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    let shard = (d.contains("shard") || d.contains("replica"))
        && [
            "no active",
            "dead",
            "not found",
            "unavailable",
            "not available",
            "transport",
            "connect",
        ]
        .iter()
        .any(|w| d.contains(w));
    let unreachable = d.contains("operations failed") && d.contains("unavailable");
    shard || unreachable || d.contains("consensus")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_addresses_and_the_order_they_are_tried_in() {
        let urls = addresses(" http://a:6333/, http://b:6333 ,,http://c:6333").unwrap();
        assert_eq!(urls, ["http://a:6333", "http://b:6333", "http://c:6333"]);
        let err = addresses("http://a:6333,b:6333").unwrap_err().to_string();
        assert!(err.contains("b:6333: not an http(s) URL"), "{err}");
        assert!(addresses(" , ").is_err());

        let rest = Rest::new(
            "http://a:6333,http://b:6333,http://c:6333",
            None,
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(rest.url(), "http://a:6333,http://b:6333,http://c:6333");
        let nodes = &rest.nodes;
        assert_eq!(nodes.order(), [0, 1, 2]);
        // A node that failed goes last until it rests no more; the one
        // that answered comes first.
        nodes.failed(0);
        assert_eq!(nodes.order(), [1, 2, 0]);
        nodes.answered(2);
        assert_eq!(nodes.order(), [2, 1, 0]);
        nodes.failed(1);
        nodes.failed(2);
        assert_eq!(nodes.order().len(), 3, "all resting: all are still tried");
    }

    #[test]
    fn a_cluster_that_cannot_serve_is_told_from_a_broken_request() {
        assert!(degraded(
            "Service internal error: 2 of 2 read operations failed: The service is currently unavailable"
        ));
        assert!(degraded("Service internal error: Local shard 2 not found"));
        assert!(degraded(
            "Waiting for consensus operation commit failed. Timeout set at: 10 seconds"
        ));
        assert!(!degraded(
            "Wrong input: Vector dimension error: expected dim: 384, got 3"
        ));
    }
}
