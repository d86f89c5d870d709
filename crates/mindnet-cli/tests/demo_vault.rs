//! The acceptance checks of the foundation on `examples/vault`.

mod common;

use common::{DryRun, demo_vault, dry_run};
use serde_json::Value;
use std::collections::BTreeSet;

/// The one edge from `from` (a note title) to `to` (a note title) of `kind`
/// made by `rule_id`, checked for its full payload.
fn edge(
    run: &DryRun,
    from: &str,
    to: &str,
    kind: &str,
    section: Option<&str>,
    rule_id: &str,
) -> Value {
    let owner = run.note_id(from);
    let target = run.note_id(to);
    let found: Vec<Value> = run
        .edges()
        .into_iter()
        .filter(|e| {
            e["note_id"] == owner.as_str()
                && e["target_id"] == target.as_str()
                && e["kind"] == kind
                && e["target_section"].as_str() == section
                && e["rule_id"] == rule_id
        })
        .collect();
    assert_eq!(found.len(), 1, "edges {from} -> {to} ({kind}): {found:#?}");
    found.into_iter().next().unwrap()
}

fn assert_payload(e: &Value, provenance: &str, rule_id: &str, confidence: f64) {
    assert_eq!(e["provenance"], provenance, "{e}");
    assert_eq!(e["rule_id"], rule_id, "{e}");
    assert_eq!(e["confidence"].as_f64(), Some(confidence), "{e}");
    assert_eq!(e["scope"], "chunk", "{e}");
    assert_eq!(e["resolved"], true, "{e}");
}

#[test]
fn demo_vault_has_the_specified_edges() {
    let run = dry_run(&demo_vault(), &[]);

    // Inline relation with a German alias (`ausgelöst_durch`), canonicalised.
    let e = edge(
        &run,
        "Wechsel in die Softwareentwicklung",
        "Erschöpfung im Frühjahr 2023",
        "caused_by",
        None,
        "inline:rel",
    );
    assert_payload(&e, "explicit", "inline:rel", 0.95);

    // Callout edge to the second target on its line.
    let e = edge(
        &run,
        "Wechsel in die Softwareentwicklung",
        "Lernplan Softwareentwicklung",
        "resulted_in",
        None,
        "callout:edge",
    );
    assert_payload(&e, "explicit", "callout:edge", 0.90);
    // ... and a German alias on the callout's second line.
    let e = edge(
        &run,
        "Wechsel in die Softwareentwicklung",
        "Autonomie",
        "based_on",
        None,
        "callout:edge",
    );
    assert_payload(&e, "explicit", "callout:edge", 0.90);

    // Type default: a project depends on what it links to.
    let e = edge(
        &run,
        "Projekt Mindnet",
        "Qdrant als Vektordatenbank",
        "depends_on",
        None,
        "edge_defaults:project:depends_on",
    );
    assert_payload(&e, "rule", "edge_defaults:project:depends_on", 0.7);

    // Matrix: an experience that links a value rests on it.
    let e = edge(
        &run,
        "Jahresabschluss-Marathon 2023",
        "Gesundheit",
        "based_on",
        None,
        "matrix:experience:value",
    );
    assert_payload(&e, "rule", "matrix:experience:value", 0.7);

    // A plain wikilink.
    let e = edge(
        &run,
        "Jahresabschluss-Marathon 2023",
        "Gesundheit",
        "references",
        None,
        "explicit:wikilink",
    );
    assert_payload(&e, "explicit", "explicit:wikilink", 1.0);

    // Section edges; two sections of one note are two edges (multigraph).
    let e = edge(
        &run,
        "Wechsel in die Softwareentwicklung",
        "Jonas Weber",
        "references",
        Some("Gespräch im Mai 2023"),
        "explicit:wikilink",
    );
    assert_payload(&e, "explicit", "explicit:wikilink", 1.0);
    let ziel = edge(
        &run,
        "Projekt Mindnet",
        "Projekt Mindnet",
        "references",
        Some("Ziel"),
        "explicit:wikilink",
    );
    let suche = edge(
        &run,
        "Projekt Mindnet",
        "Projekt Mindnet",
        "references",
        Some("Suche"),
        "explicit:wikilink",
    );
    assert_ne!(ziel["edge_id"], suche["edge_id"]);
    // A block reference is a section too. (The journal note's title is its
    // file name, as in Obsidian; its H1 "20. Januar 2025" is a heading.)
    edge(
        &run,
        "2025-01-20",
        "Projekt Mindnet",
        "references",
        Some("^kernidee"),
        "explicit:wikilink",
    );
    // An embed of a note is an edge.
    edge(
        &run,
        "Übersicht Mindnet",
        "Lokal zuerst",
        "references",
        None,
        "explicit:wikilink",
    );
}

