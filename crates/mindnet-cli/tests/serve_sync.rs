//! The server while it writes: queries during a sync never see part of a
//! note, and a `kill -9` in the middle of a sync loses nothing.

mod common;

use common::{Server, catch_up_and_check, copy_dir, demo_vault, ids, import_m3};
use serde_json::json;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const NOTES: usize = 200;

fn write_versions(v: &Path, version: &str) {
    std::fs::create_dir_all(v.join("Garten")).unwrap();
    for i in 0..NOTES {
        let body: String = (1..=3)
            .map(|s| {
                format!(
                    "## Beet {s}\n\nGemüsegarten Notiz {i} Beet {s}: {version} der Pflanzliste, Tomaten und Bohnen.\n\n"
                )
            })
            .collect();
        std::fs::write(
            v.join(format!("Garten/Beet {i:03}.md")),
            format!("# Beet {i:03}\n\n{body}"),
        )
        .unwrap();
    }
}

fn version_of(text: &str) -> Option<&'static str> {
    if text.contains("FassungA") {
        Some("A")
    } else if text.contains("FassungB") {
        Some("B")
    } else {
        None
    }
}

#[test]
fn queries_during_a_sync_see_every_note_whole() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    copy_dir(&demo_vault(), v);
    write_versions(v, "FassungA");
    import_m3(v);
    let s = Arc::new(Server::start(v, &[]));
    s.wait_ready();
    s.wait_log("watching the vault");

    let stop = Arc::new(AtomicBool::new(false));
    let errors = Arc::new(AtomicUsize::new(0));
    let queries = Arc::new(AtomicUsize::new(0));
    let mixed_results = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (s, stop, errors, queries, mixed) = (
                s.clone(),
                stop.clone(),
                errors.clone(),
                queries.clone(),
                mixed_results.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let (st, q) = s.post(
                        "/query",
                        &json!({"text": "Gemüsegarten Beet Pflanzliste Tomaten", "chunks": true, "k": 60}),
                    );
                    if st != 200 {
                        errors.fetch_add(1, Ordering::SeqCst);
                        eprintln!("{st}: {q}");
                        continue;
                    }
                    queries.fetch_add(1, Ordering::SeqCst);
                    let mut per_note: HashMap<String, BTreeSet<&str>> = HashMap::new();
                    for h in q["hits"].as_array().unwrap() {
                        if let Some(ver) = version_of(h["text"].as_str().unwrap()) {
                            per_note
                                .entry(h["note_id"].as_str().unwrap().to_string())
                                .or_default()
                                .insert(ver);
                        }
                    }
                    assert!(
                        per_note.values().all(|vs| vs.len() == 1),
                        "a note seen half old, half new: {per_note:?}"
                    );
                    let all: BTreeSet<&str> = per_note.values().flatten().copied().collect();
                    if all.len() > 1 {
                        mixed.fetch_add(1, Ordering::SeqCst);
                    }
                }
            })
        })
        .collect();

    std::thread::sleep(Duration::from_millis(500));
    write_versions(v, "FassungB");
    // Done when the notes answer with the new version only.
    let started = Instant::now();
    loop {
        let (_, q) = s.post(
            "/query",
            &json!({"text": "Gemüsegarten Beet Pflanzliste", "chunks": true, "k": 60}),
        );
        let (_, st) = s.get("/status");
        let done = q["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| version_of(h["text"].as_str().unwrap()) != Some("A"))
            && st["sync"]["running"] == false;
        if done {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the sync never finished"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    stop.store(true, Ordering::SeqCst);
    for w in workers {
        w.join().expect("no worker saw a broken note");
    }
    let n = queries.load(Ordering::SeqCst);
    eprintln!(
        "{n} queries during the sync, {} saw old and new notes side by side",
        mixed_results.load(Ordering::SeqCst)
    );
    assert_eq!(errors.load(Ordering::SeqCst), 0);
    assert!(n > 20, "only {n} queries ran");

    // The watcher's sync of just the changed files left the same index as
    // a clean import of the vault.
    let s = Arc::into_inner(s).expect("the workers are done");
    assert!(s.stop().success());
    let clean = tempfile::tempdir().unwrap();
    copy_dir(v, clean.path());
    import_m3(clean.path());
    let (a, b) = (
        ids(&v.join(".mindnet")),
        ids(&clean.path().join(".mindnet")),
    );
    assert_eq!(a, b, "a partial sync differs from a clean import");
}

fn hotpotqa() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/hotpotqa-100/vault")
}

#[test]
fn kill_9_mid_sync_then_restart_equals_a_clean_import() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    copy_dir(&demo_vault(), v);
    import_m3(v);
    let s = Server::start(v, &[]);
    s.wait_ready();
    s.wait_log("watching the vault");
    std::fs::create_dir_all(v.join("hq")).unwrap();
    copy_dir(&hotpotqa(), &v.join("hq"));
    // Kill once a few batches have committed and more are coming.
    let started = Instant::now();
    loop {
        let (_, st) = s.get("/status");
        let sync = &st["sync"];
        if sync["running"] == true && sync["embedded"].as_u64().unwrap_or(0) > 150 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "no sync seen: {st}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    s.kill();
    catch_up_and_check(v);

    let clean = tempfile::tempdir().unwrap();
    copy_dir(v, clean.path());
    std::fs::remove_dir_all(clean.path().join(".mindnet")).ok();
    import_m3(clean.path());
    let (a, b) = (
        ids(&v.join(".mindnet")),
        ids(&clean.path().join(".mindnet")),
    );
    for (i, name) in ["notes", "chunks", "edges"].iter().enumerate() {
        assert!(b[i].len() > 1000 || i != 1);
        assert_eq!(a[i], b[i], "{name} differ after the kill");
    }
}
