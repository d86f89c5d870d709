//! Issue 6 acceptance: the exact findings of a fixture vault that has each
//! problem at least once, and none for a clean vault.

use mindnet_ingest::Config;
use mindnet_lint::{Lang, LintConfig, LintOptions, Severity, lint_vault};
use std::path::Path;

fn lint(dir: &str, opts: &LintOptions) -> mindnet_lint::LintReport {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    lint_vault(&root, &Config::builtin(), &LintConfig::builtin(), opts).unwrap()
}

#[test]
fn the_fixture_vault_gives_exactly_its_findings() {
    let report = lint("fixture", &LintOptions::default());
    let got: Vec<(&str, &str, usize)> = report
        .findings
        .iter()
        .map(|f| (f.rule, f.path.as_str(), f.line))
        .collect();
    let want = vec![
        ("chain/multiple-causes", "Entscheidungen/Neue Stelle.md", 6),
        ("chain/cycle", "Entscheidungen/Neue Stelle.md", 7),
        ("link/outside-vault", "Entscheidungen/Neue Stelle.md", 8),
        ("edge/alias-not-canonical", "Erfahrungen/Umzug.md", 6),
        ("chain/gap", "Erfahrungen/Umzug.md", 7),
        ("edge/chronology-as-causality", "Erfahrungen/Umzug.md", 7),
        ("link/missing-target", "Erfahrungen/Umzug.md", 8),
        ("node/split-spelling", "Erfahrungen/Umzug.md", 9),
        ("edge/unknown-kind", "Erfahrungen/Umzug.md", 10),
        ("chain/multiple-causes", "Prinzipien/Ruhe.md", 6),
        ("edge/prohibited-for-type", "Prinzipien/Ruhe.md", 6),
        ("chain/cycle", "Zustände/Zweifel.md", 6),
        ("link/unlinked-mention", "Zustände/Zweifel.md", 8),
        ("link/unlinked-mention", "Zustände/Zweifel.md", 8),
        ("edge/prohibited-for-type", "Übersicht.md", 6),
    ];
    assert_eq!(got, want, "{:#?}", report.findings);
    // Every rule is exercised.
    for (rule, _) in mindnet_lint::RULES {
        assert!(got.iter().any(|(r, _, _)| *r == rule), "{rule} never fires");
    }
    let split = report
        .findings
        .iter()
        .find(|f| f.rule == "node/split-spelling")
        .unwrap();
    assert_eq!(split.column, 5);
    assert!(split.message.contains("Neue Stelle"), "{}", split.message);
    assert_eq!(report.count(Severity::Error), 4);
}

#[test]
fn messages_come_in_english_too_and_one_note_can_be_linted_alone() {
    let opts = LintOptions {
        lang: Some(Lang::En),
        note: Some("Erfahrungen/Umzug.md".into()),
        ..LintOptions::default()
    };
    let report = lint("fixture", &opts);
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.path == "Erfahrungen/Umzug.md")
    );
    let alias = report
        .findings
        .iter()
        .find(|f| f.rule == "edge/alias-not-canonical")
        .unwrap();
    assert!(
        alias.message.contains("canonical kind is `resulted_in`"),
        "{}",
        alias.message
    );
}

#[test]
fn a_clean_vault_gives_no_findings() {
    let report = lint("clean", &LintOptions::default());
    assert_eq!(report.notes, 2);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}

#[test]
fn the_chain_preview_follows_causes_and_effects_and_ends_at_cycles() {
    use mindnet_lint::{ChainDirection, chain_preview};
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    let p = chain_preview(
        &demo,
        &Config::builtin(),
        "Wechsel in die Softwareentwicklung",
        ChainDirection::Both,
        3,
    )
    .unwrap();
    assert_eq!(p.causes[0].title, "Erschöpfung im Frühjahr 2023");
    assert_eq!(p.causes[0].kind, "caused_by");
    assert_eq!(
        p.causes[0].children[0].title,
        "Jahresabschluss-Marathon 2023"
    );
    assert!(
        p.effects
            .iter()
            .any(|e| e.title == "Neustart als Junior-Entwickler")
    );

    // Neue Stelle ⇄ Zweifel cause each other: the loop is shown once, marked.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture");
    let p = chain_preview(
        &fixture,
        &Config::builtin(),
        "Neue Stelle",
        ChainDirection::Backward,
        6,
    )
    .unwrap();
    let zweifel = p.causes.iter().find(|c| c.title == "Zweifel").unwrap();
    assert!(
        zweifel
            .children
            .iter()
            .any(|c| c.title == "Neue Stelle" && c.repeated)
    );

    let missing = chain_preview(
        &fixture,
        &Config::builtin(),
        "Gibt es nicht",
        ChainDirection::Both,
        2,
    );
    assert!(
        missing
            .unwrap_err()
            .to_string()
            .contains("no note `Gibt es nicht`")
    );
}

