//! `mindnet bench`: the measurements behind `docs/benchmarks.md`, on
//! generated vaults with planted truth and on real text. Timing belongs here
//! and in `docs/benchmarks.md`, never in test assertions. A crate of its
//! own, so the commands a user runs stay small (`mindnet-cli` only calls
//! `run`).
//!
//! - `vaultgen.rs`: generated vaults (notes, chains, planted problems);
//!   `questions.rs`: question sets read from a vault's notes.
//! - `lint.rs`, `chat.rs`, `serve.rs`, `soak.rs`, `mcp.rs`, `graph.rs`,
//!   `indexing.rs`: one benchmark each; the throughput ones (ingest, embed,
//!   causal) are here.

mod chat;
mod graph;
mod indexing;
mod lint;
mod mcp;
mod notes;
mod questions;
mod serve;
mod soak;
mod vaultgen;

use anyhow::{Context, Result};
use mindnet_app::memory::peak_rss_mb;
use mindnet_ingest::{Config, ImportOptions, plan_vault};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Parse, chunk and derive a generated vault; report notes per second per stage.
    Ingest {
        /// Number of notes to generate.
        #[arg(long, default_value_t = 10_000)]
        notes: usize,
        /// Generator seed: the same seed gives the same vault.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Repetitions; the median is reported.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Write the vault here and keep it (default: a temporary folder).
        #[arg(long, value_name = "DIR")]
        keep: Option<PathBuf>,
    },
    /// Embed generated German chunk-sized texts; report chunks per second and peak memory.
    Embed {
        /// Embedder name (e5-small, use-m3, ollama:<model>, openai:<model>, words:<dim>).
        #[arg(long, default_value = "e5-small")]
        model: String,
        /// Number of texts.
        #[arg(long, default_value_t = 256)]
        texts: usize,
        /// Approximate length of each text in estimated tokens.
        #[arg(long, default_value_t = 200)]
        tokens: usize,
        /// Embed real text instead: the body of every note in this folder
        /// (e.g. the German paragraphs of xquad-de), one text per note.
        #[arg(long, value_name = "DIR")]
        real: Option<PathBuf>,
        /// e5-small only: embed the texts again with f32 products and
        /// report the cosine of each vector to its f32 twin.
        #[arg(long)]
        against_f32: bool,
    },
    /// Generate a vault with planted causal chains of known ground truth and
    /// write their why questions (with `gold_chain`) for `mindnet eval`.
    Causal {
        /// Notes in total (generated notes plus chain notes).
        #[arg(long, default_value_t = 10_000)]
        notes: usize,
        /// Planted chains (3–5 notes each).
        #[arg(long, default_value_t = 200)]
        chains: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Where to write the vault.
        #[arg(long, value_name = "DIR")]
        vault: PathBuf,
        /// Where to write the questions (JSON Lines).
        #[arg(long, value_name = "FILE")]
        questions: PathBuf,
    },
    /// Print questions for `mindnet eval` from a vault: a sentence of a random
    /// note each, with that note as the gold answer (for latency and recall
    /// on generated vaults).
    Questions {
        /// The vault to draw from.
        vault: PathBuf,
        #[arg(long, default_value_t = 200)]
        count: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The linter against planted problems of known truth: per rule, the
    /// findings right and wrong and the problems missed, and the time of
    /// the whole lint.
    Lint(crate::lint::LintBench),
    /// The chat: time to the first token and to the whole answer, extractive
    /// or with the configured LLM, optionally under background LLM load.
    Chat(crate::chat::ChatBench),
    /// `mindnet serve` under load over real HTTP: time to ready, warm query
    /// latency, concurrent clients, and the same while edited notes are
    /// re-imported by the watcher. Edits the vault: use a generated one.
    Serve(crate::serve::ServeBench),
    /// A long run of `mindnet serve` under query load while notes are
    /// changed, added and deleted: queries/s, p99, errors, the RSS curve,
    /// and whether the index equals a clean import at the end. Edits the
    /// vault: use a generated one.
    Soak(crate::soak::SoakBench),
    /// Search over MCP stdio against the same queries through the
    /// application layer: what the protocol costs.
    Mcp(crate::mcp::McpBench),
    /// Note upkeep on an index: how soon an edit is searchable, and moves of
    /// a note linked from many notes. Edits the vault: use a generated one
    Notes(crate::notes::NotesBench),
    /// Neighbour reads on an index: filtered reads through the cache, against
    /// every edge in memory.
    Graph(crate::graph::GraphBench),
    /// Query latency on a Qdrant server while it builds its vector index
    /// after an import, against after it.
    Indexing(crate::indexing::IndexingBench),
}

