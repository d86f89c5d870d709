//! Issue 12: `mindnet tune` learns from the feedback log. The log is
//! generated here from the gold labels of HotpotQA questions (ratings 5 for
//! gold notes, 1 for the others, 15 % of them replaced by noise), on a real
//! use-m3 index, starting from deliberately poor weights; the held-out folds
//! must gain.

mod common;

use common::{copy_dir, import_m3, mindnet};
use mindnet_core::rng::Rng;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/hotpotqa-100")
}

const POOR: &str = "  edge: 1.5         # W_edge";

#[test]
fn tune_learns_from_a_noisy_feedback_log_and_gains_on_held_out_folds() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("vault");
    std::fs::create_dir_all(&v).unwrap();
    copy_dir(&data().join("vault"), &v);
    import_m3(&v);
    // Poor weights: a heavy edge bonus, no lexical share, no damping.
    let builtin = mindnet_retrieve::config::DEFAULT_YAML;
    let poor = builtin
        .lines()
        .map(|l| {
            let key = l.trim_start().split(':').next().unwrap_or_default();
            match key {
                "edge" if l.starts_with("  edge:") => POOR.to_string(),
                "centrality" => "  centrality: 1.0".to_string(),
                "lexical_share" if !l.starts_with(' ') => "lexical_share: 0.0".to_string(),
                "hub_damping" => "  hub_damping: 0.0".to_string(),
                "lift_limit" => "  lift_limit: 0.0".to_string(),
                _ => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let active = dir.path().join("retriever.yaml");
    std::fs::write(&active, &poor).unwrap();
    let act = active.to_str().unwrap();
    let vs = v.to_str().unwrap();

    // Ask 60 questions through the CLI (the search history logs them).
    let questions: Vec<Value> = std::fs::read_to_string(data().join("questions.jsonl"))
        .unwrap()
        .lines()
        .take(60)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let batch = dir.path().join("q.jsonl");
    let mut f = std::fs::File::create(&batch).unwrap();
    for q in &questions {
        writeln!(
            f,
            "{}",
            serde_json::json!({"id": q["id"], "question": q["question"]})
        )
        .unwrap();
    }
    drop(f);
    let out = mindnet(&[
        "query",
        "--vault",
        vs,
        "--retriever",
        act,
        "--batch",
        batch.to_str().unwrap(),
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
    assert_eq!(results.len(), questions.len());

    // Rate every hit from the gold labels, with noise.
    let mut rng = Rng::new(7);
    let mut log = String::new();
    for (q, r) in questions.iter().zip(&results) {
        let gold: Vec<&str> = q["gold"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for h in r["hits"].as_array().unwrap() {
            let name = Path::new(h["path"].as_str().unwrap())
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            let mut score = if gold.contains(&name.as_str()) { 5 } else { 1 };
            if rng.chance(0.15) {
                score = 1 + rng.below(5);
            }
            log.push_str(
                &serde_json::json!({
                    "query_id": r["query_id"], "node_id": h["chunk_id"], "score": score,
                    "comment": null, "timestamp": "2026-12-01T12:00:00Z"
                })
                .to_string(),
            );
            log.push('\n');
        }
    }
    let logs = v.join(".mindnet").join("logs");
    std::fs::write(logs.join("feedback.jsonl"), log).unwrap();

    let proposal = dir.path().join("proposal.yaml");
    let out = mindnet(&[
        "tune",
        "--feedback",
        vs,
        "--folds",
        "3",
        "--retriever",
        act,
        "--out",
        proposal.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let before = report["held_out_before"].as_f64().unwrap();
    let after = report["held_out_after"].as_f64().unwrap();
    assert!(
        after > before + 0.005,
        "held-out {before} → {after}: {report:#}"
    );
    // A search none of whose hits was rated 4 or 5 has no gold: left out.
    let n = report["sets"][0]["questions"].as_u64().unwrap();
    assert!((50..=60).contains(&n), "{n} rated searches");
    // A proposal is written; the active file is untouched without --write.
    let text = std::fs::read_to_string(&proposal).unwrap();
    mindnet_retrieve::RetrieverConfig::from_yaml(&proposal, &text).unwrap();
    assert_eq!(std::fs::read_to_string(&active).unwrap(), poor);
    assert_ne!(text, poor);
}