/// The demo vault was written with German alias kinds (to show that the
/// import canonicalises them), one link to a note not yet written, and a
/// principle with several origins; these are its findings, and no others.
#[test]
fn the_demo_vault_gives_only_the_findings_it_was_written_to_have() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    let report = lint_vault(
        &demo,
        &Config::builtin(),
        &LintConfig::builtin(),
        &LintOptions::default(),
    )
    .unwrap();
    let got: Vec<(&str, &str, usize)> = report
        .findings
        .iter()
        .map(|f| (f.rule, f.path.as_str(), f.line))
        .collect();
    let want = vec![
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Eigenes Wissenssystem bauen.md",
            19,
        ),
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Jeden Morgen laufen.md",
            17,
        ),
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Jeden Morgen laufen.md",
            18,
        ),
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Qdrant als Vektordatenbank.md",
            26,
        ),
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Qdrant als Vektordatenbank.md",
            27,
        ),
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Rust statt Python für den Kern.md",
            18,
        ),
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Wechsel in die Softwareentwicklung.md",
            16,
        ),
        (
            "edge/alias-not-canonical",
            "Entscheidungen/Wechsel in die Softwareentwicklung.md",
            25,
        ),
        (
            "edge/alias-not-canonical",
            "Erfahrungen/Suchfrust in alten Notizen.md",
            13,
        ),
        ("edge/alias-not-canonical", "Konzepte/Wissensgraph.md", 12),
        (
            "chain/multiple-causes",
            "Prinzipien/Energie vor Status.md",
            11,
        ),
        (
            "edge/alias-not-canonical",
            "Prinzipien/Energie vor Status.md",
            11,
        ),
        ("chain/gap", "Prinzipien/Energie vor Status.md", 13),
        (
            "chain/multiple-causes",
            "Prinzipien/Kleine Gewohnheiten schlagen große Pläne.md",
            11,
        ),
        ("edge/alias-not-canonical", "Prinzipien/Lokal zuerst.md", 11),
        ("edge/alias-not-canonical", "Prinzipien/Lokal zuerst.md", 12),
        (
            "edge/alias-not-canonical",
            "Projekte/Projekt Mindnet.md",
            18,
        ),
        ("link/missing-target", "Projekte/Projekt Mindnet.md", 40),
        (
            "edge/alias-not-canonical",
            "Projekte/Projekt Mindnet.md",
            42,
        ),
        (
            "edge/alias-not-canonical",
            "Zustände/Erschöpfung im Frühjahr 2023.md",
            11,
        ),
        (
            "edge/alias-not-canonical",
            "Zustände/Erschöpfung im Frühjahr 2023.md",
            13,
        ),
        (
            "edge/alias-not-canonical",
            "Zustände/Hybride Suche läuft lokal.md",
            11,
        ),
        // Names of other notes in the prose, each correct: „Qdrant“ and
        // „Mindnet“ are aliases of their notes.
        ("link/unlinked-mention", "Journal/2024-09-02.md", 6),
        ("link/unlinked-mention", "Konzepte/Wissensgraph.md", 8),
        ("link/unlinked-mention", "Projekte/Projekt Mindnet.md", 18),
        (
            "link/unlinked-mention",
            "Quellen/Qdrant Dokumentation.md",
            7,
        ),
        (
            "link/unlinked-mention",
            "Quellen/Qdrant Dokumentation.md",
            11,
        ),
        (
            "link/unlinked-mention",
            "Zustände/Hybride Suche läuft lokal.md",
            9,
        ),
        (
            "link/unlinked-mention",
            "Zustände/Hybride Suche läuft lokal.md",
            9,
        ),
        (
            "link/unlinked-mention",
            "Zustände/Hybride Suche läuft lokal.md",
            9,
        ),
    ];
    let by_place = |v: &[(&str, &str, usize)]| -> Vec<String> {
        let mut v: Vec<String> = v.iter().map(|(r, p, l)| format!("{p}:{l} {r}")).collect();
        v.sort();
        v
    };
    assert_eq!(by_place(&got), by_place(&want), "{:#?}", report.findings);
    assert_eq!(report.count(Severity::Error), 0);
}

