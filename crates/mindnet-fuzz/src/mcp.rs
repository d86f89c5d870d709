//! The `mcp` target: JSON-RPC messages to the MCP server, as a client on
//! stdio sends them. Each input is one session: an `initialize` request and
//! the `initialized` notification, then the bytes (newline-delimited
//! messages: requests, notifications, answers, junk), then the end of input.
//!
//! Beyond the checks of every API target: every line the server writes is
//! JSON, no answer is an internal error (JSON-RPC -32603), and no tool
//! result carries an `internal` error.

use crate::api::{FIXTURE, clean_up};
use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const HELLO: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

/// Longest wait for the server to answer everything and end: far beyond
/// any tool on the example vault, so reaching it is a hang.
const PATIENCE: Duration = Duration::from_secs(20);

pub fn mcp(data: &[u8]) {
    let f = &*FIXTURE;
    let out = f.runtime.block_on(async {
        let (mut client, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, mut replies) = tokio::io::duplex(1 << 20);
        let ws = f.ws.clone();
        let source: mindnet_mcp::WorkspaceSource = std::sync::Arc::new(move || Ok(ws.clone()));
        let server = tokio::spawn(mindnet_mcp::serve_io(source, server_in, server_out));
        let _ = client.write_all(HELLO.as_bytes()).await;
        let _ = client.write_all(data).await;
        let _ = client.write_all(b"\n").await;
        drop(client);
        let mut out = Vec::new();
        let read = tokio::time::timeout(PATIENCE, replies.read_to_end(&mut out)).await;
        assert!(read.is_ok(), "the MCP server did not end after its input did");
        // The session's own end (an error when the input broke the
        // handshake) is no finding; a panic in it is.
        let ended = server.await;
        assert!(ended.is_ok(), "the MCP server panicked: {ended:?}");
        out
    });
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let msg: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!("not JSON from the server ({e}): {}", String::from_utf8_lossy(line))
        });
        assert!(
            msg["error"]["code"] != -32603,
            "an internal error: {msg}"
        );
        assert!(
            msg["result"]["structuredContent"]["error"]["code"] != "internal",
            "a tool ended in an internal error: {msg}"
        );
    }
    clean_up(f);
}
