//! Smart edge allocation (CHAT-7, IMP-13) on the demo vault with the real
//! model and index: without an LLM the context rule of types.yaml decides;
//! with a real llama-server the LLM does, and its verdicts are cached, so a
//! re-import of every note asks nothing again (the server is gone by then).

mod common;

use common::{copy_dir, demo_vault, mindnet};
use mindnet_store::Store;
use serde_json::Value;
use std::path::Path;

/// Every smart edge of the index: (source note title, target title, rule).
fn smart_edges(vault: &Path) -> Vec<(String, String, String)> {
    let store = mindnet_store::EmbeddedStore::open_existing(&vault.join(".mindnet")).unwrap();
    let titles: std::collections::HashMap<String, String> = store
        .payloads("notes")
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["note_id"].as_str().unwrap().to_string(),
                m["title"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut out: Vec<(String, String, String)> = store
        .payloads("edges")
        .unwrap()
        .iter()
        .filter(|m| m["provenance"] == "smart")
        .map(|m: &serde_json::Map<String, Value>| {
            assert!(m["scope"] == "chunk" && m["resolved"] == true);
            (
                titles[m["note_id"].as_str().unwrap()].clone(),
                titles[m["target_id"].as_str().unwrap()].clone(),
                m["rule_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn import(vault: &Path, env: &[(&str, &str)], extra: &[&str]) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args([
            "import",
            vault.to_str().unwrap(),
            "--embedder",
            "use-m3",
            "--json",
        ])
        .args(extra)
        .env_remove("MINDNET_LLM_URL")
        .env_remove("MINDNET_OLLAMA_URL")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn without_an_llm_links_in_prose_become_smart_edges_and_navigation_does_not() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import(dir.path(), &[], &[]);
    let edges = smart_edges(dir.path());
    // Only notes of types that enable it (decision, experience).
    assert!(
        edges.iter().all(|(_, _, rule)| rule == "smart:similarity"),
        "{edges:?}"
    );
    assert!(
        edges.contains(&(
            "Qdrant als Vektordatenbank".into(),
            "Vektordatenbank".into(),
            "smart:similarity".into()
        )),
        "{edges:?}"
    );
    // `- Gute Dokumentation: [[Qdrant Dokumentation]].` is a list of links.
    assert!(
        !edges
            .iter()
            .any(|(s, t, _)| s == "Qdrant als Vektordatenbank" && t == "Qdrant Dokumentation")
    );
    // A concept note links plainly: no smart edges from it.
    assert!(!edges.iter().any(|(s, _, _)| s == "Wissensgraph"));
    // The same vault, the same smart edges; nothing looks changed.
    let again = import(dir.path(), &[], &["--purge-before-upsert"]);
    assert_eq!(smart_edges(dir.path()), edges);
    let plain = import(dir.path(), &[], &[]);
    assert_eq!(
        plain["changed"].as_u64().unwrap() + plain["relinked"].as_u64().unwrap(),
        0,
        "{plain} {again}"
    );
    let _ = mindnet(&["check", dir.path().to_str().unwrap()]);
}

#[test]
fn with_an_llm_the_llm_judges_once_and_a_reimport_asks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    let Some(llama) =
        common::llama_server("with_an_llm_the_llm_judges_once_and_a_reimport_asks_nothing")
    else {
        return;
    };
    let url = llama.url.clone();
    let env = [
        ("MINDNET_LLM_URL", url.as_str()),
        ("MINDNET_LLM_MODEL", "smollm2"),
    ];
    let first = import(dir.path(), &env, &[]);
    let edges = smart_edges(dir.path());
    let judged = first["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["message"].as_str().unwrap_or("").contains("not judged"))
        .count();
    assert_eq!(judged, 0, "{first}");
    // The verdicts are the LLM's (whatever they are); each kept link is smart:llm.
    assert!(edges.iter().all(|(_, _, r)| r == "smart:llm"), "{edges:?}");
    let verdicts: serde_json::Map<String, Value> = serde_json::from_slice(
        &std::fs::read(dir.path().join(".mindnet/smart_verdicts.json")).unwrap(),
    )
    .unwrap();
    assert!(verdicts.len() >= 10, "{}", verdicts.len());
    // The server goes away; every note is written again from the cache.
    drop(llama);
    let again = import(dir.path(), &env, &["--purge-before-upsert"]);
    let problems: Vec<&Value> = again["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["message"].as_str().unwrap_or("").contains("smart"))
        .collect();
    assert!(problems.is_empty(), "asked the LLM again: {problems:?}");
    assert_eq!(smart_edges(dir.path()), edges);
}
