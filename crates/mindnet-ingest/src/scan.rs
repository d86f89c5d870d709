//! Finding the vault's notes (IMP-1): every `.md` file below the root, except
//! hidden folders (`.obsidian/`, `.trash/`, `.mindnet/`, …), paths matched by a
//! `.mindnetignore` file (gitignore syntax), and anything a symlink leads to
//! outside the vault. Symlink loops are reported, not followed.

use crate::IngestError;
use ignore::WalkBuilder;
use mindnet_core::Warning;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const IGNORE_FILE: &str = ".mindnetignore";

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceFile {
    /// Vault-relative, `/`-separated: the note's identity.
    pub rel_path: String,
    pub abs_path: PathBuf,
}

#[derive(Debug, Default)]
pub struct Scan {
    /// Sorted by `rel_path`.
    pub files: Vec<SourceFile>,
    pub warnings: Vec<Warning>,
}

pub fn scan_vault(root: &Path) -> Result<Scan, IngestError> {
    let meta = std::fs::metadata(root).map_err(|source| IngestError::Vault {
        path: root.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(IngestError::NotADirectory(root.to_path_buf()));
    }
    let canonical_root = root.canonicalize().map_err(|source| IngestError::Vault {
        path: root.to_path_buf(),
        source,
    })?;
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let filter_warnings = Arc::clone(&warnings);
    let filter_root = root.to_path_buf();
    let walker = WalkBuilder::new(root)
        .hidden(true)
        .parents(false)
        .ignore(false)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .add_custom_ignore_filename(IGNORE_FILE)
        .follow_links(true)
        .filter_entry(move |entry| {
            if !entry.path_is_symlink() {
                return true;
            }
            let inside = entry
                .path()
                .canonicalize()
                .is_ok_and(|target| target.starts_with(&canonical_root));
            if !inside && let Ok(mut w) = filter_warnings.lock() {
                w.push(Warning::new(
                    rel_path(&filter_root, entry.path()),
                    1,
                    "symlink points outside the vault (or nowhere); skipped",
                ));
            }
            inside
        })
        .build();

    let mut files = Vec::new();
    let mut found = Vec::new();
    for result in walker {
        match result {
            Ok(entry) => {
                let is_md = entry.file_type().is_some_and(|t| t.is_file())
                    && entry
                        .path()
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
                if is_md {
                    files.push(SourceFile {
                        rel_path: rel_path(root, entry.path()),
                        abs_path: entry.into_path(),
                    });
                }
            }
            Err(err) => found.push(walk_warning(root, &err)),
        }
    }
    files.sort();
    files.dedup_by(|a, b| a.rel_path == b.rel_path);
    let mut warnings = std::mem::take(&mut *warnings.lock().unwrap_or_else(|e| e.into_inner()));
    warnings.extend(found);
    warnings.sort();
    Ok(Scan { files, warnings })
}

/// The path below `root` as the vault names it: components joined by `/`.
pub fn rel_path(root: &Path, path: &Path) -> String {
    let r = path.strip_prefix(root).unwrap_or(path);
    r.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn walk_warning(root: &Path, err: &ignore::Error) -> Warning {
    fn inner(root: &Path, err: &ignore::Error, path: Option<&Path>) -> Warning {
        match err {
            ignore::Error::WithPath { path, err } => inner(root, err, Some(path)),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                inner(root, err, path)
            }
            ignore::Error::Loop { child, .. } => Warning::new(
                rel_path(root, child),
                1,
                "symlink loop (a link back to a folder above it); not followed",
            ),
            other => Warning::new(
                path.map_or_else(|| ".".to_string(), |p| rel_path(root, p)),
                1,
                format!("cannot read: {other}"),
            ),
        }
    }
    inner(root, err, None)
}
