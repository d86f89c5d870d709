//! `mindnet query`, `mindnet feedback` and `mindnet eval`: the commands that
//! read an index through the retriever.

use crate::config::ConfigArgs;
use crate::store_cmd::{DataArgs, IndexArgs, open_embedder, run_index};
use anyhow::{Context, Result, bail};
use mindnet_embed::Embedder;
use mindnet_ingest::{Config, ImportOptions};
use mindnet_retrieve::causal::DecisionEngine;
use mindnet_retrieve::eval::{self, Scores};
use mindnet_retrieve::log::Logs;
use mindnet_retrieve::{Filters, Lang, Mode, Query, QueryResult, Retriever, RetrieverConfig};
use mindnet_store::{EmbeddedStore, StoreMeta};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What every reading command needs: the vault and its index.
#[derive(clap::Args, Debug, Clone)]
pub struct IndexLocation {
    /// The vault (its index is <VAULT>/.mindnet unless --data says otherwise).
    #[arg(long, default_value = ".")]
    pub vault: PathBuf,
    #[command(flatten)]
    pub data: DataArgs,
}

#[derive(clap::Args, Debug)]
pub struct QueryArgs {
    /// The question or search text (or use --batch).
    pub text: Option<String>,
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// semantic (vectors only) or hybrid (vectors + BM25 + graph).
    #[arg(long, default_value = "hybrid")]
    pub mode: Mode,
    /// Number of hits.
    #[arg(short, long, default_value_t = 10)]
    pub k: usize,
    /// Show the score breakdown and the reasons of each hit.
    #[arg(long)]
    pub explain: bool,
    /// Only notes of this type (repeatable).
    #[arg(long = "type", id = "note_type", value_name = "TYPE")]
    pub note_types: Vec<String>,
    /// Only notes with this tag (repeatable: all must be present).
    #[arg(long = "tag", id = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Only notes with this status (repeatable).
    #[arg(long = "status", id = "status", value_name = "STATUS")]
    pub statuses: Vec<String>,
    /// Only notes whose vault path starts with this (repeatable).
    #[arg(long = "path", id = "path_prefix", value_name = "PREFIX")]
    pub paths: Vec<String>,
    /// The best chunk per note only.
    #[arg(long)]
    pub group_by_note: bool,
    /// No graph expansion (edge bonus and centrality are 0).
    #[arg(long)]
    pub no_graph: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Answer every line {"id", "question"} of a JSON Lines file; prints one
    /// JSON result per line. The model loads once.
    #[arg(long, value_name = "FILE.jsonl")]
    pub batch: Option<PathBuf>,
}

/// What `query` and `ask` share: the index, the intent, the language, the model.
#[derive(clap::Args, Debug)]
pub struct AnswerArgs {
    #[command(flatten)]
    pub at: IndexLocation,
    /// Override the detected intent (why, consequence, empathy, development, fact).
    #[arg(long)]
    pub intent: Option<String>,
    /// No causal traversal: causal intents get the seeds alone (for A/B).
    #[arg(long)]
    pub no_traversal: bool,
    /// Language of the reasons and labels: de or en.
    #[arg(long, default_value = "de")]
    pub lang: Lang,
    /// Embedding model (default: the index's).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// An index opened for reading, with everything a `Retriever` borrows.
struct Opened {
    data: PathBuf,
    store: EmbeddedStore,
    embedder: Box<dyn Embedder>,
    config: Config,
    retriever: RetrieverConfig,
    engine: DecisionEngine,
}

impl Opened {
    fn open(at: &IndexLocation, embedder: Option<&str>, config: &ConfigArgs) -> Result<Self> {
        let data = at.data.dir(&at.vault);
        let store = EmbeddedStore::open_existing(&data)?;
        Ok(Opened {
            embedder: open_embedder(embedder, &data)?,
            config: config.load(&at.vault)?,
            retriever: config.load_retriever(&at.vault)?,
            engine: config.load_engine(&at.vault)?,
            store,
            data,
        })
    }

