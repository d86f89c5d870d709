//! `mindnet lint --fix`: a fixed point after one round, no clobbering of a
//! file edited meanwhile, and every byte outside the fixed spans kept.

use mindnet_ingest::Config;
use mindnet_lint::{FixOptions, lint_vault, plan_fixes, write_fix};
use proptest::prelude::*;
use std::path::Path;

fn copy_fixture(to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture");
    for entry in walk(&from) {
        let rel = entry.strip_prefix(&from).unwrap();
        let dst = to.join(rel);
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &dst).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn fix_all(root: &Path, opts: &FixOptions) -> usize {
    let (fixes, _) = plan_fixes(
        root,
        &Config::builtin(),
        &mindnet_lint::LintConfig::builtin(),
        opts,
    )
    .unwrap();
    for f in &fixes {
        write_fix(root, f).unwrap();
    }
    fixes.len()
}

#[test]
fn fixing_reaches_a_fixed_point_in_one_round() {
    let dir = tempfile::tempdir().unwrap();
    copy_fixture(dir.path());
    let opts = FixOptions {
        add_inverses: true,
        link_mentions: true,
        ..FixOptions::default()
    };
    assert!(fix_all(dir.path(), &opts) > 0);
    assert_eq!(
        fix_all(dir.path(), &opts),
        0,
        "a second round changes nothing"
    );
    let report = lint_vault(
        dir.path(),
        &Config::builtin(),
        &mindnet_lint::LintConfig::builtin(),
        &Default::default(),
    )
    .unwrap();
    for rule in ["edge/alias-not-canonical", "node/split-spelling"] {
        assert!(
            report.findings.iter().all(|f| f.rule != rule),
            "{rule} left"
        );
    }
    let umzug = std::fs::read_to_string(dir.path().join("Erfahrungen/Umzug.md")).unwrap();
    assert!(
        umzug.contains("[[rel:resulted_in Neue Stelle]]")
            && umzug.contains("Und [[Neue Stelle]] wird")
    );
}

#[test]
fn a_file_changed_since_it_was_read_is_not_clobbered() {
    let dir = tempfile::tempdir().unwrap();
    copy_fixture(dir.path());
    let (fixes, _) = plan_fixes(
        dir.path(),
        &Config::builtin(),
        &mindnet_lint::LintConfig::builtin(),
        &FixOptions::default(),
    )
    .unwrap();
    let f = fixes
        .iter()
        .find(|f| f.path == "Erfahrungen/Umzug.md")
        .unwrap();
    let path = dir.path().join(&f.path);
    let edited = String::from_utf8(f.old.clone()).unwrap() + "Neuer Gedanke.\n";
    std::fs::write(&path, &edited).unwrap();
    let err = write_fix(dir.path(), f).unwrap_err().to_string();
    assert!(err.contains("changed since it was read"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        edited,
        "the edit survives"
    );
    assert!(!dir.path().join("Erfahrungen/Umzug.md.mindnet-fix").exists());
}

/// Text around the links: a line that starts with a letter (so it opens no
/// code block, heading or HTML block), then anything but Markdown syntax
/// that would make links, comments, code or HTML of its own, and control
/// characters (line endings are chosen separately; NUL makes a file binary).
fn filler() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-zA-ZäöüßÄÖÜ][^\\[\\]|#>!%`$<\\\\\\p{Cc}]{0,40}").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_byte_outside_the_fixed_spans_is_kept(
        parts in proptest::collection::vec((filler(), any::<bool>()), 1..6),
        crlf in any::<bool>(),
        bom in any::<bool>(),
        trailing in "[ \\t]{0,3}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Ziel.md"), "# Ziel\n").unwrap();
        // The note: filler, then a link with an alias kind (or a plain one).
        let build = |kind: &str| {
            let mut s = format!("---\ntitle: Quelle\ntags: [a, b]\n---\n# Quelle{trailing}\n\n");
            for (text, typed) in &parts {
                s.push_str(text);
                if *typed {
                    s.push_str(&format!(" [[rel:{kind} Ziel]] "));
                } else {
                    s.push_str(" [[Ziel]] ");
                }
                s.push_str(&format!("{trailing}\n"));
            }
            let mut bytes = Vec::new();
            if bom {
                bytes.extend_from_slice(b"\xEF\xBB\xBF");
            }
            let s = if crlf { s.replace('\n', "\r\n") } else { s };
            bytes.extend_from_slice(s.as_bytes());
            bytes
        };
        let before = build("führte_zu");
        std::fs::write(dir.path().join("Quelle.md"), &before).unwrap();
        fix_all(dir.path(), &FixOptions::default());
        let after = std::fs::read(dir.path().join("Quelle.md")).unwrap();
        prop_assert_eq!(after, build("resulted_in"));
        prop_assert_eq!(fix_all(dir.path(), &FixOptions::default()), 0);
    }
}

