//! The request and response types of every operation: what the HTTP API,
//! the MCP server, the web UI and the CLI see. They are our own types, not
//! the internal ones: each is converted by exhaustive destructuring
//! (`conversions.rs`), so a field added inside cannot leak out unnoticed,
//! and the compiler points at this boundary when an internal type changes.

mod chat;
mod conversions;
mod lint;
mod notes;
mod query;
mod status;

pub use chat::*;
pub use lint::*;
pub use notes::*;
pub use query::*;
pub use status::*;
