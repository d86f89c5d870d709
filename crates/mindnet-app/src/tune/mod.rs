//! `mindnet tune` (FB-3): learns the retriever's weights from judged
//! question sets and from the feedback log, by coordinate ascent (Metzler &
//! Croft 2007) over a grid per weight, with k-fold cross-validation and a
//! pull toward the current weights.
//!
//! Every question is embedded and its pool gathered once (`Pool`); each
//! trial then re-scores the pools in memory, so a few thousand trials over a
//! few thousand questions take minutes, not hours. Only the weights of the
//! score are tuned: the seed and expansion sizes decide what a pool holds.
//!
//! The objective weighs every set equally (a set of 1,190 questions must not
//! drown one of 26): per set the mean of recall@5 and MRR, then the mean over
//! sets. A proposal that helps one set and hurts another by more than
//! `GUARD` on either metric is reported and never written, and a trial in
//! which the graph scores below the same weights without it on any set
//! (beyond `GUARD`) is penalised ("the graph never hurts").
//!
//! Here: the parameters, the reports and the run. `data.rs` gathers the
//! material, `search.rs` evaluates and ascends, `yaml.rs` writes the
//! proposal.

use crate::eval::{EvalRequest, Question, read_questions};
use crate::tune::data::feedback_questions;
use crate::tune::data::gather;
use crate::tune::data::gold_ids;
use crate::tune::data::index_name;
use crate::tune::data::names_of;
use crate::tune::data::open_synced;
use crate::tune::search::ascend;
use crate::tune::search::evaluate;
use crate::tune::search::objective;
use crate::tune::yaml::rewrite;
use crate::{AppError, Settings, SettingsInput};
use mindnet_index::Progress;
use mindnet_retrieve::config::Tunable;
use mindnet_retrieve::{Pool, RetrieverConfig};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod data;
mod search;
mod yaml;

/// A change that lowers one set's recall@5 or MRR by more than this is refused.
pub const GUARD: f64 = 0.01;
/// The pull toward the current weights: objective points per grid step.
const PULL: f64 = 0.0005;
const MAX_ROUNDS: usize = 4;
const RESTARTS: usize = 4;
/// The held-out gain a change needs to be proposed.
const CONFIRM: f64 = 0.001;
const RESTART_SEED: u64 = 12;
/// Objective points lost per point the graph falls behind (a constraint in
/// all but name: a trial that hurts is never preferred).
const DEFICIT: f64 = 10.0;
/// A feedback rating of at least this marks a relevant note.
const RELEVANT_RATING: u8 = 4;

/// A judged question set: a questions file and its vault.
#[derive(Debug, Clone)]
pub struct JudgedSet {
    pub name: String,
    pub questions: PathBuf,
    pub vault: PathBuf,
    /// The field holding the question text.
    pub field: String,
}

#[derive(Debug, Clone)]
pub struct TuneRequest {
    pub sets: Vec<JudgedSet>,
    /// Vaults whose search history and feedback log become sets of their own.
    pub feedback: Vec<PathBuf>,
    /// Where the sets' indexes live (one folder per set); a feedback vault
    /// keeps its own index, where its logs are.
    pub index_dir: PathBuf,
    pub folds: usize,
    /// The proposed `retriever.yaml`.
    pub out: PathBuf,
    /// Replace the active retriever file (`settings.files.retriever`).
    pub write: bool,
}

/// The numbers the tuner changes: the configuration's `tune` list, or the
/// built-in one for a file written before it.
fn tunables(c: &RetrieverConfig) -> Vec<Tunable> {
    if c.tune.is_empty() {
        RetrieverConfig::builtin().tune
    } else {
        c.tune.clone()
    }
}

/// The value of a tunable number.
fn value(c: &RetrieverConfig, p: &Tunable) -> f64 {
    c.number(&p.path).map_or(0.0, |n| n.value)
}

/// One question, ready to be re-scored.
struct Item {
    set: usize,
    fold: usize,
    intent: String,
    pool: Pool,
    /// Note ids of the relevant notes.
    gold: Vec<String>,
}

/// recall@5 and MRR of one set under one configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SetScore {
    pub recall_5: f64,
    pub mrr: f64,
}

