//! The `mcp` target: JSON-RPC messages to the MCP server, as a client on
//! stdio sends them. Each input is one session: an `initialize` request and
//! the `initialized` notification, then the bytes (newline-delimited
//! messages: requests, notifications, answers, junk), then the end of input.
//!
//! Beyond the checks of every API target: every request is answered, every
//! line the server writes is JSON, no answer is an internal error (JSON-RPC
//! -32603), and no tool result carries an `internal` error.

use crate::api::{FIXTURE, clean_up, run_alone};
use serde_json::Value;
use std::collections::HashSet;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const HELLO: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

/// Longest wait for the server to answer everything and end: far beyond
/// any tool on the example vault, so reaching it is a hang.
const PATIENCE: Duration = Duration::from_secs(20);

/// A JSON-RPC 2.0 request as the protocol layer reads one: a message with a
/// duplicate field, say, is no request, and goes unanswered there.
#[derive(serde::Deserialize)]
struct Request {
    jsonrpc: String,
    /// None in a notification.
    #[serde(default)]
    id: Value,
    method: String,
    #[serde(default)]
    params: Option<serde_json::Map<String, Value>>,
}

/// The ids of the requests among the lines: what the server must answer
/// before the session may end (an end of input cancels what still runs).
/// A request the input cancels needs no answer.
fn requests(data: &[u8]) -> HashSet<String> {
    let lines = data.split(|&b| b == b'\n');
    let messages: Vec<Request> = lines
        // JSON as a whole: serde skips an unknown field without checking
        // that its text is UTF-8, but such a line is no JSON and no request.
        .filter(|l| serde_json::from_slice::<Value>(l).is_ok())
        .filter_map(|l| serde_json::from_slice::<Request>(l).ok())
        .filter(|r| r.jsonrpc == "2.0")
        .collect();
    let mut ids: HashSet<String> = messages
        .iter()
        .filter(|r| r.id.is_string() || r.id.is_i64() || r.id.is_u64())
        .filter(|r| !r.method.starts_with("notifications/"))
        .map(|r| r.id.to_string())
        .collect();
    for r in &messages {
        if r.method == "notifications/cancelled"
            && let Some(id) = r.params.as_ref().and_then(|p| p.get("requestId"))
        {
            ids.remove(&id.to_string());
        }
    }
    ids
}

pub fn mcp(data: &[u8]) {
    let f = &*FIXTURE;
    let mut waiting = requests(data);
    waiting.insert("0".into());
    let out = run_alone(async {
        let (mut client, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, replies) = tokio::io::duplex(1 << 20);
        let ws = f.ws.clone();
        let source: mindnet_mcp::WorkspaceSource = std::sync::Arc::new(move || Ok(ws.clone()));
        let server = tokio::spawn(mindnet_mcp::serve_io(source, server_in, server_out));
        let _ = client.write_all(HELLO.as_bytes()).await;
        let _ = client.write_all(data).await;
        let _ = client.write_all(b"\n").await;
        let mut lines = BufReader::new(replies).lines();
        let mut out = Vec::new();
        let read = tokio::time::timeout(PATIENCE, async {
            // Every request answered, then the end of input; then whatever
            // the server still says until it ends.
            let mut input = Some(client);
            loop {
                if waiting.is_empty() {
                    input.take();
                }
                let Ok(Some(line)) = lines.next_line().await else {
                    break;
                };
                if let Ok(msg) = serde_json::from_str::<Value>(&line)
                    && msg.get("method").is_none()
                {
                    waiting.remove(&msg["id"].to_string());
                }
                out.push(line);
            }
        })
        .await;
        assert!(
            read.is_ok(),
            "the MCP server left requests unanswered for {} s: {waiting:?}",
            PATIENCE.as_secs()
        );
        // The session's own end (an error when the input broke the
        // handshake) is no finding; a panic in it is.
        let ended = server.await;
        assert!(ended.is_ok(), "the MCP server panicked: {ended:?}");
        out
    });
    for line in out.iter().filter(|l| !l.is_empty()) {
        let msg: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not JSON from the server ({e}): {line}"));
        assert!(msg["error"]["code"] != -32603, "an internal error: {msg}");
        assert!(
            msg["result"]["structuredContent"]["error"]["code"] != "internal",
            "a tool ended in an internal error: {msg}"
        );
    }
    clean_up(f);
}
