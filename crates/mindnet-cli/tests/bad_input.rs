//! Bad input gets a warning with path and line; everything else is imported;
//! nothing panics.

mod common;

use common::{dry_run, mindnet};
use std::fs;
use std::path::Path;

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, bytes).unwrap();
}

#[test]
fn every_kind_of_bad_input_is_reported_and_the_rest_imported() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    write(
        v,
        "Gut.md",
        "# Gut\n\nVerweist auf [[Kaputt]] und [[Leer]].\n",
    );
    write(
        v,
        "Kaputt.md",
        "---\ntitle: Kaputt\ntags: [offen\n---\n# Kaputt\n\nText.\n",
    );
    let mut invalid = b"# Ungueltig\n\nzweite Zeile\nkaputt: ".to_vec();
    invalid.extend_from_slice(&[0xff, 0xfe, b'x', b'\n']);
    write(v, "Ungueltig.md", invalid);
    write(v, "Leer.md", "");
    write(v, "Riesig.md", "Viel Text. ".repeat(2_000_000));
    write(
        v,
        "Binaer.md",
        [0x89u8, b'P', b'N', b'G', 0, 0, 0, 13, 0xff],
    );
    write(
        v,
        "Klammern.md",
        "# Klammern\n\nOffen [[ohne Ende\nLeer [[]] hier\n",
    );
    write(v, "Selbst.md", "# Selbst\n\nIch verweise auf [[Selbst]].\n");
    write(
        v,
        "Art.md",
        "# Art\n\n[[rel:frobnicates Gut]] und [[rel:next Gut]]\n\n> [!edge] teleportiert_nach: [[Gut]]\n",
    );
    write(v, "Raus.md", "# Raus\n\n[[../../etc/passwd]]\n");
    fs::create_dir_all(v.join("Schleife")).unwrap();
    write(v, "Schleife/Drin.md", "# Drin\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(v.join("Schleife"), v.join("Schleife/zurueck")).unwrap();

    let run = dry_run(v, &[]);
    let expect = [
        ("Kaputt.md:4: broken YAML frontmatter", "broken YAML"),
        ("Ungueltig.md:4: invalid UTF-8", "invalid UTF-8"),
        ("Leer.md:1: empty note", "empty file"),
        ("Riesig.md:1: file is 22.0 MB, over the limit", "huge file"),
        ("Binaer.md:1: binary file", "binary"),
        ("Klammern.md:3: unclosed wikilink", "unclosed [["),
        ("Klammern.md:4: empty wikilink", "[[]]"),
        ("Selbst.md:3: link to the note itself", "self link"),
        (
            "Art.md:3: unknown edge kind `frobnicates`",
            "unknown inline kind",
        ),
        (
            "Art.md:3: edge kind `next` is reserved",
            "provenance firewall",
        ),
        (
            "Art.md:5: unknown edge kind `teleportiert_nach`",
            "unknown callout kind",
        ),
        (
            "Raus.md:3: link `../../etc/passwd` points outside the vault",
            "outside the vault",
        ),
        ("Schleife/zurueck:1: symlink loop", "symlink loop"),
    ];
    for (needle, what) in expect {
        assert!(
            run.stderr.contains(needle),
            "{what}: `{needle}` not in\n{}",
            run.stderr
        );
    }

    let notes = run.notes();
    let titles: Vec<&str> = notes.iter().map(|n| n["title"].as_str().unwrap()).collect();
    for t in [
        "Gut",
        "Kaputt",
        "Ungueltig",
        "Leer",
        "Klammern",
        "Selbst",
        "Art",
        "Raus",
        "Drin",
    ] {
        assert!(
            titles.contains(&t),
            "{t} must still be imported: {titles:?}"
        );
    }
    assert!(!titles.contains(&"Riesig") && !titles.contains(&"Binaer"));
    let summary = run.summary();
    let skipped: Vec<&str> = summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, vec!["Binaer.md", "Riesig.md"]);
    assert_eq!(
        notes
            .iter()
            .filter(|n| n["path"] == "Schleife/Drin.md")
            .count(),
        1,
        "a loop must not duplicate notes"
    );

    // Broken frontmatter: defaults, body still read. Invalid UTF-8: repaired text kept.
    let kaputt = notes.iter().find(|n| n["title"] == "Kaputt").unwrap();
    assert_eq!(kaputt["tags"].as_array().unwrap().len(), 0);
    let ungueltig = notes.iter().find(|n| n["title"] == "Ungueltig").unwrap();
    assert!(
        ungueltig["fulltext"]
            .as_str()
            .unwrap()
            .contains("kaputt: \u{fffd}")
    );
    // Unknown kinds are kept as related_to; the firewall rewrote `next`.
    let art = notes.iter().find(|n| n["title"] == "Art").unwrap()["note_id"].clone();
    let gut = notes.iter().find(|n| n["title"] == "Gut").unwrap()["note_id"].clone();
    let edges = run.edges();
    let kinds: Vec<&str> = edges
        .iter()
        .filter(|e| e["note_id"] == art && e["target_id"] == gut && e["provenance"] == "explicit")
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(
        !kinds.is_empty() && kinds.iter().all(|k| *k == "related_to"),
        "{kinds:?}"
    );
    // The self link made no edge; the note still has its structure.
    let selbst = notes.iter().find(|n| n["title"] == "Selbst").unwrap()["note_id"].clone();
    let own = |e: &&serde_json::Value| e["note_id"] == selbst && e["target_id"] == selbst;
    assert!(
        run.edges()
            .iter()
            .filter(own)
            .all(|e| e["kind"] == "belongs_to")
    );
}

