//! The MCP server handler: tools, the note resources, and how errors reach
//! the client.
//!
//! - A tool's own failure (a bad argument, an unknown note, an index still
//!   opening) is a tool result with `isError` and our error code and
//!   message, so the model reads it and can correct its call (SEP-1303).
//! - An unknown tool, or an unknown or unreadable resource, is a JSON-RPC
//!   error: those are the protocol's own cases.
//! - Every operation runs on a blocking thread: the store and the models are
//!   synchronous, and the transport's runtime keeps answering meanwhile.

use crate::prompts;
use crate::resources;
use crate::tools;
use mindnet_app::changes::{Door, through};
use mindnet_app::{AppError, ErrorBody, ErrorCode, Workspace};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode as RpcCode, GetPromptRequestParams, GetPromptResponse, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use std::sync::Arc;

/// Where the handler finds the open index: the server's once it has
/// opened, or the reason it has not. Called on a blocking thread, so it
/// may wait a while for an index that is opening.
pub type WorkspaceSource = Arc<dyn Fn() -> Result<Arc<Workspace>, AppError> + Send + Sync>;

const INSTRUCTIONS: &str = "mindnet holds the user's personal notes (an Obsidian vault, mostly \
German) as a typed knowledge graph. Use `search` for any question about what the user knows or \
wrote, `ask` for why-questions and consequences (it returns the causal chain with its evidence), \
`read_note` to read a note found by search, and `note_context` to see what a note links to. Cite \
notes by title and path. Write with `write_note` only when the user asks you to.";

/// The requests this server answers: a malformed one is invalid params.
const SERVED: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
];

/// One MCP session's handler (cheap to clone: the workspace is shared).
#[derive(Clone)]
pub struct MindnetMcp {
    source: WorkspaceSource,
}

impl MindnetMcp {
    pub fn new(source: WorkspaceSource) -> Self {
        MindnetMcp { source }
    }

    /// Runs `op` on the workspace on a blocking thread (finding the
    /// workspace may wait for it to open).
    async fn run<T: Send + 'static>(
        &self,
        op: impl FnOnce(&Workspace) -> T + Send + 'static,
    ) -> Result<T, AppError> {
        let source = self.source.clone();
        tokio::task::spawn_blocking(move || through(Door::Mcp, || source().map(|ws| op(&ws))))
            .await
            .map_err(|e| AppError::internal(format!("the operation failed: {e}")))?
    }
}

fn tool_error(e: AppError) -> CallToolResult {
    let text = format!("{} ({})", e.message, e.code.as_str());
    let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
    r.structured_content = serde_json::to_value(ErrorBody { error: e }).ok();
    r
}

/// A failure outside a tool as a JSON-RPC error.
pub(crate) fn protocol_error(e: AppError) -> ErrorData {
    match e.code {
        ErrorCode::NotFound => ErrorData::resource_not_found(e.message, None),
        ErrorCode::BadRequest | ErrorCode::Unprocessable => {
            ErrorData::invalid_params(e.message, None)
        }
        _ => ErrorData::internal_error(e.message, None),
    }
}

impl ServerHandler for MindnetMcp {
    fn get_info(&self) -> ServerConfig {
        let mut info = Implementation::new("mindnet", env!("CARGO_PKG_VERSION"));
        info.title = Some("mindnet: your notes as a knowledge graph".into());
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(info)
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if tools::get(&name).is_none() {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{name}`; the tools are {}",
                    tools::list()
                        .iter()
                        .map(|t| t.name.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let outcome = self
            .run(move |ws| tools::call(ws, &name, args))
            .await
            .and_then(|r| r.unwrap_or_else(|| Err(AppError::internal("no such tool"))));
        Ok(match outcome {
            Ok(reply) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(reply.text)]);
                r.structured_content = Some(reply.structured);
                r
            }
            Err(e) => tool_error(e),
        }
        .into())
    }

    /// A request the SDK cannot read as its method's (`tools/call` without
    /// `params`, a `resources/read` whose `uri` is a number) arrives as a
    /// custom request. For a method we serve, the fault is in the params,
    /// and saying "method not found" would send a client author looking in
    /// the wrong place.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method;
        Err(match SERVED.contains(&method.as_str()) {
            true => ErrorData::invalid_params(
                format!("`{method}`: its params are missing or not of its shape"),
                None,
            ),
            false => ErrorData::new(RpcCode::METHOD_NOT_FOUND, method, None),
        })
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        self.run(move |ws| resources::list(ws, cursor.as_deref()))
            .await
            .and_then(|r| r)
            .map_err(protocol_error)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            resources::template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        self.run(move |ws| resources::read(ws, &uri))
            .await
            .and_then(|r| r)
            .map(Into::into)
            .map_err(protocol_error)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let name = request.name;
        let args = request.arguments.unwrap_or_default();
        self.run(move |ws| prompts::get(ws, &name, &args))
            .await
            .and_then(|r| r)
            .map(Into::into)
            .map_err(protocol_error)
    }
}
