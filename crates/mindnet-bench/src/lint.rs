//! `mindnet bench lint`: the linter against planted problems of known
//! truth, next to a generated vault. Precision per rule is what an author
//! feels; a rule that cries wolf gets the linter switched off.

use crate::vaultgen::{self, PlantedCase, PlantedLink};
use anyhow::{Context, Result};
use mindnet_ingest::Config;
use mindnet_lint::{Finding, Lang};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct LintBench {
    /// Generated notes around the planted ones.
    #[arg(long, default_value_t = 10_000)]
    notes: usize,
    /// Planted links for split spellings (11 in 18 misspell a note, 7 in
    /// 18 are decoys).
    #[arg(long, default_value_t = 700)]
    plant: usize,
    /// Planted cases for the other rules, each a problem or its decoy.
    #[arg(long, default_value_t = 190)]
    cases: usize,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// The share of distinct link targets that are missing (links to notes
    /// not yet written), added to the generated vault.
    #[arg(long, default_value_t = 0.1)]
    missing: f64,
    /// Also build a vault of real words from a word list, `LANG=FILE` (`de`
    /// or `en`; e.g. `de=/usr/share/dict/ngerman`), and count the
    /// split-spelling findings there, each of them false.
    #[arg(long, value_name = "LANG=FILE")]
    words: Vec<String>,
    /// Where to write the vault (the word vaults go beside it).
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
    // Parsed before anything is written.
    let word_lists = args
        .words
        .iter()
        .map(|w| word_list(w))
        .collect::<Result<Vec<_>>>()?;
    std::fs::create_dir_all(vault)?;
    vaultgen::generate(vault, args.notes, args.seed)?;
    let missing = vaultgen::plant_missing(vault, args.notes, args.missing, args.seed)?;
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
        "{} notes, {missing} missing names, {} planted links ({} misspellings, {} decoys), {} planted cases ({} with findings to give, {} with none), lint {:.2} s",
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
    if !word_lists.is_empty() {
        println!();
        println!(
            "| word list | names (notes + missing) | split spellings by letters, with the word list | per 10,000 names | without the word list | per 10,000 names | by normalisation (case, plural, …) | lint s |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    }
    for (lang, file) in &word_lists {
        real_words(vault, *lang, file, &args)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `de=/usr/share/dict/ngerman` → the language and the file.
fn word_list(arg: &str) -> Result<(Lang, PathBuf)> {
    let (tag, file) = arg.split_once('=').with_context(|| {
        format!("--words {arg}: give LANG=FILE, e.g. de=/usr/share/dict/ngerman")
    })?;
    let lang =
        Lang::from_tag(tag).with_context(|| format!("--words {arg}: the language is de or en"))?;
    Ok((lang, PathBuf::from(file)))
}

/// The split-spelling findings on a vault of real words, all false: by the
/// letters they differ in, with the configured word lists and without;
/// those by normalisation (equal after case, umlauts, separators, plural)
/// are counted apart, since such names are one name by the rule.
fn real_words(vault: &Path, lang: Lang, file: &Path, args: &LintBench) -> Result<()> {
    let list = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let list = String::from_utf8_lossy(&list);
    let tag = match lang {
        Lang::De => "de",
        Lang::En => "en",
    };
    let name = vault
        .file_name()
        .map_or_else(|| "vault".to_string(), |n| n.to_string_lossy().into_owned());
    let dir = vault.with_file_name(format!("{name}.words-{tag}"));
    if dir.exists() {
        anyhow::bail!("{} exists; give a new --vault", dir.display());
    }
    let made = vaultgen::word_vault(
        &dir,
        &list,
        args.notes,
        args.missing,
        lang == Lang::En,
        args.seed,
    )?;
    let opts = mindnet_lint::LintOptions {
        lang: Some(lang),
        ..Default::default()
    };
    let with = mindnet_lint::LintConfig::builtin();
    let mut counts = Vec::new();
    let mut seconds = 0.0;
    for config in [with.clone(), with.without_word_lists()] {
        let t = std::time::Instant::now();
        let report = mindnet_lint::lint_vault(&dir, &Config::builtin(), &config, &opts)?;
        if counts.is_empty() {
            seconds = t.elapsed().as_secs_f64();
        }
        let split: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.rule == "node/split-spelling")
            .collect();
        let by_letters: Vec<&&Finding> = split
            .iter()
            .filter(|f| f.message.contains("letter") || f.message.contains("Buchstabe"))
            .collect();
        if counts.is_empty() {
            for f in by_letters.iter().take(10) {
                eprintln!("false ({tag}): {}: {}", f.path, f.message);
            }
        }
        counts.push((by_letters.len(), split.len() - by_letters.len()));
    }
    let per = |n: usize| n as f64 * 10_000.0 / made.names.max(1) as f64;
    println!(
        "| {} ({tag}) | {} ({} + {}) | {} | {:.2} | {} | {:.2} | {} | {seconds:.2} |",
        file.display(),
        made.names,
        made.notes,
        made.missing,
        counts[0].0,
        per(counts[0].0),
        counts[1].0,
        per(counts[1].0),
        counts[0].1,
    );
    Ok(())
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
