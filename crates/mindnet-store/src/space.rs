//! Free space under an embedded index. Qdrant Edge writes through memory
//! maps, and on a full disk a store into a mapped page is a SIGBUS, not an
//! error: the process dies without a word. So every batch first checks that
//! the disk has room to spare, and a SIGBUS that slips past the check
//! (another program filled the disk meanwhile) ends the process with one
//! line that names the index. Either way the journal (STO-3) makes the next
//! import complete what was cut off.

use crate::StoreError;
use crate::meta::io;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Qdrant grows its files in steps of up to 32 MB (the chunks of its mapped
/// vector and payload storage), so with less than two such steps free the
/// next write can fail whatever the size of the batch.
pub const MIN_FREE: u64 = 64 * 1024 * 1024;

/// What writing one batch may take on disk: its payloads and vectors, with
/// room for the WAL, which holds each of them once more.
pub fn batch_bytes(texts: usize, chunks: usize, dim: usize, edges: usize) -> u64 {
    let chunk = (dim * 4 + 512) as u64;
    3 * (texts as u64 + chunks as u64 * chunk + edges as u64 * 400)
}

/// Fails with `StoreError::DiskFull` unless `dir`'s file system has
/// `MIN_FREE` and `need` bytes free.
pub fn ensure_room(dir: &Path, need: u64, doing: &'static str) -> Result<(), StoreError> {
    let free = fs4::available_space(dir).map_err(|e| io(dir, e))?;
    let need = need.saturating_add(MIN_FREE);
    if free < need {
        return Err(StoreError::DiskFull {
            path: dir.to_path_buf(),
            doing,
            free_mb: free / (1024 * 1024),
            need_mb: need.div_ceil(1024 * 1024),
        });
    }
    Ok(())
}

/// The bytes the files under `dir` occupy on disk (not their length: Qdrant's
/// files are sparse until written).
pub fn used_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => used_bytes(&e.path()),
            Ok(m) => m.blocks() * 512,
            Err(_) => 0,
        })
        .sum()
}

/// The line a SIGBUS prints: set by the last store opened for writing.
static SIGBUS_LINE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static SIGBUS_LEN: AtomicUsize = AtomicUsize::new(0);

/// The exit status after a SIGBUS: EX_IOERR of sysexits.h.
pub const SIGBUS_EXIT: i32 = 74;

/// Makes a SIGBUS end the process with a line naming `dir` instead of a bare
/// "Bus error".
pub fn explain_sigbus(dir: &Path) {
    let line = format!(
        "mindnet: error: writing the index in {} failed: a memory-mapped write was refused, most often because its disk is full. What was cut off is completed by the next import; free space on that disk and import again.\n",
        dir.display()
    );
    // Leaked on purpose: the handler may read it at any moment, and a store
    // is opened a handful of times per process.
    let line: &'static mut [u8] = Box::leak(line.into_bytes().into_boxed_slice());
    SIGBUS_LEN.store(0, Ordering::SeqCst);
    SIGBUS_LINE.store(line.as_mut_ptr(), Ordering::SeqCst);
    SIGBUS_LEN.store(line.len(), Ordering::SeqCst);
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(install);
}

extern "C" fn on_sigbus(_: libc::c_int) {
    let ptr = SIGBUS_LINE.load(Ordering::SeqCst);
    let len = SIGBUS_LEN.load(Ordering::SeqCst);
    // SAFETY: `ptr` is null or a leaked, never freed buffer of at least `len`
    // bytes; write(2) and _exit(2) are async-signal-safe.
    unsafe {
        if !ptr.is_null() {
            libc::write(2, ptr as *const libc::c_void, len);
        }
        libc::_exit(SIGBUS_EXIT);
    }
}

fn install() {
    // SAFETY: a plain handler that only calls async-signal-safe functions,
    // installed once; the sigaction struct is fully initialised.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) != 0 {
            tracing::warn!(
                "cannot install the SIGBUS handler: a full disk ends mindnet unexplained"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_need_beyond_the_free_space_names_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let free = fs4::available_space(dir.path()).unwrap();
        let err = ensure_room(dir.path(), free, "writing a batch").unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&dir.path().display().to_string()), "{text}");
        assert!(text.contains("writing a batch"), "{text}");
        ensure_room(dir.path(), 0, "writing a batch").unwrap();
    }

    #[test]
    fn used_bytes_counts_written_blocks_not_length() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("sparse")).unwrap();
        f.set_len(100 * 1024 * 1024).unwrap();
        std::fs::write(dir.path().join("full"), vec![1u8; 64 * 1024]).unwrap();
        let used = used_bytes(dir.path());
        assert!((64 * 1024..1024 * 1024).contains(&used), "{used}");
    }
}
