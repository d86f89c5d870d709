//! A `kill -9` in the middle of an import loses nothing: after the next
//! import the store equals a clean import, id for id, and `mindnet check`
//! finds no problem. A `kill -9` in the middle of a move leaves no link
//! pointing nowhere: the next start finishes the move from its journal.

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

/// A note linked from 1,500 notes is moved and the process killed while it
/// rewrites them (some rewritten, some not, the note perhaps at both
/// places). The next start finishes the move: every link names the new
/// place, the old file is gone, and the index knows it.
#[test]
fn sigkill_mid_move_is_finished_at_the_next_start() {
    const LINKING: usize = 1500;
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path();
    std::fs::write(vault.join("Ziel.md"), "# Ziel\n\nDas Ziel.\n").unwrap();
    std::fs::create_dir(vault.join("q")).unwrap();
    for i in 0..LINKING {
        let text = format!("Notiz {i} verweist auf [[Ziel]] und auf [[Ziel#Ziel|das Ziel]].\n");
        std::fs::write(vault.join(format!("q/n{i}.md")), text).unwrap();
    }
    let out = common::mindnet(&["import", vault.to_str().unwrap(), "--embedder", "words:64"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let journal = vault.join(".mindnet/move-journal.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args([
            "move-note",
            "Ziel",
            "neu/Ziel neu",
            "--vault",
            vault.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while !journal.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the move ended before its journal showed"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    child.kill().unwrap();
    child.wait().unwrap();
    let rewritten = (0..LINKING)
        .filter(|i| {
            std::fs::read_to_string(vault.join(format!("q/n{i}.md")))
                .unwrap()
                .contains("[[Ziel neu]]")
        })
        .count();
    assert!(
        journal.exists(),
        "killed after the move finished: nothing tested"
    );
    assert!(
        rewritten < LINKING,
        "every file was rewritten before the kill"
    );
    eprintln!("killed with {rewritten} of {LINKING} notes rewritten");
    // Any command that opens the index finishes the move first.
    let out = common::mindnet(&[
        "read-note",
        "Ziel neu",
        "--vault",
        vault.to_str().unwrap(),
        "--json",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("finished the interrupted move of Ziel.md to neu/Ziel neu.md"),
        "{said}"
    );
    assert!(!journal.exists());
    assert!(!vault.join("Ziel.md").exists());
    assert!(vault.join("neu/Ziel neu.md").is_file());
    for i in 0..LINKING {
        let text = std::fs::read_to_string(vault.join(format!("q/n{i}.md"))).unwrap();
        assert_eq!(
            text,
            format!("Notiz {i} verweist auf [[Ziel neu]] und auf [[Ziel neu#Ziel|das Ziel]].\n")
        );
    }
    let lint = common::mindnet(&["lint", vault.to_str().unwrap(), "--json"]);
    let findings: serde_json::Value = serde_json::from_slice(&lint.stdout).unwrap();
    let dangling = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "link/missing-target")
        .count();
    assert_eq!(dangling, 0, "a link points nowhere");
    let note: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        note["path"], "neu/Ziel neu.md",
        "the index knows the new place"
    );
}
