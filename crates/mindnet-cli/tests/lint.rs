//! `mindnet lint` and `mindnet chain` as a user runs them: output, exit codes.

mod common;

use common::{demo_vault, mindnet};
use std::path::Path;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mindnet-lint/tests")
        .join(name)
        .to_string_lossy()
        .to_string()
}

#[test]
fn errors_make_the_exit_code_non_zero_for_a_pre_commit_hook() {
    let out = mindnet(&["lint", &fixture("fixture")]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Erfahrungen/Umzug.md:10:12 error edge/unknown-kind"),
        "{text}"
    );
    assert!(
        text.contains("   | Vgl. [[rel:verursacht_irgendwie Neue Stelle]]"),
        "{text}"
    );
    let clean = mindnet(&["lint", &fixture("clean")]);
    assert_eq!(clean.status.code(), Some(0));
    // Only errors: the warnings are gone from the JSON list.
    let out = mindnet(&["lint", &fixture("fixture"), "--json", "--severity", "error"]);
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.len(), 4);
    assert!(list.iter().all(|f| f["severity"] == "error"));
}

#[test]
fn the_chain_preview_prints_a_tree_and_mermaid() {
    let v = demo_vault();
    let vs = v.to_str().unwrap();
    let out = mindnet(&[
        "chain",
        "--vault",
        vs,
        "Wechsel in die Softwareentwicklung",
        "--backward",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  ⟵ caused_by — Erschöpfung im Frühjahr 2023 (state)"),
        "{text}"
    );
    assert!(
        text.contains("      ⟵ caused_by — Jahresabschluss-Marathon 2023 (experience)"),
        "{text}"
    );
    let out = mindnet(&[
        "chain",
        "--vault",
        vs,
        "Jeden Morgen laufen",
        "--format",
        "mermaid",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("```mermaid\ngraph LR\n") && text.contains("-->|resulted_in|"),
        "{text}"
    );
    let out = mindnet(&["chain", "--vault", vs, "Gibt es nicht"]);
    assert!(!out.status.success());
}
