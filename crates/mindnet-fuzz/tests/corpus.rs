//! Replays, through every fuzz target: the malformed-input corpus
//! (`tests/malformed/`, each entry listed with what it guards against), the
//! seeds of the afl runs (`fuzz/seeds/`), the example vault, the parser
//! fixtures and the config files. A crash the fuzzer found is minimised and
//! added to `tests/malformed/`, so it is tested here from then on.

use mindnet_fuzz::Target;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn all_targets(path: &Path) {
    let data = std::fs::read(path).unwrap();
    for t in Target::ALL {
        let result = std::panic::catch_unwind(|| t.run(&data));
        assert!(
            result.is_ok(),
            "{}: the {} target fails",
            path.display(),
            t.name()
        );
    }
}

#[test]
fn every_malformed_entry_is_listed_with_what_it_guards_against() {
    let dir = root().join("tests/malformed");
    let index = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let listed: BTreeSet<String> = index
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` | "))
        .filter(|(_, why)| why.trim_end_matches('|').trim().len() > 10)
        .map(|(name, _)| name.to_string())
        .collect();
    let mut present = Vec::new();
    files(&dir, &mut present);
    let present: BTreeSet<String> = present
        .iter()
        .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    assert!(present.len() >= 20, "{present:?}");
    assert_eq!(
        listed, present,
        "README.md lists exactly the entries, each with a reason"
    );
}

#[test]
fn the_malformed_corpus_passes_every_target() {
    let mut list = Vec::new();
    files(&root().join("tests/malformed"), &mut list);
    for p in list.iter().filter(|p| !p.ends_with("README.md")) {
        all_targets(p);
    }
}

#[test]
fn notes_fixtures_and_configs_pass_every_target() {
    let mut list = Vec::new();
    files(&root().join("examples/vault"), &mut list);
    files(&root().join("tests/data/fixtures"), &mut list);
    files(&root().join("config"), &mut list);
    list.retain(|p| !p.components().any(|c| c.as_os_str() == ".mindnet"));
    assert!(list.len() > 100, "{}", list.len());
    for p in &list {
        all_targets(p);
    }
}

#[test]
fn the_afl_seeds_pass_their_target() {
    for t in Target::ALL {
        let dir = root().join("fuzz/seeds").join(t.name());
        if !dir.is_dir() {
            continue;
        }
        let mut list = Vec::new();
        files(&dir, &mut list);
        for p in &list {
            t.run(&std::fs::read(p).unwrap());
        }
    }
}
