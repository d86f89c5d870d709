//! One conformance suite for every `Store`: the embedded store in a temp
//! dir, and the server store against a real Qdrant server (started here from
//! the test binary; skipped with a line saying how to run it when there is
//! none). Both must give the same answers to the same writes: the importer
//! writes through `mindnet_index::sync`, with a deterministic test embedder
//! (hashed words), so no model is needed.

use mindnet_core::{Edge, EdgeVocabulary};
use mindnet_ingest::{Config, ImportOptions};
use mindnet_store::{
    ChunkFilter, EmbeddedStore, ModelInfo, ServerConfig, ServerStore, Store, StoreError,
};
use mindnet_testkit::{QdrantServer, Words};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::RwLock;

const DIM: usize = 32;

fn vector(text: &str) -> Vec<f32> {
    Words::new(DIM).vector(text)
}

fn model() -> ModelInfo {
    ModelInfo {
        name: format!("words:{DIM}"),
        dim: DIM,
    }
}

fn write(vault: &Path, name: &str, ty: &str, body: &str) {
    std::fs::write(
        vault.join(format!("{name}.md")),
        format!("---\ntype: {ty}\n---\n# {name}\n\n{body}\n"),
    )
    .unwrap();
}

fn vault(dir: &Path) -> std::path::PathBuf {
    let v = dir.join("vault");
    std::fs::create_dir_all(&v).unwrap();
    write(
        &v,
        "Regen im Mai",
        "experience",
        "Drei Wochen Regen im Mai. [[rel:resulted_in Nasse Keller]]",
    );
    write(
        &v,
        "Nasse Keller",
        "state",
        "Der Keller stand unter Wasser.",
    );
    write(
        &v,
        "Pumpe kaufen",
        "decision",
        "Ich kaufte eine Pumpe. [[rel:caused_by Nasse Keller]] Siehe auch [[Gibt es nicht]].",
    );
    let long: String = (0..60)
        .map(|i| format!("Absatz {i} über Gartenschläuche und Regentonnen im Sommer.\n\n"))
        .collect();
    write(&v, "Garten", "concept", &long);
    v
}

fn sync<S: Store>(
    vault: &Path,
    store: &RwLock<S>,
    sync_deletes: bool,
) -> mindnet_index::SyncReport {
    let embedder = Words::new(DIM);
    let opts = mindnet_index::SyncOptions {
        sync_deletes,
        ..Default::default()
    };
    mindnet_index::sync(
        vault,
        &Config::builtin(),
        &ImportOptions::default(),
        store,
        &embedder,
        &opts,
        &(),
    )
    .unwrap()
}

fn id_of<S: Store>(store: &S, title: &str) -> String {
    store
        .note_states()
        .unwrap()
        .into_iter()
        .find(|s| s.title == title)
        .unwrap_or_else(|| panic!("no note {title}"))
        .note_id
}

/// Every id of the three collections, to compare two stores.
fn ids<S: Store>(store: &S) -> [BTreeSet<String>; 3] {
    ["notes", "chunks", "edges"].map(|c| mindnet_store::ids(store, c).unwrap())
}

/// Stops a sync after its first batch, as a crash or a full disk would.
struct AfterOneBatch(std::sync::atomic::AtomicUsize);

impl mindnet_index::Progress for AfterOneBatch {
    fn advance(&self, _: usize) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    fn stopped(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst) > 0
    }
}

/// An import cut short after one note, as a crash or a full disk would
/// leave it: `check` calls the index clean, says the import is unfinished
/// and counts the edges to notes not written yet; the next import completes
/// it and clears the mark. Three new notes linked in a ring, so the one
/// written first points to one not written.
fn interrupted_import<S: Store>(v: &Path, open: impl Fn() -> S) {
    for (name, link) in [("Alpha", "Beta"), ("Beta", "Gamma"), ("Gamma", "Alpha")] {
        write(v, name, "concept", &format!("Verweist auf [[{link}]]."));
    }
    let store = RwLock::new(open());
    let opts = mindnet_index::SyncOptions {
        batch_notes: 1,
        ..Default::default()
    };
    let cut = mindnet_index::sync(
        v,
        &Config::builtin(),
        &ImportOptions::default(),
        &store,
        &Words::new(DIM),
        &opts,
        &AfterOneBatch(Default::default()),
    );
    assert!(cut.is_err(), "the sync was to stop after one batch");
    let report = mindnet_store::check(
        &*store.read().unwrap(),
        EdgeVocabulary::builtin().structure(),
    )
    .unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert!(report.unfinished_import.is_some());
    assert!(report.pending >= 1, "{report:?}");
    drop(store);
    let store = RwLock::new(open());
    assert!(
        store.read().unwrap().meta().import_started.is_some(),
        "the mark is durable"
    );
    sync(v, &store, false);
    let report = mindnet_store::check(
        &*store.read().unwrap(),
        EdgeVocabulary::builtin().structure(),
    )
    .unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!((report.unfinished_import, report.pending), (None, 0));
}

