//! The MCP server driven by a client we did not write: the official Python
//! SDK (`tests/mcp/client.py`, installed by `scripts/test` from the pins in
//! `tests/mcp/requirements.txt`), over stdio and over streamable HTTP, with
//! both protocol generations (the initialize handshake and 2026-07-28's
//! `server/discover`). The script calls every tool on the demo vault and
//! checks the results' content, the errors for bad arguments and unknown
//! notes, the path safety of `write_note`, and the note resources.

mod common;

use common::{Server, copy_dir, demo_vault, import_m3};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Where `scripts/test` installed the MCP Python SDK; `None` (the test is
/// skipped, saying so) under a plain `cargo test`.
fn sdk(test: &str) -> Option<String> {
    let dir = std::env::var("MINDNET_TEST_MCP_DIR").ok();
    if dir.is_none() {
        mindnet_testkit::skip(
            test,
            "no MCP Python SDK: run ./scripts/test, or pip install -r tests/mcp/requirements.txt --target DIR and set MINDNET_TEST_MCP_DIR=DIR",
        );
    }
    dir
}

fn python_client(sdk: &str, args: &[&str], mode: &str) -> Output {
    python_client_env(sdk, args, mode, &[])
}

fn python_client_env(sdk: &str, args: &[&str], mode: &str, env: &[(&str, &str)]) -> Output {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp/client.py");
    Command::new("python3")
        .arg(script)
        .args(args)
        .env("PYTHONPATH", sdk)
        .env("MCP_MODE", mode)
        .env_remove("MINDNET_API_TOKEN")
        .envs(env.iter().copied())
        .output()
        .expect("python3 runs")
}

fn assert_ok(out: &Output, context: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "{stdout}\n{}\n{context}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The demo vault, imported, with `Ausgang`: a symlink to a folder
/// outside it (which `write_note` must refuse to write into).
struct Demo {
    vault: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Demo {
    fn path(&self) -> &Path {
        self.vault.path()
    }
}

fn imported_demo() -> Demo {
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), vault.path());
    import_m3(vault.path());
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), vault.path().join("Ausgang")).unwrap();
    Demo { vault, outside }
}

fn assert_untouched(outside: &Path) {
    let left: Vec<_> = std::fs::read_dir(outside).unwrap().collect();
    assert!(left.is_empty(), "written outside the vault: {left:?}");
}

fn vault_files(vault: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![vault.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.file_name().is_some_and(|n| n == ".mindnet") {
                continue;
            }
            if p.is_symlink() {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_python_sdk_drives_every_tool_over_stdio() {
    let Some(sdk) = sdk("the_python_sdk_drives_every_tool_over_stdio") else {
        return;
    };
    for mode in ["legacy", "auto"] {
        let dir = imported_demo();
        let before = vault_files(dir.path());
        let out = python_client(
            &sdk,
            &[
                "stdio",
                env!("CARGO_BIN_EXE_mindnet"),
                dir.path().to_str().unwrap(),
            ],
            mode,
        );
        assert_ok(&out, mode);
        // The session ended with the client: no server record is left.
        assert!(!dir.path().join(".mindnet/server.json").exists());
        // write_note wrote exactly its two notes, inside the vault.
        let mut added: Vec<String> = vault_files(dir.path())
            .into_iter()
            .filter(|p| !before.contains(p))
            .map(|p| mindnet_app::vault_path(dir.path(), &p))
            .collect();
        added.sort();
        // (delete_note moved one into the vault's trash; move_note moved
        // the other, which was then deleted.)
        assert_eq!(
            added,
            [
                ".trash/archiv/MCP Notiz verschoben.md",
                ".trash/etc-passwd.md",
                "inbox/mcp-ziel.md"
            ],
            "{mode}"
        );
        // The move rewrote the links on disk, not only in its answer.
        let linking = std::fs::read_to_string(dir.path().join("inbox/mcp-ziel.md")).unwrap();
        assert!(
            linking.contains("[[archiv/MCP Notiz verschoben#Abschnitt]]"),
            "{linking}"
        );
        let moved = dir.path().join(".trash/archiv/MCP Notiz verschoben.md");
        let moved = std::fs::read_to_string(moved).unwrap();
        assert!(moved.contains("Ein Kolibriflug ist neu."), "{moved}");
        assert_untouched(dir.outside.path());
    }
}

#[test]
fn the_python_sdk_drives_every_tool_with_the_index_on_a_qdrant_server() {
    let Some(sdk) = sdk("the_python_sdk_drives_every_tool_with_the_index_on_a_qdrant_server")
    else {
        return;
    };
    let Some(q) = mindnet_testkit::QdrantServer::start(
        "the_python_sdk_drives_every_tool_with_the_index_on_a_qdrant_server",
    ) else {
        return;
    };
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), vault.path());
    let env = [
        ("MINDNET_QDRANT_URL", q.url()),
        ("COLLECTION_PREFIX", "mcp"),
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args([
            "import",
            vault.path().to_str().unwrap(),
            "--embedder",
            "use-m3",
        ])
        .envs(env)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), vault.path().join("Ausgang")).unwrap();
    let out = python_client_env(
        &sdk,
        &[
            "stdio",
            env!("CARGO_BIN_EXE_mindnet"),
            vault.path().to_str().unwrap(),
        ],
        "auto",
        &env,
    );
    assert_ok(&out, "index on a server");
    assert_untouched(outside.path());
    // Everything came from the server: no index was made in the vault.
    assert!(!vault.path().join(".mindnet/qdrant").exists());
    // write_note's note reached the server's index, and the one that
    // delete_note moved into the trash left it.
    let store = mindnet_store::ServerStore::open_existing(&mindnet_store::ServerConfig {
        prefix: "mcp".into(),
        ..mindnet_store::ServerConfig::new(q.url())
    })
    .unwrap();
    let paths: Vec<String> = mindnet_store::Store::note_states(&store)
        .unwrap()
        .into_iter()
        .map(|n| n.path)
        .collect();
    assert!(
        paths.iter().any(|x| x == "inbox/mcp-ziel.md"),
        "inbox/mcp-ziel.md not on the server: {paths:?}"
    );
    assert!(
        !paths.iter().any(|x| x.starts_with("archiv/")),
        "the moved and deleted note is still on the server: {paths:?}"
    );
    assert!(
        !paths.iter().any(|x| x == "etc-passwd.md"),
        "the deleted note is still on the server: {paths:?}"
    );
}

