//! What an operation declares about itself: the `Operation` trait and the
//! plain data every transport reads from it (its route, its tool, its
//! failures). The operations themselves are the files of `ops/`.
//!
//! The model is rust-analyzer's `lsp_types::request::Request`: one type
//! names its params, its result and its method; everything a transport
//! needs is derived from that one declaration.

use crate::{AppError, ErrorCode, Settings, Workspace};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

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
    /// The OpenAPI summary, where the name does not say enough.
    pub summary: Option<&'static str>,
}

impl Route {
    pub const fn get(path: &'static str) -> Route {
        Route {
            method: Method::Get,
            path,
            deadline: true,
            summary: None,
        }
    }

    pub const fn post(path: &'static str) -> Route {
        Route {
            method: Method::Post,
            ..Route::get(path)
        }
    }

    /// A route that runs as long as its work needs.
    pub const fn without_deadline(self) -> Route {
        Route {
            deadline: false,
            ..self
        }
    }

    pub const fn summary(self, summary: &'static str) -> Route {
        Route {
            summary: Some(summary),
            ..self
        }
    }

    /// Whether the request travels in the path (a `{field}` in it).
    pub fn in_path(&self) -> bool {
        self.path.contains('{')
    }
}

/// Whether an operation only reads, or writes the vault or the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads the vault or the index; the same call gives the same answer.
    Reads,
    /// Writes notes, fixes, logs or the index.
    Writes,
}

/// What an operation runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// The open index.
    Index,
    /// The vault's files and the logs only (`run_on_files` always
    /// answers): it runs while the index opens, in a vault never imported,
    /// and in the calling process even while a server owns the index.
    Files,
    /// The files for some requests, the index for others
    /// (`run_on_files` decides).
    FilesOrIndex,
}

/// How an operation shows itself to an AI assistant over MCP. Names are
/// stable: clients remember them.
pub struct Tool<R> {
    pub name: &'static str,
    pub title: &'static str,
    /// What the assistant reads to decide when to call it.
    pub description: &'static str,
    /// The JSON schema of its arguments.
    pub schema: fn() -> Map<String, Value>,
    /// The operation's request made of the arguments (the tool's name
    /// first, for the error), or an error naming the field at fault.
    pub request: fn(&str, Map<String, Value>) -> Result<R, AppError>,
}

impl<R: JsonSchema + DeserializeOwned> Tool<R> {
    /// A tool whose arguments are the operation's request as it is.
    pub const fn new(
        name: &'static str,
        title: &'static str,
        description: &'static str,
    ) -> Tool<R> {
        Tool {
            name,
            title,
            description,
            schema: schema_of::<R>,
            request: parse::<R>,
        }
    }
}

impl<R> Tool<R> {
    /// The tool takes `A`, which differs from the request (simpler names
    /// for a model, checks a program does not need) and becomes one.
    pub const fn with_args<A: ToolArgs<Request = R>>(self) -> Tool<R> {
        Tool {
            schema: schema_of::<A>,
            request: parse_args::<A>,
            ..self
        }
    }
}

/// The arguments of a tool that are not its operation's request.
pub trait ToolArgs: JsonSchema + DeserializeOwned {
    type Request;
    fn into_request(self) -> Result<Self::Request, AppError>;
}

/// The JSON schema of `T` as MCP and the CLI read it: draft 2020-12, every
/// subschema inline, always an object with `properties`.
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    match serde_json::to_value(generator.into_root_schema_for::<T>()) {
        Ok(Value::Object(mut o)) => {
            o.remove("$schema");
            o.remove("title");
            // An argument-less request still takes an object.
            o.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            o
        }
        _ => Map::new(),
    }
}

/// `T` from JSON arguments, or an error naming the field at fault.
pub fn parse<T: DeserializeOwned>(name: &str, args: Map<String, Value>) -> Result<T, AppError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| AppError::bad_request(format!("arguments of `{name}`: {e}")))
}

fn parse_args<A: ToolArgs>(name: &str, args: Map<String, Value>) -> Result<A::Request, AppError> {
    parse::<A>(name, args)?.into_request()
}

/// One operation: its types, where each transport shows it, and its
/// handler. Everything is declared in the operation's own file in `ops/`.
pub trait Operation: 'static {
    /// Its docs are the request's description in OpenAPI, MCP and the
    /// CLI's help.
    type Request: Serialize
        + DeserializeOwned
        + utoipa::ToSchema
        + JsonSchema
        + Send
        + std::marker::Sync
        + 'static;
    type Response: Serialize + DeserializeOwned + utoipa::ToSchema + Send + 'static;
    /// The operation's name: its OpenAPI `operationId`, its name for
    /// `mindnet call`, and (with `-` for `_`) its CLI subcommand.
    const NAME: &'static str;
    /// One line for the CLI's help and the guide's table.
    const ABOUT: &'static str;
    /// A request as JSON that the bundled example vault answers: the
    /// guide shows it, and the test that every transport gives the same
    /// answer sends it.
    const EXAMPLE: &'static str;
    const EFFECT: Effect;
    const NEEDS: Needs;
    const ROUTE: Route;
    /// The failures of its own work (a note not found, a file that
    /// exists); those of the transport and of an index that is not open
    /// are added from `NEEDS` and `ROUTE` (`Operation::failures`).
    const FAILS: &'static [ErrorCode];
    const TOOL: Option<Tool<Self::Request>>;

    /// Serves the operation on the open index.
    fn run(ws: &Workspace, req: &Self::Request) -> Result<Self::Response, AppError>;

    /// Serves the operation without an index, if the request needs only
    /// the vault's files and the logs (`None`: it needs the index). Only
    /// called when `NEEDS` is not `Index`.
    fn run_on_files(_: &Settings, _: &Self::Request) -> Option<Result<Self::Response, AppError>> {
        None
    }
}

/// Every way operation `O` can fail, each code once, in order: its own
/// failures, a request the transport cannot read, and (when it needs the
/// index) an index that is not open yet.
pub fn failures<O: Operation>() -> Vec<ErrorCode> {
    let mut codes: Vec<ErrorCode> = O::FAILS.to_vec();
    let malformed = match O::ROUTE.method {
        Method::Get => vec![ErrorCode::BadRequest],
        Method::Post => vec![
            ErrorCode::BadRequest,
            ErrorCode::PayloadTooLarge,
            ErrorCode::Unprocessable,
        ],
    };
    codes.extend(malformed);
    if O::NEEDS != Needs::Files {
        codes.push(ErrorCode::Unavailable);
    }
    if O::ROUTE.deadline {
        codes.push(ErrorCode::Timeout);
    }
    codes.sort_by_key(|c| c.http_status());
    codes.dedup();
    codes
}
