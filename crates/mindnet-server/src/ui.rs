//! The web UI: plain HTML, CSS and JavaScript modules, embedded in the
//! binary at build time (no CDN, works offline, no Node to build or run).
//! The assets hold no data, so they need no token; everything they show
//! comes from the API, with the token the user gives.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Name, content type and bytes of every asset.
const ASSETS: [(&str, &str, &str); 3] = [
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/app.js"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../ui/app.css"),
    ),
    (
        "i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/i18n.js"),
    ),
];

const INDEX: &str = include_str!("../ui/index.html");

/// Paths served without a token.
pub fn is_public(path: &str) -> bool {
    path == "/" || path == "/health" || path.starts_with("/ui/")
}

fn headers(kind: &'static str) -> [(header::HeaderName, &'static str); 3] {
    [
        (header::CONTENT_TYPE, kind),
        (header::CACHE_CONTROL, "no-cache"),
        // The UI loads nothing from elsewhere.
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
        ),
    ]
}

pub async fn index() -> Response {
    (headers("text/html; charset=utf-8"), INDEX).into_response()
}

pub async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, kind, body)) => (headers(kind), *body).into_response(),
        None => (StatusCode::NOT_FOUND, "no such asset").into_response(),
    }
}
