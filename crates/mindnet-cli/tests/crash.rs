//! A `kill -9` in the middle of an import loses nothing: after the next
//! import the store equals a clean import, id for id, and `mindnet check`
//! finds no problem.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

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
    // Kill while a batch is in flight, after at least two committed.
    common::wait_for_batch(&mut child, &killed.path().join(".mindnet"), 3);
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

#[test]
fn a_corrupt_crash_journal_is_a_clear_error_and_nothing_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&common::demo_vault(), dir.path());
    // Files older than the manifest's 2 s of doubt: it trusts them, so the
    // second import would be answered from it, were a journal not left
    // beside it.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    import(dir.path());
    let ids = common::ids(&dir.path().join(".mindnet"));
    // A journal torn by a disk fault: which notes it named is unknown.
    let journal = dir.path().join(".mindnet/pending.json");
    std::fs::write(&journal, "[\"3f2a").unwrap();
    for args in [
        vec!["status", dir.path().to_str().unwrap()],
        vec!["import", dir.path().to_str().unwrap()],
    ] {
        let out = common::mindnet(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{args:?} succeeded: {}{err}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            err.contains("pending.json")
                && err.contains("write journal")
                && err.contains("unreadable"),
            "{args:?}: {err}"
        );
    }
    // Refused, not "recovered" as empty: the journal and every note stay.
    assert!(journal.exists());
    std::fs::remove_file(&journal).unwrap();
    assert_eq!(common::ids(&dir.path().join(".mindnet")), ids);
}
