//! Files that a crash must leave whole: the write journal, the import
//! manifest, the smart-edge cache and the server's owner record.

use std::io::Write;
use std::path::Path;

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
        // The rename is durable once the folder is; where a folder cannot
        // be opened for syncing (some file systems), the rename stands.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
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
}
