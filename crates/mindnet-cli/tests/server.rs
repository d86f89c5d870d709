//! mindnet against a real Qdrant server and a 3-node cluster on loopback
//! (`mindnet-testkit` starts them from the binary; without one the tests
//! skip with a line that says how to run them):
//! - import, query, ask, check, status and serve on the server, with the
//!   same hits as the embedded index of the same vault;
//! - `kill -9` of mindnet mid-import: the next import completes it, and the
//!   store equals a clean import;
//! - the server gone mid-import: a clear error, no hang; after a restart the
//!   import completes and `check` is clean;
//! - a cluster (3 shards, 2 replicas) answers with the same hits when a node
//!   is killed, and converges when it is back.

mod common;

use common::{Server, copy_dir, demo_vault, mindnet, server_ids};
use mindnet_testkit::{Cluster, QdrantServer};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn hotpotqa() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/hotpotqa-100/vault")
}

/// `mindnet ARGS` with the index on the server at `url` under `prefix`.
fn on_server(url: &str, prefix: &str, args: &[&str]) -> Output {
    on_server_env(url, prefix, args, &[])
}

fn on_server_env(url: &str, prefix: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(args)
        .args(["--qdrant-url", url])
        .env("COLLECTION_PREFIX", prefix)
        .env_remove("MINDNET_QDRANT_URL")
        .env_remove("MINDNET_TYPES_FILE")
        .env_remove("MINDNET_EDGE_VOCABULARY_FILE")
        .envs(env.iter().copied())
        .output()
        .expect("the mindnet binary runs")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn top_notes(json: &str, k: usize) -> Vec<String> {
    let v: Value = serde_json::from_str(json).expect("query JSON");
    v["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .take(k)
        .map(|h| h["note_id"].as_str().unwrap().to_string())
        .collect()
}

/// The write journal on the server: the notes of the batch in flight, in
/// a point of `<prefix>_writer`.
fn pending(url: &str, prefix: &str) -> bool {
    reqwest::blocking::Client::new()
        .post(format!("{url}/collections/{prefix}_writer/points/scroll"))
        .json(&serde_json::json!({ "with_payload": true, "limit": 16 }))
        .send()
        .ok()
        .and_then(|r| r.json::<Value>().ok())
        .and_then(|v| v["result"]["points"].as_array().cloned())
        .is_some_and(|points| points.iter().any(|p| !p["payload"]["pending"].is_null()))
}

const QUESTIONS: [&str; 3] = [
    "Warum habe ich mich für Qdrant entschieden?",
    "Welche Folgen hatte die Entscheidung für lokale Modelle?",
    "Wie hängen Notizen und Chunks zusammen?",
];

#[test]
fn the_whole_cli_works_against_a_server() {
    let Some(q) = QdrantServer::start("the_whole_cli_works_against_a_server") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (v, local) = (dir.path().join("v"), dir.path().join("local"));
    copy_dir(&demo_vault(), &v);
    copy_dir(&demo_vault(), &local);
    let vs = v.to_str().unwrap();
    let out = ok(&on_server(
        q.url(),
        "cli",
        &["import", vs, "--embedder", "use-m3"],
    ));
    assert!(out.contains("collections `cli_*`"), "{out}");
    assert!(
        !v.join(".mindnet/qdrant").exists(),
        "no embedded index beside the server's"
    );
    ok(&mindnet(&[
        "import",
        local.to_str().unwrap(),
        "--embedder",
        "use-m3",
    ]));

    // The same hits as the embedded index of the same vault.
    for question in QUESTIONS {
        let server = ok(&on_server(
            q.url(),
            "cli",
            &["query", "--vault", vs, "--json", question],
        ));
        let embedded = ok(&mindnet(&[
            "query",
            "--vault",
            local.to_str().unwrap(),
            "--json",
            question,
        ]));
        assert_eq!(top_notes(&server, 5), top_notes(&embedded, 5), "{question}");
    }
    let ask = ok(&on_server(
        q.url(),
        "cli",
        &["ask", "--vault", vs, QUESTIONS[0]],
    ));
    assert!(ask.contains("Qdrant"), "{ask}");
    let check = ok(&on_server(q.url(), "cli", &["check", vs]));
    assert!(check.contains("no problems found"), "{check}");
    let status = ok(&on_server(q.url(), "cli", &["status", vs]));
    assert!(
        status.contains(q.url()) && status.contains("use-m3"),
        "{status}"
    );

    // Nothing changed: the second import writes nothing. The URL may also
    // come from the environment.
    let again = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(["import", vs, "--json"])
        .env("MINDNET_QDRANT_URL", q.url())
        .env("COLLECTION_PREFIX", "cli")
        .output()
        .unwrap();
    let summary: Value = serde_json::from_str(ok(&again).trim()).unwrap();
    assert_eq!(summary["new"], 0, "{summary}");
    assert_eq!(summary["changed"], 0, "{summary}");

    // Another model is refused, naming the collections; nothing is touched.
    let other = on_server(q.url(), "cli", &["import", vs, "--embedder", "e5-small"]);
    assert!(!other.status.success());
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(err.contains("`cli_*`") && err.contains("use-m3"), "{err}");

    // `serve` on the server's index.
    let server = Server::start_with(
        &v,
        &["--no-watch", "--qdrant-url", q.url()],
        &[("COLLECTION_PREFIX", "cli")],
    );
    server.wait_ready();
    let (st, body) = server.post("/query", &serde_json::json!({ "text": QUESTIONS[0] }));
    assert_eq!(st, 200, "{body}");
    assert!(!body["hits"].as_array().unwrap().is_empty());
    let (st, body) = server.get("/status");
    assert_eq!(st, 200);
    assert_eq!(
        body["index"],
        format!("the collections `cli_*` at {}", q.url())
    );
}

#[test]
fn clear_errors_for_a_wrong_server() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    copy_dir(&demo_vault(), &v);
    let vs = v.to_str().unwrap();
    let port = common::free_port();
    let t = Instant::now();
    let out = on_server(
        &format!("http://127.0.0.1:{port}"),
        "x",
        &["import", vs, "--embedder", "use-m3"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach the Qdrant server"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(30), "no hang");
    let out = on_server(
        &format!("http://127.0.0.1:{port}"),
        "x",
        &["query", "--vault", vs, "Qdrant"],
    );
    assert!(!out.status.success());
    let out = on_server("127.0.0.1:6333", "x", &["status", vs]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not an http(s) URL"), "{err}");
    // A layout that is no number is refused, never quietly 1.
    for (name, value) in [
        ("MINDNET_QDRANT_SHARDS", "drei"),
        ("MINDNET_QDRANT_REPLICAS", "0"),
    ] {
        let out = on_server_env(
            &format!("http://127.0.0.1:{port}"),
            "x",
            &["import", vs, "--embedder", "use-m3"],
            &[(name, value)],
        );
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{name}=\"{value}\" is no positive whole number")),
            "{err}"
        );
    }
}

/// Starts an import of hotpotqa-100 on the server and returns it once the
/// third batch is in flight.
fn import_until_third_batch(url: &str, prefix: &str, vault: &Path) -> std::process::Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(["import", vault.to_str().unwrap(), "--embedder", "use-m3"])
        .args(["--qdrant-url", url])
        .env("COLLECTION_PREFIX", prefix)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let (mut batches, mut was) = (0, false);
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "never reached a third batch"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the import finished before the third batch"
        );
        let now = pending(url, prefix);
        if now && !was {
            batches += 1;
        }
        was = now;
        if now && batches >= 3 {
            return child;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn sigkill_mid_import_against_a_server_then_reimport_equals_a_clean_import() {
    let Some(q) = QdrantServer::start("sigkill_mid_import_against_a_server") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    copy_dir(&hotpotqa(), &v);
    let mut child = import_until_third_batch(q.url(), "killed", &v);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(pending(q.url(), "killed"), "killed with a batch in flight");

    ok(&on_server(
        q.url(),
        "killed",
        &["import", v.to_str().unwrap()],
    ));
    assert!(!pending(q.url(), "killed"));
    ok(&on_server(
        q.url(),
        "clean",
        &["import", v.to_str().unwrap(), "--embedder", "use-m3"],
    ));
    let (a, b) = (server_ids(q.url(), "killed"), server_ids(q.url(), "clean"));
    for (i, name) in ["notes", "chunks", "edges"].iter().enumerate() {
        assert!(!b[i].is_empty());
        assert_eq!(a[i], b[i], "{name} differ after the crash");
    }
    ok(&on_server(
        q.url(),
        "killed",
        &["check", v.to_str().unwrap()],
    ));
}

#[test]
fn a_journal_left_in_the_metadata_by_an_older_mindnet_is_undone_once() {
    // Before the write state moved into points of `<prefix>_writer`, the
    // journal and generation were keys of the notes collection's metadata.
    // An index cut short by that version must still be repaired.
    let Some(q) = QdrantServer::start("journal_in_the_metadata") else {
        return;
    };
    let demo = demo_vault();
    let vs = demo.to_str().unwrap();
    ok(&on_server(q.url(), "old", &["import", vs]));
    let clean = server_ids(q.url(), "old");
    let victim = clean[0].iter().next().unwrap().clone();
    // The older layout, with a batch in flight: no writer collection, the
    // journal in the metadata, and the note point (the commit marker) gone.
    let http = reqwest::blocking::Client::new();
    let call = |method: reqwest::Method, path: &str, body: Value| {
        let r = http
            .request(method, format!("{}/collections/{path}", q.url()))
            .json(&body)
            .send()
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.text().unwrap());
    };
    call(reqwest::Method::DELETE, "old_writer", Value::Null);
    call(
        reqwest::Method::PATCH,
        "old_notes",
        serde_json::json!({ "metadata": { "pending": [victim], "generation": 7 } }),
    );
    call(
        reqwest::Method::POST,
        "old_notes/points/delete?wait=true",
        serde_json::json!({ "filter": { "must": [
            { "key": "note_id", "match": { "value": victim } } ] } }),
    );
    assert_ne!(server_ids(q.url(), "old"), clean);

    let out = on_server(q.url(), "old", &["import", vs]);
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("removing 1 incomplete notes"), "{err}");
    assert_eq!(server_ids(q.url(), "old"), clean);
    assert!(!pending(q.url(), "old"));
    // The metadata's stale journal is not undone a second time.
    let out = on_server(q.url(), "old", &["import", vs]);
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("incomplete notes"), "{err}");
    let status = ok(&on_server(q.url(), "old", &["status", vs]));
    assert!(
        status.contains("last import") && !status.contains("never finished"),
        "{status}"
    );
}

