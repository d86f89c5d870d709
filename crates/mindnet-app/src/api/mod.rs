//! The types several operations share (a query's answer, a note, a sync's
//! summary, languages and modes): what the HTTP API, the MCP server, the
//! web UI and the CLI see. Each operation's own request and response are
//! in its file under `ops/`. They are our own types, not
//! the internal ones: each is converted by exhaustive destructuring
//! (`conversions.rs`), so a field added inside cannot leak out unnoticed,
//! and the compiler points at this boundary when an internal type changes.

mod chat;
mod conversions;
mod notes;
mod query;
mod status;

pub use chat::*;
pub use notes::*;
pub use query::*;
pub use status::*;
