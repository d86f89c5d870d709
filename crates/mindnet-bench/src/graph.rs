//! `mindnet bench graph`: the two ways to answer neighbour queries on an
//! index. Filtered reads per note through the bounded cache (what mindnet
//! does), against every edge read into memory at once (what it did before):
//! time to the first answer, per-note latency cold and warm, and memory.

use anyhow::{Context, Result};
use mindnet_app::memory::{peak_rss_mb, rss_mb, rss_split};
use mindnet_core::Edge;
use mindnet_retrieve::eval::latency;
use mindnet_store::{EmbeddedStore, Store};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct GraphBench {
    /// An indexed vault.
    pub vault: PathBuf,
    /// Index folder (default: <VAULT>/.mindnet).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Notes whose neighbourhood is read.
    #[arg(long, default_value_t = 500)]
    pub notes: usize,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Read structure edges into the neighbourhoods too, as mindnet did
    /// before 2026-12-06 (for comparison).
    #[arg(long)]
    pub with_structure: bool,
}

pub fn run(args: GraphBench) -> Result<ExitCode> {
    let data = args
        .data
        .clone()
        .unwrap_or_else(|| args.vault.join(".mindnet"));
    let t = Instant::now();
    let store = EmbeddedStore::open_existing(&data)
        .with_context(|| format!("opening the index in {}", data.display()))?;
    let catalog = store.catalog()?;
    let entities = catalog.entity_graph_size();
    let mut ids: Vec<String> = catalog.sorted().into_iter().map(|s| s.note_id).collect();
    println!(
        "{} notes, {} edges; opened with its catalog in {:.2} s, RSS {:.0} MB ({})",
        ids.len(),
        store.counts()?.edges,
        t.elapsed().as_secs_f64(),
        rss_mb().unwrap_or(f64::NAN),
        rss_split()
    );
    println!(
        "entity graph: {} names, {} (name, note) pairs, {:.1} MB on the heap",
        entities.names,
        entities.postings,
        entities.bytes as f64 / 1e6
    );
    let mut rng = crate::vaultgen::Rng::new(args.seed);
    for i in (1..ids.len()).rev() {
        ids.swap(i, rng.below(i + 1));
    }
    ids.truncate(args.notes);

    // Filtered reads: the first read of a note, then the same from the cache.
    let before = rss_mb().unwrap_or(f64::NAN);
    let vocab = mindnet_core::EdgeVocabulary::builtin();
    if !args.with_structure {
        store.edge_cache().leave_out(vocab.structural_kinds());
    }
    let mut cold = Vec::new();
    let mut edges = 0;
    for id in &ids {
        let t = Instant::now();
        edges += store.note_edges(id)?.neighbors(&vocab).len();
        cold.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let mut warm = Vec::new();
    for id in &ids {
        let t = Instant::now();
        store.note_edges(id)?;
        warm.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let (c, w) = (latency(&cold), latency(&warm));
    let size = store.edge_cache().size();
    println!(
        "filtered reads, {} notes ({edges} content neighbours): first read p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms; cached p50 {:.4} ms; cache {} notes, {} edges, RSS +{:.0} MB",
        ids.len(),
        c.p50,
        c.p95,
        c.max,
        w.p50,
        size.notes,
        size.edges,
        rss_mb().unwrap_or(f64::NAN) - before
    );

    // Everything in memory: what the first graph query used to wait for.
    let before = rss_mb().unwrap_or(f64::NAN);
    let t = Instant::now();
    let all: Vec<Edge> = store
        .payloads("edges")?
        .into_iter()
        .map(|m| serde_json::from_value(serde_json::Value::Object(m)))
        .collect::<Result<_, _>>()?;
    let mut by_note: HashMap<&str, Vec<&Edge>> = HashMap::new();
    for e in &all {
        by_note.entry(&e.note_id).or_default().push(e);
        by_note.entry(&e.target_id).or_default().push(e);
    }
    let load = t.elapsed().as_secs_f64();
    let mut mem = Vec::new();
    for id in &ids {
        let t = Instant::now();
        std::hint::black_box(by_note.get(id.as_str()).map_or(0, Vec::len));
        mem.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "all {} edges in memory: loaded in {load:.2} s, RSS +{:.0} MB (peak {:.0} MB); lookup p50 {:.4} ms",
        all.len(),
        rss_mb().unwrap_or(f64::NAN) - before,
        peak_rss_mb().unwrap_or(f64::NAN),
        latency(&mem).p50
    );
    Ok(ExitCode::SUCCESS)
}