/// What an editor offers beside a note: its fixes only, or the one fix at
/// a line and column; a note the vault does not have is an error.
#[test]
fn fixes_narrow_to_a_note_and_to_one_place() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    const NOTE: &str = "Entscheidungen/Qdrant als Vektordatenbank.md";
    let plan = |note: &str, line: Option<usize>, column: Option<usize>| {
        plan_fixes(
            &demo,
            &Config::builtin(),
            &mindnet_lint::LintConfig::builtin(),
            &FixOptions {
                note: Some(note.to_string()),
                line,
                column,
                ..FixOptions::default()
            },
        )
        .map(|(files, _)| files)
    };
    let all = plan(NOTE, None, None).unwrap();
    assert_eq!(all.len(), 1);
    let lines: Vec<(Option<usize>, &str)> = all[0]
        .fixes
        .iter()
        .map(|f| (f.line, f.what.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (Some(26), "`ausgelöst_durch` → `caused_by`"),
            (Some(27), "`führte_zu` → `resulted_in`")
        ]
    );
    let one = plan(NOTE, Some(26), Some(11)).unwrap();
    assert_eq!(one[0].fixes.len(), 1);
    assert_eq!(one[0].fixes[0].column, Some(11));
    assert!(plan(NOTE, Some(26), Some(12)).unwrap().is_empty());
    assert!(matches!(
        plan("Nirgends.md", None, None),
        Err(mindnet_lint::FixError::NoNote(_))
    ));
}

/// With `fixes`, each finding carries the edit that fixes it, and only
/// that one: three unlinked mentions on one line, three fixes.
#[test]
fn a_finding_carries_its_own_fix() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    let opts = mindnet_lint::LintOptions {
        note: Some("Zustände/Hybride Suche läuft lokal.md".into()),
        fixes: true,
        ..Default::default()
    };
    let report = lint_vault(
        &demo,
        &Config::builtin(),
        &mindnet_lint::LintConfig::builtin(),
        &opts,
    )
    .unwrap();
    let on_line = |line: usize| -> Vec<(usize, Option<String>)> {
        report
            .findings
            .iter()
            .filter(|f| f.line == line)
            .map(|f| (f.column, f.fix.as_ref().map(|x| x.what.clone())))
            .collect()
    };
    assert_eq!(
        on_line(9),
        [
            (1, Some("Mindnet → [[Projekt Mindnet|Mindnet]]".to_string())),
            (69, Some("Embeddings → [[Embeddings]]".to_string())),
            (81, Some("BM25 → [[BM25]]".to_string()))
        ]
    );
    assert_eq!(
        on_line(11),
        [(7, Some("`wegen` → `caused_by`".to_string()))]
    );
    let fix = report.findings.iter().find_map(|f| f.fix.clone()).unwrap();
    let bytes = std::fs::read(demo.join("Zustände/Hybride Suche läuft lokal.md")).unwrap();
    assert_eq!(fix.version, mindnet_ingest::note_bytes::version_of(&bytes));
}

/// The parsed notes a process remembers between lints are read again when
/// their file changes, even to the same length.
#[test]
fn a_changed_file_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("A.md"), "Siehe [[Bx]].\n").unwrap();
    std::fs::write(dir.path().join("B.md"), "# B\n").unwrap();
    let missing = || {
        lint_vault(
            dir.path(),
            &Config::builtin(),
            &mindnet_lint::LintConfig::builtin(),
            &mindnet_lint::LintOptions::default(),
        )
        .unwrap()
        .findings
        .iter()
        .any(|f| f.rule == "link/missing-target")
    };
    assert!(missing());
    std::fs::write(dir.path().join("A.md"), "Siehe [[B]]. \n").unwrap();
    assert!(!missing());
}
