//! `ARCHITECTURE.md`'s table of crates and what each depends on is the
//! workspace's as `cargo metadata` reads it: a new dependency between our
//! crates fails here until the architecture says it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

type Graph = BTreeMap<String, Vec<String>>;

/// The normal dependencies among our crates, without the `mindnet-` prefix.
fn workspace() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let short = |name: &str| name.trim_start_matches("mindnet-").to_string();
    let mut graph = Graph::new();
    for p in meta["packages"].as_array().unwrap() {
        let mut deps: Vec<String> = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|n| n.starts_with("mindnet-"))
            .map(short)
            .collect();
        deps.sort();
        graph.insert(short(p["name"].as_str().unwrap()), deps);
    }
    graph
}

/// The table between `<!-- crates -->` and `<!-- /crates -->`: one row a
/// crate, `| crate | its dependencies |` (`-` for none).
fn documented() -> Graph {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ARCHITECTURE.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text
        .find("<!-- crates -->")
        .expect("ARCHITECTURE.md has no <!-- crates -->");
    let end = text.find("<!-- /crates -->").expect("no <!-- /crates -->");
    let mut graph = Graph::new();
    for line in text[start..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, name, deps, ..] = cells.as_slice() else {
            continue;
        };
        let name = name.trim_matches('`');
        if name.is_empty() || name == "crate" || name.starts_with("---") {
            continue;
        }
        let mut deps: Vec<String> = deps
            .split(',')
            .map(|d| d.trim().trim_matches('`').to_string())
            .filter(|d| !d.is_empty() && d != "-")
            .collect();
        deps.sort();
        graph.insert(name.to_string(), deps);
    }
    graph
}

#[test]
fn the_architecture_names_every_dependency_between_our_crates() {
    assert_eq!(documented(), workspace());
}
