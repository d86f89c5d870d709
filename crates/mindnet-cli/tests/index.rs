//! Issue 3 acceptance: real imports into the embedded Qdrant store with the
//! real use-m3 model (fetched into the model cache on first use).

mod common;

use common::{copy_dir, demo_vault, mindnet};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

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
    import_verbose(vault, extra).0
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

/// Sets every file's modification time to `age` ago, so that no file is too
/// recent for the manifest to trust.
fn age_files(dir: &Path, age: std::time::Duration) {
    let when = std::time::SystemTime::now() - age;
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            age_files(&p, age);
        } else {
            let f = std::fs::File::options().append(true).open(&p).unwrap();
            f.set_modified(when).unwrap();
        }
    }
}

/// An import with `-v`: its report, and whether the manifest let it skip the index.
fn import_verbose(vault: &Path, extra: &[&str]) -> (Value, bool) {
    let mut args = vec![
        "-v",
        "import",
        vault.to_str().unwrap(),
        "--embedder",
        "use-m3",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = run_ok(&args);
    let skipped =
        String::from_utf8_lossy(&out.stderr).contains("nothing changed since the last import");
    (serde_json::from_slice(&out.stdout).unwrap(), skipped)
}

#[test]
fn the_manifest_skips_an_unchanged_vault_and_sees_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    copy_dir(&demo_vault(), v);
    age_files(v, std::time::Duration::from_secs(3600));
    let first = import(v, &[]);
    assert_eq!(first["new"], 47);

    let (second, skipped) = import_verbose(v, &[]);
    assert!(skipped, "an unchanged vault is answered from the manifest");
    assert_eq!(second["unchanged"], 47);
    assert_eq!(second["new"], 0);
    for k in ["notes", "chunks", "edges", "unresolved"] {
        assert_eq!(first[k], second[k], "{k}");
    }

    // An edit that keeps the size: the time gives it away.
    let note = v.join("Werte/Neugier.md");
    let text = std::fs::read_to_string(&note).unwrap();
    let edited = text.replacen("Neugier", "NEUGIER", 1);
    assert_eq!(edited.len(), text.len());
    std::fs::write(&note, edited).unwrap();
    age_files(v, std::time::Duration::from_secs(1800));
    let (third, skipped) = import_verbose(v, &[]);
    assert!(!skipped);
    assert_eq!(third["changed"], 1);

    // A just-written file is never trusted by its time alone.
    std::fs::write(v.join("Neu.md"), "# Neu\n\nEine neue Notiz.\n").unwrap();
    let (_, skipped) = import_verbose(v, &[]);
    assert!(!skipped);
    let (fifth, skipped) = import_verbose(v, &[]);
    assert!(!skipped, "Neu.md is too recent to trust its time");
    assert_eq!(fifth["unchanged"], 48);

    // Another configuration: every note is checked again.
    age_files(v, std::time::Duration::from_secs(900));
    let types = v.join("types.yaml");
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/types.yaml");
    std::fs::write(
        &types,
        std::fs::read_to_string(builtin).unwrap() + "\n# a comment\n",
    )
    .unwrap();
    let (_, skipped) = import_verbose(v, &[]);
    assert!(!skipped, "new times");
    let (_, skipped) = import_verbose(v, &[]);
    assert!(skipped, "the same times and the same config");
    let (sixth, skipped) = import_verbose(v, &["--types", types.to_str().unwrap()]);
    assert!(!skipped);
    assert_eq!(sixth["unchanged"], 48);

    // A deleted file is seen; with --sync-deletes its note goes, even when the
    // import before it (without the flag) already saw the file was missing.
    std::fs::remove_file(v.join("Neu.md")).unwrap();
    let (seventh, skipped) = import_verbose(v, &[]);
    assert!(!skipped);
    assert_eq!(seventh["notes"], 48, "kept without --sync-deletes");
    let (eighth, skipped) = import_verbose(v, &["--sync-deletes"]);
    assert!(!skipped);
    assert_eq!(eighth["deleted"], 1);
    assert_eq!(eighth["notes"], 47);
    let (_, skipped) = import_verbose(v, &["--sync-deletes"]);
    assert!(skipped);
}
