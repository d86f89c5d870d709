//! `mindnet bench mcp`: what MCP over stdio costs a search. The same warm
//! queries run first through the application layer in this process, then
//! as `tools/call search` to a `mindnet mcp` child over its stdin and
//! stdout (newline-delimited JSON-RPC, written here, so the figure holds no
//! client library's overhead). One index is open at a time: Qdrant Edge
//! locks it.

use crate::questions::sample_questions;
use anyhow::{Context, Result, bail};
use mindnet_app::ops::query::{QueryOp, QueryRequest};
use mindnet_app::{OpenMode, Service, Settings, SettingsInput, Workspace};
use mindnet_retrieve::eval::latency;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct McpBench {
    /// An indexed vault.
    pub vault: PathBuf,
    /// Questions (JSON lines with `question`); default: sentences of random notes.
    #[arg(long, value_name = "FILE")]
    pub questions: Option<PathBuf>,
    /// Timed queries per way (after 20 to warm up).
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

fn questions(args: &McpBench) -> Result<Vec<String>> {
    let Some(file) = &args.questions else {
        return Ok(sample_questions(&args.vault, 400, args.seed)?
            .into_iter()
            .map(|q| q.question)
            .collect());
    };
    let text = std::fs::read_to_string(file).with_context(|| file.display().to_string())?;
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value =
            serde_json::from_str(line).with_context(|| format!("{}:{}", file.display(), i + 1))?;
        match v["question"].as_str() {
            Some(q) => out.push(q.to_string()),
            None => bail!("{}:{}: no `question`", file.display(), i + 1),
        }
    }
    anyhow::ensure!(!out.is_empty(), "{}: no questions", file.display());
    Ok(out)
}

/// Warm queries through `Workspace::query`, as every transport calls it.
fn direct(args: &McpBench, qs: &[String]) -> Result<Vec<f64>> {
    let settings = Settings::resolve(SettingsInput {
        vault: Some(args.vault.clone()),
        ..Default::default()
    });
    let ws = Workspace::open(settings, OpenMode::Existing)?;
    ws.warm_up()?;
    let mut ms = Vec::new();
    for (i, q) in qs.iter().cycle().take(20 + args.queries).enumerate() {
        let t = Instant::now();
        ws.call::<QueryOp>(&QueryRequest::new(q.as_str()))?;
        if i >= 20 {
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    Ok(ms)
}

/// A `mindnet mcp` child and the JSON-RPC lines we exchange with it.
struct Session {
    child: std::process::Child,
    /// Closing it ends the session: the child stops by itself.
    input: Option<std::process::ChildStdin>,
    output: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(vault: &std::path::Path) -> Result<Session> {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["mcp", "--vault", &vault.display().to_string(), "--no-watch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting mindnet mcp")?;
        let input = child.stdin.take().context("mcp stdin")?;
        let output = BufReader::new(child.stdout.take().context("mcp stdout")?);
        Ok(Session {
            child,
            input: Some(input),
            output,
            next_id: 1,
        })
    }

    fn send(&mut self, message: &Value) -> Result<()> {
        let input = self.input.as_mut().context("the session is closed")?;
        writeln!(input, "{message}")?;
        input.flush()?;
        Ok(())
    }

    /// Sends a request and reads lines until its response.
    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.output.read_line(&mut line)? == 0 {
                bail!("mindnet mcp closed its output");
            }
            let v: Value = serde_json::from_str(&line)?;
            if v["id"] == json!(id) {
                if let Some(e) = v.get("error") {
                    bail!("{method}: {e}");
                }
                return Ok(v["result"].clone());
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.input.take());
        let _ = self.child.wait();
    }
}

/// The same queries as `tools/call search` over stdio.
/// Latencies of the searches, of as many `status` calls (the protocol's
/// round trip with next to no work behind it), and the seconds from the
/// process start to the first search's answer.
struct StdioRun {
    search: Vec<f64>,
    status: Vec<f64>,
    first: f64,
}

fn over_stdio(args: &McpBench, qs: &[String]) -> Result<StdioRun> {
    let t = Instant::now();
    let mut s = Session::start(&args.vault)?;
    s.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "mindnet bench", "version": env!("CARGO_PKG_VERSION")}}),
    )?;
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let mut first = None;
    let mut ms = Vec::new();
    for (i, q) in qs.iter().cycle().take(20 + args.queries).enumerate() {
        let t1 = Instant::now();
        let r = s.request(
            "tools/call",
            json!({"name": "search", "arguments": {"query": q}}),
        )?;
        if r["isError"] == json!(true) {
            bail!("search failed: {}", r["content"]);
        }
        first.get_or_insert(t.elapsed().as_secs_f64());
        if i >= 20 {
            ms.push(t1.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let mut status = Vec::new();
    for _ in 0..args.queries {
        let t1 = Instant::now();
        s.request("tools/call", json!({"name": "status", "arguments": {}}))?;
        status.push(t1.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(StdioRun {
        search: ms,
        status,
        first: first.unwrap_or_default(),
    })
}

pub fn run(args: McpBench) -> Result<ExitCode> {
    let qs = questions(&args)?;
    // Direct, MCP, direct again: the page cache and the clock warm up over
    // the run, so MCP is compared with the mean of the runs around it.
    let before = latency(&direct(&args, &qs)?);
    let stdio = over_stdio(&args, &qs)?;
    let after = latency(&direct(&args, &qs)?);
    for (label, p) in [("before", &before), ("after", &after)] {
        println!(
            "app layer, warm Workspace::query ({label}): p50 {:.2} ms, p95 {:.2} ms ({} queries)",
            p.p50, p.p95, args.queries
        );
    }
    let mcp = latency(&stdio.search);
    println!(
        "MCP stdio, warm tools/call search: p50 {:.2} ms, p95 {:.2} ms ({} queries); first answer {:.2} s after the process started",
        mcp.p50, mcp.p95, args.queries, stdio.first
    );
    let floor = latency(&stdio.status);
    println!(
        "MCP stdio, tools/call status (the round trip): p50 {:.2} ms, p95 {:.2} ms",
        floor.p50, floor.p95
    );
    println!(
        "MCP's own cost at p50: {:+.2} ms (target: within 5 ms)",
        mcp.p50 - (before.p50 + after.p50) / 2.0
    );
    Ok(ExitCode::SUCCESS)
}
