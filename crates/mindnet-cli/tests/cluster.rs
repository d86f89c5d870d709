//! The service under a node fault: three Qdrant nodes from the shared
//! binary, collections at 3 shards and replication factor 2, and `mindnet
//! serve` given all three addresses (the raft leader first). Four clients
//! query and one writer saves new notes and rewrites earlier ones, while
//! first a follower and then the leader (the first address) is killed with
//! SIGKILL for 30 s and restarted.
//!
//! What must hold: no query fails, no write acknowledged to the client is
//! missing afterwards, and the final index equals a clean import of the
//! final vault. The figures are printed (`--nocapture`) for
//! `docs/benchmarks.md`.

mod common;

use common::{Server, copy_dir, demo_vault, server_ids};
use mindnet_testkit::Cluster;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DOWN: Duration = Duration::from_secs(30);
const QUESTIONS: [&str; 4] = [
    "Warum habe ich mich für Qdrant entschieden?",
    "Welche Folgen hatte die Entscheidung für lokale Modelle?",
    "Wie hängen Notizen und Chunks zusammen?",
    "Was ist ein Fehlerbericht?",
];

/// Imports into the collections `<prefix>_*`, keeping the logs in `data`
/// (not the served vault's own, whose server would take the import).
fn import(vault: &Path, data: &Path, urls: &str, prefix: &str) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(["import", vault.to_str().unwrap(), "--embedder", "use-m3"])
        .args(["--data", data.to_str().unwrap()])
        .args(["--qdrant-url", urls])
        .env("COLLECTION_PREFIX", prefix)
        .env("MINDNET_QDRANT_SHARDS", "3")
        .env("MINDNET_QDRANT_REPLICAS", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the clients saw, by the phase it happened in.
#[derive(Default)]
struct Log {
    phase: String,
    /// Per phase: queries answered, and the failures (status and message).
    answered: BTreeMap<String, usize>,
    failed: BTreeMap<String, Vec<String>>,
    slowest: BTreeMap<String, Duration>,
    writes_failed: BTreeMap<String, Vec<String>>,
    /// Per note: the number of the last write acknowledged with 200.
    acked: BTreeMap<String, usize>,
    writes: usize,
    writes_acked: usize,
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

fn post(http: &reqwest::blocking::Client, url: &str, body: &Value) -> Result<Value, String> {
    match http.post(url).json(body).send() {
        Ok(r) if r.status() == 200 => r.json().map_err(|e| e.to_string()),
        Ok(r) => Err(format!("{}: {}", r.status(), r.text().unwrap_or_default())),
        Err(e) => Err(format!("no answer: {e}")),
    }
}

fn queries(server: String, log: Arc<Mutex<Log>>, stop: Arc<AtomicBool>, n: usize) {
    let http = client();
    let mut i = n;
    while !stop.load(Ordering::SeqCst) {
        let t = Instant::now();
        let body = json!({"text": QUESTIONS[i % QUESTIONS.len()]});
        let result = post(&http, &format!("{server}/query"), &body);
        let took = t.elapsed();
        let mut l = log.lock().unwrap();
        let phase = l.phase.clone();
        match result {
            Ok(_) => *l.answered.entry(phase.clone()).or_default() += 1,
            Err(e) => l.failed.entry(phase.clone()).or_default().push(e),
        }
        let slowest = l.slowest.entry(phase).or_default();
        *slowest = (*slowest).max(took);
        i += 1;
    }
}

/// Saves a new note, then rewrites an earlier one, in turn; every note's
/// text carries the number of the write (`Schreibvorgang N`).
fn writer(server: String, log: Arc<Mutex<Log>>, stop: Arc<AtomicBool>) {
    let http = client();
    let mut n = 0;
    while !stop.load(Ordering::SeqCst) {
        let title = format!("Ausfall {}", if n % 2 == 0 { n } else { n / 4 * 2 });
        let body = json!({
            "title": title,
            "text": format!("Eine Notiz über [[Qdrant]] im Cluster. Schreibvorgang {n}.\n"),
            "folder": "Ausfall",
            "overwrite": true,
        });
        let result = post(&http, &format!("{server}/ingest/save"), &body);
        let mut l = log.lock().unwrap();
        l.writes += 1;
        let phase = l.phase.clone();
        match result {
            Ok(_) => {
                l.acked.insert(title, n);
                l.writes_acked += 1;
            }
            Err(e) => l.writes_failed.entry(phase).or_default().push(e),
        }
        drop(l);
        n += 1;
        // Up to 4 saves a second; a save (use-m3 in a debug build, and the
        // sync) takes most of a second itself.
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn phase(log: &Mutex<Log>, name: &str) {
    log.lock().unwrap().phase = name.to_string();
}

/// Kills `node`, waits `DOWN`, restarts it and waits until every replica is
/// active again.
fn outage(cluster: &mut Cluster, node: usize, log: &Mutex<Log>, name: &str) -> Duration {
    phase(log, &format!("{name} down"));
    cluster.nodes[node].kill();
    std::thread::sleep(DOWN);
    phase(log, &format!("{name} back"));
    let t = Instant::now();
    cluster.nodes[node].restart();
    cluster.wait_peers(3);
    let other = (node + 1) % 3;
    for c in ["notes", "chunks", "edges"] {
        cluster.wait_active(other, &format!("ft_{c}"), 6);
    }
    std::thread::sleep(Duration::from_secs(3));
    t.elapsed()
}

#[test]
fn a_cluster_loses_a_follower_then_its_leader_and_first_address_and_nothing_is_lost() {
    let Some(mut cluster) = Cluster::start("cluster_fault", 3) else {
        return;
    };
    let leader = cluster.leader().expect("a leader");
    let follower = (0..3).find(|&i| i != leader).unwrap();
    let mut order = vec![leader];
    order.extend((0..3).filter(|&i| i != leader));
    let urls = order
        .iter()
        .map(|&i| cluster.nodes[i].url())
        .collect::<Vec<_>>()
        .join(",");
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("v");
    copy_dir(&demo_vault(), &vault);
    import(&vault, &vault.join(".mindnet"), &urls, "ft");
    let s = Server::start_with(
        &vault,
        &["--qdrant-url", &urls, "--no-watch"],
        &[("COLLECTION_PREFIX", "ft")],
    );
    s.wait_ready();

    let log = Arc::new(Mutex::new(Log::default()));
    phase(&log, "all up");
    let stop = Arc::new(AtomicBool::new(false));
    let base = format!("http://{}", s.addr);
    let mut load: Vec<_> = (0..4)
        .map(|n| {
            let (b, l, st) = (base.clone(), log.clone(), stop.clone());
            std::thread::spawn(move || queries(b, l, st, n))
        })
        .collect();
    {
        let (b, l, st) = (base.clone(), log.clone(), stop.clone());
        load.push(std::thread::spawn(move || writer(b, l, st)));
    }
    std::thread::sleep(Duration::from_secs(5));
    let follower_back = outage(&mut cluster, follower, &log, "follower");
    let leader_back = outage(&mut cluster, leader, &log, "leader and first address");
    stop.store(true, Ordering::SeqCst);
    for t in load {
        t.join().unwrap();
    }
    let log = Arc::try_unwrap(log).ok().unwrap().into_inner().unwrap();

    // Every acknowledged write is in the index: the note holds the text of
    // its last acknowledged write, or of a later one.
    let http = client();
    let mut lost = Vec::new();
    for (title, n) in &log.acked {
        let note: Value = http
            .get(format!("{base}/notes/{}", title.replace(' ', "%20")))
            .send()
            .unwrap()
            .json()
            .unwrap();
        let text: String = note["chunks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect();
        let stored = text
            .split("Schreibvorgang ")
            .nth(1)
            .and_then(|r| r.split('.').next())
            .and_then(|d| d.parse::<usize>().ok());
        if stored.is_none_or(|s| s < *n) {
            lost.push(format!(
                "{title}: acknowledged write {n}, the index has {stored:?}"
            ));
        }
    }

    println!(
        "cluster fault test: 3 nodes, 3 shards, replication 2, {} s per outage",
        DOWN.as_secs()
    );
    for (phase, n) in &log.answered {
        let failed = log.failed.get(phase).map_or(0, Vec::len);
        println!(
            "  {phase}: {n} queries answered, {failed} failed, slowest {:.2} s",
            log.slowest[phase].as_secs_f64()
        );
    }
    for (phase, errors) in log.failed.iter().chain(&log.writes_failed) {
        for e in errors.iter().take(3) {
            println!("  {phase}: {e}");
        }
    }
    let writes_failed: usize = log.writes_failed.values().map(Vec::len).sum();
    println!(
        "  writes: {} sent, {} acknowledged (to {} notes), {writes_failed} refused, {} acknowledged and lost",
        log.writes,
        log.writes_acked,
        log.acked.len(),
        lost.len()
    );
    println!(
        "  back to all replicas active: follower {:.1} s, leader {:.1} s",
        follower_back.as_secs_f64(),
        leader_back.as_secs_f64()
    );
    assert!(lost.is_empty(), "acknowledged writes lost: {lost:?}");
    let failed: usize = log.failed.values().map(Vec::len).sum();
    assert_eq!(failed, 0, "queries failed: {:?}", log.failed);
    // Enough writes went through to mean something, on a slow machine too.
    assert!(
        log.writes_acked >= 10,
        "too few writes got through: {}",
        log.writes_acked
    );

    // The final index equals a clean import of the final vault.
    import(&vault, &dir.path().join("fresh"), &urls, "fresh");
    assert_eq!(server_ids(&urls, "ft"), server_ids(&urls, "fresh"));

    // Two nodes down: some shard has no replica left. A query is a clear
    // 503 that names it, at once, not a hang or a 500.
    for &n in &order[1..] {
        cluster.nodes[n].kill();
    }
    let t = Instant::now();
    let r = http
        .post(format!("{base}/query"))
        .json(&json!({"text": QUESTIONS[0]}))
        .send()
        .unwrap();
    let status = r.status().as_u16();
    let body: Value = r.json().unwrap_or_default();
    println!(
        "  two nodes down: {status} after {:.1} s: {}",
        t.elapsed().as_secs_f64(),
        body["error"]["message"]
    );
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("shard"),
        "{body}"
    );
    assert!(t.elapsed() < Duration::from_secs(30));
    s.stop();
}
