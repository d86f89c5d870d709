//! The operation table: every operation of the application layer, declared
//! once. A declaration names the request and response types, the name, the
//! HTTP route, the MCP tool, whether it writes, and the one function that
//! serves it. Every transport is derived from it:
//!
//! - `mindnet-server` mounts each route on a generic handler and writes the
//!   OpenAPI entry from the same declaration;
//! - its `Client` calls each route by the declared path;
//! - `mindnet-mcp` lists each declared tool and calls the operation;
//! - the CLI holds one `Service` (this process's `Workspace`, or the
//!   client of the server that owns the index) and calls operations on it
//!   without knowing which; `mindnet call <name>` reaches every one.
//!
//! The model is rust-analyzer's `lsp_types::request::Request`: one type
//! names its params, its result and its method.
//!
//! Adding an operation: write its function on `Workspace` (with request
//! and response types in `api/`), declare it here with `impl Operation`,
//! and add it to `visit`. Its printer, if the CLI or MCP show it as text,
//! goes into `mindnet-render`.

use crate::api::*;
use crate::{AppError, OpenMode, Settings, Workspace};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::OnceLock;
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};

/// An HTTP method of the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The request comes as query parameters, or in the path.
    Get,
    /// The request comes as a JSON body.
    Post,
}

/// Where an operation is on the HTTP API.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    pub method: Method,
    /// The path as axum writes it: `{name}` is a field of the request,
    /// `{*name}` one that may hold `/`.
    pub path: &'static str,
    /// Whether the server's request deadline applies (a sync runs as long
    /// as the vault needs).
    pub deadline: bool,
    /// The error statuses the OpenAPI document lists.
    pub errors: &'static [u16],
    /// The OpenAPI summary, where the name does not say enough.
    pub summary: Option<&'static str>,
}

/// Whether an operation only reads, or writes the vault or the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads the vault or the index; the same call gives the same answer.
    Reads,
    /// Writes notes, fixes or the index.
    Writes,
}

/// How an operation shows itself to an AI assistant over MCP. Names are
/// stable: clients remember them.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    /// What the assistant reads to decide when to call it.
    pub description: &'static str,
}

/// One operation: its types, where each transport shows it, and its
/// handler.
pub trait Operation: 'static {
    type Request: Serialize
        + DeserializeOwned
        + utoipa::ToSchema
        + Send
        + std::marker::Sync
        + 'static;
    type Response: Serialize + DeserializeOwned + utoipa::ToSchema + Send + 'static;
    /// The operation's name: its OpenAPI `operationId` and its name for
    /// `mindnet call`.
    const NAME: &'static str;
    const EFFECT: Effect;
    const ROUTE: Option<Route>;
    const TOOL: Option<Tool>;

    /// Serves the operation in this process.
    fn run(ws: &Workspace, req: &Self::Request) -> Result<Self::Response, AppError>;

    /// Serves the operation without an index, if it needs only the vault's
    /// files and the logs (`None`: it needs the index). Such an operation
    /// runs in the calling process even while a server owns the index, and
    /// in a vault never imported.
    fn run_on_files(_: &Settings, _: &Self::Request) -> Option<Result<Self::Response, AppError>> {
        None
    }

    /// The OpenAPI parameters of a request that travels in the query or
    /// the path (none for a JSON body).
    fn parameters() -> Vec<Parameter> {
        Vec::new()
    }
}

/// What runs operations: the workspace in this process, or the client of
/// the server that owns the index. Both give the same answers and the same
/// errors.
pub trait Service {
    fn call<O: Operation>(&self, req: &O::Request) -> Result<O::Response, AppError>;

