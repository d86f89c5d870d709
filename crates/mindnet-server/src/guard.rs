//! What every request must pass before a handler sees it.
//!
//! - **Host**: only the listen address, `localhost` or a loopback IP (with
//!   any port). Browsers reach loopback servers too; a page on another
//!   site that rebinds its DNS name to 127.0.0.1 still sends its own name
//!   as Host, and is refused (DNS rebinding). A server on an unspecified
//!   address (`0.0.0.0`) with a token accepts any Host: the token guards it.
//! - **Origin**: a browser request from another origin is refused unless
//!   that origin is configured (`--allow-origin`, `MINDNET_API_ORIGINS`),
//!   or is Obsidian's desktop app (`app://obsidian.md`), whose plugin
//!   streams the chat with `fetch`. That opens nothing new: every plugin
//!   in that app can already reach the server with `requestUrl`, which
//!   sends no origin at all; no web page can send that origin.
//! - **Token**: with a token, every endpoint but `/health` and the web
//!   UI's static assets (which hold no data) needs
//!   `Authorization: Bearer <token>`.
//! - **Headers** on every answer, refusals included: no framing by another
//!   site (`frame-ancestors 'none'`, clickjacking of a logged-in tab), no
//!   content sniffing, no referrer, and `Cache-Control: no-store` on every
//!   API answer (they hold note text; the UI's static assets say
//!   `no-cache` themselves).
//! - Body size and time are limited by layers in `serve.rs`.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mindnet_app::{AppError, ErrorCode, ServeSettings};
use std::net::IpAddr;
use std::sync::Arc;

use crate::routes::ApiError;

/// The origin of Obsidian's desktop app (its pages load from `app://`).
const OBSIDIAN_DESKTOP: &str = "app://obsidian.md";

pub struct Guard {
    pub settings: ServeSettings,
}

fn host_name(host: &str) -> &str {
    // `[::1]:8001` → `::1`; `localhost:8001` → `localhost`.
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    }
}

impl Guard {
    fn host_ok(&self, host: &str) -> bool {
        let name = host_name(host);
        if name.eq_ignore_ascii_case("localhost") {
            return true;
        }
        let listen = self.settings.listen.ip();
        match name.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip == listen || listen.is_unspecified(),
            Err(_) => listen.is_unspecified() && self.settings.token.is_some(),
        }
    }

    fn origin_ok(&self, origin: &str, host: &str) -> bool {
        origin == format!("http://{host}")
            || origin == OBSIDIAN_DESKTOP
            || self.settings.origins.iter().any(|o| o == origin)
    }

    fn token_ok(&self, headers: &HeaderMap) -> bool {
        let Some(want) = &self.settings.token else {
            return true;
        };
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        constant_time_eq(given.as_bytes(), want.as_bytes())
    }
}

/// Compares without an early exit, so timing tells nothing about the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i % b.len().max(1)).copied().unwrap_or(0));
    }
    diff == 0
}

fn refuse(code: ErrorCode, message: String) -> Response {
    ApiError(AppError::new(code, message)).into_response()
}

pub async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let asset = crate::ui::is_asset(req.uri().path());
    let mut resp = admit(&guard, req, next).await;
    secure_headers(resp.headers_mut(), asset);
    resp
}

/// The answer to a request: a refusal, or the handler's answer.
async fn admit(guard: &Guard, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    if !guard.host_ok(&host) {
        return refuse(
            ErrorCode::Forbidden,
            format!("Host `{host}` is not this server's address; refused (DNS rebinding guard)"),
        );
    }
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let Some(o) = &origin
        && !guard.origin_ok(o, &host)
    {
        return refuse(
            ErrorCode::Forbidden,
            format!("cross-origin request from `{o}` refused; allow it with --allow-origin"),
        );
    }
    // A configured origin's preflight is answered here.
    if req.method() == Method::OPTIONS && origin.is_some() {
        let mut resp = axum::http::StatusCode::NO_CONTENT.into_response();
        cors_headers(resp.headers_mut(), origin.as_deref());
        return resp;
    }
    if !crate::ui::is_public(req.uri().path()) && !guard.token_ok(req.headers()) {
        let mut resp = refuse(
            ErrorCode::Unauthorized,
            "missing or wrong token: send `Authorization: Bearer <token>`".into(),
        );
        resp.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return resp;
    }
    let mut resp = next.run(req).await;
    cors_headers(resp.headers_mut(), origin.as_deref());
    resp
}

/// The headers a browser needs to keep the answer to itself. The UI's
/// static files keep their own policy and caching; every other answer
/// (an event stream too) is `no-store`.
fn secure_headers(h: &mut HeaderMap, asset: bool) {
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(
            "default-src 'none'; frame-ancestors 'none'",
        ));
    let no_store = HeaderValue::from_static("no-store");
    if asset {
        h.entry(header::CACHE_CONTROL).or_insert(no_store);
    } else {
        h.insert(header::CACHE_CONTROL, no_store);
    }
}

fn cors_headers(h: &mut HeaderMap, origin: Option<&str>) {
    let Some(value) = origin.and_then(|o| HeaderValue::from_str(o).ok()) else {
        return;
    };
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type, authorization"),
    );
    h.insert(header::VARY, HeaderValue::from_static("Origin"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(listen: &str, token: Option<&str>) -> Guard {
        Guard {
            settings: ServeSettings {
                listen: listen.parse().unwrap(),
                token: token.map(str::to_string),
                body_limit: 1,
                timeout: std::time::Duration::from_secs(1),
                origins: vec!["http://app.example".into()],
                watch: false,
            },
        }
    }

    #[test]
    fn hosts() {
        let g = guard("127.0.0.1:8001", None);
        assert!(g.host_ok("127.0.0.1:8001"));
        assert!(g.host_ok("localhost:8001"));
        assert!(g.host_ok("[::1]:8001"));
        assert!(g.host_ok("localhost"));
        assert!(!g.host_ok("evil.example:8001"));
        assert!(!g.host_ok("192.168.1.5:8001"));
        assert!(!g.host_ok(""));
        let open = guard("0.0.0.0:8001", Some("t"));
        assert!(open.host_ok("my-host.lan:8001"));
    }

    #[test]
    fn origins_and_tokens() {
        let g = guard("127.0.0.1:8001", Some("s3cret"));
        assert!(g.origin_ok("http://127.0.0.1:8001", "127.0.0.1:8001"));
        assert!(g.origin_ok("http://app.example", "127.0.0.1:8001"));
        assert!(!g.origin_ok("http://evil.example", "127.0.0.1:8001"));
        assert!(g.origin_ok("app://obsidian.md", "127.0.0.1:8001"));
        assert!(!g.origin_ok("app://obsidian.md.evil.example", "127.0.0.1:8001"));
        let mut h = HeaderMap::new();
        assert!(!g.token_ok(&h));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cre"),
        );
        assert!(!g.token_ok(&h));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cret"),
        );
        assert!(g.token_ok(&h));
    }
}
