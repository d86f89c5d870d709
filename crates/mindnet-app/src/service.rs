//! What runs operations: the `Workspace` in this process (`Local` opens it
//! on first need), or the client of the server that owns the index. Both
//! give the same answers and the same errors.

use crate::api::{ChatEvent, ChatRequest, ChatResponse};
use crate::operation::{Needs, Operation};
use crate::{AppError, OpenMode, Settings, Workspace};
use std::sync::OnceLock;

pub trait Service {
    fn call<O: Operation>(&self, req: &O::Request) -> Result<O::Response, AppError>;

    /// `chat`, streamed: `sink` gets each event, and a `false` from it
    /// cancels the answer. (`call::<ChatOp>` answers whole.)
    fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError>;
}

impl Service for Workspace {
    fn call<O: Operation>(&self, req: &O::Request) -> Result<O::Response, AppError> {
        O::run(self, req)
    }

    fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError> {
        Workspace::chat(self, req, sink)
    }
}

/// Runs `O` on the files when it needs no index for `req`.
pub fn on_files<O: Operation>(
    settings: &Settings,
    req: &O::Request,
) -> Option<Result<O::Response, AppError>> {
    match O::NEEDS {
        Needs::Index => None,
        Needs::Files | Needs::FilesOrIndex => O::run_on_files(settings, req),
    }
}

/// The operations in this process: the index is opened when the first
/// operation that needs it runs, so one that reads only files never opens
/// (or needs) one.
pub struct Local {
    settings: Settings,
    mode: OpenMode,
    workspace: OnceLock<Workspace>,
}

impl Local {
    pub fn new(settings: Settings, mode: OpenMode) -> Self {
        Local {
            settings,
            mode,
            workspace: OnceLock::new(),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The open workspace, opened now if it is not yet.
    pub fn workspace(&self) -> Result<&Workspace, AppError> {
        if let Some(ws) = self.workspace.get() {
            return Ok(ws);
        }
        let ws = Workspace::open(self.settings.clone(), self.mode)?;
        Ok(self.workspace.get_or_init(|| ws))
    }
}

impl Service for Local {
    fn call<O: Operation>(&self, req: &O::Request) -> Result<O::Response, AppError> {
        match on_files::<O>(&self.settings, req) {
            Some(result) => result,
            None => O::run(self.workspace()?, req),
        }
    }

    fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError> {
        self.workspace()?.chat(req, sink)
    }
}