    /// `chat`, streamed: `sink` gets each event, and a `false` from it
    /// cancels the answer. (Not a table entry: its answer is a stream.)
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
        match O::run_on_files(&self.settings, req) {
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

/// Something done for every operation of the table, with its type.
pub trait Visit {
    fn op<O: Operation>(&mut self);
}

/// The table.
pub fn visit(v: &mut impl Visit) {
    v.op::<Status>();
    v.op::<Query>();
    v.op::<Ask>();
    v.op::<Feedback>();
    v.op::<Note>();
    v.op::<Neighbors>();
    v.op::<Chain>();
    v.op::<Analyze>();
    v.op::<Save>();
    v.op::<Sync>();
    v.op::<Lint>();
    v.op::<History>();
    v.op::<Config>();
    v.op::<LintFix>();
    v.op::<ReadNote>();
    v.op::<RecentChanges>();
    v.op::<Tags>();
}

const fn get(path: &'static str, errors: &'static [u16]) -> Route {
    Route {
        method: Method::Get,
        path,
        deadline: true,
        errors,
        summary: None,
    }
}

const fn post(path: &'static str, errors: &'static [u16]) -> Route {
    Route {
        method: Method::Post,
        ..get(path, errors)
    }
}

fn query_params<T: IntoParams>() -> Vec<Parameter> {
    T::into_params(|| Some(ParameterIn::Query))
}

pub struct Status;
impl Operation for Status {
    type Request = NoArgs;
    type Response = StatusResponse;
    const NAME: &'static str = "status";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(get("/status", &[503]));
    const TOOL: Option<Tool> = Some(Tool {
        name: "status",
        title: "Index status",
        description: "How many notes, chunks and edges the index holds, the embedding model, \
            the last import, and whether a sync is running now.",
    });
    fn run(ws: &Workspace, _: &NoArgs) -> Result<StatusResponse, AppError> {
        ws.status()
    }
}

pub struct Query;
impl Operation for Query {
    type Request = QueryRequest;
    type Response = QueryResponse;
    const NAME: &'static str = "query";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(post("/query", &[400, 422, 503]));
    const TOOL: Option<Tool> = Some(Tool {
        name: "search",
        title: "Search the notes",
        description: "Hybrid search (meaning, keywords and the link graph) over the user's notes. \
            Returns the best notes with title, path, the matching section, a snippet, a score and \
            the reasons for each rank. Use it first for any question about what the user knows or \
            wrote; then read_note for a whole note.",
    });
    fn run(ws: &Workspace, req: &QueryRequest) -> Result<QueryResponse, AppError> {
        ws.query(req)
    }
}

pub struct Ask;
impl Operation for Ask {
    type Request = AskRequest;
    type Response = QueryResponse;
    const NAME: &'static str = "ask";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(post("/ask", &[400, 503]));
    const TOOL: Option<Tool> = Some(Tool {
        name: "ask",
        title: "Explain why, or what followed",
        description: "Answers a causal question (\"Warum …?\", \"Why …?\", \"Welche Folgen …?\", \
            \"What followed from …?\") by walking the typed links between notes. Returns the \
            chain of causes or effects as text with the evidence for each step, every path found, \
            the explanation subgraph and a Mermaid diagram of it. For plain lookups use search.",
    });
    fn run(ws: &Workspace, req: &AskRequest) -> Result<QueryResponse, AppError> {
        ws.ask(req)
    }
}

pub struct Feedback;
impl Operation for Feedback {
    type Request = FeedbackRequest;
    type Response = FeedbackResponse;
    const NAME: &'static str = "feedback";
    const EFFECT: Effect = Effect::Writes;
    const ROUTE: Option<Route> = Some(post("/feedback", &[404, 422]));
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, req: &FeedbackRequest) -> Result<FeedbackResponse, AppError> {
        ws.feedback(req)
    }
    fn run_on_files(
        settings: &Settings,
        req: &FeedbackRequest,
    ) -> Option<Result<FeedbackResponse, AppError>> {
        Some(crate::feedback(settings, req))
    }
}

pub struct Note;
impl Operation for Note {
    type Request = NoteKey;
    type Response = NoteResponse;
    const NAME: &'static str = "note";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(get("/notes/{*id}", &[404]));
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, req: &NoteKey) -> Result<NoteResponse, AppError> {
        ws.note(&req.id)
    }
    fn parameters() -> Vec<Parameter> {
        NoteKey::into_params(|| Some(ParameterIn::Path))
    }
}

