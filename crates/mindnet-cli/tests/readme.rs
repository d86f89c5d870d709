//! The README as a newcomer reads it: every command in its `sh` blocks runs
//! as written (from a folder holding a copy of `examples/vault`), the MCP
//! configuration starts the server, and every file it links to exists. A
//! README line this test does not know how to run fails it, so a new
//! example is either run here or the test is changed on purpose.

mod common;

use common::{Server, copy_dir, demo_vault};
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A fenced block: its language, the line after its opening fence, and its
/// lines.
struct Block {
    lang: String,
    line: usize,
    body: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match (line.strip_prefix("```"), open.take()) {
            (Some(lang), None) => {
                open = Some(Block {
                    lang: lang.trim().to_string(),
                    line: i + 2,
                    body: Vec::new(),
                })
            }
            (Some(_), Some(block)) => out.push(block),
            (None, Some(mut block)) => {
                block.body.push(line.to_string());
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "README: a code block is never closed");
    out
}

/// A shell line's words: plain words and quoted strings (the README uses
/// no escapes and no variables), up to a comment.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            ' ' | '\t' => {
                chars.next();
            }
            '#' => break,
            '"' | '\'' => {
                chars.next();
                out.push(chars.by_ref().take_while(|&d| d != c).collect());
            }
            _ => {
                let mut word = String::new();
                while let Some(&d) = chars.peek() {
                    if d == ' ' || d == '\t' {
                        break;
                    }
                    word.push(d);
                    chars.next();
                }
                out.push(word);
            }
        }
    }
    out
}

/// `~/x` as a shell expands it, with `home` as the home folder; a vault
/// named there is a copy of the demo vault (the README's stand-in for the
/// user's notes).
fn expand(word: &str, home: &Path) -> String {
    match word.strip_prefix("~/") {
        Some(rest) => {
            let path = home.join(rest);
            if !path.exists() {
                copy_dir(&demo_vault(), &path);
            }
            path.to_string_lossy().into_owned()
        }
        None => word.to_string(),
    }
}

fn run(args: &[String], cwd: &Path, at: &str) {
    let out = Server::command()
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .expect("the mindnet binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && !stdout.trim().is_empty(),
        "{at}: `mindnet {}` failed ({}):\n{stdout}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `mindnet serve …` as written: it must listen where the README says and
/// answer `/health`; it is stopped then. A port already taken here skips
/// it, with the reason recorded.
fn serve(args: &[String], cwd: &Path, at: &str) -> bool {
    const ADDR: &str = "127.0.0.1:8001";
    if std::net::TcpListener::bind(ADDR).is_err() {
        mindnet_testkit::skip(
            "the_readme_commands_run_as_written",
            &format!("{at}: port {ADDR} is taken, so `mindnet serve` was not run"),
        );
        return false;
    }
    let mut cmd = Server::command();
    cmd.args(args).current_dir(cwd);
    let server = Server::spawn(cmd);
    assert_eq!(server.addr, ADDR, "{at}: the README names {ADDR}");
    server.wait_ready();
    assert!(server.stop().success(), "{at}: serve did not stop cleanly");
    true
}

#[test]
fn the_readme_commands_run_as_written() {
    let readme = read("README.md");
    let ci = read(".ci/run");
    let manifest = read("Cargo.toml");
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    copy_dir(&demo_vault(), &work.path().join("examples/vault"));

    let mut ran = Vec::new();
    for block in blocks(&readme).iter().filter(|b| b.lang == "sh") {
        for (i, line) in block.body.iter().enumerate() {
            let at = format!("README.md:{}", block.line + i);
            let w: Vec<String> = words(line).iter().map(|w| expand(w, &home)).collect();
            let w: Vec<&str> = w.iter().map(String::as_str).collect();
            match w.as_slice() {
                [] => continue,
                // CI runs the README's main command itself, line for line.
                ["cargo", "run", "--", args @ ..] => {
                    assert!(
                        ci.contains(line.trim()),
                        "{at}: .ci/run does not run `{line}`"
                    );
                    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
                    run(&args, work.path(), &at);
                }
                ["./scripts/test"] => {
                    assert!(
                        ci.lines().any(|l| l.trim() == "./scripts/test"),
                        "{at}: .ci/run does not run the README's test command"
                    );
                }
                // A release build takes minutes: the test checks that the
                // path is the binary's crate and that `cargo run` builds
                // the same one.
                ["cargo", "install", "--locked", "--path", path] => {
                    let krate = read(&format!("{path}/Cargo.toml"));
                    assert!(
                        krate.contains("[[bin]]\nname = \"mindnet\""),
                        "{at}: {path} does not build `mindnet`"
                    );
                    assert!(
                        manifest.contains(&format!("default-members = [\"{path}\"]")),
                        "{at}: `cargo run` does not build {path}"
                    );
                }
                ["mindnet", "serve", ..] => {
                    let args: Vec<String> = w[1..].iter().map(|s| s.to_string()).collect();
                    if !serve(&args, work.path(), &at) {
                        continue;
                    }
                }
                ["mindnet", args @ ..] => {
                    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
                    run(&args, work.path(), &at);
                }
                other => panic!("{at}: this test does not know how to run {other:?}"),
            }
            ran.push(at);
        }
    }
    assert!(
        ran.len() >= 10,
        "only {} README commands ran: {ran:?}",
        ran.len()
    );

    // The MCP configuration: its command is the installed binary, and its
    // arguments start a server that ends when the client closes stdin.
    let all = blocks(&readme);
    let configs: Vec<&Block> = all.iter().filter(|b| b.lang == "json").collect();
    assert!(!configs.is_empty(), "the README shows no MCP configuration");
    for block in configs {
        let at = format!("README.md:{}", block.line);
        let config: serde_json::Value = serde_json::from_str(&block.body.join("\n"))
            .unwrap_or_else(|e| panic!("{at}: not JSON: {e}"));
        let server = &config["mcpServers"]["mindnet"];
        assert!(
            server["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("/.cargo/bin/mindnet")),
            "{at}: the command is not where `cargo install` puts mindnet"
        );
        let args: Vec<String> = server["args"]
            .as_array()
            .unwrap_or_else(|| panic!("{at}: no args"))
            .iter()
            .map(|a| expand(&a.as_str().unwrap().replace("/home/you/", "~/"), &home))
            .collect();
        let out = Server::command()
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{at}: `mindnet {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // Every file the README links to or shows.
    for (i, line) in readme.lines().enumerate() {
        for target in line.split("](").skip(1) {
            let target = target.split(')').next().unwrap_or_default();
            if !target.contains("://") {
                assert!(
                    repo().join(target).exists(),
                    "README.md:{}: {target} does not exist",
                    i + 1
                );
            }
        }
    }
}
