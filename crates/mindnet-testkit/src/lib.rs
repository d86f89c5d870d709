//! Real Qdrant servers for tests. A test asks for one with
//! [`QdrantServer::start`] (or a [`Cluster`]); each node gets free loopback
//! ports and its own temporary storage, and is killed when the value drops.
//!
//! Where the binary comes from, first match:
//! - `MINDNET_TEST_QDRANT_URL`: a server the caller runs (never stopped here);
//! - `MINDNET_TEST_QDRANT_BIN`: the path of a `qdrant` binary;
//! - `../shared/bin/qdrant` beside the repository (as on CI).
//!
//! Without any of them, `start` returns `None` and prints one line that says
//! how to run the server tests, so they skip on a user's machine.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const URL_VAR: &str = "MINDNET_TEST_QDRANT_URL";
pub const BIN_VAR: &str = "MINDNET_TEST_QDRANT_BIN";

/// How a test reaches Qdrant: a server it started, or one the caller runs.
pub enum Source {
    External(String),
    Binary(PathBuf),
}

/// The file `scripts/test` names, where each skipped test adds a line.
const SKIPS_VAR: &str = "MINDNET_TEST_SKIPS";

/// Says on one line why a test returns without running, and records it
/// (`test<TAB>reason`) in the file `MINDNET_TEST_SKIPS` names, so that
/// `scripts/test` counts it: cargo hides a passing test's output.
pub fn skip(test: &str, reason: &str) {
    eprintln!("skipping {test}: {reason}");
    if let Ok(path) = std::env::var(SKIPS_VAR) {
        use std::io::Write;
        // One write per line, appended: tests of several binaries and
        // threads add to the file at once.
        let line = format!("{test}\t{reason}\n");
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("{path}: {e}");
        }
    }
}

/// Where Qdrant comes from for this run; `None` (after one line saying how
/// to enable them) when the server tests cannot run here.
pub fn source(test: &str) -> Option<Source> {
    if let Ok(url) = std::env::var(URL_VAR)
        && !url.trim().is_empty()
    {
        return Some(Source::External(url));
    }
    let bin = std::env::var(BIN_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bin/qdrant")
        });
    if bin.is_file() {
        return Some(Source::Binary(bin));
    }
    skip(
        test,
        &format!(
            "no Qdrant server: set {BIN_VAR}=/path/to/qdrant or {URL_VAR}=http://127.0.0.1:6333"
        ),
    );
    None
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// One Qdrant node, killed on drop.
pub struct Node {
    child: Option<Child>,
    pub http_port: u16,
    pub p2p_port: u16,
    bin: PathBuf,
    dir: tempfile::TempDir,
    grpc_port: u16,
    cluster: Option<String>,
}

