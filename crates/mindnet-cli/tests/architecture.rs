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

/// Every requirement id the repository cites (`STO-3`, `RET-2`, …) is
/// defined in `docs/requirements.md` (as `**STO-3**`), so a reader of a
/// clone can look it up.
#[test]
fn every_requirement_id_cited_is_defined() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let defined = std::fs::read_to_string(root.join("docs/requirements.md")).unwrap();
    let mut files = vec![root.join("ARCHITECTURE.md"), root.join("README.md")];
    for dir in ["crates", "config", "docs"] {
        collect(&root.join(dir), &mut files);
    }
    let mut missing = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for id in ids(&text) {
            if !defined.contains(&format!("**{id}**")) {
                missing.push(format!("{}: {id}", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in docs/requirements.md: {missing:#?}"
    );
}

const PREFIXES: &[&str] = &[
    "IMP", "STO", "RET", "CAU", "LNT", "CHAT", "FB", "API", "UI", "WP",
];

/// The ids in `text`: a known prefix, `-`, digits, standing alone.
fn ids(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for prefix in PREFIXES {
        let needle = format!("{prefix}-");
        let mut from = 0;
        while let Some(at) = text[from..].find(&needle) {
            let start = from + at;
            from = start + needle.len();
            let before = start.checked_sub(1).map(|i| bytes[i]);
            if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
                continue;
            }
            let digits: String = text[from..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if !digits.is_empty() {
                out.push(format!("{needle}{digits}"));
            }
        }
    }
    out
}

/// The source, configuration and documentation files under `dir`.
fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == "data" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(&path, files);
        } else if path
            .extension()
            .is_some_and(|e| e == "rs" || e == "md" || e == "yaml")
        {
            files.push(path);
        }
    }
}
