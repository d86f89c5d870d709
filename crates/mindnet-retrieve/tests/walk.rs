//! The causal walk on a small real store (embedded Qdrant in a temp dir),
//! with a deterministic test embedder (hashed words): milliseconds, no model.

use mindnet_ingest::{Config, ImportOptions};
use mindnet_retrieve::causal::{DecisionEngine, PathNote};
use mindnet_retrieve::{Query, QueryResult, Retriever, RetrieverConfig};
use mindnet_store::{EmbeddedStore, ModelInfo};
use mindnet_testkit::Words;
use std::path::Path;
use std::sync::RwLock;

const DIM: usize = 64;

fn note(root: &Path, name: &str, ty: &str, body: &str) {
    std::fs::write(
        root.join(format!("{name}.md")),
        format!("---\ntype: {ty}\n---\n# {name}\n\n{body}\n"),
    )
    .unwrap();
}

/// Fields drop in order: the store is closed before its folder goes.
struct Fixture {
    store: EmbeddedStore,
    config: Config,
    embedder: Words,
    _dir: tempfile::TempDir,
}

/// Regen im Mai → Nasse Keller → Pumpe kaufen → { Trockener Keller →
/// Vorsorge | Stromkosten }, and an unlinked note that shares the words.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("v");
    std::fs::create_dir_all(&vault).unwrap();
    note(
        &vault,
        "Regen im Mai",
        "experience",
        "Drei Wochen Regen im Mai. [[rel:resulted_in Nasse Keller]]",
    );
    note(
        &vault,
        "Nasse Keller",
        "state",
        "Der Keller stand unter Wasser.",
    );
    note(
        &vault,
        "Pumpe kaufen",
        "decision",
        "Ich kaufte eine Pumpe. [[rel:caused_by Nasse Keller]]",
    );
    note(
        &vault,
        "Trockener Keller",
        "state",
        "Seitdem ist alles trocken. [[rel:caused_by Pumpe kaufen]]",
    );
    note(
        &vault,
        "Stromkosten",
        "state",
        "Die Rechnung stieg um zwölf Euro. [[rel:caused_by Pumpe kaufen]]",
    );
    note(
        &vault,
        "Vorsorge",
        "principle",
        "Vorsorge statt Reparatur. [[rel:derived_from Trockener Keller]]",
    );
    note(
        &vault,
        "Kellerregal",
        "concept",
        "Ein Regal für den Keller, gegen Wasser, Regen und eine Pumpe.",
    );
    let embedder = Words::new(DIM);
    let model = ModelInfo {
        name: format!("words:{DIM}"),
        dim: DIM,
    };
    let store = EmbeddedStore::open(&dir.path().join("data"), &model, "de").unwrap();
    let config = Config::builtin();
    let lock = RwLock::new(store);
    mindnet_index::sync(
        &vault,
        &config,
        &ImportOptions::default(),
        &lock,
        &embedder,
        &Default::default(),
        &(),
    )
    .unwrap();
    Fixture {
        store: lock.into_inner().unwrap(),
        config,
        embedder,
        _dir: dir,
    }
}

fn ask(f: &Fixture, text: &str) -> QueryResult {
    let retriever_config = RetrieverConfig::builtin();
    let engine = DecisionEngine::builtin();
    let r = Retriever::new(
        &f.store,
        &f.embedder,
        &f.config.vocab,
        &f.config.registry.causal,
        &retriever_config,
        &engine,
    )
    .unwrap();
    r.query(&Query::new(text)).unwrap()
}

fn titles(v: &[PathNote]) -> Vec<&str> {
    v.iter().map(|n| n.title.as_str()).collect()
}

#[test]
fn why_paths_end_at_the_note_asked_about_and_effects_show_every_branch() {
    let t = std::time::Instant::now();
    let f = fixture();

    let why = ask(&f, "Warum habe ich die Pumpe gekauft?");
    assert_eq!(why.intent, "why");
    let c = why.causal.unwrap();
    let top = titles(&c.paths[0].notes);
    assert_eq!(
        top,
        ["Regen im Mai", "Nasse Keller", "Pumpe kaufen"],
        "{:#?}",
        c.paths
    );

    let effects = ask(&f, "Was folgte aus Pumpe kaufen?");
    assert_eq!(effects.intent, "consequence");
    let c = effects.causal.unwrap();
    assert_eq!(c.paths[0].notes[0].title, "Pumpe kaufen");
    let shown: Vec<&str> = c.subgraph.nodes.iter().map(|n| n.title.as_str()).collect();
    for branch in ["Trockener Keller", "Stromkosten", "Vorsorge"] {
        assert!(shown.contains(&branch), "{branch} missing from {shown:?}");
    }
    assert!(
        !shown.contains(&"Regen im Mai"),
        "a cause is not an effect: {shown:?}"
    );
    // A note that only shares the words never joins a causal path.
    assert!(
        c.paths
            .iter()
            .all(|p| p.notes.iter().all(|n| n.title != "Kellerregal"))
    );
    eprintln!("walk test: {:.0} ms", t.elapsed().as_secs_f64() * 1000.0);
}
