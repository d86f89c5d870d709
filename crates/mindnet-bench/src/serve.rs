//! `mindnet bench serve`: our load generator for `mindnet serve`, over real
//! HTTP on loopback. Every loop is bounded in count and time and stops by
//! itself; the server is a child process that is stopped at the end.

use crate::questions::sample_questions;
use anyhow::{Context, Result, bail};
use mindnet_app::Operation;
use mindnet_app::ops::query::QueryOp;
use mindnet_app::ops::status::StatusOp;
use mindnet_retrieve::eval::latency;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct ServeBench {
    /// An indexed vault (it is edited when --edit is given: use a generated one).
    pub vault: PathBuf,
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    pub clients: usize,
    /// Seconds of concurrent load.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Sequential warm queries for the single-client latency.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Then edit this many notes and measure again while the watcher re-imports them.
    #[arg(long, default_value_t = 0)]
    pub edit: usize,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

pub(crate) struct Served {
    pub(crate) child: Child,
    pub(crate) base: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

pub(crate) fn start(vault: &std::path::Path) -> Result<(Served, f64)> {
    use std::io::BufRead;
    let t = Instant::now();
    let mut child = Command::new(std::env::current_exe()?)
        .args([
            "serve",
            &vault.display().to_string(),
            "--listen",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting mindnet serve")?;
    let stderr = child.stderr.take().context("server stderr")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(a) = line.split("listening on ").nth(1) {
                let _ = tx.send(a.trim().to_string());
            }
            if line.contains("error") {
                eprintln!("{line}");
            }
        }
    });
    let base = rx
        .recv_timeout(Duration::from_secs(60))
        .context("the server did not start listening")?;
    let served = Served { child, base };
    let http = reqwest::blocking::Client::new();
    loop {
        let ok = http
            .get(format!("{}{}", served.base, mindnet_server::paths::HEALTH))
            .send()
            .ok()
            .and_then(|r| r.json::<Value>().ok())
            .is_some_and(|v| v["status"] == "ok");
        if ok {
            return Ok((served, t.elapsed().as_secs_f64()));
        }
        if t.elapsed() > Duration::from_secs(600) {
            bail!("the server was not ready after 600 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One query; its latency in ms, or `None` on any error.
pub(crate) fn ask(http: &reqwest::blocking::Client, base: &str, q: &str) -> Option<f64> {
    let t = Instant::now();
    let r = http
        .post(format!("{base}{}", QueryOp::ROUTE.path))
        .json(&json!({ "text": q }))
        .send()
        .ok()?;
    if !r.status().is_success() {
        return None;
    }
    r.bytes().ok()?;
    Some(t.elapsed().as_secs_f64() * 1000.0)
}

/// `GET /status`, or `None` if the server does not answer.
pub(crate) fn status(base: &str) -> Option<Value> {
    reqwest::blocking::Client::new()
        .get(format!("{base}{}", StatusOp::ROUTE.path))
        .send()
        .ok()?
        .json()
        .ok()
}

pub(crate) struct Load {
    pub(crate) ok: usize,
    pub(crate) errors: usize,
    pub(crate) seconds: f64,
    pub(crate) ms: Vec<f64>,
}

fn load(base: &str, questions: &[String], clients: usize, until: &dyn Fn(f64) -> bool) -> Load {
    let stop = Arc::new(AtomicBool::new(false));
    let errors = Arc::new(AtomicUsize::new(0));
    let t = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (stop, errors, base) = (stop.clone(), errors.clone(), base.to_string());
            let qs: Vec<String> = questions.to_vec();
            std::thread::spawn(move || {
                let http = reqwest::blocking::Client::new();
                let mut ms = Vec::new();
                let mut i = c;
                // Bounded: at most a million requests per client.
                while !stop.load(Ordering::SeqCst) && ms.len() < 1_000_000 {
                    match ask(&http, &base, &qs[i % qs.len()]) {
                        Some(x) => ms.push(x),
                        None => {
                            errors.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    i += clients;
                }
                ms
            })
        })
        .collect();
    while !until(t.elapsed().as_secs_f64()) {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::SeqCst);
    let ms: Vec<f64> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap_or_default())
        .collect();
    Load {
        ok: ms.len(),
        errors: errors.load(Ordering::SeqCst),
        seconds: t.elapsed().as_secs_f64(),
        ms,
    }
}

pub(crate) fn report(label: &str, l: &Load) {
    let p = latency(&l.ms);
    println!(
        "{label}: {} queries in {:.1} s = {:.1} queries/s, p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms, {} errors",
        l.ok,
        l.seconds,
        l.ok as f64 / l.seconds.max(1e-9),
        p.p50,
        p.p95,
        p.p99,
        p.max,
        l.errors
    );
}

pub fn run(args: ServeBench) -> Result<ExitCode> {
    let questions: Vec<String> = sample_questions(&args.vault, 400, args.seed)?
        .into_iter()
        .map(|q| q.question)
        .collect();
    let (served, ready) = start(&args.vault)?;
    println!("ready in {ready:.2} s (process start to /health ok)");
    let http = reqwest::blocking::Client::new();
    for q in questions.iter().take(20) {
        ask(&http, &served.base, q);
    }
    let mut ms = Vec::new();
    let mut errors = 0;
    for q in questions.iter().cycle().take(args.queries) {
        match ask(&http, &served.base, q) {
            Some(x) => ms.push(x),
            None => errors += 1,
        }
    }
    let p = latency(&ms);
    println!(
        "one client, warm POST /query incl. embedding: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms ({} queries, {errors} errors)",
        p.p50,
        p.p95,
        p.p99,
        ms.len()
    );
    let seconds = args.seconds as f64;
    let l = load(&served.base, &questions, args.clients, &|t| t >= seconds);
    report(&format!("{} clients", args.clients), &l);

    let t = Instant::now();
    let out = Command::new(std::env::current_exe()?)
        .args([
            "query",
            "--vault",
            &args.vault.display().to_string(),
            "--json",
        ])
        .arg(&questions[0])
        .output()?;
    println!(
        "CLI mindnet query through the server: {:.2} s{}",
        t.elapsed().as_secs_f64(),
        if out.status.success() {
            ""
        } else {
            " (failed)"
        }
    );

    if args.edit > 0 {
        let files = mindnet_ingest::scan::scan_vault(&args.vault)?.files;
        let n = args.edit.min(files.len());
        let before: Value = http
            .get(format!("{}{}", served.base, StatusOp::ROUTE.path))
            .send()?
            .json()?;
        let finished_before = before["sync"]["last_finished"].clone();
        for f in files.iter().take(n) {
            let mut text = std::fs::read_to_string(&f.abs_path)?;
            text.push_str(&format!("\nBearbeitet im Lasttest {}.\n", args.seed));
            std::fs::write(&f.abs_path, text)?;
        }
        let base = served.base.clone();
        let status = move || status(&base);
        let edited = Instant::now();
        // Until the watcher's sync of the edits has finished (at most 30 min).
        let l = load(&served.base, &questions, args.clients, &|t| {
            t > 1800.0
                || status().is_some_and(|s| {
                    s["sync"]["running"] == false
                        && s["sync"]["last_finished"] != finished_before
                        && s["sync"]["last"]["changed"].as_u64().unwrap_or(0) > 0
                })
        });
        let s = status().unwrap_or(Value::Null);
        println!(
            "re-import of {n} edited notes by the watcher: {:.1} s after the edits ({} changed, {} chunks embedded)",
            edited.elapsed().as_secs_f64(),
            s["sync"]["last"]["changed"],
            s["sync"]["last"]["embedded_chunks"]
        );
        report(
            &format!("{} clients during the re-import", args.clients),
            &l,
        );
    }
    drop(served);
    Ok(ExitCode::SUCCESS)
}
