//! The application layer: every transport (CLI, HTTP, MCP, UI) is a thin
//! shell over this crate.
//!
//! - `Settings` settles every default and environment variable once.
//! - `Workspace` owns one open index (store, embedder, configuration) and
//!   what the operations share: the read lock, checked queries, the sync,
//!   the chat. Reads run from many threads while a sync writes (see
//!   `workspace.rs` for the invariants).
//! - `ops/` holds the operations, one file each; `operation.rs` what an
//!   operation declares; `service.rs` the `Service` every transport calls
//!   (`Workspace` and `Local` here, the HTTP client there).
//! - `import`, `evaluate` and `tune` are the jobs that open an index only
//!   for their own run.
//! - `api` holds the types several operations share, converted from the
//!   internal ones at this boundary.

pub mod api;
pub mod changes;
mod chat;
mod draft;
mod error;
pub mod eval;
pub mod eval_router;
mod fields;
mod find;
mod import;
pub mod memory;
pub mod migrate;
pub mod models;
mod move_journal;
mod open;
pub mod operation;
pub mod ops;
mod sections;
pub mod service;
pub mod settings;
pub mod tune;
mod workspace;
mod writes;

pub use draft::slugify;
pub use error::{AppError, ErrorBody, ErrorCode};
pub use import::{ImportOutcome, import, plan};
pub use mindnet_core::Warning;
pub use mindnet_index::Progress;
/// A path below the vault as the vault names it (`/`-separated).
pub use mindnet_ingest::scan::rel_path as vault_path;
/// The dry run's plan, printed as the records the index would hold.
pub use mindnet_ingest::{ImportPlan, Skipped};
pub use mindnet_store::CheckReport;
pub use open::check;
pub use operation::Operation;
pub use service::Service;
pub use settings::{ConfigFiles, LlmSetting, ServeInput, ServeSettings, Settings, SettingsInput};
pub use workspace::{OpenMode, Workspace};