/// The whole suite on one backend; `open` opens the same index again.
fn conformance<S: Store>(dir: &Path, open: impl Fn() -> S) {
    let v = vault(dir);
    let store = RwLock::new(open());

    // Write, then read back.
    let first = sync(&v, &store, false);
    assert_eq!(first.new, 4, "{first:?}");
    let s = store.read().unwrap();
    let counts = s.counts().unwrap();
    assert_eq!(counts.notes, 4);
    assert!(
        counts.chunks >= 5,
        "the long note has several chunks: {counts:?}"
    );
    assert_eq!(counts.unresolved, 1, "[[Gibt es nicht]]: {counts:?}");
    assert_eq!(s.meta().model, model());
    let keller = id_of(&*s, "Nasse Keller");
    let pumpe = id_of(&*s, "Pumpe kaufen");
    let garten = id_of(&*s, "Garten");
    let note = s.note(&pumpe).unwrap().expect("the note");
    assert_eq!(note.title, "Pumpe kaufen");
    assert_eq!(note.note_type, "decision");
    assert!(s.note("no-such-note").unwrap().is_none());
    let chunks = s.chunks_of(&garten).unwrap();
    assert!(chunks.len() >= 2);
    assert!(
        chunks.windows(2).all(|w| w[0].ord < w[1].ord),
        "sorted by ord"
    );
    let owned = s.edges_of(&pumpe).unwrap();
    assert!(
        owned
            .iter()
            .any(|e| e.target_id == keller && e.kind == "caused_by")
    );
    assert!(owned.windows(2).all(|w| w[0].edge_id <= w[1].edge_id));
    let around = s.note_edges(&keller).unwrap();
    let from: BTreeSet<&str> = around.incoming.iter().map(|e| e.note_id.as_str()).collect();
    assert!(from.contains(pumpe.as_str()), "{from:?}");
    assert_eq!(
        s.edges_into(std::slice::from_ref(&keller), &[]).unwrap(),
        around.incoming
    );
    let unresolved = s.unresolved_edges().unwrap();
    assert_eq!(unresolved.len(), 1);
    assert_eq!(unresolved[0].target_id, "Gibt es nicht");

    // The three searches, with and without filters.
    let all = ChunkFilter::default();
    let q = "Der Keller stand unter Wasser";
    let dense = s.search_dense(&vector(q), &all, 3).unwrap();
    assert_eq!(dense[0].note_id, keller, "{dense:?}");
    assert!(dense.windows(2).all(|w| w[0].score >= w[1].score));
    let lexical = s.search_lexical("Pumpe", &all, 3).unwrap();
    assert_eq!(lexical[0].note_id, pumpe, "{lexical:?}");
    assert!(
        s.search_lexical("Quastenflosser", &all, 3)
            .unwrap()
            .is_empty()
    );
    let fused = s
        .search_fused(&vector(q), "Pumpe", &all, 10, 60, 5)
        .unwrap();
    let fused_notes: BTreeSet<&str> = fused.iter().map(|h| h.note_id.as_str()).collect();
    assert!(fused_notes.contains(keller.as_str()) && fused_notes.contains(pumpe.as_str()));
    let only_concepts = ChunkFilter {
        types: vec!["concept".into()],
        ..Default::default()
    };
    let hits = s.search_dense(&vector(q), &only_concepts, 10).unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h.note_id == garten));
    let in_notes = ChunkFilter {
        notes: Some(vec![pumpe.clone()]),
        ..Default::default()
    };
    let hits = s.search_lexical("Keller Pumpe", &in_notes, 10).unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h.note_id == pumpe));
    let in_chunks = ChunkFilter {
        chunks: Some(vec![chunks[1].chunk_id.clone()]),
        ..Default::default()
    };
    let hits = s.search_dense(&vector(q), &in_chunks, 10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].chunk_id, chunks[1].chunk_id);

    // Chunks by id: in the order asked, unknown ids left out.
    let asked = vec![
        chunks[1].chunk_id.clone(),
        "missing#c01".to_string(),
        chunks[0].chunk_id.clone(),
    ];
    let got: Vec<String> = s
        .chunks_by_id(&asked)
        .unwrap()
        .into_iter()
        .map(|c| c.chunk_id)
        .collect();
    assert_eq!(
        got,
        vec![chunks[1].chunk_id.clone(), chunks[0].chunk_id.clone()]
    );
    assert_clean(&*s);
    let before = ids(&*s);
    drop(s);

    // Idempotence: the same vault again writes nothing and changes nothing.
    let again = sync(&v, &store, false);
    assert_eq!(
        (again.new, again.changed, again.unchanged),
        (0, 0, 4),
        "{again:?}"
    );
    assert_eq!(ids(&*store.read().unwrap()), before);

    // A reopened store reads the same.
    drop(store);
    let store = RwLock::new(open());
    assert_eq!(ids(&*store.read().unwrap()), before);

    // A batched read of neighbourhoods fills the cache with what single
    // reads give, without the structure edges it is told to leave out.
    {
        let s = store.read().unwrap();
        let structural = EdgeVocabulary::builtin().structural_kinds();
        s.edge_cache().leave_out(structural.clone());
        let content = |edges: Vec<Edge>| -> Vec<Edge> {
            edges
                .into_iter()
                .filter(|e| !structural.contains(&e.kind))
                .collect()
        };
        let asked = [keller.clone(), pumpe.clone(), "no-such-note".to_string()];
        s.prefetch_edges(&asked).unwrap();
        assert_eq!(s.edge_cache().size().notes, 3);
        let cached = s.note_edges(&keller).unwrap();
        let owned = s.edges_of(&keller).unwrap();
        assert!(owned.iter().any(|e| structural.contains(&e.kind)));
        assert_eq!(cached.out, content(owned));
        assert_eq!(
            cached.incoming,
            content(s.edges_into(std::slice::from_ref(&keller), &[]).unwrap())
        );
        assert!(!cached.incoming.is_empty());
        assert_eq!(
            s.note_edges(&pumpe).unwrap().out,
            content(s.edges_of(&pumpe).unwrap())
        );
        assert!(s.note_edges("no-such-note").unwrap().out.is_empty());
        let both = s.edges_of_notes(&asked, &[]).unwrap();
        assert_eq!(
            both.len(),
            s.edges_of(&keller).unwrap().len() + s.edges_of(&pumpe).unwrap().len()
        );
        assert_eq!(
            s.edges_of_notes(&asked, &structural).unwrap().len(),
            content(both).len()
        );
    }

    // Deletes: the note and everything it wrote go; links to it stay, as
    // unresolved edges of their owners.
    std::fs::remove_file(v.join("Nasse Keller.md")).unwrap();
    let gone = sync(&v, &store, true);
    assert_eq!(gone.deleted, 1, "{gone:?}");
    let s = store.read().unwrap();
    assert!(s.note(&keller).unwrap().is_none());
    assert!(s.chunks_of(&keller).unwrap().is_empty());
    assert!(s.edges_of(&keller).unwrap().is_empty());
    assert!(s.note_edges(&keller).unwrap().out.is_empty());
    let counts = s.counts().unwrap();
    assert_eq!(counts.notes, 3);
    assert!(counts.unresolved >= 3, "{counts:?}");
    let report = mindnet_store::check(&*s, EdgeVocabulary::builtin().structure()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert!(
        s.search_dense(&vector(q), &all, 10)
            .unwrap()
            .iter()
            .all(|h| h.note_id != keller)
    );
    drop(s);
    drop(store);
    interrupted_import(&v, open);
}