pub fn run(cmd: BenchCommand) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Ingest {
            notes,
            seed,
            runs,
            keep,
        } => ingest(notes, seed, runs.max(1), keep),
        BenchCommand::Embed {
            model,
            texts,
            tokens,
            real,
            against_f32,
        } => embed(&model, texts, tokens, real.as_deref(), against_f32),
        BenchCommand::Questions { vault, count, seed } => questions(&vault, count, seed),
        BenchCommand::Causal {
            notes,
            chains,
            seed,
            vault,
            questions,
        } => causal(notes, chains, seed, &vault, &questions),
        BenchCommand::Lint(args) => crate::lint::run(args),
        BenchCommand::Chat(args) => crate::chat::run(args),
        BenchCommand::Serve(args) => crate::serve::run(args),
        BenchCommand::Soak(args) => crate::soak::run(args),
        BenchCommand::Mcp(args) => crate::mcp::run(args),
        BenchCommand::Graph(args) => crate::graph::run(args),
        BenchCommand::Notes(args) => crate::notes::run(args),
        BenchCommand::Indexing(args) => crate::indexing::run(args),
    }
}

fn causal(
    notes: usize,
    chains: usize,
    seed: u64,
    vault: &std::path::Path,
    questions: &std::path::Path,
) -> Result<ExitCode> {
    // About four notes per chain; the rest is the generated vault.
    let generated = notes.saturating_sub(chains * 4).max(1);
    let g = vaultgen::generate(vault, generated, seed)
        .with_context(|| format!("writing {}", vault.display()))?;
    let planted = vaultgen::plant_chains(vault, chains, generated, seed)?;
    let chain_notes: usize = planted.iter().map(|(_, n)| n.len()).sum();
    let mut out = String::new();
    for (i, (token, names)) in planted.iter().enumerate() {
        let q = serde_json::json!({
            "id": i,
            "question": format!("Warum gilt {token}?"),
            "intent": "why",
            "gold_chain": names,
            "gold": names,
        });
        out.push_str(&q.to_string());
        out.push('\n');
    }
    std::fs::write(questions, out).with_context(|| format!("{}", questions.display()))?;
    println!(
        "{} notes ({} generated, {} in {} chains) in {}; questions in {}",
        g.notes + chain_notes,
        g.notes,
        chain_notes,
        planted.len(),
        vault.display(),
        questions.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn questions(vault: &std::path::Path, count: usize, seed: u64) -> Result<ExitCode> {
    use crate::questions::sample_questions;
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for (i, q) in sample_questions(vault, count, seed)?
        .into_iter()
        .enumerate()
    {
        let line = serde_json::json!({"id": i, "question": q.question, "gold": [q.gold]});
        writeln!(out, "{line}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The bodies (past the frontmatter) of the Markdown notes in `dir`, by name.
fn note_bodies(dir: &std::path::Path) -> Result<Vec<String>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            let split = mindnet_ingest::frontmatter::split(&text);
            Ok(text[split.body_start..].trim().to_string())
        })
        .collect()
}

fn embed(
    model: &str,
    count: usize,
    tokens: usize,
    real: Option<&std::path::Path>,
    against_f32: bool,
) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    let embed = mindnet_app::Settings::resolve(mindnet_app::SettingsInput::default()).embed;
    let embedder = mindnet_embed::open(model, &embed, &|m| eprintln!("{m}"))?;
    let load = started.elapsed().as_secs_f64();
    let texts: Vec<String> = match real {
        Some(dir) => note_bodies(dir)?,
        None => {
            let mut rng = vaultgen::Rng::new(7);
            (0..count)
                .map(|_| {
                    let mut s = String::new();
                    while s.len() < tokens * 4 {
                        vaultgen::sentence(&mut rng, &mut s);
                    }
                    s
                })
                .collect()
        }
    };
    anyhow::ensure!(!texts.is_empty(), "no texts to embed");
    let count = texts.len();
    // Real paragraphs: the products' shapes at their mean length.
    let tokens = match real {
        Some(_) => texts.iter().map(|t| t.len() / 4).sum::<usize>() / count,
        None => tokens,
    };
    println!(
        "precision: {}",
        match mindnet_embed::int8::chosen(embed.int8) {
            Some(k) if model == "e5-small" => format!("int8 ({k:?})"),
            _ => "f32".to_string(),
        }
    );
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let t = std::time::Instant::now();
    for batch in refs.chunks(32) {
        embedder.embed_passages(batch)?;
    }
    let secs = t.elapsed().as_secs_f64();
    if against_f32 {
        compare_with_f32(model, &*embedder, &refs)?;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{model}: {count} texts of ~{tokens} tokens in {secs:.2} s = {:.1} chunks/s (model load {load:.2} s, {threads} threads, peak RSS {:.0} MB)",
        count as f64 / secs,
        peak_rss_mb().unwrap_or(f64::NAN)
    );
    let Some(flops) = embedder.flops(&refs) else {
        println!("{model}: the model does not count its operations; no limit to set against");
        return Ok(ExitCode::SUCCESS);
    };
    let per_chunk = flops / count as f64;
    println!(
        "{model}: {:.2} GFLOP per chunk, {:.1} GFLOP/s achieved",
        per_chunk / 1e9,
        flops / secs / 1e9
    );
    // The model's own product shapes at this length, one single-threaded
    // product per core at once, as the encoders run. The limit gives every
    // operation the speed of the products that carry it, weighted by their
    // share: the time a chunk would take if it ran at the machine's speed.
    let products = embedder.products(tokens);
    let achieved = count as f64 / secs;
    limit(
        "gemm",
        "f32",
        "GFLOP/s",
        &products,
        per_chunk,
        achieved,
        |p| Some(mindnet_embed::gemm_gflops(p.m, p.n, p.k, threads, 1.0)),
    );
    // The same with the int8 products (quantising the activations, the
    // VNNI sums and the way back to f32, as the encoder runs them).
    if !limit(
        "int8",
        "int8",
        "GOP/s",
        &products,
        per_chunk,
        achieved,
        |p| mindnet_embed::int8::gops(p.m, p.n, p.k, threads, 1.0),
    ) {
        println!("int8: this CPU has no AVX-512 VNNI; no int8 limit");
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints each product's speed (`speed`, in G`unit` on all threads) and
/// the chunks/s they allow together; false when `speed` has none.
fn limit(
    kind: &str,
    name: &str,
    unit: &str,
    products: &[mindnet_embed::Product],
    per_chunk: f64,
    achieved: f64,
    speed: impl Fn(&mindnet_embed::Product) -> Option<f64>,
) -> bool {
    let (mut share, mut seconds) = (0.0, 0.0);
    for p in products {
        let Some(g) = speed(p) else { return false };
        share += p.flops();
        seconds += p.flops() / (g * 1e9);
        println!(
            "{kind} {}×{}·{}×{} ×{}: {g:.1} {unit}",
            p.m, p.k, p.k, p.n, p.times
        );
    }
    if seconds > 0.0 {
        let rate = share / seconds / 1e9;
        let limit = rate * 1e9 / per_chunk;
        println!(
            "{name} limit: {rate:.0} {unit} over the products = {limit:.1} chunks/s ({:.0} % reached)",
            100.0 * achieved / limit
        );
    }
    true
}

/// The cosine of each of `embedder`'s vectors to e5-small's in f32.
fn compare_with_f32(
    model: &str,
    embedder: &dyn mindnet_embed::Embedder,
    texts: &[&str],
) -> Result<()> {
    anyhow::ensure!(model == "e5-small", "--against-f32 compares e5-small only");
    let embed = mindnet_app::Settings::resolve(mindnet_app::SettingsInput::default()).embed;
    let dir = mindnet_embed::fetch::ensure(&embed, mindnet_embed::models::E5_SMALL, &|m| {
        eprintln!("{m}")
    })?;
    let reference = mindnet_embed::e5::E5Small::load(&dir)?;
    let (mut min, mut sum) = (f32::INFINITY, 0.0f32);
    for batch in texts.chunks(32) {
        let ours = embedder.embed_passages(batch)?;
        let theirs = mindnet_embed::Embedder::embed_passages(&reference, batch)?;
        for (a, b) in ours.iter().zip(&theirs) {
            // Both are L2-normalised.
            let c: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            min = min.min(c);
            sum += c;
        }
    }
    println!(
        "cosine to f32 over {} texts: min {min:.4}, mean {:.4}",
        texts.len(),
        sum / texts.len() as f32
    );
    Ok(())
}

fn ingest(notes: usize, seed: u64, runs: usize, keep: Option<PathBuf>) -> Result<ExitCode> {
    let tmp;
    let dir = match keep {
        Some(d) => {
            std::fs::create_dir_all(&d)
                .with_context(|| format!("cannot create {}", d.display()))?;
            d
        }
        None => {
            tmp = tempfile::tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    let g = vaultgen::generate(&dir, notes, seed).context("cannot write the generated vault")?;
    println!(
        "generated vault: {} notes, {:.1} MB, {} links (seed {seed}) in {}",
        g.notes,
        g.bytes as f64 / 1e6,
        g.links,
        dir.display()
    );
    println!(
        "threads: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let config = Config::builtin();
    let opts = ImportOptions::default();
    let mut samples = Vec::new();
    for i in 0..runs {
        let plan = plan_vault(&dir, &config, &opts)?;
        let t = &plan.timings;
        println!(
            "run {}: scan {:.3}s read {:.3}s parse {:.3}s chunk {:.3}s derive {:.3}s -> {} chunks, {} edges",
            i + 1,
            t.scan.as_secs_f64(),
            t.read.as_secs_f64(),
            t.parse.as_secs_f64(),
            t.chunk.as_secs_f64(),
            t.derive.as_secs_f64(),
            plan.chunk_count(),
            plan.edge_count()
        );
        samples.push(t.clone());
    }
    let median = |f: fn(&mindnet_ingest::plan::Timings) -> Duration| {
        let mut v: Vec<Duration> = samples.iter().map(f).collect();
        v.sort();
        v[v.len() / 2]
    };
    let rate = |d: Duration| notes as f64 / d.as_secs_f64().max(1e-9);
    let parse = median(|t| t.parse);
    let chunk = median(|t| t.chunk);
    let derive = median(|t| t.derive);
    let core = median(|t| t.parse + t.chunk + t.derive);
    let all = median(|t| t.scan + t.read + t.parse + t.chunk + t.derive);
    println!("median notes/s ({runs} runs):");
    println!("  parse                 {:>10.0}", rate(parse));
    println!("  chunk                 {:>10.0}", rate(chunk));
    println!("  derive                {:>10.0}", rate(derive));
    println!("  parse+chunk+derive    {:>10.0}", rate(core));
    println!("  with scan and read    {:>10.0}", rate(all));
    Ok(ExitCode::SUCCESS)
}
