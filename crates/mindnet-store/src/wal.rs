//! Qdrant Edge 0.7's write-ahead logs, kept small.
//!
//! Edge 0.7 writes every update to a shard's log and never truncates it
//! (0.8 acknowledges what a flush made durable; 0.9 needs a newer Rust than
//! ours). It never replays it on load either: our journal (`commit.rs`)
//! covers crashes, and a batch is flushed to the segments when it commits.
//! Left alone, the logs held 200 MB after a 10k-note import, grew by as much
//! with every full re-import, and were read whole, into the process's
//! memory, each time a shard opened (a query on the 10k index: 787 MB peak
//! with them, 631 MB without).
//!
//! The log matters for one thing: its numbering. Segments skip an update
//! numbered below their version, so a log must go on counting where it
//! stopped. A closed log file is named after its first entry's number, and
//! the open one continues from the last closed one; so the newest closed
//! file is kept and every older one can go.

use std::path::{Path, PathBuf};

const DIR: &str = "wal";
const CLOSED: &str = "closed-";

/// A shard's closed log files, oldest first.
fn closed_files(shard: &Path) -> Vec<(u64, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(shard.join(DIR)) else {
        return Vec::new();
    };
    let mut files: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let start = name.to_str()?.strip_prefix(CLOSED)?.parse().ok()?;
            Some((start, e.path()))
        })
        .collect();
    files.sort();
    files
}

/// Deletes a shard's closed log files but the newest, before the shard is
/// opened. A file that cannot be deleted stays, and is read as before.
pub(crate) fn trim(shard: &Path) {
    let files = closed_files(shard);
    let Some((_, old)) = files.split_last() else {
        return;
    };
    let mut freed = 0;
    for (_, path) in old {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        match std::fs::remove_file(path) {
            Ok(()) => freed += len,
            Err(e) => tracing::debug!("{}: {e}", path.display()),
        }
    }
    if freed > 0 {
        tracing::debug!(
            "{}: {} old log files removed ({:.1} MB)",
            shard.display(),
            old.len(),
            freed as f64 / 1e6
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_keeps_the_newest_closed_file_and_the_open_one() {
        let dir = tempfile::tempdir().unwrap();
        let wal = dir.path().join(DIR);
        std::fs::create_dir(&wal).unwrap();
        for name in ["closed-0", "closed-105", "closed-24", "open-3", "open-4"] {
            std::fs::write(wal.join(name), b"x").unwrap();
        }
        trim(dir.path());
        let mut left: Vec<String> = std::fs::read_dir(&wal)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["closed-105", "open-3", "open-4"]);
        // Nothing to do twice, and no log at all is fine.
        trim(dir.path());
        trim(&dir.path().join("missing"));
    }
}