pub struct Neighbors;
impl Operation for Neighbors {
    type Request = NeighborsRequest;
    type Response = GraphResponse;
    const NAME: &'static str = "neighbors";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(get("/graph/neighbors", &[400, 404]));
    const TOOL: Option<Tool> = Some(Tool {
        name: "note_context",
        title: "Notes around a note",
        description: "The neighbourhood of a note in the link graph: every note within `hops` \
            links (both directions), optionally only along some edge kinds, and the typed edges \
            between them. Use it to see what a note connects to before reading further.",
    });
    fn run(ws: &Workspace, req: &NeighborsRequest) -> Result<GraphResponse, AppError> {
        ws.neighbors(req)
    }
    fn parameters() -> Vec<Parameter> {
        query_params::<NeighborsRequest>()
    }
}

pub struct Chain;
impl Operation for Chain {
    type Request = ChainRequest;
    type Response = ChainResponse;
    const NAME: &'static str = "chain";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(post("/chain", &[404]));
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, req: &ChainRequest) -> Result<ChainResponse, AppError> {
        ws.chain(req)
    }
    /// With `files`, or in a vault without an index: from the files.
    fn run_on_files(
        settings: &Settings,
        req: &ChainRequest,
    ) -> Option<Result<ChainResponse, AppError>> {
        (req.files || !settings.has_index()).then(|| crate::chain_from_files(settings, req))
    }
}

pub struct Analyze;
impl Operation for Analyze {
    type Request = AnalyzeRequest;
    type Response = AnalyzeResponse;
    const NAME: &'static str = "analyze";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(post("/ingest/analyze", &[400]));
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, req: &AnalyzeRequest) -> Result<AnalyzeResponse, AppError> {
        ws.analyze(req)
    }
}

pub struct Save;
impl Operation for Save {
    type Request = SaveRequest;
    type Response = SaveResponse;
    const NAME: &'static str = "save";
    const EFFECT: Effect = Effect::Writes;
    const ROUTE: Option<Route> = Some(post("/ingest/save", &[409, 422]));
    const TOOL: Option<Tool> = Some(Tool {
        name: "write_note",
        title: "Write a new note",
        description: "Creates a Markdown note in the user's vault and indexes it before \
            answering, so search finds it at once. The file name comes from the title; the note \
            is never written outside the vault, and an existing note is only replaced with \
            `overwrite: true`. Write only when the user asked for it.",
    });
    fn run(ws: &Workspace, req: &SaveRequest) -> Result<SaveResponse, AppError> {
        ws.save(req)
    }
}

pub struct Sync;
impl Operation for Sync {
    type Request = SyncRequest;
    type Response = SyncSummary;
    const NAME: &'static str = "sync";
    const EFFECT: Effect = Effect::Writes;
    const ROUTE: Option<Route> = Some(Route {
        deadline: false,
        ..post("/sync", &[503])
    });
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, req: &SyncRequest) -> Result<SyncSummary, AppError> {
        ws.sync(req, &())
    }
}

pub struct Lint;
impl Operation for Lint {
    type Request = LintRequest;
    type Response = LintResponse;
    const NAME: &'static str = "lint";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(post("/lint", &[400]));
    const TOOL: Option<Tool> = Some(Tool {
        name: "lint",
        title: "Check notes for graph problems",
        description: "Runs the graph linter on one note or the whole vault: links to missing \
            notes, split spellings of one name, edge kinds that do not fit the note types, \
            causal cycles and gaps. Each finding names the file, line and rule.",
    });
    fn run(ws: &Workspace, req: &LintRequest) -> Result<LintResponse, AppError> {
        crate::lint(ws.settings(), req)
    }
    fn run_on_files(
        settings: &Settings,
        req: &LintRequest,
    ) -> Option<Result<LintResponse, AppError>> {
        Some(crate::lint(settings, req))
    }
}

pub struct History;
impl Operation for History {
    type Request = HistoryRequest;
    type Response = HistoryResponse;
    const NAME: &'static str = "history";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(get("/history", &[400]));
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, req: &HistoryRequest) -> Result<HistoryResponse, AppError> {
        ws.history(req)
    }
    fn parameters() -> Vec<Parameter> {
        query_params::<HistoryRequest>()
    }
}

