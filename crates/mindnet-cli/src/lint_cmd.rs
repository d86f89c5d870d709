//! `mindnet lint` (the graph linter on the files) and `mindnet chain` (a
//! note's causal neighbourhood).

use crate::args::{ConfigArgs, DataArgs};
use crate::backend::Backend;
use anyhow::Result;
use mindnet_app::Service;
use mindnet_app::api::{Direction, Lang};
use mindnet_app::ops::chain::{ChainOp, ChainRequest};
use mindnet_app::ops::lint::{LintOp, LintRequest, Severity};
use mindnet_app::ops::lint_fix::{FixRequest, LintFixOp};
use mindnet_app::{ConfigFiles, Settings, SettingsInput};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct LintArgs {
    /// The vault's root folder (default: $MINDNET_VAULT_ROOT, else the current folder).
    pub vault: Option<PathBuf>,
    /// Only this note: its id, vault path, file name, title or alias.
    #[arg(long, value_name = "NOTE")]
    pub note: Option<String>,
    /// Print the findings as a JSON list (every finding).
    #[arg(long)]
    pub json: bool,
    /// List every recommendation, as errors and warnings are. By default a
    /// whole vault's recommendations are summarised per rule, with their
    /// most frequent names; with --note they are always listed.
    #[arg(long)]
    pub all: bool,
    /// Show findings of at least this severity: error, warning, recommendation.
    #[arg(long, default_value_t = Severity::default())]
    pub severity: Severity,
    /// Language of the messages for notes without `lang:`: de or en
    /// (default: the language most notes are written in).
    #[arg(long)]
    pub lang: Option<Lang>,
    /// Rule severities (default: $MINDNET_LINT_FILE, else <VAULT>/.mindnet/config/lint.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub lint_config: Option<PathBuf>,
    /// Fix what can be fixed safely (alias kinds, split spellings); shows a
    /// unified diff unless --write is given.
    #[arg(long)]
    pub fix: bool,
    /// With --fix: write the changes (atomically; a file changed meanwhile is left alone).
    #[arg(long, requires = "fix")]
    pub write: bool,
    /// With --fix: add the missing inverse of each causal edge to its target note.
    #[arg(long, requires = "fix")]
    pub add_inverses: bool,
    /// With --fix: link each note's first unlinked mention of another note
    /// (`link/unlinked-mention`), as `[[Name|as written]]`.
    #[arg(long, requires = "fix")]
    pub link_mentions: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

impl LintArgs {
    fn settings(&self) -> Settings {
        Settings::resolve(SettingsInput {
            vault: self.vault.clone(),
            files: ConfigFiles {
                lint: self.lint_config.clone(),
                ..self.config.files()
            },
            ..Default::default()
        })
    }
}

fn fix(args: &LintArgs) -> Result<ExitCode> {
    let r = Backend::open(&args.settings())?.call::<LintFixOp>(&FixRequest {
        add_inverses: args.add_inverses,
        link_mentions: args.link_mentions,
        write: args.write,
        ..FixRequest::default()
    })?;
    for s in &r.skipped {
        eprintln!("{s}");
    }
    let mut failed = 0;
    for f in &r.files {
        if !args.write {
            print!("{}", f.diff);
        } else if let Some(e) = &f.error {
            eprintln!("error: {e}");
            failed += 1;
        } else {
            println!("fixed {}", f.path);
            for line in &f.fixes {
                println!("  {line}");
            }
        }
    }
    if r.files.is_empty() {
        println!("nothing to fix");
    } else if !args.write {
        eprintln!(
            "{} files would change; run with --write to apply",
            r.files.len()
        );
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn run(args: LintArgs) -> Result<ExitCode> {
    if args.fix {
        return fix(&args);
    }
    let settings = args.settings();
    let report = Backend::open(&settings)?.call::<LintOp>(&LintRequest {
        note: args.note.clone(),
        severity: args.severity,
        lang: args.lang,
        fixes: false,
    })?;
    for w in &report.skipped {
        eprintln!("{w}");
    }
    let errors = report.count(Severity::Error);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report.findings)?);
    } else {
        // The quoted lines, read once per note (findings come grouped by path).
        let cache = std::cell::RefCell::new((String::new(), String::new()));
        let line_of = |path: &str, line: usize| -> Option<String> {
            let mut c = cache.borrow_mut();
            if c.0 != path {
                c.1 = std::fs::read_to_string(settings.vault.join(path)).unwrap_or_default();
                c.0 = path.to_string();
            }
            line.checked_sub(1)
                .and_then(|i| c.1.lines().nth(i))
                .map(str::to_string)
        };
        print!(
            "{}",
            mindnet_render::lint_text(
                &report.findings,
                mindnet_render::LintView {
                    notes: report.notes,
                    en: report.lang == Lang::En,
                    all: args.all || args.note.is_some(),
                },
                &line_of
            )
        );
    }
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(clap::Args, Debug)]
pub struct ChainArgs {
    /// The note: its id, vault path, file name, title or alias.
    pub note: String,
    /// The vault's root folder (default: $MINDNET_VAULT_ROOT, else the current folder).
    #[arg(long)]
    pub vault: Option<PathBuf>,
    /// Only the causes.
    #[arg(long, conflicts_with_all = ["forward", "both"])]
    pub backward: bool,
    /// Only the effects.
    #[arg(long, conflicts_with = "both")]
    pub forward: bool,
    /// Causes and effects (the default).
    #[arg(long)]
    pub both: bool,
    /// Steps in each direction.
    #[arg(long, default_value_t = mindnet_app::settings::DEFAULT_CHAIN_HOPS, value_parser = clap::value_parser!(u8).range(1..=i64::from(mindnet_app::settings::MAX_CHAIN_HOPS)))]
    pub hops: u8,
    /// tree (indented text), mermaid or json.
    #[arg(long, default_value = "tree", value_parser = ["tree", "mermaid", "json"])]
    pub format: String,
    /// Read the files even when an index exists (the index also knows the
    /// edges derived from types and the matrix).
    #[arg(long)]
    pub files: bool,
    #[command(flatten)]
    pub data: DataArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub fn chain(args: ChainArgs) -> Result<ExitCode> {
    let settings = crate::args::settings(args.vault.clone(), &args.data, None, &args.config);
    let req = ChainRequest {
        note: args.note.clone(),
        direction: if args.backward {
            Direction::Backward
        } else if args.forward {
            Direction::Forward
        } else {
            Direction::Both
        },
        hops: Some(usize::from(args.hops)),
        files: args.files,
    };
    let p = Backend::open(&settings)?.call::<ChainOp>(&req)?;
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&p)?),
        "mermaid" => print!("{}", mindnet_render::chain_mermaid(&p)),
        _ => print!("{}", mindnet_render::chain_tree(&p)),
    }
    Ok(ExitCode::SUCCESS)
}
