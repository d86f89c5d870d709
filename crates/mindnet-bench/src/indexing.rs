//! `mindnet bench indexing`: query latency on a Qdrant server while it
//! builds its vector index after an import, against after it. A large
//! import returns before the server has indexed its vectors (minutes after
//! 100k notes); queries in that window run on unindexed segments and share
//! the CPU with the index build.
//!
//! It imports the vault into fresh collections, then queries one at a time
//! (questions drawn from the vault) and reads the chunk collection's state
//! every two seconds: a query counts as "indexing" while the collection is
//! not green (its optimizers build the index), and as "indexed" after.

use crate::questions::sample_questions;
use anyhow::{Context, Result, bail};
use mindnet_app::ops::query::{QueryOp, QueryRequest};
use mindnet_app::ops::sync::SyncRequest;
use mindnet_app::{OpenMode, Service, Settings, SettingsInput, Workspace};
use mindnet_retrieve::eval::latency;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct IndexingBench {
    /// The vault to import (a generated one of 50k notes or more shows a
    /// window of minutes).
    pub vault: PathBuf,
    /// The Qdrant server (or cluster: addresses separated by commas).
    #[arg(long, value_name = "URL")]
    pub qdrant_url: String,
    /// Index folder for the logs (default: <VAULT>/.mindnet).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Embedder of the import and the queries.
    #[arg(long, default_value = "words:384")]
    pub embedder: String,
    /// Queries after the index is built.
    #[arg(long, default_value_t = 300)]
    pub after: usize,
    /// Give up waiting for the index after this many seconds.
    #[arg(long, default_value_t = 3600)]
    pub limit: u64,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

/// The chunk collection as the server reports it.
struct Indexed {
    green: bool,
    points: u64,
    indexed: u64,
}

fn chunk_state(http: &reqwest::blocking::Client, url: &str) -> Result<Indexed> {
    let v: Value = http.get(url).send()?.json()?;
    let r = &v["result"];
    Ok(Indexed {
        green: r["status"] == "green",
        points: r["points_count"].as_u64().unwrap_or(0),
        indexed: r["indexed_vectors_count"].as_u64().unwrap_or(0),
    })
}

pub fn run(args: IndexingBench) -> Result<ExitCode> {
    let settings = Settings::resolve(SettingsInput {
        vault: Some(args.vault.clone()),
        data: args.data.clone(),
        embedder: Some(args.embedder.clone()),
        qdrant_url: Some(args.qdrant_url.clone()),
        ..SettingsInput::default()
    });
    let Some(server) = settings.qdrant.clone() else {
        bail!("--qdrant-url is needed");
    };
    let first = server.url.split(',').next().unwrap_or_default().trim();
    let state_url = format!("{first}/collections/{}_chunks", server.prefix);
    let questions = sample_questions(&args.vault, 500, args.seed)?;
    let t = Instant::now();
    let report = mindnet_app::import(&settings, &SyncRequest::default(), &())
        .map_err(|e| anyhow::anyhow!(e.message))?;
    println!(
        "imported {} notes in {:.0} s",
        report.summary.notes,
        t.elapsed().as_secs_f64()
    );
    let ws =
        Workspace::open(settings, OpenMode::Existing).map_err(|e| anyhow::anyhow!(e.message))?;
    let http = reqwest::blocking::Client::new();
    let window = Instant::now();
    let (mut during, mut after) = (Vec::new(), Vec::new());
    let mut built_after = None;
    let mut state = chunk_state(&http, &state_url).context("reading the collection")?;
    let mut polled = Instant::now();
    let mut i = 0;
    while after.len() < args.after {
        if polled.elapsed() >= Duration::from_secs(2) {
            state = chunk_state(&http, &state_url)?;
            polled = Instant::now();
        }
        // Green: the optimizers are done (a last segment below the indexing
        // threshold stays unindexed for good, so the counts may differ).
        let building = !state.green;
        if !building && built_after.is_none() {
            built_after = Some(window.elapsed());
            println!(
                "index built {:.0} s after the import ({} points, {} indexed)",
                window.elapsed().as_secs_f64(),
                state.points,
                state.indexed
            );
        }
        if window.elapsed() > Duration::from_secs(args.limit) && building {
            bail!("the index was not built within {} s", args.limit);
        }
        let q = &questions[i % questions.len()].question;
        i += 1;
        let t = Instant::now();
        ws.call::<QueryOp>(&QueryRequest::new(q))
            .map_err(|e| anyhow::anyhow!(e.message))?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if building { &mut during } else { &mut after }.push(ms);
    }
    for (name, samples) in [("while indexing", &during), ("indexed", &after)] {
        let l = latency(samples);
        println!(
            "{name}: {} queries, p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            samples.len(),
            l.p50,
            l.p95,
            l.p99,
            l.max
        );
    }
    Ok(ExitCode::SUCCESS)
}