fn vault_of(notes: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in notes {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn lint_dir(dir: &Path, lang: Option<Lang>) -> mindnet_lint::LintReport {
    let opts = LintOptions {
        lang,
        ..Default::default()
    };
    lint_vault(dir, &Config::builtin(), &LintConfig::builtin(), &opts).unwrap()
}

#[test]
fn a_missing_target_is_one_recommendation_listing_the_notes_that_link_to_it() {
    let dir = vault_of(&[
        ("A.md", "Der Kaffee. [[Espresso]]\n"),
        ("B.md", "Mehr dazu: [[Espresso]] und [[espresso]].\n"),
        ("C.md", "Noch einmal [[Espresso]].\n"),
        (
            "Installation.md",
            "# Installation\n\nDie Maschine aufstellen.\n",
        ),
    ]);
    let report = lint_dir(dir.path(), None);
    let missing: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule == "link/missing-target")
        .collect();
    assert_eq!(missing.len(), 1, "{:#?}", report.findings);
    let m = missing[0];
    assert_eq!(
        (m.path.as_str(), m.severity),
        ("A.md", Severity::Recommendation)
    );
    assert!(
        m.message.contains("`Espresso` wird von 3 Notizen verlinkt"),
        "{}",
        m.message
    );
    assert!(m.message.contains("A, B, C"), "{}", m.message);
    // The other spelling of the same missing name is shown where it is
    // written, with its evidence; `Installation` is never suggested.
    let split: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule == "node/split-spelling")
        .collect();
    assert_eq!(split.len(), 1, "{split:#?}");
    assert!(
        split[0].message.contains("Groß- und Kleinschreibung"),
        "{}",
        split[0].message
    );
    // Both spellings with their link counts, and the one to keep.
    assert!(
        split[0]
            .message
            .contains("`espresso` ist 1× verlinkt, `Espresso` 3×; behalten: `Espresso`"),
        "{}",
        split[0].message
    );
    assert!(
        report
            .findings
            .iter()
            .all(|f| !f.message.contains("Installation"))
    );
}

#[test]
fn messages_follow_the_notes_lang_else_the_vaults() {
    let dir = vault_of(&[
        (
            "Notes/Coffee.md",
            "---\nlang: en\n---\nThe coffee is good, and it is the best in town. [[Espresso Machine]]\n",
        ),
        (
            "Notizen/Kaffee.md",
            "Der Kaffee ist gut und die Bohnen sind frisch. [[Mahlwerk]]\n",
        ),
    ]);
    let report = lint_dir(dir.path(), Some(Lang::De));
    let msg = |path: &str| {
        report
            .findings
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.message.clone())
            .unwrap()
    };
    assert!(msg("Notes/Coffee.md").contains("does not exist yet"));
    assert!(msg("Notizen/Kaffee.md").contains("existiert noch nicht"));
    // `--lang en` for the notes without `lang:`.
    let report = lint_dir(dir.path(), Some(Lang::En));
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.message.contains("does not exist yet"))
    );
    // Undetermined: the language most notes are written in.
    let english = vault_of(&[
        (
            "a.md",
            "This is the note that links to the rest of the vault. [[Nowhere]]\n",
        ),
        (
            "b.md",
            "It is one of the notes in this vault, and it is in English.\n",
        ),
    ]);
    let report = lint_dir(english.path(), None);
    assert_eq!(report.lang, Lang::En);
    assert!(report.findings[0].message.contains("does not exist yet"));
}

/// The weak pairs of a real English vault: a plural is the same name only
/// where the vault uses the two alike, and a name a letter from a note is a
/// name of its own when it is a real word or linked so from several notes.
#[test]
fn weak_pairs_need_the_vaults_word() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, body: &str| {
        std::fs::write(
            dir.path().join(name),
            format!("---\nlang: en\n---\n{body}\n"),
        )
        .unwrap();
    };
    // Two things: physics and a word of programming, used apart.
    write(
        "Dynamics.md",
        "The branch of physics about forces and motion.",
    );
    write(
        "Typing.md",
        "Languages with [[Dynamic]] typing check types at run time.",
    );
    // One thing: the note about genes writes the singular.
    write("Genes.md", "A gene is a unit of heredity.");
    write("Phenotype.md", "Any given [[gene]] will cause a trait.");
    // A letter off, linked from one note: a slip. From two: a name.
    write("Kubernetes Operators.md", "Controllers for apps.");
    write("Cluster.md", "See [[Kubernetes Operatrs]].");
    write("Helm Charts.md", "Packages for apps.");
    write("Deploy.md", "See [[Helm Charst]].");
    write("Release.md", "See [[Helm Charst]] as well.");
    // A real word one letter from a note's name: its own name.
    write("Kernelize.md", "A tool that turns code into kernels.");
    write("Heat.md", "We [[Kernelise]] the loop.");
    let words = dir.path().join("words");
    std::fs::write(&words, "kernelise\n").unwrap();
    let config = LintConfig::from_yaml(
        Path::new("l.yaml"),
        &format!("version: 1\nword_lists:\n  en: [{}]\n", words.display()),
    )
    .unwrap();
    let report = lint_vault(
        dir.path(),
        &Config::builtin(),
        &config,
        &LintOptions::default(),
    )
    .unwrap();
    let split: Vec<(&str, &str)> = report
        .findings
        .iter()
        .filter(|f| f.rule == "node/split-spelling")
        .map(|f| (f.path.as_str(), f.message.split(':').next().unwrap_or("")))
        .collect();
    assert_eq!(
        split,
        [
            (
                "Cluster.md",
                "`Kubernetes Operatrs` is probably `Kubernetes Operators`"
            ),
            ("Phenotype.md", "`gene` is probably `Genes`"),
        ],
        "{:#?}",
        report.findings
    );
}
