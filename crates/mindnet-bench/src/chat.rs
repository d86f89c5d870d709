//! `mindnet bench chat`: time to the first token and to the whole answer,
//! per message of a set, in this process (no HTTP), extractive or with the
//! LLM the environment configures; optionally while background requests
//! keep the LLM's background lane busy, as a smart-edge import does.

use anyhow::{Context, Result, bail};
use mindnet_app::api::{ChatEvent, ChatRequest};
use mindnet_app::{OpenMode, Settings, SettingsInput, Workspace};
use mindnet_chat::{ChatMessage, LlmRequest, Priority, Role};
use mindnet_retrieve::eval::latency;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct ChatBench {
    /// An imported vault.
    #[arg(long)]
    vault: PathBuf,
    /// Messages, one JSON object per line with `message` (or `question`).
    #[arg(long)]
    messages: PathBuf,
    /// Only the first N messages.
    #[arg(long)]
    limit: Option<usize>,
    /// Answer extractively even when an LLM is configured.
    #[arg(long)]
    extractive: bool,
    /// Keep this many background LLM requests running meanwhile.
    #[arg(long, default_value_t = 0)]
    background: usize,
    /// Meanwhile, import this vault again and again with smart edges judged
    /// by the LLM (its verdict cache removed before each run; use a copy).
    #[arg(long, value_name = "VAULT")]
    smart_import: Option<PathBuf>,
}

pub fn run(args: ChatBench) -> Result<ExitCode> {
    let settings = Settings::resolve(SettingsInput {
        vault: Some(args.vault.clone()),
        ..Default::default()
    });
    let ws = Arc::new(Workspace::open(settings, OpenMode::Existing)?);
    ws.warm_up()?;
    let text = std::fs::read_to_string(&args.messages)
        .with_context(|| args.messages.display().to_string())?;
    let mut messages: Vec<String> = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("{}:{}", args.messages.display(), i + 1))?;
        match v["message"].as_str().or(v["question"].as_str()) {
            Some(m) => messages.push(m.to_string()),
            None => bail!("{}:{}: no `message`", args.messages.display(), i + 1),
        }
    }
    messages.truncate(args.limit.unwrap_or(usize::MAX));
    if args.background > 0 && ws.llm().is_none() {
        bail!("--background needs an LLM (MINDNET_LLM_URL or MINDNET_OLLAMA_URL)");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let done_background = Arc::new(AtomicUsize::new(0));
    let load: Vec<_> = (0..args.background)
        .map(|i| {
            let (ws, stop, count) = (ws.clone(), stop.clone(), done_background.clone());
            std::thread::spawn(move || {
                let Some(llm) = ws.llm() else { return };
                let msg = [ChatMessage::new(
                    Role::User,
                    format!("Beschreibe in 60 Wörtern ein Fahrrad, Variante {i}."),
                )];
                while !stop.load(Ordering::SeqCst) {
                    let req = LlmRequest {
                        messages: &msg,
                        priority: Priority::Background,
                        json_schema: None,
                        max_tokens: Some(80),
                    };
                    if llm
                        .chat(&req, &mut |_| !stop.load(Ordering::SeqCst))
                        .is_ok()
                    {
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                }
            })
        })
        .collect();
    let imports = Arc::new(AtomicUsize::new(0));
    let importer = match &args.smart_import {
        None => None,
        Some(dir) => {
            if ws.llm().is_none() {
                bail!("--smart-import needs an LLM (MINDNET_LLM_URL or MINDNET_OLLAMA_URL)");
            }
            let other = Workspace::open(
                Settings::resolve(SettingsInput {
                    vault: Some(dir.clone()),
                    ..Default::default()
                }),
                OpenMode::CreateIfMissing,
            )?;
            let (stop, count) = (stop.clone(), imports.clone());
            let cache = dir.join(".mindnet").join("smart_verdicts.json");
            Some(std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let _ = std::fs::remove_file(&cache);
                    let req = mindnet_app::ops::sync::SyncRequest {
                        purge_before_upsert: true,
                        ..Default::default()
                    };
                    match other.sync(&req, &()) {
                        Ok(_) => count.fetch_add(1, Ordering::SeqCst),
                        Err(e) => {
                            eprintln!("smart import: {}", e.message);
                            break;
                        }
                    };
                }
            }))
        }
    };
    let (mut first, mut total) = (Vec::new(), Vec::new());
    let mut mode = String::new();
    for m in &messages {
        let t = Instant::now();
        let mut first_at = None;
        let r = ws.chat(
            &ChatRequest {
                message: m.clone(),
                extractive: args.extractive,
                ..Default::default()
            },
            &mut |e| {
                if matches!(e, ChatEvent::Token { .. }) && first_at.is_none() {
                    first_at = Some(t.elapsed().as_secs_f64() * 1000.0);
                }
                true
            },
        )?;
        total.push(t.elapsed().as_secs_f64() * 1000.0);
        first.push(first_at.unwrap_or(0.0));
        mode = match (&r.mode.provider, &r.mode.model) {
            (Some(p), Some(model)) => format!("{} {p}:{model}", r.mode.kind),
            _ => r.mode.kind.clone(),
        };
    }
    stop.store(true, Ordering::SeqCst);
    for t in load {
        let _ = t.join();
    }
    if let Some(t) = importer {
        let _ = t.join();
    }
    println!(
        "{} messages, {mode}, {} background requests running ({} finished meanwhile), {} smart imports finished meanwhile",
        messages.len(),
        args.background,
        done_background.load(Ordering::SeqCst),
        imports.load(Ordering::SeqCst)
    );
    let (first, total) = (latency(&first), latency(&total));
    println!(
        "first token: p50 {:.0} ms, p95 {:.0} ms; whole answer: p50 {:.0} ms, p95 {:.0} ms",
        first.p50, first.p95, total.p50, total.p95
    );
    Ok(ExitCode::SUCCESS)
}
