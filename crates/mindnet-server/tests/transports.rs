//! The same answer on every transport: each operation of the table, sent
//! its `EXAMPLE`, answers in this process (`Local`, the workspace) exactly
//! as the HTTP client answers through a real server, on two copies of the
//! bundled example vault imported alike. Writes run in the same order on
//! both, so both indexes go through the same states; an error is compared
//! as the error it is.
//!
//! What differs by nature is left out before the comparison: the two
//! copies' paths (written `<vault>` and `<data>`), times and durations, and
//! the ids of logged queries.

use mindnet_app::operation::Operation;
use mindnet_app::ops::sync::SyncRequest;
use mindnet_app::ops::{self, Visit};
use mindnet_app::service::{Local, Service};
use mindnet_app::{AppError, OpenMode, ServeSettings, Settings, SettingsInput, Workspace};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Fields whose values depend on when or where the call ran.
const VOLATILE: &[&str] = &[
    "seconds",
    "embed_seconds",
    "timings",
    "timestamp",
    "created",
    "last_import",
    "last_import_seconds",
    "started",
    "last_finished",
    "modified",
    "since",
    "query_id",
    "session",
];

fn example_vault() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == ".mindnet" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

/// A fresh copy of the example vault, imported.
fn imported(root: &Path, name: &str) -> Settings {
    let vault = root.join(name);
    copy_dir(&example_vault(), &vault);
    let settings = Settings::resolve(SettingsInput {
        vault: Some(vault),
        ..Default::default()
    });
    mindnet_app::import(&settings, &SyncRequest::default(), &()).unwrap();
    settings
}

/// Serves `ws` over real HTTP on a free loopback port, on a runtime of its
/// own; the runtime lives as long as the returned handle.
fn served(ws: Arc<Workspace>) -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    let serve = ServeSettings {
        listen: address,
        token: None,
        body_limit: 1024 * 1024,
        timeout: Duration::from_secs(120),
        origins: Vec::new(),
        watch: false,
    };
    let app = mindnet_server::router_over(ws, &serve);
    runtime.spawn(async move { axum::serve(listener, app).await });
    (runtime, format!("http://{address}"))
}

/// An answer as JSON, with the copy's paths named and volatile fields
/// taken out.
fn normal(answer: Result<Value, AppError>, settings: &Settings) -> Value {
    let value = match answer {
        Ok(v) => v,
        Err(e) => serde_json::json!({"error": e}),
    };
    let text = serde_json::to_string(&value).unwrap();
    let vault = settings.vault.display().to_string();
    let data = settings.data.display().to_string();
    let text = text.replace(&data, "<data>").replace(&vault, "<vault>");
    let mut value: Value = serde_json::from_str(&text).unwrap();
    strip(&mut value);
    value
}

fn strip(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for key in VOLATILE {
                o.remove(*key);
            }
            o.values_mut().for_each(strip);
        }
        Value::Array(a) => a.iter_mut().for_each(strip),
        // Two copies of one index score in f32: the last bits of a BM25
        // score may differ between them (seen on `related`), not the ranks.
        Value::Number(n) if n.is_f64() => {
            let rounded = n.as_f64().map(|f| (f * 1e6).round() / 1e6);
            if let Some(r) = rounded.and_then(serde_json::Number::from_f64) {
                *n = r;
            }
        }
        _ => {}
    }
}

struct Compare<'a> {
    local: &'a Local,
    local_settings: &'a Settings,
    client: &'a mindnet_server::Client,
    served_settings: &'a Settings,
    compared: Vec<&'static str>,
}

impl Visit for Compare<'_> {
    fn op<O: Operation>(&mut self) {
        let req: O::Request = serde_json::from_str(O::EXAMPLE)
            .unwrap_or_else(|e| panic!("{}: EXAMPLE: {e}", O::NAME));
        let to_json =
            |r: Result<O::Response, AppError>| r.map(|v| serde_json::to_value(v).unwrap());
        let here = normal(to_json(self.local.call::<O>(&req)), self.local_settings);
        let there = normal(to_json(self.client.call::<O>(&req)), self.served_settings);
        assert_eq!(
            here,
            there,
            "`{}` answers differently here and through the server",
            O::NAME
        );
        self.compared.push(O::NAME);
    }
}

#[test]
fn every_operation_answers_alike_here_and_served() {
    let root = tempfile::tempdir().unwrap();
    let here = imported(root.path(), "here");
    let there = imported(root.path(), "there");
    let served_ws = Arc::new(Workspace::open(there.clone(), OpenMode::Existing).unwrap());
    let (_runtime, url) = served(served_ws);
    let client = mindnet_server::Client::new(&url, None, Duration::from_secs(120)).unwrap();
    let local = Local::new(here.clone(), OpenMode::Existing);
    let mut compare = Compare {
        local: &local,
        local_settings: &here,
        client: &client,
        served_settings: &there,
        compared: Vec::new(),
    };
    ops::visit(&mut compare);
    assert_eq!(compare.compared, ops::names());
}
