//! Issue 5 acceptance: causal retrieval on `examples/vault` with the judged
//! questions of `examples/questions/causal.jsonl` (real use-m3 index).

mod common;

use common::{copy_dir, demo_vault, mindnet};
use mindnet_retrieve::eval::contains_in_order;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn questions_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/questions/causal.jsonl")
}

fn questions() -> Vec<Value> {
    std::fs::read_to_string(questions_file())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every judged question answered once (`--batch`), by id.
fn answers() -> &'static Vec<(Value, Value)> {
    static ANSWERS: OnceLock<(tempfile::TempDir, Vec<(Value, Value)>)> = OnceLock::new();
    &ANSWERS
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let v = dir.path();
            copy_dir(&demo_vault(), v);
            let out = mindnet(&["import", v.to_str().unwrap(), "--embedder", "use-m3"]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let out = mindnet(&[
                "query",
                "--vault",
                v.to_str().unwrap(),
                "--batch",
                questions_file().to_str().unwrap(),
            ]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let results: Vec<Value> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let qs = questions();
            assert_eq!(results.len(), qs.len());
            (dir, qs.into_iter().zip(results).collect())
        })
        .1
}

fn titles(path: &Value) -> Vec<String> {
    path["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["title"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_judged_set_is_large_enough() {
    let qs = questions();
    assert!(qs.len() >= 25);
    for intent in ["why", "consequence", "development"] {
        assert!(qs.iter().any(|q| q["intent"] == intent), "{intent}");
    }
    for lang in ["de", "en"] {
        assert!(qs.iter().any(|q| q["lang"] == lang), "{lang}");
    }
}

#[test]
fn every_intent_is_recognised() {
    for (q, r) in answers() {
        assert_eq!(r["intent"], q["intent"], "{}", q["question"]);
        assert_eq!(r["id"], q["id"]);
    }
}

#[test]
fn the_top_path_of_every_why_question_holds_its_gold_chain_in_order() {
    let mut misses = Vec::new();
    for (q, r) in answers().iter().filter(|(q, _)| q["intent"] == "why") {
        let gold: Vec<String> = serde_json::from_value(q["gold_chain"].clone()).unwrap();
        let top = titles(&r["paths"][0]);
        if !contains_in_order(&top, &gold) {
            misses.push(format!(
                "{}: top path {top:?}, gold {gold:?}",
                q["question"]
            ));
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

#[test]
fn no_open_question_is_ever_on_a_path() {
    for (_, r) in answers() {
        for p in r["paths"].as_array().into_iter().flatten() {
            for n in p["notes"].as_array().unwrap() {
                let t = n["type"].as_str().unwrap();
                assert!(
                    !matches!(t, "open_question" | "hypothesis" | "white_spot"),
                    "{} on a path of {}",
                    n["title"],
                    r["query"]
                );
            }
        }
        for n in r["subgraph"]["nodes"].as_array().into_iter().flatten() {
            assert_ne!(n["type"], "open_question");
        }
    }
}

#[test]
fn paths_and_subgraph_are_consistent() {
    for (_, r) in answers() {
        let paths = r["paths"].as_array().unwrap();
        assert!(!paths.is_empty(), "{}", r["query"]);
        for p in paths {
            let b = &p["score_breakdown"];
            let total = b["alpha"].as_f64().unwrap() * b["semantic"].as_f64().unwrap()
                + b["beta"].as_f64().unwrap() * b["coherence"].as_f64().unwrap()
                + b["gamma"].as_f64().unwrap() * b["shape_match"].as_f64().unwrap();
            assert!((total - p["score"].as_f64().unwrap()).abs() < 1e-9);
            let notes = titles(p);
            assert_eq!(p["steps"].as_array().unwrap().len() + 1, notes.len().max(1));
        }
        let nodes = r["subgraph"]["nodes"].as_array().unwrap();
        assert!(nodes.len() <= 10);
        let ids: Vec<&Value> = nodes.iter().map(|n| &n["note_id"]).collect();
        for e in r["subgraph"]["edges"].as_array().unwrap() {
            assert!(ids.contains(&&e["from"]) && ids.contains(&&e["to"]));
            assert!(e["kind"].is_string());
        }
    }
}

#[test]
fn a_causal_cycle_terminates() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    std::fs::write(
        v.join("Henne.md"),
        "---\ntype: state\n---\n# Henne\n\nDie Henne legt Eier. [[rel:caused_by Ei]]\n",
    )
    .unwrap();
    std::fs::write(
        v.join("Ei.md"),
        "---\ntype: state\n---\n# Ei\n\nAus dem Ei schlüpft ein Küken. [[rel:caused_by Henne]]\n",
    )
    .unwrap();
    let vs = v.to_str().unwrap();
    let out = mindnet(&["import", vs, "--embedder", "use-m3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = mindnet(&[
        "ask",
        "--vault",
        vs,
        "--format",
        "json",
        "Warum gibt es die Henne?",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    for p in r["paths"].as_array().unwrap() {
        let notes = titles(p);
        let mut unique = notes.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            notes.len(),
            "no note twice on a path: {notes:?}"
        );
    }
    let out = mindnet(&[
        "ask",
        "--vault",
        vs,
        "--format",
        "mermaid",
        "Warum gibt es die Henne?",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("```mermaid\ngraph LR\n"), "{text}");
    assert!(text.contains("-->|"), "{text}");
}

/// A vocabulary that adds a causal kind (`triggers`, with a German alias and
/// no inverse) in the vault's own config folder: `ask`, `chain` and `lint`
/// all read it as causal, in the same direction.
#[test]
fn a_causal_kind_added_to_the_vocabulary_is_followed_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    let config = v.join(".mindnet").join("config");
    std::fs::create_dir_all(&config).unwrap();
    let vocab = mindnet_core::vocab::DEFAULT_YAML.replacen(
        "kinds:\n",
        "kinds:\n  triggers:\n    description: \"A löst B aus.\"\n    aliases: [löst_aus]\n    causal: true\n",
        1,
    );
    std::fs::write(config.join("edge_vocabulary.yaml"), vocab).unwrap();
    let note = |path: &str, ty: &str, body: &str| {
        let p = v.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let title = Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_string();
        std::fs::write(p, format!("---\ntype: {ty}\n---\n# {title}\n\n{body}\n")).unwrap();
    };
    note(
        "Erfahrungen/Stromausfall im Januar.md",
        "experience",
        "Zwei Tage ohne Strom, die Heizung fiel aus. [[rel:löst_aus Notstromaggregat kaufen]]\n\n[[rel:triggers Vorsorge schlägt Reue]]",
    );
    note(
        "Entscheidungen/Notstromaggregat kaufen.md",
        "decision",
        "Ein kleines Aggregat für Heizung und Kühlschrank. [[rel:triggers Vorsorge schlägt Reue]]",
    );
    note(
        "Prinzipien/Vorsorge schlägt Reue.md",
        "principle",
        "Lieber vorher ein wenig Aufwand als nachher großer Schaden.",
    );
    let vs = v.to_str().unwrap();

    // lint: no unknown kind; the experience → principle link is a gap.
    let out = mindnet(&["lint", vs, "--json"]);
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        findings.iter().all(|f| f["rule"] != "edge/unknown-kind"),
        "{findings:#?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f["rule"] == "chain/gap"
                && f["path"] == "Erfahrungen/Stromausfall im Januar.md"),
        "{findings:#?}"
    );

    // chain: the principle's causes, two steps back.
    let out = mindnet(&[
        "chain",
        "--vault",
        vs,
        "Vorsorge schlägt Reue",
        "--backward",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Notstromaggregat kaufen") && text.contains("Stromausfall im Januar"),
        "{text}"
    );

    // ask: the why path runs cause first to the principle.
    common::import_m3(v);
    let out = mindnet(&[
        "ask",
        "--vault",
        vs,
        "--format",
        "json",
        "Warum gilt für mich Vorsorge schlägt Reue?",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = titles(&r["paths"][0]);
    assert_eq!(
        top.last().map(String::as_str),
        Some("Vorsorge schlägt Reue"),
        "{top:?}"
    );
    assert!(top.iter().any(|t| t == "Stromausfall im Januar"), "{top:?}");
    assert!(
        r["paths"][0]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["kind"] == "triggers"),
        "{}",
        r["paths"][0]
    );
}
