//! What a client sees, held byte for byte: the HTTP API's OpenAPI document
//! and the MCP tools' definitions, against snapshots in `tests/data/`. A
//! refactoring of the transports must leave both as they are; an intended
//! change rewrites them with
//! `MINDNET_UPDATE_SNAPSHOTS=1 cargo test -p mindnet-server --test schemas`,
//! and the diff shows what clients will see differently.

use std::path::Path;

fn check(name: &str, now: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    if std::env::var_os("MINDNET_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, now).unwrap();
        return;
    }
    let before = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with MINDNET_UPDATE_SNAPSHOTS=1",
            path.display()
        )
    });
    if before != now {
        let line = before
            .lines()
            .zip(now.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(before.lines().count().min(now.lines().count()));
        panic!(
            "{name} changed from line {}: {:?} is now {:?}. If that is intended, \
             run with MINDNET_UPDATE_SNAPSHOTS=1 and review the diff",
            line + 1,
            before.lines().nth(line).unwrap_or("(end)"),
            now.lines().nth(line).unwrap_or("(end)")
        );
    }
}

#[test]
fn the_http_api_is_as_its_snapshot() {
    let doc: serde_json::Value = serde_json::from_str(&mindnet_server::openapi_json()).unwrap();
    check(
        "openapi.json",
        &(serde_json::to_string_pretty(&doc).unwrap() + "\n"),
    );
}

#[test]
fn the_mcp_tools_are_as_their_snapshot() {
    let tools = serde_json::to_string_pretty(mindnet_mcp::tools::list()).unwrap();
    check("mcp-tools.json", &(tools + "\n"));
}
