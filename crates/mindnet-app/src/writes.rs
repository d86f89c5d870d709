//! How every operation that changes an existing note writes it (`edit_note`,
//! `move_note`, `delete_note`, `save` over a file).
//!
//! Invariants, for every transport:
//! - Only files inside the vault: the note's folder, symlinks followed, is
//!   below the vault's real path.
//! - A change is made to the text the parser reads and goes back in the
//!   file's own encoding (BOM, CRLF); a file that cannot round-trip
//!   (invalid UTF-8, mixed line ends) is refused, never rewritten.
//! - Optimistic concurrency: a request may name the `version` it was made
//!   from (what `read_note` answered); a file that changed since is refused
//!   with a conflict that carries the current version. Without a `version`
//!   the change is still made only to the bytes just read: an edit in
//!   Obsidian between the read and the write is never overwritten.
//! - The file is replaced atomically (`mindnet_core::file`), so a kill
//!   leaves it old or new, and the index is synced before the answer.

use crate::ops::lint::{Finding, LintRequest, Severity, lint};
use crate::{AppError, Settings};
use mindnet_core::file::{ReplaceError, replace_if_unchanged};
use mindnet_ingest::note_bytes::{NoteBytes, version_of};
use std::path::{Path, PathBuf};

/// A note's file, read for a change.
pub(crate) struct Current {
    /// Vault-relative.
    pub rel: String,
    pub file: PathBuf,
    pub note: NoteBytes,
}

/// The bytes of the note at `rel`: inside the vault, and at `expected` (a
/// version) when one is given. What a write that replaces or removes the
/// whole file needs; one that changes part of it needs `read_for_change`.
pub(crate) fn current_bytes(
    vault: &Path,
    rel: &str,
    expected: Option<&str>,
) -> Result<(PathBuf, Vec<u8>), AppError> {
    let file = checked_file(vault, rel)?;
    let bytes = std::fs::read(&file)
        .map_err(|e| AppError::not_found(format!("{rel}: cannot read it: {e}")))?;
    if let Some(v) = expected
        && version_of(&bytes) != v.trim()
    {
        return Err(conflict(rel, &bytes));
    }
    Ok((file, bytes))
}

/// Reads the note at `rel` for a change: inside the vault, editable, and
/// at `expected` (a version) when one is given.
pub(crate) fn read_for_change(
    vault: &Path,
    rel: &str,
    expected: Option<&str>,
) -> Result<Current, AppError> {
    let (file, bytes) = current_bytes(vault, rel, expected)?;
    let note = NoteBytes::new(bytes)
        .map_err(|e| AppError::unprocessable(format!("{rel}: not changed: {e}")))?;
    Ok(Current {
        rel: rel.to_string(),
        file,
        note,
    })
}

/// Writes `text` over the file in its encoding, unless the file changed
/// since it was read; answers the new version.
pub(crate) fn write_back(cur: &Current, text: &str) -> Result<String, AppError> {
    let new = cur.note.encode(text);
    replace(&cur.file, &cur.rel, &cur.note.bytes, &new)?;
    Ok(version_of(&new))
}

/// `replace_if_unchanged` with its errors as the operations report them.
pub(crate) fn replace(file: &Path, rel: &str, old: &[u8], new: &[u8]) -> Result<(), AppError> {
    replace_if_unchanged(file, old, new).map_err(|e| match e {
        ReplaceError::Changed { now, .. } => conflict(rel, &now),
        ReplaceError::Io { source, .. } => {
            AppError::internal(format!("{rel}: cannot write it: {source}"))
        }
    })
}

/// The conflict of a stale write: the file as it is now is named by its
/// version, so the client can read it again and redo its change.
pub(crate) fn conflict(rel: &str, now: &[u8]) -> AppError {
    let version = version_of(now);
    AppError::conflict(format!(
        "{rel}: changed since that version (now {version}); read it again and redo the change"
    ))
    .with_version(version)
}

/// The file of a vault-relative path, if its folder (symlinks followed) is
/// inside the vault and it is a plain file.
pub(crate) fn checked_file(vault: &Path, rel: &str) -> Result<PathBuf, AppError> {
    let file = vault.join(rel);
    let outside = || AppError::unprocessable(format!("{rel}: not a file inside the vault"));
    let root = vault.canonicalize().map_err(|_| outside())?;
    let folder = file
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .ok_or_else(outside)?;
    let meta = std::fs::symlink_metadata(&file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => AppError::not_found(format!(
            "{rel}: the file is gone (the index is behind the vault; the next sync removes it)"
        )),
        _ => outside(),
    })?;
    if !folder.starts_with(&root) || !meta.is_file() {
        return Err(outside());
    }
    Ok(file)
}

/// What the linter says about the notes a write touched (unlinked
/// mentions left out: they are suggestions, not problems the write made),
/// so an assistant can mend its links in its next call.
pub(crate) fn findings_for(settings: &Settings, paths: &[String]) -> Vec<Finding> {
    let report = match lint(settings, &LintRequest::default()) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!("lint after a write failed: {e}");
            return Vec::new();
        }
    };
    report
        .findings
        .into_iter()
        .filter(|f| paths.contains(&f.path))
        .filter(|f| f.rule != "link/unlinked-mention" || f.severity > Severity::Recommendation)
        .collect()
}
