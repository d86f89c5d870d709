//! `mindnet import`: the vault as notes, chunks and edges, into the index
//! (through the server that owns it, if one runs), or printed (`--dry-run`).

use crate::args::{ConfigArgs, DataArgs};
use crate::backend::server;
use anyhow::Result;
use mindnet_app::ImportPlan;
use mindnet_app::Service;
use mindnet_app::api::NoArgs;
use mindnet_app::ops::status::StatusOp;
use mindnet_app::ops::sync::{SyncOp, SyncRequest};
use mindnet_app::{Settings, SettingsInput};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The vault's root folder.
    pub vault: PathBuf,
    /// Build everything but write nothing; print what would be stored.
    #[arg(long)]
    pub dry_run: bool,
    /// Embedding model: e5-small (default), use-m3, ollama:<model>, openai:<model>; words:<dim> (no model) for benchmarks.
    /// Default: $MINDNET_EMBEDDING_MODEL, else the model the index was built with.
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    /// Remove notes from the index whose file is gone.
    #[arg(long)]
    pub sync_deletes: bool,
    /// Rewrite every note, changed or not.
    #[arg(long)]
    pub purge_before_upsert: bool,
    #[command(flatten)]
    pub data: DataArgs,
    /// Print JSON Lines: one record per note, chunk and edge, then a summary.
    #[arg(long)]
    pub json: bool,
    /// Language of notes without a `lang:` field.
    #[arg(long, default_value = mindnet_app::settings::DEFAULT_LANG)]
    pub lang: String,
    /// Skip notes larger than this many megabytes.
    #[arg(long, value_name = "MB", default_value_t = mindnet_app::settings::DEFAULT_MAX_NOTE_MB)]
    pub max_note_size: u64,
    /// Read files in a shuffled order (tests that the output does not depend on it).
    #[arg(long, hide = true)]
    pub shuffle_seed: Option<u64>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub fn run(args: ImportArgs) -> Result<ExitCode> {
    let settings = Settings::resolve(SettingsInput {
        vault: Some(args.vault.clone()),
        data: args.data.data.clone(),
        embedder: args.embedder.clone(),
        files: args.config.files(),
        lang: Some(args.lang.clone()),
        max_note_mb: Some(args.max_note_size),
        qdrant_url: args.data.qdrant_url.clone(),
    });
    if !args.dry_run {
        return index(&args, &settings);
    }
    let started = Instant::now();
    let plan = mindnet_app::plan(&settings, args.shuffle_seed)?;
    let seconds = started.elapsed().as_secs_f64();

    for w in &plan.warnings {
        eprintln!("{w}");
    }
    let summary = Summary::of(&plan);
    let written = if args.json {
        write_json(&plan, &summary)
    } else {
        write_human(&args, &summary, seconds)
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => {
            other?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn index(args: &ImportArgs, settings: &Settings) -> Result<ExitCode> {
    let req = SyncRequest {
        paths: Vec::new(),
        sync_deletes: args.sync_deletes,
        purge_before_upsert: args.purge_before_upsert,
    };
    let (summary, model, dim) = match server(settings)? {
        Some(client) => {
            let status = client.call::<StatusOp>(&NoArgs {})?;
            (client.call::<SyncOp>(&req)?, status.model, status.dim)
        }
        None => {
            let o = mindnet_app::import(settings, &req, &crate::progress::bar())?;
            tracing::debug!(
                "memory: peak {:.0} MB; now {}",
                mindnet_app::memory::peak_rss_mb().unwrap_or(f64::NAN),
                mindnet_app::memory::rss_split()
            );
            (o.summary, o.model, o.dim)
        }
    };
    for w in &summary.warnings {
        eprintln!("{w}");
    }
    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        print!(
            "{}",
            mindnet_render::import_text(
                &args.vault.display().to_string(),
                &settings.index_location(),
                &model,
                dim,
                &summary
            )
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct Record<'a, T: Serialize> {
    record: &'static str,
    #[serde(flatten)]
    payload: &'a T,
}

#[derive(Serialize)]
struct Summary<'a> {
    notes: usize,
    chunks: usize,
    edges: usize,
    unresolved: usize,
    edges_by_kind: BTreeMap<&'a str, usize>,
    edges_by_provenance: BTreeMap<&'a str, usize>,
    skipped: Vec<&'a mindnet_app::Skipped>,
    warnings: &'a [mindnet_app::Warning],
}

impl<'a> Summary<'a> {
    fn of(plan: &'a ImportPlan) -> Self {
        let mut by_kind = BTreeMap::new();
        let mut by_prov = BTreeMap::new();
        for e in plan.bundles.iter().flat_map(|b| &b.edges) {
            *by_kind.entry(e.kind.as_str()).or_default() += 1;
            *by_prov.entry(e.provenance.as_str()).or_default() += 1;
        }
        Summary {
            notes: plan.bundles.len(),
            chunks: plan.chunk_count(),
            edges: plan.edge_count(),
            unresolved: plan.unresolved_count(),
            edges_by_kind: by_kind,
            edges_by_provenance: by_prov,
            skipped: plan.skipped.iter().collect(),
            warnings: &plan.warnings,
        }
    }
}

fn write_json(plan: &ImportPlan, summary: &Summary<'_>) -> std::io::Result<()> {
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut line = |record: &'static str, payload: &dyn erased::Payload| -> std::io::Result<()> {
        payload.write(record, &mut out)
    };
    for b in &plan.bundles {
        line("note", &b.note)?;
        for c in &b.chunks {
            line("chunk", c)?;
        }
        for e in &b.edges {
            line("edge", e)?;
        }
    }
    line("summary", summary)?;
    out.flush()
}

/// Lets one closure write records of different payload types.
mod erased {
    use super::Record;
    use serde::Serialize;
    use std::io::Write;

    pub trait Payload {
        fn write(&self, record: &'static str, out: &mut dyn Write) -> std::io::Result<()>;
    }

    impl<T: Serialize> Payload for T {
        fn write(&self, record: &'static str, out: &mut dyn Write) -> std::io::Result<()> {
            serde_json::to_writer(
                &mut *out,
                &Record {
                    record,
                    payload: self,
                },
            )?;
            out.write_all(b"\n")
        }
    }
}

fn write_human(args: &ImportArgs, s: &Summary<'_>, seconds: f64) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let join = |m: &BTreeMap<&str, usize>| {
        let mut v: Vec<_> = m.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        v.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    writeln!(
        out,
        "mindnet import --dry-run {} (nothing written)",
        args.vault.display()
    )?;
    writeln!(
        out,
        "  notes       {} indexed, {} skipped",
        s.notes,
        s.skipped.len()
    )?;
    writeln!(out, "  chunks      {}", s.chunks)?;
    writeln!(
        out,
        "  edges       {} ({})",
        s.edges,
        join(&s.edges_by_provenance)
    )?;
    writeln!(out, "  by kind     {}", join(&s.edges_by_kind))?;
    writeln!(
        out,
        "  unresolved  {} edges point to notes that do not exist yet",
        s.unresolved
    )?;
    for sk in &s.skipped {
        writeln!(out, "  skipped     {}: {}", sk.path, sk.reason)?;
    }
    writeln!(
        out,
        "  warnings    {}{}",
        s.warnings.len(),
        if s.warnings.is_empty() {
            ""
        } else {
            " (listed above, on stderr)"
        }
    )?;
    writeln!(out, "  time        {seconds:.2} s")?;
    writeln!(
        out,
        "Run with --json for every note, chunk and edge as JSON Lines."
    )
}
