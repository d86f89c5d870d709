//! Files that a crash must leave whole: the write journal, the import
//! manifest, the smart-edge cache and the server's owner record.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` so that a crash leaves either the old file or
/// the new one, never a cut one: a temporary file beside it, synced, renamed
/// over it, and the folder synced. (A kill between creating and writing the
/// write journal once left it empty, and the next import had to refuse it.)
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        sync_folder(dir);
    }
    Ok(())
}

/// Why `replace_if_unchanged` did not replace a file.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    /// The file's bytes are no longer the ones the change was made from.
    #[error("{}: changed since it was read; not written", .path.display())]
    Changed { path: PathBuf, now: Vec<u8> },
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Replaces a note's bytes `old` by `new` unless someone (an editor, the
/// user) changed the file since `old` was read: the new bytes are written
/// and synced beside it first, the file is read again, and only if it
/// still holds `old` is the new one renamed over it. The window left is
/// the rename itself. `old` empty and no file: a new file (never over one
/// that appeared meanwhile).
pub fn replace_if_unchanged(path: &Path, old: &[u8], new: &[u8]) -> Result<(), ReplaceError> {
    let io = |source| ReplaceError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".mindnet-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(new).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    let now = match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    match now {
        Some(now) if now != old => {
            return Err(ReplaceError::Changed {
                path: path.to_path_buf(),
                now,
            });
        }
        Some(_) => tmp.persist(path).map_err(|e| io(e.error))?,
        None => tmp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                let now = std::fs::read(path).unwrap_or_default();
                ReplaceError::Changed {
                    path: path.to_path_buf(),
                    now,
                }
            } else {
                io(e.error)
            }
        })?,
    };
    sync_folder(dir);
    Ok(())
}

/// Makes a rename in `dir` durable; where a folder cannot be opened for
/// syncing (some file systems), the rename stands.
pub fn sync_folder(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("journal.json");
        write_atomically(&p, b"old").unwrap();
        write_atomically(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_file_changed_meanwhile_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("n.md");
        std::fs::write(&p, "a").unwrap();
        replace_if_unchanged(&p, b"a", b"b").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"b");
        let e = replace_if_unchanged(&p, b"a", b"c").unwrap_err();
        assert!(matches!(e, ReplaceError::Changed { ref now, .. } if now == b"b"));
        assert_eq!(std::fs::read(&p).unwrap(), b"b");
        let q = dir.path().join("new.md");
        replace_if_unchanged(&q, b"", b"x").unwrap();
        assert!(replace_if_unchanged(&q, b"", b"y").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