#[test]
fn embedded_store_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    conformance(dir.path(), || {
        EmbeddedStore::open(&data, &model(), "de").unwrap()
    });
}

#[test]
fn server_store_conforms() {
    let Some(server) = QdrantServer::start("server_store_conforms") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = ServerConfig {
        prefix: "conformance".into(),
        ..ServerConfig::new(server.url())
    };
    conformance(dir.path(), || {
        ServerStore::open(&config, &model(), "de").unwrap()
    });
}

#[test]
fn server_errors_are_clear() {
    // Nothing listens on this port: a clear error at once, not a hang.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let t = std::time::Instant::now();
    let err = ServerStore::open(
        &ServerConfig::new(&format!("http://127.0.0.1:{port}")),
        &model(),
        "de",
    )
    .err()
    .expect("refused");
    assert!(matches!(err, StoreError::Unreachable { .. }), "{err}");
    assert!(
        err.to_string().contains("cannot reach the Qdrant server"),
        "{err}"
    );
    assert!(t.elapsed().as_secs() < 10);
    let err = ServerStore::open(&ServerConfig::new("localhost:6333"), &model(), "de")
        .err()
        .expect("no scheme");
    assert!(err.to_string().contains("not an http(s) URL"), "{err}");

    let Some(server) = QdrantServer::start("server_errors_are_clear") else {
        return;
    };
    let config = ServerConfig {
        prefix: "errors".into(),
        ..ServerConfig::new(server.url())
    };
    drop(ServerStore::open(&config, &model(), "de").unwrap());
    let other = ModelInfo {
        name: "other".into(),
        dim: 8,
    };
    let err = ServerStore::open(&config, &other, "de")
        .err()
        .expect("mismatch");
    assert!(
        matches!(err, StoreError::ServerModelMismatch { .. }),
        "{err}"
    );
    let missing = ServerConfig {
        prefix: "nothing_here".into(),
        ..ServerConfig::new(server.url())
    };
    let err = ServerStore::open_existing(&missing)
        .err()
        .expect("no index");
    assert!(err.to_string().contains("no mindnet index here"), "{err}");

    // Several addresses: a dead one first is passed over, at once.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let both = ServerConfig {
        prefix: "errors".into(),
        ..ServerConfig::new(&format!("http://127.0.0.1:{dead}/, {}", server.url()))
    };
    let t = std::time::Instant::now();
    let store = ServerStore::open_existing(&both).unwrap();
    assert_eq!(store.counts().unwrap().notes, 0);
    assert!(t.elapsed().as_secs() < 5);
    let err = ServerStore::open(
        &ServerConfig::new(&format!("{},localhost:6333", server.url())),
        &model(),
        "de",
    )
    .err()
    .expect("a second address without scheme");
    assert!(
        err.to_string()
            .contains("localhost:6333: not an http(s) URL"),
        "{err}"
    );
}