impl SetScore {
    fn objective(&self) -> f64 {
        (self.recall_5 + self.mrr) / 2.0
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    pub name: String,
    pub questions: usize,
    pub no_graph: SetScore,
    pub before: SetScore,
    pub after: SetScore,
}

#[derive(Debug, Clone, Serialize)]
pub struct FoldReport {
    pub fold: usize,
    /// Objective (mean over sets of (recall@5 + MRR) / 2).
    pub train_before: f64,
    pub train_after: f64,
    pub held_out_before: f64,
    pub held_out_after: f64,
    /// The weights learned on the other folds.
    pub weights: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TuneReport {
    pub sets: Vec<SetReport>,
    pub folds: Vec<FoldReport>,
    /// Mean over the folds.
    pub held_out_before: f64,
    pub held_out_after: f64,
    /// The held-out folds gained (by more than 0.001): only then is a
    /// change proposed.
    pub confirmed: bool,
    pub before: BTreeMap<String, f64>,
    pub after: BTreeMap<String, f64>,
    /// Why the proposal was not written (a set it hurts).
    pub refused: Option<String>,
    pub proposal: PathBuf,
    pub written: Option<PathBuf>,
    pub trials: usize,
}

fn weights(c: &RetrieverConfig) -> BTreeMap<String, f64> {
    tunables(c)
        .iter()
        .map(|p| (p.path.clone(), value(c, p)))
        .collect()
}

/// Runs the tuning; `say` hears about the progress.
pub fn tune(
    settings: &Settings,
    req: &TuneRequest,
    progress: &dyn Progress,
    say: &dyn Fn(&str),
) -> Result<TuneReport, AppError> {
    if req.sets.is_empty() && req.feedback.is_empty() {
        return Err(AppError::bad_request(
            "nothing to tune on: give judged sets or --feedback vaults",
        ));
    }
    let folds = req.folds.max(2);
    let current = settings.load_retriever()?;
    let material = material(settings, req, folds, progress, say)?;
    let (items, sets) = (&material.items, material.names.len());
    let mut trials = 0;
    let fold_reports = cross_validate(items, sets, &current, folds, &mut trials, say);
    let mean = |f: fn(&FoldReport) -> f64| {
        fold_reports.iter().map(f).sum::<f64>() / fold_reports.len().max(1) as f64
    };
    let (held_out_before, held_out_after) =
        (mean(|f| f.held_out_before), mean(|f| f.held_out_after));
    // Only a change the held-out folds confirm is proposed: a gain on the
    // training data alone is noise fitted.
    let confirmed = held_out_after > held_out_before + CONFIRM;
    let proposed = if confirmed {
        ascend(items, sets, &current, &|_: &Item| true, &mut trials)
    } else {
        say(&format!(
            "no change: the held-out folds do not confirm one ({held_out_before:.4} → {held_out_after:.4})"
        ));
        current.clone()
    };
    let set_reports = set_reports(&material, &current, &proposed);
    let refused = refusal(&set_reports);
    let written = write_proposal(settings, req, &proposed, refused.is_none())?;
    Ok(TuneReport {
        held_out_before,
        held_out_after,
        confirmed,
        sets: set_reports,
        folds: fold_reports,
        before: weights(&current),
        after: weights(&proposed),
        refused,
        proposal: req.out.clone(),
        written,
        trials,
    })
}

/// What the tuning learns from: each judged set's and each feedback log's
/// questions with their pools, and the sets' names.
struct Material {
    names: Vec<String>,
    items: Vec<Item>,
}

/// Every judged set and feedback vault, indexed and its questions' pools
/// gathered once.
fn material(
    settings: &Settings,
    req: &TuneRequest,
    folds: usize,
    progress: &dyn Progress,
    say: &dyn Fn(&str),
) -> Result<Material, AppError> {
    let mut m = Material {
        names: Vec::new(),
        items: Vec::new(),
    };
    for set in &req.sets {
        let s = with_vault(
            settings,
            &set.vault,
            req.index_dir.join(index_name(&set.vault)),
        );
        let ws = open_synced(s, progress)?;
        let by_name = names_of(&ws)?;
        let questions: Vec<(String, Vec<String>)> = read_questions(&EvalRequest {
            questions: set.questions.clone(),
            field: set.field.clone(),
            mode: crate::api::Mode::Hybrid,
            limit: None,
            answers: false,
            ranks: false,
        })?
        .into_iter()
        .map(|Question { text, gold, .. }| (text, gold_ids(&by_name, &gold)))
        .filter(|(_, gold)| !gold.is_empty())
        .collect();
        say(&format!(
            "{}: {} questions, {}",
            set.name,
            questions.len(),
            set.questions.display()
        ));
        gather(&ws, m.names.len(), folds, &questions, &mut m.items)?;
        m.names.push(set.name.clone());
        ws.shut_down();
    }
    for vault in &req.feedback {
        let s = with_vault(settings, vault, vault.join(".mindnet"));
        let ws = open_synced(s, progress)?;
        let questions = feedback_questions(&ws)?;
        let name = format!("feedback:{}", vault.display());
        say(&format!("{name}: {} rated searches", questions.len()));
        if questions.is_empty() {
            return Err(AppError::bad_request(format!(
                "{}: no rated searches in its feedback log (rate hits with `mindnet feedback`)",
                vault.display()
            )));
        }
        gather(&ws, m.names.len(), folds, &questions, &mut m.items)?;
        m.names.push(name);
        ws.shut_down();
    }
    Ok(m)
}

/// The settings of a judged vault: this run's, with its own vault and
/// index folder.
fn with_vault(settings: &Settings, vault: &Path, data: PathBuf) -> Settings {
    Settings::resolve(SettingsInput {
        vault: Some(vault.to_path_buf()),
        data: Some(data),
        embedder: settings.embedder.clone(),
        files: settings.files.clone(),
        lang: Some(settings.lang.clone()),
        max_note_mb: Some(settings.max_note_bytes / (1024 * 1024)),
        // The judged sets' indexes are scratch: always embedded.
        qdrant_url: None,
    })
}

/// Each fold held out once: the weights learnt on the others, and the
/// objective before and after on both parts.
fn cross_validate(
    items: &[Item],
    sets: usize,
    current: &RetrieverConfig,
    folds: usize,
    trials: &mut usize,
    say: &dyn Fn(&str),
) -> Vec<FoldReport> {
    let mut reports = Vec::new();
    for fold in 0..folds {
        let train = move |it: &Item| it.fold != fold;
        let held = move |it: &Item| it.fold == fold;
        let learned = ascend(items, sets, current, &train, trials);
        let at = |c: &RetrieverConfig, keep: &(dyn Fn(&Item) -> bool + Sync)| {
            objective(&evaluate(items, sets, c, true, keep))
        };
        let report = FoldReport {
            fold,
            train_before: at(current, &train),
            train_after: at(&learned, &train),
            held_out_before: at(current, &held),
            held_out_after: at(&learned, &held),
            weights: weights(&learned),
        };
        say(&format!(
            "fold {}/{folds}: held-out {:.4} → {:.4} (train {:.4} → {:.4})",
            fold + 1,
            report.held_out_before,
            report.held_out_after,
            report.train_before,
            report.train_after
        ));
        reports.push(report);
    }
    reports
}

/// Each set's scores without the graph, with the current weights and with
/// the proposed ones.
fn set_reports(
    m: &Material,
    current: &RetrieverConfig,
    proposed: &RetrieverConfig,
) -> Vec<SetReport> {
    let all = |_: &Item| true;
    let sets = m.names.len();
    let no_graph = evaluate(&m.items, sets, current, false, &all);
    let before = evaluate(&m.items, sets, current, true, &all);
    let after = evaluate(&m.items, sets, proposed, true, &all);
    m.names
        .iter()
        .enumerate()
        .map(|(i, name)| SetReport {
            name: name.clone(),
            questions: m.items.iter().filter(|it| it.set == i).count(),
            no_graph: no_graph[i],
            before: before[i],
            after: after[i],
        })
        .collect()
}

/// Writes the proposal to `--out`, and with `--write` (unless refused)
/// over the active retriever file, which it returns.
fn write_proposal(
    settings: &Settings,
    req: &TuneRequest,
    proposed: &RetrieverConfig,
    allowed: bool,
) -> Result<Option<PathBuf>, AppError> {
    let base_text = match &settings.files.retriever {
        Some(p) => std::fs::read_to_string(p)
            .map_err(|e| AppError::bad_request(format!("{}: {e}", p.display())))?,
        None => mindnet_retrieve::config::DEFAULT_YAML.to_string(),
    };
    let text = rewrite(&base_text, proposed);
    // The proposal must read back as exactly what was learned.
    let check = RetrieverConfig::from_yaml(&req.out, &text)?;
    if weights(&check) != weights(proposed) {
        return Err(AppError::internal(
            "the proposed retriever.yaml does not read back as the learned weights",
        ));
    }
    write_file(&req.out, &text)?;
    if !(req.write && allowed) {
        return Ok(None);
    }
    let Some(active) = &settings.files.retriever else {
        return Err(AppError::bad_request(
            "--write replaces the active retriever file, and the built-in one is in use; \
             give it with --retriever FILE (or MINDNET_RETRIEVER_FILE)",
        ));
    };
    write_file(active, &text)?;
    Ok(Some(active.clone()))
}

/// Why a proposal must not be written: a set whose recall@5 or MRR it
/// lowers by more than `GUARD`.
fn refusal(sets: &[SetReport]) -> Option<String> {
    sets.iter().find_map(|s| {
        let r5 = s.after.recall_5 - s.before.recall_5;
        let mrr = s.after.mrr - s.before.mrr;
        (r5 < -GUARD || mrr < -GUARD).then(|| {
            format!(
                "it hurts {}: recall@5 {:+.3}, MRR {:+.3} (more than {GUARD} is refused)",
                s.name, r5, mrr
            )
        })
    })
}

fn write_file(path: &Path, text: &str) -> Result<(), AppError> {
    std::fs::write(path, text)
        .map_err(|e| AppError::bad_request(format!("writing {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewriting_keeps_comments_and_reads_back() {
        let mut c = RetrieverConfig::builtin();
        c.weights.edge = 0.35;
        c.lexical_share = 0.5;
        c.expansion.relevant = 7;
        c.expansion.gate = 1.0;
        let text = rewrite(mindnet_retrieve::config::DEFAULT_YAML, &c);
        let back = RetrieverConfig::from_yaml(Path::new("t.yaml"), &text).unwrap();
        assert_eq!(weights(&back), weights(&c));
        assert!(text.contains("  edge: 0.35"), "{text}");
        assert!(text.contains("# W_edge"), "{text}");
        assert_eq!(
            text.lines().count(),
            mindnet_retrieve::config::DEFAULT_YAML.lines().count()
        );
    }

    #[test]
    fn a_change_that_hurts_one_set_is_refused() {
        let score = |recall_5, mrr| SetScore { recall_5, mrr };
        let set = |name: &str, before: SetScore, after: SetScore| SetReport {
            name: name.into(),
            questions: 10,
            no_graph: before,
            before,
            after,
        };
        let helps = set("a", score(0.80, 0.80), score(0.90, 0.85));
        let slight = set("b", score(0.80, 0.80), score(0.795, 0.80));
        assert_eq!(refusal(&[helps.clone(), slight]), None);
        let hurts = set("c", score(0.80, 0.80), score(0.80, 0.78));
        let why = refusal(&[helps, hurts]).unwrap();
        assert!(
            why.contains("hurts c") && why.contains("MRR -0.020"),
            "{why}"
        );
    }

    #[test]
    fn a_missing_key_is_added_to_its_section() {
        let old = mindnet_retrieve::config::DEFAULT_YAML
            .lines()
            .filter(|l| !l.trim_start().starts_with("gate:"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut c = RetrieverConfig::builtin();
        c.expansion.gate = 0.75;
        let back = RetrieverConfig::from_yaml(Path::new("t.yaml"), &rewrite(&old, &c)).unwrap();
        assert_eq!(back.expansion.gate, 0.75);
    }
}
