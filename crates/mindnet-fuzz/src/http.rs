//! The `http` target: a whole request through the server's router (the
//! guard, the body limit, the extractors, the handlers, `/mcp`), in process.
//!
//! The bytes: the first picks the route (from the operation table and the
//! fixed routes; 128 and above flips GET and POST). The rest is the body,
//! or, where it holds a blank line (`\n\n`), header lines before it and the
//! body after. A route with a path field (`/notes/{key}`) takes the body as
//! that field, and a GET route takes it as its query string.
//!
//! Beyond the checks of every API target: no answer is a 500, and every
//! answer carries the headers a browser needs (`nosniff`, no framing, and
//! `no-store` on everything but the UI's static files).

use crate::api::{FIXTURE, clean_up, run_alone};
use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Request, header};
use mindnet_app::ServeSettings;
use mindnet_app::operation::{Method, Operation};
use mindnet_app::ops::lint_fix::{FixRequest, LintFixOp};
use mindnet_app::ops::{self, Visit};
use mindnet_server::paths;
use std::sync::LazyLock;
use tower::ServiceExt;

/// A route: its method and its path as axum writes it.
struct Target {
    post: bool,
    path: &'static str,
}

/// The routes of the operation table, then those outside it.
static ROUTES: LazyLock<Vec<Target>> = LazyLock::new(|| {
    struct Routes(Vec<Target>);
    impl Visit for Routes {
        fn op<O: Operation>(&mut self) {
            self.0.push(Target {
                post: O::ROUTE.method == Method::Post,
                path: O::ROUTE.path,
            });
        }
    }
    let mut routes = Routes(Vec::new());
    ops::visit(&mut routes);
    let fixed = [
        (false, paths::UI),
        (false, paths::UI_FILES),
        (false, paths::HEALTH),
        (false, paths::READY),
        (false, paths::OPENAPI),
        (true, paths::MCP),
        (false, paths::MCP),
        (false, "/no/such/route"),
    ];
    routes
        .0
        .extend(fixed.map(|(post, path)| Target { post, path }));
    routes.0
});

/// A router per input: the MCP endpoint's sessions live in it, and one
/// input's sessions must not meet the next input.
fn router() -> axum::Router {
    let serve = ServeSettings {
        listen: ([127, 0, 0, 1], 8001).into(),
        token: None,
        body_limit: 64 * 1024,
        timeout: std::time::Duration::from_secs(30),
        origins: vec!["http://app.example".into()],
        watch: false,
    };
    mindnet_server::router_over(FIXTURE.ws.clone(), &serve)
}

/// Bytes as they may stand in a URI: unreserved characters kept, and `%`,
/// `=`, `&` and `+` (so the fuzzer can write its own escapes and fields);
/// everything else escaped.
fn escaped(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~%=&+".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn http(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let routes = &*ROUTES;
    let route = &routes[usize::from(pick) % routes.len()];
    let post = route.post != (pick >= 128);
    let (head, body) = match rest.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (&[][..], rest),
    };
    // Fixing notes for real would change the vault under later inputs.
    if route.path == LintFixOp::ROUTE.path
        && serde_json::from_slice::<FixRequest>(body).is_ok_and(|r| r.write)
    {
        return;
    }
    let (uri, body) = if let Some(at) = route.path.find('{') {
        let field = body.split(|&b| b == b'\n').next().unwrap_or_default();
        (format!("{}{}", &route.path[..at], escaped(field)), &[][..])
    } else if !post {
        (format!("{}?{}", route.path, escaped(body)), &[][..])
    } else {
        (route.path.to_string(), body)
    };
    let mut req = Request::builder()
        .method(if post { "POST" } else { "GET" })
        .uri(&uri);
    let mut has = (false, false);
    for line in head.split(|&b| b == b'\n') {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(line[colon + 1..].trim_ascii()),
        ) else {
            continue;
        };
        has.0 |= name == header::HOST;
        has.1 |= name == header::CONTENT_TYPE;
        req = req.header(name, value);
    }
    if !has.0 {
        req = req.header(header::HOST, "127.0.0.1:8001");
    }
    if !has.1 && post {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let Ok(req) = req.body(Body::from(body.to_vec())) else {
        return; // not a request a client could send (a bad URI)
    };
    let f = &*FIXTURE;
    run_alone(async {
        let resp = router().oneshot(req).await.expect("the router answers");
        let (parts, body) = resp.into_parts();
        let h = &parts.headers;
        // An event stream (an MCP session's) stays open; the rest is read.
        let stream = h
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let text = match stream {
            true => Vec::new(),
            false => axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default()
                .to_vec(),
        };
        let method = if post { "POST" } else { "GET" };
        assert!(
            parts.status != 500,
            "{method} {uri}: 500 {}",
            String::from_utf8_lossy(&text)
        );
        assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{uri}");
        let csp = h[header::CONTENT_SECURITY_POLICY].to_str().unwrap_or("");
        assert!(csp.contains("frame-ancestors 'none'"), "{uri}: {csp}");
        let asset = route.path == "/" || route.path.starts_with("/ui/");
        if !asset {
            assert_eq!(h[header::CACHE_CONTROL], "no-store", "{method} {uri}");
        }
    });
    clean_up(f);
}
