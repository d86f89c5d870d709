//! The web UI: plain HTML, CSS and JavaScript modules, embedded in the
//! binary at build time (no CDN, works offline, no Node to build or run).
//! The assets hold no data, so they need no token; everything they show
//! comes from the API, with the token the user gives.

use crate::paths;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// One embedded file.
struct Asset {
    name: &'static str,
    kind: &'static str,
    body: &'static str,
}

const JS: &str = "text/javascript; charset=utf-8";

const ASSETS: [Asset; 4] = [
    Asset {
        name: "app.js",
        kind: JS,
        body: include_str!("../ui/app.js"),
    },
    Asset {
        name: "graph.js",
        kind: JS,
        body: include_str!("../ui/graph.js"),
    },
    Asset {
        name: "i18n.js",
        kind: JS,
        body: include_str!("../ui/i18n.js"),
    },
    Asset {
        name: "app.css",
        kind: "text/css; charset=utf-8",
        body: include_str!("../ui/app.css"),
    },
];

const INDEX: &str = include_str!("../ui/index.html");

/// Paths served without a token.
pub fn is_public(path: &str) -> bool {
    is_asset(path) || path == paths::HEALTH || path == paths::READY
}

/// The UI's static files: no data, cached as they say.
pub fn is_asset(path: &str) -> bool {
    path == paths::UI || path.starts_with(paths::UI_FILES.trim_end_matches("{file}"))
}

fn headers(kind: &'static str) -> [(header::HeaderName, &'static str); 3] {
    [
        (header::CONTENT_TYPE, kind),
        (header::CACHE_CONTROL, "no-cache"),
        // The UI loads nothing from elsewhere, and no other site frames it.
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        ),
    ]
}

pub async fn index() -> Response {
    (headers("text/html; charset=utf-8"), INDEX).into_response()
}

pub async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|a| a.name == file) {
        Some(a) => (headers(a.kind), a.body).into_response(),
        None => (StatusCode::NOT_FOUND, "no such asset").into_response(),
    }
}
