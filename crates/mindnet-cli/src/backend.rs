//! Where a command's operations run: the operations that need the index go
//! through the server that owns it when one runs (its address is recorded
//! in the data dir), else run in this process on the index, opened on
//! first need. Operations that read only the vault's files always run here.
//! While a server runs, no second process opens its index.

use anyhow::{Result, bail};
use mindnet_app::api::{ChatEvent, ChatRequest, ChatResponse};
use mindnet_app::operation::Operation;
use mindnet_app::service::{Local, Service, on_files};
use mindnet_app::settings::env;
use mindnet_app::{AppError, OpenMode, Settings};
use mindnet_server::Client;
use mindnet_server::owner;
use std::time::Duration;

/// Long enough for a sync of a large vault through the server.
const REMOTE_TIMEOUT: Duration = Duration::from_secs(6 * 3600);

/// The service a command calls, settled once when the command starts.
pub struct Backend {
    local: Local,
    remote: Option<Client>,
}

/// The client of the server that owns `settings`' index, if one runs.
pub fn server(settings: &Settings) -> Result<Option<Client>> {
    let Some(record) = owner::live(&settings.data) else {
        return Ok(None);
    };
    tracing::info!("using the server at {} (pid {})", record.url(), record.pid);
    let token = settings.api_token.clone();
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
    /// The server's client if one owns the index; the index of `settings`
    /// (which must exist) otherwise.
    pub fn open(settings: &Settings) -> Result<Backend> {
        Ok(Backend {
            remote: server(settings)?,
            local: Local::new(settings.clone(), OpenMode::Existing),
        })
    }
}

impl Service for Backend {
    fn call<O: Operation>(&self, req: &O::Request) -> Result<O::Response, AppError> {
        match (&self.remote, on_files::<O>(self.local.settings(), req)) {
            (_, Some(result)) => result,
            (Some(client), None) => client.call::<O>(req),
            (None, None) => self.local.call::<O>(req),
        }
    }

    fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError> {
        match &self.remote {
            Some(client) => client.chat(req, sink),
            None => self.local.chat(req, sink),
        }
    }
}
