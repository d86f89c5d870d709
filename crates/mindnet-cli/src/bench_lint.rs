//! `mindnet bench lint`: the linter against planted problems of known
//! truth, next to a generated vault. Precision per rule is what an author
//! feels; a rule that cries wolf gets the linter switched off.

use crate::vaultgen::{self, PlantedCase, PlantedLink};
use anyhow::{Context, Result};
use mindnet_ingest::Config;
use mindnet_lint::Finding;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct LintBench {
    /// Generated notes around the planted ones.
    #[arg(long, default_value_t = 10_000)]
    notes: usize,
    /// Planted links for split spellings (4 in 7 misspell a note, 3 in 7
    /// are decoys).
    #[arg(long, default_value_t = 700)]
    plant: usize,
    /// Planted cases for the other rules, each a problem or its decoy.
    #[arg(long, default_value_t = 190)]
    cases: usize,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Where to write the vault.
    #[arg(long, value_name = "DIR")]
    vault: PathBuf,
    /// Write every planted link with its finding and judgement (JSON Lines).
    #[arg(long, value_name = "FILE")]
    judged: Option<PathBuf>,
    /// Write every finding of the planted cases, and every problem missed,
    /// with its judgement (JSON Lines).
    #[arg(long, value_name = "FILE")]
    judged_rules: Option<PathBuf>,
}

/// Findings of one rule against the truth.
#[derive(Default)]
struct Tally {
    right: usize,
    wrong: usize,
    missed: usize,
}

pub fn run(args: LintBench) -> Result<ExitCode> {
    let vault = &args.vault;
    if vault.exists() {
        anyhow::bail!("{} exists; give a new folder", vault.display());
    }
    std::fs::create_dir_all(vault)?;
    vaultgen::generate(vault, args.notes, args.seed)?;
    let planted = vaultgen::plant_spellings(vault, args.plant, args.seed)?;
    let cases = vaultgen::plant_rules(vault, args.cases)?;
    let t = std::time::Instant::now();
    let report = mindnet_lint::lint_vault(
        vault,
        &Config::builtin(),
        &mindnet_lint::LintConfig::builtin(),
        &mindnet_lint::LintOptions::default(),
    )?;
    let seconds = t.elapsed().as_secs_f64();
    let mut tally: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let spelling_lines = judge_spellings(&planted, &report.findings, &mut tally);
    let case_lines = judge_cases(&cases, &report.findings, &mut tally);
    for (file, lines) in [
        (&args.judged, spelling_lines),
        (&args.judged_rules, case_lines),
    ] {
        if let Some(file) = file {
            std::fs::write(file, lines).with_context(|| format!("writing {}", file.display()))?;
        }
    }
    println!(
        "{} notes, {} planted links ({} misspellings, {} decoys), {} planted cases ({} with findings to give, {} with none), lint {:.2} s",
        report.notes,
        planted.len(),
        planted.iter().filter(|p| p.means.is_some()).count(),
        planted.iter().filter(|p| p.means.is_none()).count(),
        cases.len(),
        cases.iter().filter(|c| !c.expect.is_empty()).count(),
        cases.iter().filter(|c| c.expect.is_empty()).count(),
        seconds
    );
    println!("| rule | reported | right | wrong | missed | precision | recall |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (rule, t) in &tally {
        let reported = t.right + t.wrong;
        println!(
            "| {rule} | {reported} | {} | {} | {} | {:.3} | {:.3} |",
            t.right,
            t.wrong,
            t.missed,
            t.right as f64 / reported.max(1) as f64,
            t.right as f64 / (t.right + t.missed).max(1) as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The split-spelling finding on each planted link, against what it means.
fn judge_spellings(
    planted: &[PlantedLink],
    findings: &[Finding],
    tally: &mut BTreeMap<&'static str, Tally>,
) -> String {
    let t = tally.entry("node/split-spelling").or_default();
    let mut lines = String::new();
    for p in planted {
        let finding = findings
            .iter()
            .find(|f| f.path == p.path && f.rule == "node/split-spelling");
        let right = match (&p.means, finding) {
            (Some(name), Some(f)) if f.message.contains(&format!("`{name}`")) => {
                t.right += 1;
                true
            }
            (Some(_), None) => {
                t.missed += 1;
                false
            }
            (_, Some(_)) => {
                t.wrong += 1;
                false
            }
            (None, None) => true,
        };
        lines.push_str(
            &serde_json::json!({
                "path": p.path, "written": p.written, "means": p.means, "variant": p.variant,
                "finding": finding.map(|f| f.message.clone()), "judged": if right { "right" } else { "wrong" },
            })
            .to_string(),
        );
        lines.push('\n');
    }
    lines
}

/// Every finding in a planted case's folder, matched against the case's
/// expected findings: a match is right, anything else wrong, an expected
/// finding never given is missed.
fn judge_cases(
    cases: &[PlantedCase],
    findings: &[Finding],
    tally: &mut BTreeMap<&'static str, Tally>,
) -> String {
    let mut lines = String::new();
    let mut line = |case: &PlantedCase, rule: &str, path: &str, message: Option<&str>, judged| {
        lines.push_str(
            &serde_json::json!({
                "case": case.folder, "case_rule": case.rule, "variant": case.variant,
                "rule": rule, "path": path, "finding": message, "judged": judged,
            })
            .to_string(),
        );
        lines.push('\n');
    };
    for case in cases {
        let folder = Path::new(&case.folder);
        let mut open: Vec<bool> = vec![true; case.expect.len()];
        for f in findings
            .iter()
            .filter(|f| Path::new(&f.path).starts_with(folder))
        {
            let hit = case
                .expect
                .iter()
                .zip(open.iter_mut())
                .find(|(e, open)| **open && e.rule == f.rule && e.path == f.path);
            let t = tally.entry(f.rule).or_default();
            let judged = match hit {
                Some((_, open)) => {
                    *open = false;
                    t.right += 1;
                    "right"
                }
                None => {
                    t.wrong += 1;
                    "wrong"
                }
            };
            line(case, f.rule, &f.path, Some(&f.message), judged);
        }
        for (e, _) in case.expect.iter().zip(&open).filter(|(_, open)| **open) {
            tally.entry(e.rule).or_default().missed += 1;
            line(case, e.rule, &e.path, None, "missed");
        }
    }
    lines
}