#[test]
fn the_python_sdk_drives_every_tool_over_http_with_the_servers_checks() {
    let Some(sdk) = sdk("the_python_sdk_drives_every_tool_over_http_with_the_servers_checks")
    else {
        return;
    };
    let dir = imported_demo();
    let s = Server::start(dir.path(), &["--token", "s3cret"]);
    s.wait_ready();
    for mode in ["legacy", "auto"] {
        // Each run writes the same notes afresh.
        for p in ["inbox/mcp-notiz.md", "inbox/mcp-ziel.md", "etc-passwd.md"] {
            let _ = std::fs::remove_file(dir.path().join(p));
        }
        let out = python_client(&sdk, &["http", &s.url("/mcp"), "s3cret"], mode);
        assert_ok(&out, &s.log.lock().unwrap());
    }
    let init = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}
    });
    let post = |headers: &[(&str, &str)]| {
        let mut r = reqwest::blocking::Client::new()
            .post(s.url("/mcp"))
            .header("accept", "application/json, text/event-stream")
            .json(&init);
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        let r = r.send().unwrap();
        (r.status().as_u16(), r.text().unwrap_or_default())
    };
    let (status, body) = post(&[]);
    assert_eq!(status, 401, "no token: {body}");
    assert!(body.contains("Bearer"), "{body}");
    let (status, _) = post(&[("authorization", "Bearer wrong")]);
    assert_eq!(status, 401);
    let (status, body) = post(&[("authorization", "Bearer s3cret"), ("host", "evil.example")]);
    assert_eq!(status, 403, "a foreign Host: {body}");
    let (status, body) = post(&[
        ("authorization", "Bearer s3cret"),
        ("origin", "http://evil.example"),
    ]);
    assert_eq!(status, 403, "a foreign Origin: {body}");
    let (status, body) = post(&[("authorization", "Bearer s3cret")]);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"serverInfo\""), "{body}");
    assert_untouched(dir.outside.path());
    // A stopped server ends its MCP streams and exits cleanly.
    assert!(s.stop().success());
}

#[test]
fn stdio_needs_an_explicit_vault() {
    // The current folder is never taken for the vault: an assistant may
    // start us anywhere.
    let out = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .arg("mcp")
        .env_remove("MINDNET_VAULT_ROOT")
        .current_dir(demo_vault())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--vault"), "{stderr}");
    assert!(!demo_vault().join(".mindnet/server.json").exists());
}

#[test]
fn stdio_refuses_an_index_a_server_owns_and_names_its_mcp_url() {
    let dir = imported_demo();
    let s = Server::start(dir.path(), &[]);
    s.wait_ready();
    let out = common::mindnet(&["mcp", "--vault", dir.path().to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!("{}/mcp", s.url(""))),
        "the message names the server's MCP URL: {stderr}"
    );
}

/// Newline-delimited JSON-RPC with a `mindnet mcp` child, for what needs
/// no client library: timing and the error while an index is first built.
struct Stdio {
    child: std::process::Child,
    input: Option<std::process::ChildStdin>,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl Stdio {
    fn start(args: &[&str]) -> Stdio {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mindnet"))
            .args(args)
            .env("RUST_LOG", "warn,qdrant_edge=error,rmcp=error")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("mindnet mcp starts");
        let input = child.stdin.take();
        let output = std::io::BufReader::new(child.stdout.take().unwrap());
        Stdio {
            child,
            input,
            output,
        }
    }

    fn request(&mut self, id: u64, method: &str, params: serde_json::Value) -> serde_json::Value {
        use std::io::{BufRead, Write};
        let input = self.input.as_mut().unwrap();
        let msg =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(input, "{msg}").unwrap();
        input.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "mindnet mcp closed its output"
            );
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == serde_json::json!(id) {
                return v;
            }
        }
    }

    /// Closes stdin, which ends the session, and waits for the exit.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.input.take());
        self.child.wait().unwrap()
    }
}