#[test]
fn two_imports_at_once_on_one_server_index_take_turns() {
    let Some(q) = QdrantServer::start("two_imports_at_once_on_one_server_index") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    copy_dir(&hotpotqa(), &v);
    let vs = v.to_str().unwrap();
    let first = import_until_third_batch(q.url(), "both", &v);
    // The second writer waits for the first's lease instead of "recovering"
    // the batch the first has in flight.
    let second = on_server(q.url(), "both", &["import", vs, "--embedder", "use-m3"]);
    let first = first.wait_with_output().unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    ok(&second);
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("is being written by mindnet pid"), "{err}");
    assert!(!pending(q.url(), "both"));

    ok(&on_server(
        q.url(),
        "clean",
        &["import", vs, "--embedder", "use-m3"],
    ));
    assert_eq!(server_ids(q.url(), "both"), server_ids(q.url(), "clean"));
    let check = ok(&on_server(q.url(), "both", &["check", vs]));
    assert!(check.contains("no problems found"), "{check}");
}

#[test]
fn the_server_gone_mid_import_is_a_clear_error_and_the_next_import_completes() {
    let Some(mut q) = QdrantServer::start("the_server_gone_mid_import") else {
        return;
    };
    let url = q.url().to_string();
    let Some(node) = q.node() else {
        mindnet_testkit::skip(
            "the_server_gone_mid_import",
            "the Qdrant server is the caller's (MINDNET_TEST_QDRANT_URL); this test must kill its own",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    copy_dir(&hotpotqa(), &v);
    let child = import_until_third_batch(&url, "gone", &v);
    node.kill();
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(t.elapsed() < Duration::from_secs(90), "no hang");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach the Qdrant server"), "{err}");

    node.restart();
    ok(&on_server(&url, "gone", &["import", v.to_str().unwrap()]));
    ok(&on_server(&url, "gone", &["check", v.to_str().unwrap()]));
    ok(&on_server(
        &url,
        "fresh",
        &["import", v.to_str().unwrap(), "--embedder", "use-m3"],
    ));
    assert_eq!(server_ids(&url, "gone"), server_ids(&url, "fresh"));
}

#[test]
fn a_cluster_answers_with_a_node_down_and_converges_when_it_is_back() {
    let Some(mut cluster) = Cluster::start("a_cluster_answers_with_a_node_down", 3) else {
        return;
    };
    let url = cluster.nodes[0].url();
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    copy_dir(&hotpotqa(), &v);
    let vs = v.to_str().unwrap();
    let layout = [
        ("MINDNET_QDRANT_SHARDS", "3"),
        ("MINDNET_QDRANT_REPLICAS", "2"),
    ];
    ok(&on_server_env(
        &url,
        "ha",
        &["import", vs, "--embedder", "use-m3"],
        &layout,
    ));
    let info: Value = reqwest::blocking::get(format!("{url}/collections/ha_chunks"))
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(info["result"]["config"]["params"]["shard_number"], 3);
    assert_eq!(info["result"]["config"]["params"]["replication_factor"], 2);

    let questions = [
        "Which magazine was started first, Arthur's Magazine or First for Women?",
        "Were Scott Derrickson and Ed Wood of the same nationality?",
        "What government position was held by the woman who portrayed Corliss Archer?",
    ];
    let answers = |label: &str| -> Vec<Vec<String>> {
        questions
            .iter()
            .map(|question| {
                let out = on_server(&url, "ha", &["query", "--vault", vs, "--json", question]);
                top_notes(&ok(&out), 5)
            })
            .inspect(|hits| assert!(!hits.is_empty(), "{label}: no hits"))
            .collect()
    };
    let before = answers("all nodes up");
    cluster.nodes[2].kill();
    assert_eq!(answers("one node down"), before);
    let check = ok(&on_server(&url, "ha", &["check", vs]));
    assert!(check.contains("no problems found"), "{check}");

    // Writes go on with the node down: one note edited, one deleted.
    let notes: Vec<PathBuf> = std::fs::read_dir(&v)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        // Names starting with a dot are hidden files, which no import reads.
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut text = std::fs::read_to_string(&notes[0]).unwrap();
    text.push_str("\nEin neuer Absatz, geschrieben während ein Knoten fehlte.\n");
    std::fs::write(&notes[0], text).unwrap();
    std::fs::remove_file(&notes[1]).unwrap();
    let stored = server_ids(&url, "ha")[0].len();
    let report = ok(&on_server(&url, "ha", &["import", vs, "--sync-deletes"]));
    assert!(
        report.contains("1 changed") && report.contains("1 deleted"),
        "{report}"
    );
    assert_eq!(server_ids(&url, "ha")[0].len(), stored - 1);
    let before = answers("written with one node down");

    cluster.nodes[2].restart();
    cluster.wait_peers(3);
    // Converged: every shard replica active again.
    cluster.wait_active(0, "ha_chunks", 6);
    let check = ok(&on_server(&url, "ha", &["check", vs]));
    assert!(check.contains("no problems found"), "{check}");
    assert_eq!(answers("node back"), before);
    // The node that was down holds what was written meanwhile: the same
    // ids through it as a fresh import of the edited vault.
    ok(&on_server_env(
        &url,
        "fresh",
        &["import", vs, "--embedder", "use-m3"],
        &layout,
    ));
    let back = cluster.nodes[2].url();
    assert_eq!(server_ids(&back, "ha"), server_ids(&url, "fresh"));
}

#[test]
fn an_index_moves_to_a_server_and_back_without_reembedding() {
    let Some(q) = QdrantServer::start("an_index_moves_to_a_server_and_back") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    copy_dir(&demo_vault(), &v);
    let vs = v.to_str().unwrap();
    ok(&mindnet(&["import", vs, "--embedder", "use-m3"]));
    let data = v.join(".mindnet");
    let back = dir.path().join("back");
    let query = |extra: &[&str]| {
        let mut args = vec!["query", "--vault", vs, "--json", QUESTIONS[0]];
        args.extend_from_slice(extra);
        top_notes(&ok(&mindnet(&args)), 5)
    };
    let before = query(&[]);

    let out = ok(&mindnet(&[
        "migrate",
        "--from",
        data.to_str().unwrap(),
        "--to",
        q.url(),
        "--to-prefix",
        "moved",
    ]));
    assert!(out.contains("both hold the same ids"), "{out}");
    let on = ok(&on_server(
        q.url(),
        "moved",
        &["query", "--vault", vs, "--json", QUESTIONS[0]],
    ));
    assert_eq!(top_notes(&on, 5), before);
    ok(&on_server(q.url(), "moved", &["check", vs]));

    // And back into a new folder: the same answers again.
    ok(&mindnet(&[
        "migrate",
        "--from",
        q.url(),
        "--from-prefix",
        "moved",
        "--to",
        back.to_str().unwrap(),
    ]));
    assert_eq!(query(&["--data", back.to_str().unwrap()]), before);

    // A target that holds an index is refused and left as it was.
    let again = mindnet(&[
        "migrate",
        "--from",
        data.to_str().unwrap(),
        "--to",
        back.to_str().unwrap(),
    ]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds an index"));
}
