//! The notes' parsed text, remembered between lints in one process: a
//! server lints the note being written on every save, and reading and
//! parsing every note is most of a lint of a large vault.
//!
//! Invariant: a file is read again when its length, modification time,
//! change time or inode differ from when it was read (a write through
//! mindnet replaces the file, which changes all of them; an editor's save
//! changes the times). The stamp is taken before the read, so a file that
//! changes during the read is read again next time; and a file changed
//! less than `SETTLED` before it was read is read again too, since a
//! second write within the file system's clock tick can leave every part
//! of the stamp as it was (git's "racy clean" files). Only the last vault
//! (and note size limit) linted is kept, and only its files that still
//! exist.

use mindnet_core::Warning;
use mindnet_ingest::names::{LangVotes, lang_votes};
use mindnet_ingest::parse::{ParsedNote, parse};
use mindnet_ingest::scan::SourceFile;
use mindnet_ingest::source::read_source;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

/// What reading a note gives, before the configuration types it.
pub(crate) struct Parsed {
    pub text: Arc<str>,
    pub parsed: Arc<ParsedNote>,
    pub votes: LangVotes,
}

#[derive(Debug, Clone, Copy)]
struct Stamp {
    /// Changed `SETTLED` or longer before it was read.
    settled: bool,
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    changed: (i64, i64),
    #[cfg(unix)]
    inode: u64,
}

impl PartialEq for Stamp {
    /// The same file, unchanged (whether it had settled is not the file's).
    fn eq(&self, other: &Stamp) -> bool {
        #[cfg(unix)]
        let same_inode = self.changed == other.changed && self.inode == other.inode;
        #[cfg(not(unix))]
        let same_inode = true;
        self.len == other.len && self.modified == other.modified && same_inode
    }
}

impl Stamp {
    fn of(path: &Path) -> std::io::Result<Stamp> {
        let m = std::fs::metadata(path)?;
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        let modified = m.modified().ok();
        Ok(Stamp {
            settled: modified
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age >= SETTLED),
            len: m.len(),
            modified,
            #[cfg(unix)]
            changed: (m.ctime(), m.ctime_nsec()),
            #[cfg(unix)]
            inode: m.ino(),
        })
    }
}

struct Remembered {
    root: PathBuf,
    max_bytes: u64,
    files: HashMap<String, (Stamp, Arc<Parsed>)>,
}

static LAST: Mutex<Option<Remembered>> = Mutex::new(None);

/// How long after its last change a file's stamp is trusted to change
/// with its next write.
const SETTLED: Duration = Duration::from_secs(2);

/// Each file read and parsed, or as remembered when it did not change; in
/// the order of `files`.
pub(crate) fn read_all(
    root: &Path,
    files: &[SourceFile],
    max_bytes: u64,
) -> Vec<Result<Arc<Parsed>, Warning>> {
    let known = match LAST.lock().unwrap_or_else(PoisonError::into_inner).take() {
        Some(r) if r.root == root && r.max_bytes == max_bytes => r.files,
        _ => HashMap::new(),
    };
    let read: Vec<Result<(Stamp, Arc<Parsed>), Warning>> = files
        .par_iter()
        .map(|f| read_one(f, max_bytes, &known))
        .collect();
    let files = files
        .iter()
        .zip(&read)
        .filter_map(|(f, r)| Some((f.rel_path.clone(), r.as_ref().ok()?.clone())))
        .collect();
    *LAST.lock().unwrap_or_else(PoisonError::into_inner) = Some(Remembered {
        root: root.to_path_buf(),
        max_bytes,
        files,
    });
    read.into_iter().map(|r| r.map(|(_, p)| p)).collect()
}

fn read_one(
    f: &SourceFile,
    max_bytes: u64,
    known: &HashMap<String, (Stamp, Arc<Parsed>)>,
) -> Result<(Stamp, Arc<Parsed>), Warning> {
    let stamp = Stamp::of(&f.abs_path)
        .map_err(|e| Warning::new(f.rel_path.clone(), 1, format!("cannot read: {e}")))?;
    if let Some((s, p)) = known.get(&f.rel_path)
        && *s == stamp
        && s.settled
    {
        return Ok((stamp, p.clone()));
    }
    let src = read_source(f, max_bytes)?;
    let parsed = Parsed {
        votes: lang_votes(&src.text),
        parsed: Arc::new(parse(&src.text)),
        text: src.text.into(),
    };
    Ok((stamp, Arc::new(parsed)))
}
