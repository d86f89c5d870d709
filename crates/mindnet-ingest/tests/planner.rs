//! The streamed plan (`Planner`: identities first, then a few notes at a
//! time read again) gives the whole plan's notes, chunks, edges and
//! warnings, on real vaults and on one made of the hard cases: an `id:`
//! two notes claim, a status that is never indexed, links between them.

use mindnet_core::Warning;
use mindnet_ingest::plan::{Planned, Planner};
use mindnet_ingest::{Config, ImportOptions, plan_vault};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn assert_same_plan(vault: &Path, groups: usize) {
    let config = Config::builtin();
    let opts = ImportOptions::default();
    let whole = plan_vault(vault, &config, &opts).unwrap();
    let planner = Planner::new(vault, &config, &opts).unwrap();
    assert_eq!(planner.notes().len(), whole.bundles.len(), "{vault:?}");
    let places: Vec<usize> = (0..planner.notes().len()).collect();
    let mut warnings: Vec<Warning> = planner.plan.warnings.clone();
    let mut bundles = Vec::new();
    // In groups of a few notes, as an import asks for them.
    for group in places.chunks(places.len().div_ceil(groups).max(1)) {
        for planned in planner.bundles(group) {
            match planned {
                Planned::Bundle {
                    bundle,
                    warnings: w,
                } => {
                    bundles.push(*bundle);
                    warnings.extend(w);
                }
                Planned::Unreadable(w) => panic!("{w:?}"),
            }
        }
    }
    warnings.sort();
    warnings.dedup();
    for (streamed, whole) in bundles.iter().zip(&whole.bundles) {
        assert_eq!(streamed, whole, "{}", whole.note.path);
    }
    assert_eq!(bundles.len(), whole.bundles.len());
    assert_eq!(warnings, whole.warnings, "{vault:?}");
    assert_eq!(planner.plan.skipped, whole.skipped, "{vault:?}");
    // The identities are known before any note is planned.
    for (note, b) in planner.notes().zip(&whole.bundles) {
        assert_eq!(
            (&note.note_id, &note.title, &note.path),
            (&b.note.note_id, &b.note.title, &b.note.path)
        );
    }
}

#[test]
fn the_streamed_plan_is_the_whole_plan_on_the_example_vaults() {
    assert_same_plan(&repo().join("examples/vault"), 3);
    assert_same_plan(&repo().join("examples/werkstatt/vault"), 7);
    assert_same_plan(&repo().join("tests/data/hotpotqa-100/vault"), 10);
}

#[test]
fn the_streamed_plan_settles_ids_and_statuses_as_the_whole_plan() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "a.md",
        "---\nid: gemeinsam\n---\n# A\n\nSiehe [[b]] und [[C]].\n",
    );
    write("b.md", "---\nid: gemeinsam\n---\n# B\n\nZurück zu [[a]].\n");
    write("sub/c.md", "---\nstatus: template\n---\nVorlage\n");
    write(
        "d.md",
        "---\nstatus: wackelig\ntype: unbekannt\n---\nText über A.\n",
    );
    write("e.md", "---\ntitle: [kaputt\n---\nText\n");
    assert_same_plan(dir.path(), 2);
}
