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
/// user) changed the file since `old` was read. The new bytes are written
/// and synced beside the file; then the two are swapped in one step
/// (`renameat2` with `RENAME_EXCHANGE`), and what was swapped out is
/// checked: if it is not `old`, the swap is undone and the change refused.
/// Nothing that reached the file before the swap is ever lost, and two
/// writers that both save this way never lose each other's change. (Where
/// the file system cannot swap, the file is read again just before a plain
/// rename: the window left is that rename.) `old` empty and no file: a new
/// file (never over one that appeared meanwhile).
pub fn replace_if_unchanged(path: &Path, old: &[u8], new: &[u8]) -> Result<(), ReplaceError> {
    let io = |source| ReplaceError::Io {
        path: path.to_path_buf(),
        source,
    };
    let changed = |now: Vec<u8>| ReplaceError::Changed {
        path: path.to_path_buf(),
        now,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".mindnet-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(new).map_err(io)?;
    // The note keeps its permissions (a temporary file is private); a new
    // note gets a plain file's.
    let permissions = std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions())
        .or_else(plain_permissions);
    if let Some(p) = permissions {
        tmp.as_file().set_permissions(p).map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    let now = match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    match now {
        Some(now) if now != old => return Err(changed(now)),
        Some(_) => match exchange(tmp.path(), path) {
            Ok(true) => {
                let swapped = std::fs::read(tmp.path()).map_err(io)?;
                if swapped != old {
                    exchange(tmp.path(), path).map_err(io)?;
                    return Err(changed(swapped));
                }
            }
            Ok(false) => {
                tmp.persist(path).map_err(|e| io(e.error))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(changed(Vec::new())),
            Err(e) => return Err(io(e)),
        },
        None => {
            tmp.persist_noclobber(path).map_err(|e| {
                if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                    changed(std::fs::read(path).unwrap_or_default())
                } else {
                    io(e.error)
                }
            })?;
        }
    }
    sync_folder(dir);
    Ok(())
}

#[cfg(unix)]
fn plain_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn plain_permissions() -> Option<std::fs::Permissions> {
    None
}

/// Swaps two files in one step; `Ok(false)` where the system or the file
/// system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let c =
        |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: two NUL-terminated paths that live across the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
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

    /// Two writers that save this way, at once, on one file: every save
    /// that was acknowledged is in the file at the end.
    #[test]
    fn concurrent_savers_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("n.md");
        std::fs::write(&p, "").unwrap();
        let save = |tag: &'static str| {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut done = 0;
                while done < 300 {
                    let old = std::fs::read(&p).unwrap();
                    let mut new = old.clone();
                    new.extend_from_slice(format!("{tag}{done}\n").as_bytes());
                    match replace_if_unchanged(&p, &old, &new) {
                        Ok(()) => done += 1,
                        Err(ReplaceError::Changed { .. }) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
            })
        };
        let (a, b) = (save("a"), save("b"));
        a.join().unwrap();
        b.join().unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().count(), 600, "{text}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