    fn retriever(&self) -> Result<Retriever<'_>> {
        Ok(Retriever::new(
            &self.store,
            self.embedder.as_ref(),
            &self.config.vocab,
            self.retriever.clone(),
            self.engine.clone(),
        )?)
    }
}

fn timestamp() -> String {
    mindnet_store::meta_now()
}

pub fn query(args: QueryArgs) -> Result<ExitCode> {
    let a = &args.answer;
    let opened = Opened::open(&a.at, a.embedder.as_deref(), &a.config)?;
    let retriever = opened.retriever()?;
    let logs = Logs::new(&opened.data);
    let make = |text: &str| Query {
        text: text.to_string(),
        mode: args.mode,
        k: args.k,
        graph: !args.no_graph,
        filters: Filters {
            types: args.note_types.clone(),
            tags: args.tags.clone(),
            statuses: args.statuses.clone(),
            paths: args.paths.clone(),
        },
        group_by_note: args.group_by_note,
        intent: a.intent.clone(),
        lang: a.lang,
        traverse: !a.no_traversal,
    };
    let run = |text: &str| -> Result<QueryResult> {
        let r = retriever.query(&make(text))?;
        logs.record_search(&r, &timestamp())?;
        Ok(r)
    };

    if let Some(batch) = &args.batch {
        #[derive(Deserialize)]
        struct Line {
            id: serde_json::Value,
            question: String,
        }
        let f = std::fs::File::open(batch).with_context(|| format!("{}", batch.display()))?;
        let mut out = BufWriter::new(std::io::stdout().lock());
        for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
            let line = line.with_context(|| format!("{}", batch.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let q: Line = serde_json::from_str(&line).with_context(|| {
                format!(
                    "{}:{}: expected {{\"id\", \"question\"}}",
                    batch.display(),
                    i + 1
                )
            })?;
            let r = run(&q.question)?;
            let mut v = serde_json::to_value(&r)?;
            v["id"] = q.id;
            serde_json::to_writer(&mut out, &v)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }

    let Some(text) = args.text.as_deref() else {
        bail!("give a question, e.g. mindnet query \"Warum …?\", or --batch FILE.jsonl");
    };
    let r = run(text)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print_human(&r, args.explain);
    }
    Ok(ExitCode::SUCCESS)
}

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn print_human(r: &QueryResult, explain: bool) {
    println!(
        "query {} · intent {} · {}{} · {:.0} ms (embedding {:.0} ms)",
        r.query_id,
        r.intent,
        serde_json::to_value(r.mode)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        if r.graph { " + graph" } else { "" },
        r.timings.search_ms + r.timings.embed_ms,
        r.timings.embed_ms,
    );
    if r.hits.is_empty() {
        println!("no hits");
    }
    for (i, h) in r.hits.iter().enumerate() {
        println!(
            "{:>2}. {}  ({}, {})  {:.3}",
            i + 1,
            h.title,
            h.note_type,
            h.path,
            h.score
        );
        if !h.section.is_empty() {
            println!("    § {}", h.section);
        }
        println!("    {}", one_line(&h.text, 160));
        if explain {
            let b = &h.score_breakdown;
            println!(
                "    score {:.3} = semantic {:.3} + edge {:.3} + centrality {:.3}   [S_sem {:.3} (cos {:.3}, bm25 {:.3}) · W_type {:.2} · M_status {:.2}; B_edge {:.3}; B_cent {:.3}]",
                b.total,
                b.semantic,
                b.edge_bonus,
                b.centrality,
                b.s_sem,
                b.cosine,
                b.lexical,
                b.w_type,
                b.m_status,
                b.b_edge,
                b.b_cent
            );
            for reason in &h.reasons {
                println!("    · {reason}");
            }
        }
    }
    println!(
        "Rate a hit: mindnet feedback {} <chunk or note id> <1-5>",
        r.query_id
    );
}

#[derive(clap::Args, Debug)]
pub struct FeedbackArgs {
    /// The query id printed by `mindnet query`.
    pub query_id: String,
    /// A hit's chunk id or note id, or `generated_answer`.
    pub node_id: String,
    /// 1 (useless) to 5 (exactly right).
    #[arg(allow_negative_numbers = true)]
    pub score: i64,
    #[arg(long)]
    pub comment: Option<String>,
    #[command(flatten)]
    pub at: IndexLocation,
}

pub fn feedback(args: FeedbackArgs) -> Result<ExitCode> {
    let data = args.at.data.dir(&args.at.vault);
    let logs = Logs::new(&data);
    let fb = logs.record_feedback(
        &args.query_id,
        &args.node_id,
        args.score,
        args.comment,
        &timestamp(),
    )?;
    println!(
        "feedback {} for {} on query {} written to {}",
        fb.score,
        fb.node_id,
        fb.query_id,
        logs.path(mindnet_retrieve::log::FEEDBACK).display()
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// Questions, one JSON object per line, with the question text and
    /// `gold` (the relevant note names: file names without `.md`).
    pub questions: PathBuf,
    /// The vault the questions are about; it is imported (or brought up to
    /// date) first.
    #[arg(long)]
    pub vault: PathBuf,
    #[command(flatten)]
    pub data: DataArgs,
    /// The field holding the question text.
    #[arg(long, default_value = "question")]
    pub field: String,
    #[arg(long, default_value = "hybrid")]
    pub mode: Mode,
    /// Only the first N questions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Embedding model for the import (default: the index's, else e5-small).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Gold {
    One(String),
    Many(Vec<String>),
}

#[derive(serde::Serialize)]
struct EvalRun {
    graph: bool,
    summary: eval::Summary,
    latency_ms: eval::Latency,
}

#[derive(serde::Serialize)]
struct EvalReport {
    questions_file: PathBuf,
    field: String,
    mode: Mode,
    model: String,
    questions: usize,
    runs: Vec<EvalRun>,
    /// For questions with a `gold_chain`: causal traversal on and off (CAU-6).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    chains: Vec<ChainRun>,
    embedding_ms: eval::Latency,
}

#[derive(serde::Serialize)]
struct ChainRun {
    traversal: bool,
    questions: usize,
    /// Mean share of the gold chain's notes in the explanation subgraph.
    chain_recall: f64,
    /// Share of questions whose top path holds the gold chain in order.
    order_hit_rate: f64,
    latency_ms: eval::Latency,
}

fn note_name(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default()
}

pub fn evaluate(args: EvalArgs) -> Result<ExitCode> {
    let data = args.data.dir(&args.vault);
    let (report, meta): (_, StoreMeta) = run_index(&IndexArgs {
        vault: &args.vault,
        data: data.clone(),
        embedder: args.embedder.as_deref(),
        config: &args.config,
        import: ImportOptions::default(),
        sync: Default::default(),
        json: false,
    })?;
    eprintln!(
        "index {}: {} notes, {} chunks, {} edges ({}, {} new, {} changed)",
        data.display(),
        report.notes,
        report.chunks,
        report.edges,
        meta.model.name,
        report.new,
        report.changed
    );

    let text = std::fs::read_to_string(&args.questions)
        .with_context(|| format!("{}", args.questions.display()))?;
    /// Text, gold notes, type, gold chain.
    type Question = (String, Vec<String>, Option<String>, Option<Vec<String>>);
    let mut questions: Vec<Question> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let where_ = || format!("{}:{}", args.questions.display(), i + 1);
        let v: serde_json::Value = serde_json::from_str(line).with_context(where_)?;
        let q = v[&args.field]
            .as_str()
            .with_context(|| format!("{}: no text field `{}`", where_(), args.field))?;
        let gold = match serde_json::from_value::<Gold>(v["gold"].clone())
            .with_context(|| format!("{}: `gold` must be a name or a list of names", where_()))?
        {
            Gold::One(g) => vec![g],
            Gold::Many(g) => g,
        };
        let qtype = v["type"].as_str().map(str::to_string);
        let chain: Option<Vec<String>> = serde_json::from_value(v["gold_chain"].clone()).ok();
        questions.push((q.to_string(), gold, qtype, chain));
    }
    if let Some(n) = args.limit {
        questions.truncate(n);
    }

    let at = IndexLocation {
        vault: args.vault.clone(),
        data: args.data.clone(),
    };
    let opened = Opened::open(&at, args.embedder.as_deref(), &args.config)?;
    let retriever = opened.retriever()?;
    let mut embed_ms = Vec::new();
    /// One arm of the A/B: per question its type and scores, and latencies.
    struct Arm {
        graph: bool,
        scores: Vec<(Option<String>, Scores)>,
        latency: Vec<f64>,
    }
    let mut runs: Vec<Arm> = [true, false]
        .into_iter()
        .map(|graph| Arm {
            graph,
            scores: Vec::new(),
            latency: Vec::new(),
        })
        .collect();
    // Causal arms: traversal on, off.
    /// A causal arm: traversal on or off; per question chain recall, order hit, latency.
    type ChainArm = (bool, Vec<f64>, Vec<f64>, Vec<f64>);
    let mut chain_arms: Vec<ChainArm> = vec![
        (true, Vec::new(), Vec::new(), Vec::new()),
        (false, Vec::new(), Vec::new(), Vec::new()),
    ];
    let name_of = |id: &str| {
        retriever
            .note(id)
            .map(|n| note_name(&n.path))
            .unwrap_or_default()
    };
    for (i, (q, gold, qtype, chain)) in questions.iter().enumerate() {
        let t = std::time::Instant::now();
        let vector = retriever.embed(q)?;
        embed_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        for arm in runs.iter_mut() {
            let mut query = Query::new(q.clone());
            query.mode = args.mode;
            query.graph = arm.graph;
            query.group_by_note = true;
            query.k = 10;
            let r = retriever.search(&query, &vector)?;
            arm.latency.push(r.timings.search_ms);
            let ranked: Vec<String> = r.hits.iter().map(|h| note_name(&h.path)).collect();
            arm.scores.push((qtype.clone(), eval::score(&ranked, gold)));
        }
        if let Some(chain) = chain {
            for (traverse, recall, order, latency) in chain_arms.iter_mut() {
                let mut query = Query::new(q.clone());
                query.mode = args.mode;
                query.traverse = *traverse;
                let r = retriever.search(&query, &vector)?;
                latency.push(r.timings.search_ms);
                let (found, top): (Vec<String>, Vec<String>) = match &r.causal {
                    Some(c) => (
                        c.subgraph
                            .nodes
                            .iter()
                            .map(|n| name_of(&n.note_id))
                            .collect(),
                        c.paths
                            .first()
                            .map(|p| p.notes.iter().map(|n| name_of(&n.note_id)).collect())
                            .unwrap_or_default(),
                    ),
                    None => (Vec::new(), Vec::new()),
                };
                recall.push(eval::chain_recall(&found, chain));
                order.push(f64::from(u8::from(eval::contains_in_order(&top, chain))));
            }
        }
        if (i + 1) % 50 == 0 {
            eprintln!("{}/{} questions", i + 1, questions.len());
        }
    }
    let report = EvalReport {
        questions_file: args.questions.clone(),
        field: args.field.clone(),
        mode: args.mode,
        model: meta.model.name.clone(),
        questions: questions.len(),
        runs: runs
            .into_iter()
            .map(|arm| EvalRun {
                graph: arm.graph,
                summary: eval::summarize(&arm.scores),
                latency_ms: eval::latency(&arm.latency),
            })
            .collect(),
        chains: chain_arms
            .into_iter()
            .filter(|(_, recall, _, _)| !recall.is_empty())
            .map(|(traversal, recall, order, latency)| {
                let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
                ChainRun {
                    traversal,
                    questions: recall.len(),
                    chain_recall: mean(&recall),
                    order_hit_rate: mean(&order),
                    latency_ms: eval::latency(&latency),
                }
            })
            .collect(),
        embedding_ms: eval::latency(&embed_ms),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_eval(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_eval(r: &EvalReport) {
    println!(
        "{} questions from {} (field `{}`), model {}, mode {}",
        r.questions,
        r.questions_file.display(),
        r.field,
        r.model,
        serde_json::to_value(r.mode)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    );
    println!(
        "{:<22} {:>5} {:>9} {:>9} {:>9} {:>7} {:>8}",
        "", "n", "recall@1", "recall@5", "recall@10", "MRR", "nDCG@10"
    );
    let row = |label: &str, n: usize, s: &Scores| {
        println!(
            "{:<22} {:>5} {:>9.3} {:>9.3} {:>9.3} {:>7.3} {:>8.3}",
            label, n, s.recall_1, s.recall_5, s.recall_10, s.mrr, s.ndcg_10
        );
    };
    for run in &r.runs {
        let name = if run.graph { "graph" } else { "no graph" };
        row(
            &format!("{name}: all"),
            run.summary.questions,
            &run.summary.mean,
        );
        for (t, (n, s)) in &run.summary.by_type {
            row(&format!("{name}: {t}"), *n, s);
        }
    }
    for run in &r.runs {
        let l = run.latency_ms;
        println!(
            "search latency ({}): p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            if run.graph { "graph" } else { "no graph" },
            l.p50,
            l.p95,
            l.p99,
            l.max
        );
    }
    for c in &r.chains {
        println!(
            "causal chains ({}): {} questions, chain recall {:.3}, top path in gold order {:.3}, p50 {:.1} ms, p95 {:.1} ms",
            if c.traversal {
                "traversal"
            } else {
                "no traversal"
            },
            c.questions,
            c.chain_recall,
            c.order_hit_rate,
            c.latency_ms.p50,
            c.latency_ms.p95
        );
    }
    let e = r.embedding_ms;
    println!(
        "query embedding: p50 {:.1} ms, p95 {:.1} ms (not included above)",
        e.p50, e.p95
    );
}

#[derive(clap::Args, Debug)]
pub struct AskArgs {
    /// The question, e.g. "Warum habe ich den Job gewechselt?"
    pub question: String,
    /// text (the chain with evidence), mermaid (the subgraph as a diagram) or json.
    #[arg(long, default_value = "text", value_parser = ["text", "mermaid", "json"])]
    pub format: String,
    #[command(flatten)]
    pub answer: AnswerArgs,
}

pub fn ask(args: AskArgs) -> Result<ExitCode> {
    let a = &args.answer;
    let opened = Opened::open(&a.at, a.embedder.as_deref(), &a.config)?;
    let retriever = opened.retriever()?;
    let mut q = Query::new(args.question.clone());
    q.intent = a.intent.clone();
    q.lang = a.lang;
    q.traverse = !a.no_traversal;
    q.k = 5;
    q.group_by_note = true;
    let r = retriever.query(&q)?;
    Logs::new(&opened.data).record_search(&r, &timestamp())?;
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&r)?),
        "mermaid" => print!("{}", mermaid(&r)),
        _ => print_chain(&r, a.lang),
    }
    Ok(ExitCode::SUCCESS)
}

fn title_of<'a>(p: &'a mindnet_retrieve::causal::CausalPath, id: &'a str) -> &'a str {
    p.notes
        .iter()
        .find(|n| n.note_id == id)
        .map_or(id, |n| n.title.as_str())
}

/// A path as one line: effect first with the inverse kinds for why
/// questions ("A ⟵caused_by— B"), cause first otherwise ("B —resulted_in⟶ A").
fn chain_line(p: &mindnet_retrieve::causal::CausalPath, backward: bool) -> String {
    if p.steps.is_empty() {
        return p
            .notes
            .iter()
            .map(|n| n.title.as_str())
            .collect::<Vec<_>>()
            .join(", ");
    }
    if backward {
        let mut s = title_of(p, &p.steps[p.steps.len() - 1].effect).to_string();
        for step in p.steps.iter().rev() {
            s += &format!(" ⟵{}— {}", step.inverse_kind, title_of(p, &step.cause));
        }
        s
    } else {
        let mut s = title_of(p, &p.steps[0].cause).to_string();
        for step in &p.steps {
            s += &format!(" —{}⟶ {}", step.kind, title_of(p, &step.effect));
        }
        s
    }
}

fn print_chain(r: &QueryResult, lang: Lang) {
    let de = lang == Lang::De;
    println!("{} {}", if de { "Frage:" } else { "Question:" }, r.query);
    let Some(c) = &r.causal else {
        // Not a causal question: say so, show the best notes, and how to
        // ask for a chain anyway.
        println!(
            "intent {}: {}",
            r.intent,
            if de {
                "keine Kausalfrage; die besten Notizen (eine Kette mit --intent why oder --intent consequence):"
            } else {
                "not a causal question; the best notes (a chain with --intent why or --intent consequence):"
            }
        );
        for (i, h) in r.hits.iter().enumerate() {
            println!("  {}. {} ({}, {})", i + 1, h.title, h.note_type, h.path);
        }
        return;
    };
    let backward = c.direction == mindnet_retrieve::causal::Direction::Backward;
    println!(
        "intent {} · {:?} · {} · max {} hops",
        r.intent,
        c.direction,
        c.preferred_edges.join(", "),
        c.max_hops
    );
    let Some(best) = c.paths.first() else {
        println!(
            "{}",
            if de {
                "Kein Pfad gefunden."
            } else {
                "No path found."
            }
        );
        return;
    };
    println!();
    println!("{}", chain_line(best, backward));
    let steps: Vec<&mindnet_retrieve::causal::PathStep> = if backward {
        best.steps.iter().rev().collect()
    } else {
        best.steps.iter().collect()
    };
    for (i, s) in steps.iter().enumerate() {
        let line = if backward {
            format!(
                "{} ⟵{}— {}",
                title_of(best, &s.effect),
                s.inverse_kind,
                title_of(best, &s.cause)
            )
        } else {
            format!(
                "{} —{}⟶ {}",
                title_of(best, &s.cause),
                s.kind,
                title_of(best, &s.effect)
            )
        };
        println!("  {}. {line}   [{}]", i + 1, s.provenance);
        if !s.evidence.is_empty() {
            println!("     „{}“", s.evidence);
        }
    }
    let b = &best.score_breakdown;
    println!(
        "  score {:.3} = {:.2}·semantic {:.3} + {:.2}·coherence {:.3} + {:.2}·shape {:.3}",
        b.total, b.alpha, b.semantic, b.beta, b.coherence, b.gamma, b.shape_match
    );
    if c.paths.len() > 1 {
        println!();
        println!("{}", if de { "Weitere Pfade:" } else { "More paths:" });
        for (i, p) in c.paths.iter().enumerate().skip(1) {
            println!("  {}. {}  ({:.3})", i + 1, chain_line(p, backward), p.score);
        }
    }
    println!();
    println!(
        "{} {} {}, {} {} (--format mermaid)",
        if de {
            "Erklärungs-Subgraph:"
        } else {
            "Explanation subgraph:"
        },
        c.subgraph.nodes.len(),
        if de { "Notizen" } else { "notes" },
        c.subgraph.edges.len(),
        if de { "Kanten" } else { "edges" },
    );
}

/// The subgraph as a Mermaid flowchart (cause → effect), for Obsidian.
fn mermaid(r: &QueryResult) -> String {
    let mut out = String::from("```mermaid\ngraph LR\n");
    let Some(c) = &r.causal else {
        out.push_str("```\n");
        return out;
    };
    let index: HashMap<&str, usize> = c
        .subgraph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.note_id.as_str(), i))
        .collect();
    for (i, n) in c.subgraph.nodes.iter().enumerate() {
        let label = n.title.replace('"', "'");
        out.push_str(&format!(
            "  n{i}[\"{label}<br/><small>{}</small>\"]\n",
            n.note_type
        ));
    }
    for e in &c.subgraph.edges {
        if let (Some(a), Some(b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            out.push_str(&format!("  n{a} -->|{}| n{b}\n", e.kind));
        }
    }
    out.push_str("```\n");
    out
}
