//! `link/unlinked-mention`: another note's name in prose, unlinked, is a
//! recommendation, and `--fix --link-mentions` links its first mention so
//! the sentence reads the same; a second round finds nothing.

use mindnet_ingest::Config;
use mindnet_lint::{FixOptions, LintConfig, lint_vault, plan_fixes, write_fix};
use std::path::Path;

fn write(root: &Path, name: &str, text: &str) {
    std::fs::write(root.join(name), text).unwrap();
}

fn vault(root: &Path) {
    write(
        root,
        "Projekt Atlas.md",
        "# Projekt Atlas\n\nDie Migration der Jahre 2021 bis 2023.\n",
    );
    write(
        root,
        "Weber.md",
        "---\naliases: [Dr. Weber]\n---\n# Weber\n\nGutachterin.\n",
    );
    write(
        root,
        "Migration.md",
        "# Migration\n\nDr. Weber leitete die Migration von Projekt Atlas. \
         Projekt Atlas endete 2023.\n\n`Weber` im Code und %% Weber %% im Kommentar.\n",
    );
    write(
        root,
        "Gutachten.md",
        "# Gutachten\n\nWebers Gutachten zu [[Projekt Atlas]] kam später.\n",
    );
}

fn mentions(root: &Path) -> Vec<(String, usize, String)> {
    lint_vault(
        root,
        &Config::builtin(),
        &LintConfig::builtin(),
        &Default::default(),
    )
    .unwrap()
    .findings
    .into_iter()
    .filter(|f| f.rule == "link/unlinked-mention")
    .map(|f| (f.path, f.line, f.message))
    .collect()
}

#[test]
fn unlinked_mentions_are_recommended_and_linked_by_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    vault(dir.path());
    let found = mentions(dir.path());
    let places: Vec<(&str, usize)> = found.iter().map(|(p, l, _)| (p.as_str(), *l)).collect();
    assert_eq!(
        places,
        [
            ("Gutachten.md", 3),
            ("Migration.md", 3),
            ("Migration.md", 3),
            ("Projekt Atlas.md", 3)
        ],
        "Webers (genitive) in Gutachten; Dr. Weber and Projekt Atlas once each in Migration; \
         the note Migration in Projekt Atlas; the linked Projekt Atlas, code and comments \
         never: {found:?}"
    );
    assert!(found[0].2.contains("[[Weber|Webers]]"), "{}", found[0].2);

    let opts = FixOptions {
        link_mentions: true,
        ..Default::default()
    };
    let (fixes, _) = plan_fixes(
        dir.path(),
        &Config::builtin(),
        &LintConfig::builtin(),
        &opts,
    )
    .unwrap();
    for f in &fixes {
        write_fix(dir.path(), f).unwrap();
    }
    let migration = std::fs::read_to_string(dir.path().join("Migration.md")).unwrap();
    assert!(
        migration.contains(
            "[[Weber|Dr. Weber]] leitete die Migration von [[Projekt Atlas]]. Projekt Atlas endete"
        ),
        "{migration}"
    );
    assert!(
        migration.contains("`Weber` im Code und %% Weber %%"),
        "{migration}"
    );
    let gutachten = std::fs::read_to_string(dir.path().join("Gutachten.md")).unwrap();
    assert!(
        gutachten.contains("[[Weber|Webers]] Gutachten"),
        "{gutachten}"
    );
    assert!(mentions(dir.path()).is_empty());
    let (again, _) = plan_fixes(
        dir.path(),
        &Config::builtin(),
        &LintConfig::builtin(),
        &opts,
    )
    .unwrap();
    assert!(again.is_empty(), "a fixed point after one round");
}

#[test]
fn the_rule_can_be_switched_off() {
    let dir = tempfile::tempdir().unwrap();
    vault(dir.path());
    let off = dir.path().join("lint.yaml");
    std::fs::write(&off, "version: 1\nrules:\n  link/unlinked-mention: off\n").unwrap();
    let lint = LintConfig::load(&off).unwrap();
    let r = lint_vault(dir.path(), &Config::builtin(), &lint, &Default::default()).unwrap();
    assert!(r.findings.iter().all(|f| f.rule != "link/unlinked-mention"));
}
