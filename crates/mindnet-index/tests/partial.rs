//! A partial sync (the watcher's and the server's, one changed file) must
//! leave the same edges as a full import of the same vault: a note that
//! gets a new title is mentioned by notes that did not change.

use mindnet_ingest::{Config, ImportOptions};
use mindnet_store::{EmbeddedStore, ModelInfo, Store};
use mindnet_testkit::Words;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::RwLock;

const DIM: usize = 16;

fn model() -> ModelInfo {
    ModelInfo {
        name: format!("words:{DIM}"),
        dim: DIM,
    }
}

fn sync(vault: &Path, store: &RwLock<EmbeddedStore>, only: Option<&str>) {
    let opts = mindnet_index::SyncOptions {
        only: only.map(|p| BTreeSet::from([p.to_string()])),
        ..Default::default()
    };
    mindnet_index::sync(
        vault,
        &Config::builtin(),
        &ImportOptions::default(),
        store,
        &Words::new(DIM),
        &opts,
        &(),
    )
    .unwrap();
}

/// Every edge as (owner, kind, target, provenance), comparable across stores.
fn edges(store: &RwLock<EmbeddedStore>) -> BTreeSet<String> {
    let s = store.read().unwrap();
    let mut out = BTreeSet::new();
    for n in s.note_states().unwrap() {
        for e in s.edges_of(&n.note_id).unwrap() {
            out.insert(format!(
                "{} {} {} {}",
                e.note_id,
                e.kind,
                e.target_id,
                e.provenance.as_str()
            ));
        }
    }
    out
}

fn open(dir: &Path, name: &str) -> RwLock<EmbeddedStore> {
    RwLock::new(EmbeddedStore::open(&dir.join(name), &model(), "de").unwrap())
}

#[test]
fn a_new_note_is_mentioned_by_notes_that_did_not_change() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("vault");
    std::fs::create_dir_all(&v).unwrap();
    std::fs::write(
        v.join("Migration.md"),
        "# Migration\n\nDie Migration gehörte zu Projekt Atlas und dauerte zwei Jahre.\n",
    )
    .unwrap();
    std::fs::write(v.join("Weber.md"), "# Weber\n\nWeber leitete sie.\n").unwrap();
    let partial = open(dir.path(), "partial");
    sync(&v, &partial, None);
    assert!(
        !edges(&partial).iter().any(|e| e.ends_with(" mention")),
        "no note is called Projekt Atlas yet: {:?}",
        edges(&partial)
    );

    std::fs::write(
        v.join("Projekt Atlas.md"),
        "# Projekt Atlas\n\nDas Projekt der Jahre 2021 bis 2023.\n",
    )
    .unwrap();
    sync(&v, &partial, Some("Projekt Atlas.md"));
    let full = open(dir.path(), "full");
    sync(&v, &full, None);
    let after = edges(&partial);
    assert!(
        after.iter().any(|e| e.ends_with(" mention")),
        "Migration mentions the new note: {after:?}"
    );
    assert_eq!(after, edges(&full));
}
