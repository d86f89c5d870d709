//! `mindnet lint`: the graph linter on the files of a vault.

use crate::config::ConfigArgs;
use anyhow::Result;
use mindnet_lint::{Finding, Lang, LintConfig, LintOptions, Severity, lint_vault};
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
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn fix(args: &LintArgs) -> Result<ExitCode> {
    let config = args.config.load(&args.vault)?;
    let opts = mindnet_lint::FixOptions {
        add_inverses: args.add_inverses,
    };
    let (fixes, skipped) = mindnet_lint::plan_fixes(&args.vault, &config, &opts)?;
    for s in &skipped {
        eprintln!("{s}");
    }
    let mut failed = 0;
    for f in &fixes {
        if args.write {
            match mindnet_lint::write_fix(&args.vault, f) {
                Ok(()) => {
                    println!("fixed {}", f.path);
                    for line in &f.fixes {
                        println!("  {line}");
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    failed += 1;
                }
            }
        } else {
            print!("{}", mindnet_lint::unified_diff(&f.path, &f.old, &f.new));
        }
    }
    if fixes.is_empty() {
        println!("nothing to fix");
    } else if !args.write {
        eprintln!(
            "{} files would change; run with --write to apply",
            fixes.len()
        );
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
    if args.fix {
        return fix(&args);
    }
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
    // The note's text, read once per note (findings come grouped by path).
    let mut text = String::new();
    for f in findings {
        if f.path != current {
            writeln!(out, "{}", f.path)?;
            current = &f.path;
            text = std::fs::read_to_string(root.join(&f.path)).unwrap_or_default();
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
        if let Some(line) = f.line.checked_sub(1).and_then(|i| text.lines().nth(i)) {
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

#[derive(clap::Args, Debug)]
pub struct ChainArgs {
    /// The note: its title or its vault-relative path.
    pub note: String,
    /// The vault's root folder.
    #[arg(long, default_value = ".")]
    pub vault: PathBuf,
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
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=6))]
    pub hops: u8,
    /// tree (indented text), mermaid or json.
    #[arg(long, default_value = "tree", value_parser = ["tree", "mermaid", "json"])]
    pub format: String,
    /// Read the files even when an index exists (the index also knows the
    /// edges derived from types and the matrix).
    #[arg(long)]
    pub files: bool,
    #[command(flatten)]
    pub data: crate::store_cmd::DataArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// The chain from the index's edge graph, if there is an index.
fn chain_from_index(
    args: &ChainArgs,
    config: &mindnet_ingest::Config,
    direction: mindnet_lint::ChainDirection,
) -> Result<Option<mindnet_lint::ChainPreview>> {
    use mindnet_store::{EmbeddedStore, Store, StoreMeta};
    let data = args.data.dir(&args.vault);
    if args.files || StoreMeta::read_from(&data)?.is_none() {
        return Ok(None);
    }
    let store = EmbeddedStore::open_existing(&data)?;
    let notes = store.note_states()?;
    let nodes: Vec<mindnet_lint::ChainNote> = notes
        .iter()
        .map(|n| (n.path.clone(), n.title.clone(), n.note_type.clone()))
        .collect();
    let Some(start) = mindnet_lint::find_note(&nodes, &args.note) else {
        anyhow::bail!("no note `{}` in the index of {}", args.note, data.display());
    };
    let index: std::collections::HashMap<&str, usize> = notes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.note_id.as_str(), i))
        .collect();
    let vocab = &config.vocab;
    let mut steps = Vec::new();
    for e in store.graph()?.edges() {
        let target = mindnet_core::ids::note_of(&e.target_id);
        let (Some(&owner), Some(&other)) = (index.get(e.note_id.as_str()), index.get(target))
        else {
            continue;
        };
        if owner == other {
            continue;
        }
        let Some((target_causes, forward)) = mindnet_lint::causal_reading(&e.kind) else {
            continue;
        };
        let (cause, effect) = if target_causes {
            (other, owner)
        } else {
            (owner, other)
        };
        let backward = vocab.inverse(forward).unwrap_or(forward).to_string();
        steps.push((cause, effect, forward.to_string(), backward));
    }
    Ok(Some(mindnet_lint::chain_of(
        &nodes,
        steps,
        start,
        direction,
        usize::from(args.hops),
    )))
}

pub fn chain(args: ChainArgs) -> Result<ExitCode> {
    use mindnet_lint::{ChainDirection, chain_preview};
    let config = args.config.load(&args.vault)?;
    let direction = if args.backward {
        ChainDirection::Backward
    } else if args.forward {
        ChainDirection::Forward
    } else {
        ChainDirection::Both
    };
    let p = match chain_from_index(&args, &config, direction)? {
        Some(p) => p,
        None => chain_preview(
            &args.vault,
            &config,
            &args.note,
            direction,
            usize::from(args.hops),
        )?,
    };
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&p)?),
        "mermaid" => print!("{}", chain_mermaid(&p)),
        _ => {
            println!("{} ({})", p.title, p.note_type);
            print_branch(&p.causes, "⟵", 1);
            print_branch(&p.effects, "⟶", 1);
            if p.causes.is_empty() && p.effects.is_empty() {
                println!("  (keine kausalen Kanten / no causal edges)");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_branch(nodes: &[mindnet_lint::ChainNode], arrow: &str, depth: usize) {
    for n in nodes {
        println!(
            "{}{arrow} {} — {} ({}){}",
            "    ".repeat(depth - 1) + "  ",
            n.kind,
            n.title,
            n.note_type,
            if n.repeated {
                "  ↺ schon oben / seen above"
            } else {
                ""
            }
        );
        print_branch(&n.children, arrow, depth + 1);
    }
}

/// The chain as a Mermaid flowchart, cause → effect.
fn chain_mermaid(p: &mindnet_lint::ChainPreview) -> String {
    let mut ids: Vec<(String, String)> = vec![(p.path.clone(), p.title.clone())];
    let mut edges: Vec<(String, String, String)> = Vec::new();
    fn walk(
        parent: &str,
        nodes: &[mindnet_lint::ChainNode],
        backward: bool,
        ids: &mut Vec<(String, String)>,
        edges: &mut Vec<(String, String, String)>,
    ) {
        for n in nodes {
            if !ids.iter().any(|(p, _)| *p == n.path) {
                ids.push((n.path.clone(), n.title.clone()));
            }
            let edge = if backward {
                (
                    n.path.clone(),
                    parent.to_string(),
                    "resulted_in".to_string(),
                )
            } else {
                (parent.to_string(), n.path.clone(), n.kind.clone())
            };
            if !edges.contains(&edge) {
                edges.push(edge);
            }
            walk(&n.path, &n.children, backward, ids, edges);
        }
    }
    walk(&p.path, &p.causes, true, &mut ids, &mut edges);
    walk(&p.path, &p.effects, false, &mut ids, &mut edges);
    let index = |path: &str| ids.iter().position(|(p, _)| p == path).unwrap_or(0);
    let mut out = String::from("```mermaid\ngraph LR\n");
    for (i, (_, title)) in ids.iter().enumerate() {
        out.push_str(&format!("  n{i}[\"{}\"]\n", title.replace('"', "'")));
    }
    for (from, to, kind) in &edges {
        out.push_str(&format!("  n{} -->|{kind}| n{}\n", index(from), index(to)));
    }
    out.push_str("```\n");
    out
}