#[test]
fn one_writer_at_a_time_on_a_server_index() {
    let Some(server) = QdrantServer::start("one_writer_at_a_time_on_a_server_index") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let v = vault(dir.path());
    let config = ServerConfig {
        prefix: "writers".into(),
        ..ServerConfig::new(server.url())
    };
    let first = RwLock::new(ServerStore::open(&config, &model(), "de").unwrap());
    // A second process that read the (empty) index before the first wrote.
    let second = ServerStore::open(&config, &model(), "de").unwrap();
    assert!(second.note_states().unwrap().is_empty());

    sync(&v, &first, false);
    first.read().unwrap().begin_write().unwrap();
    write(&v, "Neu", "concept", "Eine Notiz des zweiten Schreibers.");
    let second = std::thread::spawn({
        let v = v.clone();
        move || {
            let store = RwLock::new(second);
            let report = sync(&v, &store, false);
            (std::time::Instant::now(), report)
        }
    });
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(!second.is_finished(), "the second writer did not wait");
    let released = std::time::Instant::now();
    first.read().unwrap().end_write();
    let (done, report) = second.join().unwrap();
    assert!(done >= released, "wrote before the lease was released");
    // It planned from what the first had written, not from what it had read.
    assert_eq!((report.new, report.unchanged), (1, 4), "{report:?}");
    // A reader takes no lease, and sees every batch whole.
    let reader = ServerStore::open_existing(&config).unwrap();
    assert_eq!(reader.unfinished_batch().unwrap(), None);
    assert_eq!(reader.note_states().unwrap().len(), 5);
    assert_clean(&reader);
}

fn assert_clean(store: &dyn Store) {
    let report = mindnet_store::check(store, EdgeVocabulary::builtin().structure()).unwrap();
    assert!(report.is_ok(), "{:#?}", report.problems);
}