pub struct Config;
impl Operation for Config {
    type Request = NoArgs;
    type Response = ConfigResponse;
    const NAME: &'static str = "config";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(get("/config", &[]));
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, _: &NoArgs) -> Result<ConfigResponse, AppError> {
        Ok(ws.config_info())
    }
}

pub struct LintFix;
impl Operation for LintFix {
    type Request = FixRequest;
    type Response = FixResponse;
    const NAME: &'static str = "lint_fix";
    const EFFECT: Effect = Effect::Writes;
    const ROUTE: Option<Route> = Some(Route {
        summary: Some(
            "`POST /lint/fix`: the fixes the linter can make safely, as diffs; with\n\
             `write: true` they are written (atomically, only into the vault, only to\n\
             files unchanged since they were read).",
        ),
        ..post("/lint/fix", &[400])
    });
    const TOOL: Option<Tool> = None;
    fn run(ws: &Workspace, req: &FixRequest) -> Result<FixResponse, AppError> {
        crate::fix(ws.settings(), req)
    }
    fn run_on_files(
        settings: &Settings,
        req: &FixRequest,
    ) -> Option<Result<FixResponse, AppError>> {
        Some(crate::fix(settings, req))
    }
}

pub struct ReadNote;
impl Operation for ReadNote {
    type Request = ReadNoteRequest;
    type Response = ReadNoteResponse;
    const NAME: &'static str = "read_note";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = None;
    const TOOL: Option<Tool> = Some(Tool {
        name: "read_note",
        title: "Read a note",
        description: "The full text of one note as its file holds it (frontmatter included), or \
            only one section of it, with the links it makes and the links other notes make to it. \
            Name the note by title, alias, vault path or id, as search returns them.",
    });
    fn run(ws: &Workspace, req: &ReadNoteRequest) -> Result<ReadNoteResponse, AppError> {
        ws.read_note(req)
    }
}

pub struct RecentChanges;
impl Operation for RecentChanges {
    type Request = RecentRequest;
    type Response = RecentResponse;
    const NAME: &'static str = "recent_changes";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = None;
    const TOOL: Option<Tool> = Some(Tool {
        name: "recent_changes",
        title: "Recently changed notes",
        description: "The notes whose files changed within a time window, newest first, and \
            whether the index holds each one's latest version yet.",
    });
    fn run(ws: &Workspace, req: &RecentRequest) -> Result<RecentResponse, AppError> {
        ws.recent_changes(req)
    }
}

pub struct Tags;
impl Operation for Tags {
    type Request = TagsRequest;
    type Response = TagsResponse;
    const NAME: &'static str = "tags";
    const EFFECT: Effect = Effect::Reads;
    const ROUTE: Option<Route> = Some(get("/tags", &[503]));
    const TOOL: Option<Tool> = Some(Tool {
        name: "tags",
        title: "Tags and how often they are used",
        description: "Every tag of the user's notes with the number of notes that carry it, \
            most used first; optionally only the tags under a prefix such as `projekt/`. Use it \
            to learn the vault's topics, then search with a `tag` filter.",
    });
    fn run(ws: &Workspace, req: &TagsRequest) -> Result<TagsResponse, AppError> {
        ws.tags(req)
    }
    fn parameters() -> Vec<Parameter> {
        query_params::<TagsRequest>()
    }
}

/// Every operation's name, in table order.
pub fn names() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl Visit for Names {
        fn op<O: Operation>(&mut self) {
            self.0.push(O::NAME);
        }
    }
    let mut n = Names(Vec::new());
    visit(&mut n);
    n.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_paths_and_tools_are_unique() {
        struct Seen(Vec<String>);
        impl Visit for Seen {
            fn op<O: Operation>(&mut self) {
                self.0.push(format!("op {}", O::NAME));
                if let Some(r) = O::ROUTE {
                    self.0.push(format!("route {:?} {}", r.method, r.path));
                }
                if let Some(t) = O::TOOL {
                    self.0.push(format!("tool {}", t.name));
                }
            }
        }
        let mut seen = Seen(Vec::new());
        visit(&mut seen);
        let n = seen.0.len();
        seen.0.sort();
        seen.0.dedup();
        assert_eq!(seen.0.len(), n, "{:?}", seen.0);
        assert!(names().contains(&"tags"));
    }
}