#[test]
fn a_call_while_the_index_is_first_built_says_so_and_the_session_ends_cleanly() {
    // No index yet: `mindnet mcp` builds one with e5-small (seconds per
    // batch of notes), and a search meanwhile is a tool error that says how
    // far the build is, not an empty answer.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    let vault = dir.path().to_str().unwrap();
    let mut s = Stdio::start(&["mcp", "--vault", vault, "--no-watch"]);
    let init = s.request(
        1,
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "mindnet", "{init}");
    let r = s.request(
        2,
        "tools/call",
        serde_json::json!({"name": "search", "arguments": {"query": "Qdrant"}}),
    );
    let result = &r["result"];
    assert_eq!(result["isError"], true, "{r}");
    assert_eq!(
        result["structuredContent"]["error"]["code"], "unavailable",
        "{r}"
    );
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("the index is being built"), "{text}");
    // A request of a method we serve with params not of its shape is
    // answered with its id and "invalid params", not "method not found".
    let r = s.request(3, "resources/read", serde_json::json!({"uri": 7}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.request(4, "no/such/method", serde_json::json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let status = s.finish();
    assert!(status.success(), "{status}");
    // The stopped build left an index that the next import completes.
    let out = common::mindnet(&["import", vault]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let check = common::mindnet(&["check", vault]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

/// An assistant over MCP and a writer on the file system change the same
/// notes 200 times each, at once, against a running server with its
/// watcher: every acknowledged change of either is in the files at the
/// end, and the index agrees with the files. The writer on disk saves as a
/// careful editor does (the change made to the bytes it read, swapped in
/// only if they are still there: `replace_if_unchanged`); a writer that
/// overwrites blindly loses changes and no server can prevent that.
#[test]
fn an_assistant_and_an_editor_lose_no_update() {
    let Some(sdk) = sdk("an_assistant_and_an_editor_lose_no_update") else {
        return;
    };
    const N: usize = 200;
    let dir = imported_demo();
    let notes = [
        "Profil.md",
        "Wissenslücke Reranking.md",
        "Übersicht Mindnet.md",
    ];
    let s = Server::start(dir.path(), &["--token", "s3cret"]);
    s.wait_ready();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp/concurrency.py");
    let assistant = Command::new("python3")
        .arg(script)
        .args([s.url("/mcp").as_str(), "s3cret", &N.to_string()])
        .args(notes)
        .env("PYTHONPATH", &sdk)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let vault = dir.path().to_path_buf();
    let editor = std::thread::spawn(move || {
        let mut conflicts = 0;
        for i in 0..N {
            let file = vault.join(notes[i % notes.len()]);
            loop {
                let old = std::fs::read(&file).unwrap();
                let mut new = old.clone();
                if !new.ends_with(b"\n") {
                    new.push(b'\n');
                }
                new.extend_from_slice(format!("fs {i}\n").as_bytes());
                match mindnet_core::file::replace_if_unchanged(&file, &old, &new) {
                    Ok(()) => break,
                    Err(mindnet_core::file::ReplaceError::Changed { .. }) => conflicts += 1,
                    Err(e) => panic!("{e}"),
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        conflicts
    });
    let out = assistant.wait_with_output().unwrap();
    let editor_conflicts = editor.join().unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        s.log.lock().unwrap()
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let acknowledged = report["acknowledged"].as_array().unwrap();
    assert_eq!(acknowledged.len(), N);
    for (k, note) in notes.iter().enumerate() {
        let text = std::fs::read_to_string(dir.path().join(note)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for i in (k..N).step_by(notes.len()) {
            for tag in ["mcp", "fs"] {
                let line = format!("{tag} {i}");
                let found = lines.iter().filter(|l| **l == line).count();
                assert_eq!(found, 1, "{note}: `{line}` found {found} times");
            }
        }
    }
    eprintln!(
        "conflicts met and retried: assistant {}, editor {editor_conflicts}",
        report["conflicts"]
    );
    // The watcher brings the index to the files' last state.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let r = reqwest::blocking::Client::new()
            .get(s.url("/recent_changes?since=1h&limit=500"))
            .bearer_auth("s3cret")
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let body: serde_json::Value = r.json().unwrap();
        let stale: Vec<&serde_json::Value> = body["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| notes.contains(&n["path"].as_str().unwrap()) && n["indexed"] != true)
            .collect();
        if stale.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the index lags: {stale:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