#[test]
fn a_raised_size_limit_imports_the_big_note() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Gross.md",
        "# Gross\n\n".to_string() + &"Ein Satz. ".repeat(200_000),
    );
    let run = dry_run(dir.path(), &["--max-note-size", "1"]);
    assert!(run.notes().is_empty() && run.stderr.contains("over the limit"));
    let run = dry_run(dir.path(), &["--max-note-size", "4"]);
    assert_eq!(run.notes().len(), 1);
    assert!(run.chunks().len() > 10);
}

#[test]
fn an_invalid_registry_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "A.md", "# A\n");
    let types = dir.path().join("types.yaml");
    fs::write(
        &types,
        "version: 1\ndefault_type: concept\nchunk_profiles:\n  s: {strategy: by_heading, target: 10, max: 20, overlap: 2}\ntypes:\n  concept:\n    chunk_profile: s\n    retriever_weight: 0.5\n    edge_defaults: [teleports]\n",
    )
    .unwrap();
    let out = mindnet(&[
        "import",
        dir.path().to_str().unwrap(),
        "--dry-run",
        "--types",
        types.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("types.yaml:9:"), "{err}");
    assert!(
        err.contains("types.concept.edge_defaults") && err.contains("teleports"),
        "{err}"
    );
}

#[test]
fn a_missing_vault_is_a_clear_error() {
    let out = mindnet(&["import", "/nonexistent/vault", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/nonexistent/vault") && err.contains("cannot open the vault"),
        "{err}"
    );
}

/// Every Markdown entry of the malformed-input corpus (`tests/malformed/`),
/// imported as one vault: each becomes a note or is skipped with a reason,
/// nothing panics, and the index is clean.
#[test]
fn the_malformed_corpus_imports_as_one_vault() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/malformed");
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for e in fs::read_dir(&corpus).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "README.md" {
            fs::copy(e.path(), dir.path().join(&name)).unwrap();
            names.push(name);
        }
    }
    assert!(names.len() >= 20, "{names:?}");
    let plan = dry_run(dir.path(), &[]);
    assert!(!plan.stderr.contains("panicked"), "{}", plan.stderr);
    let summary = plan.summary();
    let notes = plan.notes();
    for name in &names {
        let noted = notes.iter().any(|n| n["path"] == name.as_str());
        let skipped = summary["skipped"].as_array().unwrap().iter().any(|s| {
            s["path"] == name.as_str() && s["reason"].as_str().is_some_and(|r| !r.is_empty())
        });
        assert!(
            noted || skipped,
            "{name}: neither a note nor skipped with a reason"
        );
    }
    common::import_m3(dir.path());
    let out = mindnet(&["check", dir.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `mindnet … | head`: the reader goes away before the report is written.
#[cfg(unix)]
#[test]
fn a_report_into_a_closed_pipe_ends_quietly_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(["import", "--dry-run"])
        .arg(common::demo_vault())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(13), "{:?}: {stderr}", out.status);
}

/// An intent of the name walk that the decision engine does not define is
/// named with both files, not silently never walked.
#[test]
fn an_unknown_walk_intent_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "A.md", "# A\n");
    let builtin = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/retriever.yaml"),
    )
    .unwrap();
    let retriever = dir.path().join("retriever.yaml");
    fs::write(
        &retriever,
        builtin.replace("intents: [fact]", "intents: [fakt]"),
    )
    .unwrap();
    let out = mindnet(&[
        "query",
        "A",
        "--vault",
        dir.path().to_str().unwrap(),
        "--retriever",
        retriever.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("retriever.yaml: walk.intents: `fakt`") && err.contains("fact"),
        "{err}"
    );
}