#[test]
fn demo_vault_chunks_form_next_prev_chains() {
    let run = dry_run(&demo_vault(), &[]);
    let owner = run.note_id("Projekt Mindnet");
    let chunks: Vec<Value> = run
        .chunks()
        .into_iter()
        .filter(|c| c["note_id"] == owner.as_str())
        .collect();
    assert!(
        chunks.len() >= 4,
        "Projekt Mindnet should have several chunks"
    );
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c["ord"], i + 1);
        assert_eq!(c["chunk_id"], format!("{owner}#c{:02}", i + 1));
    }
    let edges = run.edges();
    let structure = |src: &Value, dst: &str, kind: &str| {
        let found: Vec<&Value> = edges
            .iter()
            .filter(|e| e["source_id"] == *src && e["target_id"] == dst && e["kind"] == kind)
            .collect();
        assert_eq!(found.len(), 1, "{src} -{kind}-> {dst}");
        assert_payload(found[0], "structure", &format!("structure:{kind}"), 1.0);
    };
    for pair in chunks.windows(2) {
        structure(
            &pair[0]["chunk_id"],
            pair[1]["chunk_id"].as_str().unwrap(),
            "next",
        );
        structure(
            &pair[1]["chunk_id"],
            pair[0]["chunk_id"].as_str().unwrap(),
            "prev",
        );
        assert_eq!(pair[0]["neighbors_next"][0], pair[1]["chunk_id"]);
        assert_eq!(pair[1]["neighbors_prev"][0], pair[0]["chunk_id"]);
    }
    for c in &chunks {
        structure(&c["chunk_id"], &owner, "belongs_to");
    }
}

