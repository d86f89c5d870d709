//! The journal of a move: what a move will write, on disk before it writes
//! anything, so that a kill in the middle (the note at both places, half of
//! the linking notes rewritten) is finished at the next start instead of
//! leaving links that point nowhere.
//!
//! Invariant: while `<data>/move-journal.json` exists, every file it names
//! holds either its old bytes (by version) or its new ones; finishing
//! writes the new ones, removes the old place of the note, then the
//! journal. A file the user changed meanwhile is left as the user left it
//! and reported.

use crate::AppError;
use crate::writes::replace;
use mindnet_ingest::note_bytes::version_of;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const FILE: &str = "move-journal.json";

/// One file a move rewrites.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct JournalFile {
    /// Vault-relative.
    pub path: String,
    /// The version of the bytes the change was made from ("" for the
    /// note's new place, which does not exist yet).
    pub old: String,
    /// The new bytes (always UTF-8: the text in its file's encoding).
    pub new: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct MoveJournal {
    /// The note's place before and after, vault-relative.
    pub from: String,
    pub to: String,
    /// The moved note at its new place first, then the linking notes.
    pub files: Vec<JournalFile>,
}

pub(crate) fn path(data: &Path) -> PathBuf {
    data.join(FILE)
}

impl MoveJournal {
    pub fn write(&self, data: &Path) -> Result<(), AppError> {
        let bytes = serde_json::to_vec(self).map_err(|e| AppError::internal(e.to_string()))?;
        std::fs::create_dir_all(data)
            .and_then(|()| mindnet_core::file::write_atomically(&path(data), &bytes))
            .map_err(|e| AppError::internal(format!("{}: {e}", path(data).display())))
    }

    /// Writes every file still at its old version, then removes the note's
    /// old place; answers the files left alone because they changed.
    pub fn finish(&self, vault: &Path) -> Vec<String> {
        let mut left = Vec::new();
        for f in &self.files {
            let file = vault.join(&f.path);
            let now = std::fs::read(&file).ok();
            let now_version = now.as_deref().map(version_of).unwrap_or_default();
            if now.as_deref() == Some(f.new.as_bytes()) {
                continue;
            }
            if now_version != f.old {
                left.push(f.path.clone());
                continue;
            }
            if let Some(dir) = file.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let old = now.unwrap_or_default();
            if let Err(e) = replace(&file, &f.path, &old, f.new.as_bytes()) {
                tracing::warn!("finishing the move of {}: {}", self.from, e.message);
                left.push(f.path.clone());
            }
        }
        let moved = self.files.first().map(|f| vault.join(&f.path));
        if moved.is_some_and(|m| m.is_file()) {
            let from = vault.join(&self.from);
            if from.is_file()
                && std::fs::remove_file(&from).is_ok()
                && let Some(dir) = from.parent()
            {
                mindnet_core::file::sync_folder(dir);
            }
        }
        left
    }
}

/// Finishes a move a kill interrupted, if there is one; answers what it did,
/// for the log, and the paths to sync.
pub(crate) fn finish_interrupted(vault: &Path, data: &Path) -> Option<(String, Vec<String>)> {
    let p = path(data);
    let bytes = std::fs::read(&p).ok()?;
    let Ok(journal) = serde_json::from_slice::<MoveJournal>(&bytes) else {
        tracing::warn!("{}: not a move journal; left in place", p.display());
        return None;
    };
    let left = journal.finish(vault);
    let _ = std::fs::remove_file(&p);
    let mut say = format!(
        "finished the interrupted move of {} to {} ({} files)",
        journal.from,
        journal.to,
        journal.files.len()
    );
    if !left.is_empty() {
        say += &format!("; changed meanwhile, not rewritten: {}", left.join(", "));
    }
    let mut paths: Vec<String> = journal.files.into_iter().map(|f| f.path).collect();
    paths.push(journal.from);
    Some((say, paths))
}
