//! Runs the real `mindnet` binary and reads its JSON Lines.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn demo_vault() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault")
}

/// Copies a folder tree (a vault) into `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let dst = to.join(p.file_name().unwrap());
        if p.is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
            copy_dir(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}

pub fn mindnet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(args)
        .env_remove("MINDNET_TYPES_FILE")
        .env_remove("MINDNET_EDGE_VOCABULARY_FILE")
        .output()
        .expect("the mindnet binary runs")
}

pub struct DryRun {
    pub records: Vec<Value>,
    pub stdout: String,
    pub stderr: String,
}

impl DryRun {
    pub fn of(kind: &str, r: &[Value]) -> Vec<Value> {
        r.iter().filter(|v| v["record"] == kind).cloned().collect()
    }

    pub fn notes(&self) -> Vec<Value> {
        Self::of("note", &self.records)
    }

    pub fn chunks(&self) -> Vec<Value> {
        Self::of("chunk", &self.records)
    }

    pub fn edges(&self) -> Vec<Value> {
        Self::of("edge", &self.records)
    }

    pub fn summary(&self) -> Value {
        let last = self.records.last().expect("a summary record").clone();
        assert_eq!(last["record"], "summary");
        last
    }

    pub fn note_id(&self, title: &str) -> String {
        let notes = self.notes();
        let n = notes
            .iter()
            .find(|n| n["title"] == title)
            .unwrap_or_else(|| panic!("no note titled {title}"));
        n["note_id"].as_str().unwrap().to_string()
    }
}

pub fn dry_run(vault: &Path, extra: &[&str]) -> DryRun {
    let mut args = vec!["import", vault.to_str().unwrap(), "--dry-run", "--json"];
    args.extend_from_slice(extra);
    let out = mindnet(&args);
    let stdout = String::from_utf8(out.stdout).expect("JSON output is UTF-8");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "mindnet failed: {stderr}");
    let records = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}")))
        .collect();
    DryRun {
        records,
        stdout,
        stderr,
    }
}
