//! A `kill -9` in the middle of an import loses nothing: after the next
//! import the store equals a clean import, id for id, and `mindnet check`
//! finds no problem.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The vendored HotpotQA vault: 992 notes, enough to kill an import mid-way.
fn hotpotqa() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/hotpotqa-100/vault")
}

fn copy_vault(to: &Path) {
    common::copy_dir(&hotpotqa(), to);
}

fn import(vault: &Path) {
    let out = common::mindnet(&["import", vault.to_str().unwrap(), "--embedder", "use-m3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn sigkill_mid_import_then_reimport_equals_a_clean_import() {
    let killed = tempfile::tempdir().unwrap();
    copy_vault(killed.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args([
            "import",
            killed.path().to_str().unwrap(),
            "--embedder",
            "use-m3",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill while a batch is in flight, after at least one batch committed.
    let journal = killed.path().join(".mindnet/pending.json");
    let started = Instant::now();
    let mut batches_seen = 0;
    let mut was_pending = false;
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the import never reached a second batch"
        );
        if child.try_wait().unwrap().is_some() {
            panic!("the import finished before it could be killed");
        }
        let pending = journal.exists();
        if pending && !was_pending {
            batches_seen += 1;
        }
        was_pending = pending;
        if pending && batches_seen >= 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();

    import(killed.path());
    let clean = tempfile::tempdir().unwrap();
    copy_vault(clean.path());
    import(clean.path());

    let (a, b) = (
        common::ids(&killed.path().join(".mindnet")),
        common::ids(&clean.path().join(".mindnet")),
    );
    for (i, name) in ["notes", "chunks", "edges"].iter().enumerate() {
        assert!(!b[i].is_empty());
        assert_eq!(a[i], b[i], "{name} differ after the crash");
    }
    let out = common::mindnet(&["check", killed.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
