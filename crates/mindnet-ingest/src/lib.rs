//! From a vault folder to `NoteBundle`s: scan → read → parse → chunk → derive.
//! Nothing here touches a store or a model; `plan::plan_vault` is the entry point.

pub mod chunk;
pub mod derive;
mod flat_yaml;
pub mod frontmatter;
pub mod lines;
pub mod mentions;
pub mod names;
pub mod note_bytes;
pub mod parse;
pub mod plan;
pub mod relink;
pub mod resolve;
pub mod scan;
pub mod source;
pub mod spans;
pub mod wikilink;

pub use plan::{Config, ImportOptions, ImportPlan, Skipped, plan_vault};

use std::path::PathBuf;

/// Errors that stop an import as a whole. Problems with single notes are
/// `Warning`s instead, and the import goes on.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{path}: cannot open the vault")]
    Vault {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}: not a folder; give the vault's root folder")]
    NotADirectory(PathBuf),
}
