//! The application layer: every transport (CLI, HTTP, MCP, UI) is a thin
//! shell over this crate.
//!
//! - `Settings` settles every default and environment variable once.
//! - `Workspace` owns one open index (store, embedder, configuration) and
//!   offers the typed operations: sync, query, ask, feedback, note,
//!   read_note, recent_changes, neighbors, chain, status, analyze, save,
//!   chat. Reads run from many threads
//!   while a sync writes (see `workspace.rs` for the invariants).
//! - `import`, `evaluate`, `lint` and `chain_from_files` are the operations
//!   that need no open index (or open one only for their own run).
//! - `api` holds the request and response types, converted from the
//!   internal ones at this boundary.

pub mod api;
mod chat;
mod draft;
mod error;
pub mod eval;
pub mod eval_router;
mod graph;
mod import;
mod lint;
pub mod migrate;
mod open;
mod read;
pub mod settings;
pub mod tune;
mod workspace;

pub use draft::slugify;
pub use error::{AppError, ErrorBody, ErrorCode};
pub use graph::chain_from_files;
pub use import::{ImportOutcome, import, plan};
pub use lint::{fix, lint};
pub use mindnet_index::Progress;
/// A path below the vault as the vault names it (`/`-separated).
pub use mindnet_ingest::scan::rel_path as vault_path;
pub use mindnet_store::CheckReport;
pub use open::check;
pub use settings::{ConfigFiles, LlmSetting, ServeInput, ServeSettings, Settings, SettingsInput};
pub use workspace::{OpenMode, Workspace, feedback};

/// Now, as RFC 3339 (UTC): the timestamps of logs, records and reports.
pub fn timestamp() -> String {
    mindnet_store::meta_now()
}
