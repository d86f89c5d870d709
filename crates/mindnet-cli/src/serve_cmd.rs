//! `mindnet serve`: the HTTP API over one warm workspace; `mindnet mcp`:
//! the same workspace for an AI assistant over stdio.

use crate::args::{ConfigArgs, DataArgs, IndexLocation, settings};
use anyhow::Result;
use mindnet_app::{ServeInput, ServeSettings};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The vault (default: $MINDNET_VAULT_ROOT, else the current folder).
    pub vault: Option<PathBuf>,
    /// Development port 8002 instead of 8001.
    #[arg(long)]
    pub dev: bool,
    /// Listen address (default 127.0.0.1:8001). Anything but loopback needs --token.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Bearer token every request must carry (default: $MINDNET_API_TOKEN).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Largest request body in bytes (default 1 MiB, or $MINDNET_API_BODY_LIMIT).
    #[arg(long, value_name = "BYTES")]
    pub body_limit: Option<usize>,
    /// Seconds a request may take (default 60, or $MINDNET_API_TIMEOUT); syncs are exempt.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// A browser origin allowed to call the API (repeatable; or $MINDNET_API_ORIGINS).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub origins: Vec<String>,
    /// Do not watch the vault for changes.
    #[arg(long)]
    pub no_watch: bool,
    /// Embedding model of a new index (default: the index's, else e5-small).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[command(flatten)]
    pub data: DataArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let s = settings(
        args.vault.clone(),
        &args.data,
        args.embedder.clone(),
        &args.config,
    );
    let serve = ServeSettings::resolve(ServeInput {
        listen: args.listen,
        dev: args.dev,
        token: args.token.clone(),
        body_limit: args.body_limit,
        timeout_secs: args.timeout,
        origins: args.origins.clone(),
        no_watch: args.no_watch,
    })?;
    let say: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(|m: &str| eprintln!("mindnet serve: {m}"));
    mindnet_server::serve(s, serve, say)?;
    Ok(ExitCode::SUCCESS)
}

/// `mindnet mcp`: an MCP server over stdio for the assistant that started us.
#[derive(clap::Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub index: IndexLocation,
    /// Address of the HTTP server that runs beside the session, so `mindnet
    /// query` and the web UI reach the index meanwhile (default: a free
    /// loopback port, recorded in <DATA>/server.json).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Bearer token for that HTTP server (default: $MINDNET_API_TOKEN).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Do not watch the vault for changes.
    #[arg(long)]
    pub no_watch: bool,
    /// Embedding model of a new index (default: the index's, else e5-small).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub fn mcp(args: McpArgs) -> Result<ExitCode> {
    // An assistant starts us in a folder of its choosing; indexing that
    // folder (a home directory, say) by default would be a surprise.
    let s = settings(
        args.index.vault.clone(),
        &args.index.data,
        args.embedder.clone(),
        &args.config,
    );
    if !s.vault_named {
        anyhow::bail!(
            "mindnet mcp needs the vault: give --vault DIR (or set {}) in your MCP client's configuration",
            mindnet_app::settings::env::VAULT_ROOT
        );
    }
    if let Some(owner) = mindnet_server::owner::live(&s.data) {
        anyhow::bail!(
            "the index in {} is served by mindnet (pid {}); point your MCP client at {}/mcp instead (streamable HTTP{})",
            s.data.display(),
            owner.pid,
            owner.url(),
            if owner.token_required {
                ", with its token as `Authorization: Bearer …`"
            } else {
                ""
            }
        );
    }
    let serve = ServeSettings::resolve(ServeInput {
        listen: Some(args.listen.unwrap_or(SocketAddr::from(([127, 0, 0, 1], 0)))),
        dev: false,
        token: args.token.clone(),
        body_limit: None,
        timeout_secs: None,
        origins: Vec::new(),
        no_watch: args.no_watch,
    })?;
    // stdout carries the protocol; everything a person reads goes to stderr.
    let say: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(|m: &str| eprintln!("mindnet mcp: {m}"));
    mindnet_server::mcp_stdio(s, serve, say)?;
    Ok(ExitCode::SUCCESS)
}
