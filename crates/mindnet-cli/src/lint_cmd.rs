//! `mindnet lint`: the graph linter on the files of a vault.

use crate::config::ConfigArgs;
use anyhow::Result;
use mindnet_lint::{Finding, Lang, LintConfig, LintOptions, Severity, excerpt, lint_vault};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct LintArgs {
    /// The vault's root folder.
    #[arg(default_value = ".")]
    pub vault: PathBuf,
    /// Only this note (its vault-relative path).
    #[arg(long, value_name = "PATH")]
    pub note: Option<String>,
    /// Print the findings as a JSON list.
    #[arg(long)]
    pub json: bool,
    /// Show findings of at least this severity: error, warning, recommendation.
    #[arg(long, default_value = "recommendation")]
    pub severity: Severity,
    /// Language of the messages: de or en.
    #[arg(long, default_value = "de", value_parser = ["de", "en"])]
    pub lang: String,
    /// Rule severities (default: $MINDNET_LINT_FILE, else <VAULT>/.mindnet/config/lint.yaml, else built-in).
    #[arg(long, value_name = "FILE")]
    pub lint_config: Option<PathBuf>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn lint_config(args: &LintArgs) -> Result<LintConfig> {
    let path = args
        .lint_config
        .clone()
        .or_else(|| std::env::var_os("MINDNET_LINT_FILE").map(PathBuf::from))
        .or_else(|| {
            let p = args.vault.join(".mindnet/config/lint.yaml");
            p.is_file().then_some(p)
        });
    Ok(match path {
        Some(p) => LintConfig::load(&p)?,
        None => LintConfig::builtin(),
    })
}

pub fn run(args: LintArgs) -> Result<ExitCode> {
    let config = args.config.load(&args.vault)?;
    let opts = LintOptions {
        lang: if args.lang == "en" {
            Lang::En
        } else {
            Lang::De
        },
        note: args.note.clone(),
        max_note_bytes: 0,
    };
    let mut report = lint_vault(&args.vault, &config, &lint_config(&args)?, &opts)?;
    report.findings.retain(|f| f.severity >= args.severity);
    for w in &report.skipped {
        eprintln!("{w}");
    }
    let errors = report.count(Severity::Error);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report.findings)?);
    } else {
        print_human(
            &args.vault,
            &report.findings,
            report.notes,
            args.lang == "en",
        )?;
    }
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Grouped by note, like a compiler: `path:line:col severity rule: message`
/// and the line itself.
fn print_human(root: &Path, findings: &[Finding], notes: usize, en: bool) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut current = "";
    for f in findings {
        if f.path != current {
            writeln!(out, "{}", f.path)?;
            current = &f.path;
        }
        writeln!(
            out,
            "  {}:{}:{} {} {}: {}",
            f.path,
            f.line,
            f.column,
            f.severity.as_str(),
            f.rule,
            f.message
        )?;
        if let Some(line) = excerpt(root, f) {
            writeln!(out, "   | {}", line.trim_end())?;
            writeln!(
                out,
                "   | {}^",
                " ".repeat(f.column.saturating_sub(1).min(line.chars().count()))
            )?;
        }
    }
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    writeln!(
        out,
        "{} {}, {} {}, {} {} in {} {}",
        count(Severity::Error),
        if en { "errors" } else { "Fehler" },
        count(Severity::Warning),
        if en { "warnings" } else { "Warnungen" },
        count(Severity::Recommendation),
        if en {
            "recommendations"
        } else {
            "Empfehlungen"
        },
        notes,
        if en { "notes" } else { "Notizen" },
    )
}
