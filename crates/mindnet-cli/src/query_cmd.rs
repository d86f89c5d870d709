//! `mindnet query`, `ask`, `feedback` and `eval`: argument parsing, one call
//! of the application layer (here or on the server that owns the index),
//! and printing.

use crate::args::{ConfigArgs, DataArgs, IndexLocation, settings};
use crate::backend::{Backend, refuse_if_served};
use anyhow::{Context, Result, bail};
use mindnet_app::Service;
use mindnet_app::Settings;
use mindnet_app::api::{Lang, Mode};
use mindnet_app::eval::{EvalRequest, evaluate};
use mindnet_app::ops::ask::{AskOp, AskRequest};
use mindnet_app::ops::feedback::{FeedbackOp, FeedbackRequest};
use mindnet_app::ops::query::{DEFAULT_K, QueryOp, QueryRequest};
use serde::Deserialize;
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct QueryArgs {
    /// The question or search text (or use --batch).
    pub text: Option<String>,
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// semantic (vectors only) or hybrid (vectors + BM25 + graph).
    #[arg(long, default_value_t = Mode::default())]
    pub mode: Mode,
    /// Number of hits.
    #[arg(short, long, default_value_t = DEFAULT_K)]
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
    /// The raw list of chunks (several per note) instead of one hit per note.
    #[arg(long, conflicts_with = "group_by_note")]
    pub chunks: bool,
    /// One hit per note (the default; kept for older scripts).
    #[arg(long, hide = true)]
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
    #[arg(long, default_value_t = Lang::default())]
    pub lang: Lang,
    /// Embedding model (default: the index's).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

impl AnswerArgs {
    fn settings(&self) -> Settings {
        settings(
            self.at.vault.clone(),
            &self.at.data,
            self.embedder.clone(),
            &self.config,
        )
    }
}

pub fn query(args: QueryArgs) -> Result<ExitCode> {
    let a = &args.answer;
    let backend = Backend::open(&a.settings())?;
    let make = |text: &str| QueryRequest {
        text: text.to_string(),
        mode: args.mode,
        k: Some(args.k),
        types: args.note_types.clone(),
        tags: args.tags.clone(),
        statuses: args.statuses.clone(),
        paths: args.paths.clone(),
        chunks: args.chunks,
        no_graph: args.no_graph,
        intent: a.intent.clone(),
        lang: a.lang,
        no_traversal: a.no_traversal,
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
            let r = backend.call::<QueryOp>(&make(&q.question))?;
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
    let r = backend.call::<QueryOp>(&make(text))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", mindnet_render::query_text(&r, args.explain));
    }
    Ok(ExitCode::SUCCESS)
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
    let s = settings(
        args.at.vault.clone(),
        &args.at.data,
        None,
        &ConfigArgs::default(),
    );
    let req = FeedbackRequest {
        query_id: args.query_id,
        node_id: args.node_id,
        score: args.score,
        comment: args.comment,
    };
    // The logs take concurrent writers; no index needs to be opened.
    let fb = Backend::open(&s)?.call::<FeedbackOp>(&req)?;
    println!(
        "feedback {} for {} on query {} written to {}",
        fb.score, fb.node_id, fb.query_id, fb.log
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
    #[arg(long, default_value_t = Mode::default())]
    pub mode: Mode,
    /// Only the first N questions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Also ask the chat each question with an `answer` (extractively) and
    /// report answer recall: in the answer, in its cited chunks, in its sources.
    #[arg(long)]
    pub answers: bool,
    /// Embedding model for the import (default: the index's, else e5-small).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    /// With --json: also list, per question, the ranked notes with and
    /// without the graph and the second hop's notes, to look at each miss.
    #[arg(long, requires = "json")]
    pub ranks: bool,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub fn evaluate_cmd(args: EvalArgs) -> Result<ExitCode> {
    let s = settings(
        Some(args.vault.clone()),
        &args.data,
        args.embedder.clone(),
        &args.config,
    );
    refuse_if_served(&s, "eval")?;
    let req = EvalRequest {
        questions: args.questions.clone(),
        field: args.field.clone(),
        mode: args.mode,
        limit: args.limit,
        answers: args.answers,
        ranks: args.ranks,
    };
    let report = evaluate(&s, &req, &crate::progress::bar(), &|m| eprintln!("{m}"))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", mindnet_render::eval_text(&report));
    }
    Ok(ExitCode::SUCCESS)
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
    let backend = Backend::open(&a.settings())?;
    let r = backend.call::<AskOp>(&AskRequest {
        question: args.question.clone(),
        intent: a.intent.clone(),
        lang: a.lang,
        no_traversal: a.no_traversal,
        k: None,
    })?;
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&r)?),
        "mermaid" => print!("{}", mindnet_render::mermaid(&r)),
        _ => {
            print!("{}", mindnet_render::ask_text(&r, a.lang));
            if r.causal.is_some() {
                // The MCP tool appends the diagram itself; only here is it a flag.
                let de = a.lang == Lang::De;
                println!(
                    "{} --format mermaid",
                    if de { "Als Diagramm:" } else { "As a diagram:" }
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct EvalRouterArgs {
    /// Messages, one JSON object per line: `id`, `message`, `strategy`
    /// (and `type` for an interview).
    pub messages: PathBuf,
    /// Embedding model of the centroid fallback (default: e5-small).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// The chat router on a judged message set, without an LLM.
pub fn evaluate_router_cmd(args: EvalRouterArgs) -> Result<ExitCode> {
    let data = DataArgs {
        // No index is read; the model cache is used as it is.
        data: Some(std::env::temp_dir().join("mindnet-eval-router")),
        qdrant_url: None,
    };
    let s = settings(None, &data, args.embedder.clone(), &args.config);
    let report = mindnet_app::eval_router::evaluate_router(&s, &args.messages)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", mindnet_render::router_text(&report));
    }
    Ok(ExitCode::SUCCESS)
}
