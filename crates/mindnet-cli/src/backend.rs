//! Where a command's operation runs: in this process on the index, or
//! through the server that owns the index (its address is recorded in the
//! data dir). While a server runs, no second process opens its index.

use anyhow::{Result, bail};
use mindnet_app::api::*;
use mindnet_app::settings::env;
use mindnet_app::{AppError, OpenMode, Settings, Workspace};
use mindnet_server::Client;
use mindnet_server::owner;
use std::time::Duration;

/// Long enough for a sync of a large vault through the server.
const REMOTE_TIMEOUT: Duration = Duration::from_secs(6 * 3600);

pub enum Backend {
    Local(Box<Workspace>),
    Remote(Client),
}

/// The client of the server that owns `settings`' index, if one runs.
pub fn server(settings: &Settings) -> Result<Option<Client>> {
    let Some(record) = owner::live(&settings.data) else {
        return Ok(None);
    };
    tracing::info!("using the server at {} (pid {})", record.url(), record.pid);
    let token = std::env::var(env::API_TOKEN).ok();
    if record.token_required && token.is_none() {
        bail!(
            "the index is served by mindnet (pid {}) at {}, which needs a token; set {}",
            record.pid,
            record.url(),
            env::API_TOKEN
        );
    }
    Ok(Some(Client::new(&record.url(), token, REMOTE_TIMEOUT)?))
}

/// Fails at once when a server owns the index: for commands that need the
/// index themselves and have no endpoint.
pub fn refuse_if_served(settings: &Settings, command: &str) -> Result<()> {
    if let Some(r) = owner::live(&settings.data) {
        bail!(
            "the index in {} is in use by `mindnet serve` (pid {}) at {}; stop the server to run `mindnet {command}`",
            settings.data.display(),
            r.pid,
            r.url()
        );
    }
    Ok(())
}

impl Backend {
    /// The server's client, or the index opened here for reading.
    pub fn open(settings: &Settings) -> Result<Backend> {
        if let Some(c) = server(settings)? {
            return Ok(Backend::Remote(c));
        }
        Ok(Backend::Local(Box::new(Workspace::open(
            settings.clone(),
            OpenMode::Existing,
        )?)))
    }

    pub fn query(&self, req: &QueryRequest) -> Result<QueryResponse, AppError> {
        match self {
            Backend::Local(ws) => ws.query(req),
            Backend::Remote(c) => c.query(req),
        }
    }

    pub fn ask(&self, req: &AskRequest) -> Result<QueryResponse, AppError> {
        match self {
            Backend::Local(ws) => ws.ask(req),
            Backend::Remote(c) => c.ask(req),
        }
    }

    pub fn status(&self) -> Result<StatusResponse, AppError> {
        match self {
            Backend::Local(ws) => ws.status(),
            Backend::Remote(c) => c.status(),
        }
    }

    pub fn chain(&self, req: &ChainRequest) -> Result<ChainResponse, AppError> {
        match self {
            Backend::Local(ws) => ws.chain(req),
            Backend::Remote(c) => c.chain(req),
        }
    }

    pub fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError> {
        match self {
            Backend::Local(ws) => ws.chat(req, sink),
            Backend::Remote(c) => c.chat(req, sink),
        }
    }

    pub fn save(&self, req: &SaveRequest) -> Result<SaveResponse, AppError> {
        match self {
            Backend::Local(ws) => ws.save(req),
            Backend::Remote(c) => c.save(req),
        }
    }
}
