//! `mindnet serve`: one warm process that owns an index. The HTTP API is a
//! thin shell over `mindnet_app::Workspace`: every handler parses, calls
//! one operation on a blocking thread, and answers JSON.
//!
//! - `routes.rs`: the endpoints; every operation of the table has one
//!   generic handler. `openapi.rs`: the OpenAPI document, derived from the
//!   table. `paths.rs`: the paths outside the table.
//! - `guard.rs`: what a request must satisfy before a handler sees it
//!   (Host, Origin, token, body size, time).
//! - `/mcp`: the MCP server of `mindnet-mcp` over streamable HTTP, behind
//!   the same guard; `mcp_stdio` runs it over stdio with this server beside
//!   it on a loopback port.
//! - `watch.rs`: re-imports changed notes while the server runs.
//! - `owner.rs`: the record in the data dir that tells other processes
//!   which server owns the index; `client.rs`: how they talk to it.

pub mod client;
mod guard;
mod openapi;
pub mod owner;
pub mod paths;
mod routes;
mod serve;
mod ui;
mod watch;

pub use client::Client;
pub use openapi::openapi_json;
pub use serve::{ServeError, mcp_stdio, router_over, serve};