impl Node {
    fn spawn(bin: PathBuf, cluster: Option<String>) -> Node {
        let mut node = Node {
            child: None,
            http_port: free_port(),
            grpc_port: free_port(),
            p2p_port: free_port(),
            bin,
            dir: tempfile::tempdir().expect("a temp dir"),
            cluster,
        };
        node.restart();
        node
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    /// Starts the node (again, on the same ports and storage).
    pub fn restart(&mut self) {
        let dir = self.dir.path();
        let mut cmd = Command::new(&self.bin);
        cmd.current_dir(dir)
            .env("QDRANT__SERVICE__HOST", "127.0.0.1")
            .env("QDRANT__SERVICE__HTTP_PORT", self.http_port.to_string())
            .env("QDRANT__SERVICE__GRPC_PORT", self.grpc_port.to_string())
            .env("QDRANT__STORAGE__STORAGE_PATH", dir.join("storage"))
            .env("QDRANT__STORAGE__SNAPSHOTS_PATH", dir.join("snapshots"))
            .env("QDRANT__TELEMETRY_DISABLED", "true")
            .env("QDRANT__LOG_LEVEL", "INFO")
            .stdin(Stdio::null())
            .stdout(self.log())
            .stderr(self.log());
        let me = format!("http://127.0.0.1:{}", self.p2p_port);
        match &self.cluster {
            None => {}
            Some(first) => {
                cmd.env("QDRANT__CLUSTER__ENABLED", "true")
                    .env("QDRANT__CLUSTER__P2P__PORT", self.p2p_port.to_string());
                if *first == me || dir.join("storage/raft_state.json").exists() {
                    cmd.args(["--uri", &me]);
                } else {
                    cmd.args(["--bootstrap", first, "--uri", &me]);
                }
            }
        }
        self.child = Some(cmd.spawn().expect("the qdrant binary starts"));
        self.wait_ready();
    }

    fn wait_ready(&self) {
        let http = reqwest::blocking::Client::new();
        let started = Instant::now();
        // A cluster node that comes back is ready once it has caught up
        // with the consensus: under writes, that can take a while.
        while started.elapsed() < Duration::from_secs(120) {
            if http
                .get(format!("{}/readyz", self.url()))
                .send()
                .is_ok_and(|r| r.status().is_success())
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let log = std::fs::read_to_string(self.dir.path().join("qdrant.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(20).collect();
        panic!(
            "qdrant on port {} not ready after 120 s; its log ends:\n{}",
            self.http_port,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }

    /// The node's output, appended to `qdrant.log` in its folder (shown
    /// when it does not come up).
    fn log(&self) -> Stdio {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("qdrant.log"))
            .map_or_else(|_| Stdio::null(), Stdio::from)
    }

    /// SIGKILL: the node is gone at once, as in a crash.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A single server for a test: started here, or the caller's.
pub struct QdrantServer {
    url: String,
    node: Option<Node>,
}

impl QdrantServer {
    pub fn start(test: &str) -> Option<QdrantServer> {
        Some(match source(test)? {
            Source::External(url) => QdrantServer { url, node: None },
            Source::Binary(bin) => {
                let node = Node::spawn(bin, None);
                QdrantServer {
                    url: node.url(),
                    node: Some(node),
                }
            }
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The node this test started, to kill and restart it; `None` for the
    /// caller's server.
    pub fn node(&mut self) -> Option<&mut Node> {
        self.node.as_mut()
    }
}

/// Nodes in distributed mode on loopback; the first starts the cluster.
pub struct Cluster {
    pub nodes: Vec<Node>,
}

impl Cluster {
    /// `None` when no binary is there (a cluster cannot use an external URL).
    pub fn start(test: &str, size: usize) -> Option<Cluster> {
        let bin = match source(test)? {
            Source::Binary(b) => b,
            Source::External(_) => {
                skip(
                    test,
                    &format!("a cluster test needs {BIN_VAR}, not {URL_VAR}"),
                );
                return None;
            }
        };
        let first_port = free_port();
        let first = format!("http://127.0.0.1:{first_port}");
        let mut nodes = Vec::new();
        for i in 0..size {
            let mut node = Node {
                child: None,
                http_port: free_port(),
                grpc_port: free_port(),
                p2p_port: if i == 0 { first_port } else { free_port() },
                bin: bin.clone(),
                dir: tempfile::tempdir().expect("a temp dir"),
                cluster: Some(first.clone()),
            };
            node.restart();
            nodes.push(node);
        }
        let cluster = Cluster { nodes };
        cluster.wait_peers(size);
        Some(cluster)
    }

    /// Waits until the first live node sees `count` peers and a leader.
    pub fn wait_peers(&self, count: usize) {
        let http = reqwest::blocking::Client::new();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            for n in self.nodes.iter().filter(|n| n.child.is_some()) {
                let Ok(r) = http.get(format!("{}/cluster", n.url())).send() else {
                    continue;
                };
                let Ok(v) = r.json::<serde_json::Value>() else {
                    continue;
                };
                let peers = v["result"]["peers"].as_object().map_or(0, |p| p.len());
                if peers >= count && v["result"]["raft_info"]["leader"].is_u64() {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("the cluster did not form with {count} peers in 60 s");
    }

    /// The node that is the raft leader now, as a live node sees it.
    pub fn leader(&self) -> Option<usize> {
        let cluster = |n: &Node| -> Option<serde_json::Value> {
            reqwest::blocking::get(format!("{}/cluster", n.url()))
                .ok()?
                .json::<serde_json::Value>()
                .ok()
        };
        let live: Vec<(usize, serde_json::Value)> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.child.is_some())
            .filter_map(|(i, n)| Some((i, cluster(n)?)))
            .collect();
        let leader = live
            .iter()
            .find_map(|(_, v)| v["result"]["raft_info"]["leader"].as_u64())?;
        live.iter()
            .find(|(_, v)| v["result"]["peer_id"].as_u64() == Some(leader))
            .map(|(i, _)| *i)
    }

    /// Waits until every replica of every shard of `collection` is active
    /// again, as `node` sees it (after a node came back).
    pub fn wait_active(&self, node: usize, collection: &str, replicas: usize) {
        let url = format!(
            "{}/collections/{collection}/cluster",
            self.nodes[node].url()
        );
        let started = Instant::now();
        loop {
            let states: Vec<String> = reqwest::blocking::get(&url)
                .ok()
                .and_then(|r| r.json::<serde_json::Value>().ok())
                .map(|c| {
                    let r = &c["result"];
                    r["local_shards"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .chain(r["remote_shards"].as_array().into_iter().flatten())
                        .filter_map(|s| s["state"].as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if states.len() == replicas && states.iter().all(|s| s == "Active") {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "{collection}: replicas not active again: {states:?}"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// The deterministic embedder of fast tests of logic (`words:<dim>`).
pub use mindnet_embed::Words;
