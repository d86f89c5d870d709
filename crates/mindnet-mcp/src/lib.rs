//! mindnet as the memory of AI assistants: a Model Context Protocol server
//! over the application layer, on the official Rust SDK (`rmcp`, its minor
//! version pinned).
//!
//! - `tools.rs`: the tools, their schemas, annotations and calls.
//! - `resources.rs`: every indexed note as `mindnet://note/{path}`.
//! - `prompts.rs`: the prompts (why, tidy_note, capture).
//! - `server.rs`: the protocol handler and how errors reach the client.
//!
//! Two transports carry the same handler: stdio (`mindnet mcp`, one client
//! that started us) and streamable HTTP (`/mcp` on `mindnet serve`, behind
//! the server's Host, Origin and token checks).

mod prompts;
mod resources;
mod server;
pub mod tools;

pub use resources::{path_of as resource_path, uri as resource_uri};
pub use server::{MindnetMcp, WorkspaceSource};

use mindnet_app::AppError;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Serves one client over this process's stdin and stdout until the client
/// closes them. Nothing else may write to stdout meanwhile.
pub async fn serve_stdio(source: WorkspaceSource) -> Result<(), AppError> {
    let (stdin, stdout) = rmcp::transport::stdio();
    serve_io(source, stdin, stdout).await
}

/// Serves one client that sends newline-delimited JSON-RPC on `input` and
/// reads the answers from `output`, until it closes `input`: stdio's
/// transport over any byte streams (the fuzz target `mcp` uses a pipe).
pub async fn serve_io<R, W>(source: WorkspaceSource, input: R, output: W) -> Result<(), AppError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let running = MindnetMcp::new(source)
        .serve((input, output))
        .await
        .map_err(|e| AppError::internal(format!("MCP over stdio: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| AppError::internal(format!("MCP over stdio: {e}")))?;
    Ok(())
}

/// The `/mcp` endpoint as a tower service, and the handle that ends its
/// open streams on shutdown (an idle client's event stream would otherwise
/// hold the server open).
pub struct HttpEndpoint {
    pub service: StreamableHttpService<MindnetMcp, LocalSessionManager>,
    pub shutdown: Shutdown,
}

#[derive(Clone)]
pub struct Shutdown(CancellationToken);

impl Shutdown {
    pub fn trigger(&self) {
        self.0.cancel();
    }
}

/// The streamable HTTP endpoint. Host, Origin and token are checked by the
/// server in front of it (the same checks as every endpoint), so the SDK's
/// own Host list is turned off rather than kept in a second, stricter form.
pub fn http_endpoint(source: WorkspaceSource, body_limit: usize) -> HttpEndpoint {
    let cancel = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_max_request_body_bytes(body_limit)
        .with_cancellation_token(cancel.clone());
    let handler = MindnetMcp::new(source);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    HttpEndpoint {
        service,
        shutdown: Shutdown(cancel),
    }
}