/// Causal readings of the edges between notes: `a -> b` when a led to b.
fn causal_forward(run: &DryRun) -> BTreeSet<(String, String)> {
    let chunk_note = |id: &str| id.split("#c").next().unwrap().to_string();
    let mut out = BTreeSet::new();
    for e in run.edges() {
        let (src, dst) = (
            chunk_note(e["source_id"].as_str().unwrap()),
            e["target_id"].as_str().unwrap().to_string(),
        );
        if e["provenance"] != "explicit" {
            continue;
        }
        match e["kind"].as_str().unwrap() {
            "resulted_in" => {
                out.insert((src, dst));
            }
            "caused_by" | "derived_from" => {
                out.insert((dst, src));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn demo_vault_holds_two_causal_chains_of_four_hops() {
    let run = dry_run(&demo_vault(), &[]);
    let causal = causal_forward(&run);
    let chains: [&[&str]; 2] = [
        &[
            "Jahresabschluss-Marathon 2023",
            "Erschöpfung im Frühjahr 2023",
            "Wechsel in die Softwareentwicklung",
            "Neustart als Junior-Entwickler",
            "Energie vor Status",
        ],
        &[
            "Suchfrust in alten Notizen",
            "Eigenes Wissenssystem bauen",
            "Qdrant als Vektordatenbank",
            "Hybride Suche läuft lokal",
            "Lokal zuerst",
        ],
    ];
    let types: Vec<(String, String)> = run
        .notes()
        .iter()
        .map(|n| {
            (
                n["title"].as_str().unwrap().to_string(),
                n["type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let type_of = |t: &str| {
        types
            .iter()
            .find(|(n, _)| n == t)
            .map(|(_, ty)| ty.clone())
            .unwrap()
    };
    for chain in chains {
        for hop in chain.windows(2) {
            let pair = (run.note_id(hop[0]), run.note_id(hop[1]));
            assert!(
                causal.contains(&pair),
                "missing causal hop {} -> {}",
                hop[0],
                hop[1]
            );
        }
        assert_eq!(type_of(chain[0]), "experience");
        assert_eq!(type_of(chain[chain.len() - 1]), "principle");
        assert!(chain.iter().any(|t| type_of(t) == "decision"));
        assert!(chain.iter().any(|t| type_of(t) == "state"));
    }
}

#[test]
fn demo_vault_covers_statuses_skips_and_unresolved_links() {
    let run = dry_run(&demo_vault(), &[]);
    assert_eq!(run.stderr, "", "the demo vault imports without warnings");
    let notes = run.notes();
    assert!(notes.len() >= 40, "{} notes", notes.len());
    let statuses: BTreeSet<&str> = notes
        .iter()
        .map(|n| n["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        BTreeSet::from(["active", "archived", "draft", "stable"])
    );
    let paths: BTreeSet<&str> = notes.iter().map(|n| n["path"].as_str().unwrap()).collect();
    for hidden in [
        "_System/Dashboard.md",
        "Vorlagen/Vorlage Entscheidung.md",
        "Privat/Tagebuch privat.md",
        ".trash/Alte Idee.md",
    ] {
        assert!(!paths.contains(hidden), "{hidden} must not be indexed");
    }
    let summary = run.summary();
    let skipped: Vec<&str> = summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        skipped,
        vec!["Vorlagen/Vorlage Entscheidung.md", "_System/Dashboard.md"]
    );
    assert_eq!(summary["notes"], notes.len());
    assert_eq!(summary["chunks"], run.chunks().len());
    assert_eq!(summary["edges"], run.edges().len());

    // The one link that stays unresolved keeps its raw title.
    let unresolved: Vec<Value> = run
        .edges()
        .into_iter()
        .filter(|e| e["resolved"] == false)
        .collect();
    assert!(!unresolved.is_empty());
    assert!(
        unresolved
            .iter()
            .all(|e| e["target_id"] == "Gespräch mit Mentorin 2025"),
        "{unresolved:#?}"
    );
    assert_eq!(summary["unresolved"], unresolved.len());

    // Registry values are mirrored into notes and chunks; a hub and an open question exist.
    let types: BTreeSet<&str> = notes.iter().map(|n| n["type"].as_str().unwrap()).collect();
    for t in [
        "insight",
        "open_question",
        "experience",
        "decision",
        "state",
        "principle",
        "value",
    ] {
        assert!(types.contains(t), "{t}");
    }
    let decision = notes.iter().find(|n| n["type"] == "decision").unwrap();
    assert_eq!(decision["retriever_weight"].as_f64(), Some(1.0));
    for c in run.chunks() {
        let note = notes.iter().find(|n| n["note_id"] == c["note_id"]).unwrap();
        assert_eq!(c["retriever_weight"], note["retriever_weight"]);
        assert_eq!(c["type"], note["type"]);
        assert_eq!(c["status"], note["status"]);
    }
    // Links inside code are not edges (the Rust note has `[[Projekt Mindnet]]` in a code block only once).
    let rust = run.note_id("Rust statt Python für den Kern");
    let mindnet = run.note_id("Projekt Mindnet");
    let refs = run
        .edges()
        .into_iter()
        .filter(|e| {
            e["note_id"] == rust.as_str()
                && e["target_id"] == mindnet.as_str()
                && e["kind"] == "references"
        })
        .count();
    assert_eq!(refs, 1);
}

#[test]
fn human_summary_is_readable() {
    let out = common::mindnet(&["import", demo_vault().to_str().unwrap(), "--dry-run"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("notes"), "{text}");
    assert!(text.contains("indexed, 2 skipped"), "{text}");
    assert!(text.contains("unresolved"), "{text}");
}

#[test]
fn a_title_is_the_file_name_and_an_h1_never_names_a_note() {
    let run = dry_run(&demo_vault(), &[]);
    let notes = run.notes();
    let journal = notes
        .iter()
        .find(|n| n["path"] == "Journal/2025-01-20.md")
        .unwrap();
    assert_eq!(journal["title"], "2025-01-20");
    assert!(
        notes.iter().all(|n| n["title"] != "20. Januar 2025"),
        "the H1 is a heading, not a title"
    );
    // Its chunks still carry the H1 in their section path.
    assert!(
        run.chunks()
            .iter()
            .filter(|c| c["note_id"] == journal["note_id"])
            .any(|c| c["text"]
                .as_str()
                .unwrap_or_default()
                .contains("20. Januar 2025")),
        "the H1 is embedded with the text"
    );
}
