//! Issue 3 acceptance: real imports into the embedded Qdrant store with the
//! real use-m3 model (fetched into the model cache on first use).

mod common;

use common::{demo_vault, mindnet};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let dst = to.join(p.file_name().unwrap());
        if p.is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
            copy_dir(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}

fn run_ok(args: &[&str]) -> Output {
    let out = mindnet(args);
    assert!(
        out.status.success(),
        "mindnet {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn import(vault: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "import",
        vault.to_str().unwrap(),
        "--embedder",
        "use-m3",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = run_ok(&args);
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

fn check(vault: &Path) -> Value {
    let out = run_ok(&["check", vault.to_str().unwrap(), "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Counts, model and dimension of the vault's index.
fn status(vault: &Path) -> Value {
    let out = run_ok(&["status", vault.to_str().unwrap(), "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn import_is_incremental_and_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    copy_dir(&demo_vault(), v);

    let first = import(v, &[]);
    assert_eq!(first["new"], 47);
    assert_eq!(first["embedded_chunks"], first["chunks"]);
    let before = status(v);
    assert_eq!(before["model"], "use-m3");
    assert_eq!(before["dim"], 512);
    assert_eq!(
        check(v)["problems"].as_array().unwrap().len(),
        0,
        "{}",
        check(v)
    );

    // Again: nothing changes.
    let second = import(v, &[]);
    assert_eq!(second["changed"], 0);
    assert_eq!(second["new"], 0);
    assert_eq!(second["relinked"], 0);
    assert_eq!(second["unchanged"], 47);
    assert_eq!(second["embedded_chunks"], 0);
    let after = status(v);
    for k in ["notes", "chunks", "edges"] {
        assert_eq!(before[k], after[k], "{k}");
    }

    // Edit one note: only it is re-embedded.
    let note = v.join("Werte/Neugier.md");
    let text = std::fs::read_to_string(&note).unwrap()
        + "\nNeugier heißt auch: Fragen stellen, bevor man urteilt.\n";
    std::fs::write(&note, text).unwrap();
    let third = import(v, &[]);
    assert_eq!(third["changed"], 1);
    assert_eq!(third["unchanged"], 46);
    assert_eq!(third["embedded_chunks"], 1);
    assert_eq!(check(v)["problems"].as_array().unwrap().len(), 0);

    // The missing note appears: the edges pointing at it become resolved,
    // and only the linking note is rewritten (relinked, no embedding).
    let unresolved_before = third["unresolved"].as_u64().unwrap();
    assert!(unresolved_before > 0);
    std::fs::write(
        v.join("Gespräch mit Mentorin 2025.md"),
        "# Gespräch mit Mentorin 2025\n\nSie rät: erst messen, dann bauen.\n",
    )
    .unwrap();
    let fourth = import(v, &[]);
    assert_eq!(fourth["new"], 1);
    assert_eq!(fourth["relinked"], 1, "{fourth}");
    assert_eq!(fourth["unresolved"], 0);

    // Delete it again with --sync-deletes: gone, and the links are unresolved again.
    std::fs::remove_file(v.join("Gespräch mit Mentorin 2025.md")).unwrap();
    let fifth = import(v, &["--sync-deletes"]);
    assert_eq!(fifth["deleted"], 1);
    assert_eq!(fifth["relinked"], 1);
    assert_eq!(fifth["unresolved"], unresolved_before);
    assert_eq!(fifth["notes"], 47);
    assert_eq!(check(v)["problems"].as_array().unwrap().len(), 0);

    // Without --sync-deletes a deleted file's note stays, and links to it still resolve.
    std::fs::remove_file(v.join("Werte/Privatsphäre.md")).unwrap();
    let sixth = import(v, &[]);
    assert_eq!(sixth["deleted"], 0);
    assert_eq!(sixth["notes"], 47);
    assert_eq!(sixth["unresolved"], unresolved_before);
}

#[test]
fn another_embedder_is_refused_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    copy_dir(&demo_vault(), v);
    import(v, &[]);
    let before = std::fs::read(v.join(".mindnet/meta.json")).unwrap();
    let out = mindnet(&["import", v.to_str().unwrap(), "--embedder", "e5-small"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("was built with the embedding model `use-m3`, not `e5-small`"),
        "{err}"
    );
    assert_eq!(std::fs::read(v.join(".mindnet/meta.json")).unwrap(), before);
    // The stored model is the default afterwards: no flag needed.
    let out = run_ok(&["import", v.to_str().unwrap(), "--json"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["unchanged"], 47);
}
