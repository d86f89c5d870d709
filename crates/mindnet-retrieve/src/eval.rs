//! Ranking metrics for `mindnet eval`: recall@k, MRR and nDCG@10 of the gold
//! notes in a ranked list of notes (binary relevance), and latency
//! percentiles. The list is the whole candidate pool in score order, so its
//! recall at its own length is the ceiling: the share of gold notes any
//! weighting could bring to the top. A miss below the ceiling is an order
//! problem; above it, a candidate problem.

use serde::Serialize;
use std::collections::BTreeMap;

/// Metrics of one question.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scores {
    pub recall_1: f64,
    pub recall_2: f64,
    pub recall_5: f64,
    pub recall_10: f64,
    pub recall_20: f64,
    pub recall_50: f64,
    /// Recall over the whole list: the candidate pool's ceiling.
    pub pool: f64,
    /// MRR@10: a first gold note below rank 10 counts 0.
    pub mrr: f64,
    pub ndcg_10: f64,
}

/// `ranked`: note names, best first, each once: every candidate of the
/// pool, for `pool` to be the ceiling. `gold`: the relevant names.
pub fn score(ranked: &[String], gold: &[String]) -> Scores {
    if gold.is_empty() {
        return Scores::default();
    }
    let is_gold = |n: &String| gold.contains(n);
    let recall =
        |k: usize| ranked.iter().take(k).filter(|n| is_gold(n)).count() as f64 / gold.len() as f64;
    let mrr = ranked
        .iter()
        .take(10)
        .position(is_gold)
        .map_or(0.0, |i| 1.0 / (i + 1) as f64);
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .filter(|(_, n)| is_gold(n))
        .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
        .sum();
    let ideal: f64 = (0..gold.len().min(10))
        .map(|i| 1.0 / ((i + 2) as f64).log2())
        .sum();
    Scores {
        recall_1: recall(1),
        recall_2: recall(2),
        recall_5: recall(5),
        recall_10: recall(10),
        recall_20: recall(20),
        recall_50: recall(50),
        pool: recall(ranked.len()),
        mrr,
        ndcg_10: dcg / ideal,
    }
}

/// Means over questions, overall and per question type.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub questions: usize,
    pub mean: Scores,
    pub by_type: BTreeMap<String, (usize, Scores)>,
}

fn mean(all: &[Scores]) -> Scores {
    let n = all.len().max(1) as f64;
    let sum = |f: fn(&Scores) -> f64| all.iter().map(f).sum::<f64>() / n;
    Scores {
        recall_1: sum(|s| s.recall_1),
        recall_2: sum(|s| s.recall_2),
        recall_5: sum(|s| s.recall_5),
        recall_10: sum(|s| s.recall_10),
        recall_20: sum(|s| s.recall_20),
        recall_50: sum(|s| s.recall_50),
        pool: sum(|s| s.pool),
        mrr: sum(|s| s.mrr),
        ndcg_10: sum(|s| s.ndcg_10),
    }
}

/// `items`: each question's type (if any) and scores.
pub fn summarize(items: &[(Option<String>, Scores)]) -> Summary {
    let all: Vec<Scores> = items.iter().map(|(_, s)| *s).collect();
    let mut groups: BTreeMap<String, Vec<Scores>> = BTreeMap::new();
    for (t, s) in items {
        if let Some(t) = t {
            groups.entry(t.clone()).or_default().push(*s);
        }
    }
    Summary {
        questions: items.len(),
        mean: mean(&all),
        by_type: groups
            .into_iter()
            .map(|(t, v)| (t, (v.len(), mean(&v))))
            .collect(),
    }
}

/// `chain` appears in `path` in the same order (not necessarily adjacent).
pub fn contains_in_order(path: &[String], chain: &[String]) -> bool {
    let mut it = path.iter();
    chain.iter().all(|c| it.any(|p| p == c))
}

/// Share of the gold chain's notes among `found`.
pub fn chain_recall(found: &[String], chain: &[String]) -> f64 {
    if chain.is_empty() {
        return 0.0;
    }
    chain.iter().filter(|c| found.contains(c)).count() as f64 / chain.len() as f64
}

/// Latency percentiles in milliseconds (nearest rank).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Latency {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

pub fn latency(samples: &[f64]) -> Latency {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |p: f64| {
        if v.is_empty() {
            return 0.0;
        }
        let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1]
    };
    Latency {
        p50: at(0.50),
        p95: at(0.95),
        p99: at(0.99),
        max: v.last().copied().unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn metrics_of_a_known_ranking() {
        let s = score(&names(&["x", "a", "y", "b"]), &names(&["a", "b"]));
        assert_eq!(s.recall_1, 0.0);
        assert_eq!(s.recall_5, 1.0);
        assert_eq!(s.mrr, 0.5);
        let dcg = 1.0 / 3f64.log2() + 1.0 / 5f64.log2();
        let ideal = 1.0 + 1.0 / 3f64.log2();
        assert!((s.ndcg_10 - dcg / ideal).abs() < 1e-12);
        let perfect = score(&names(&["a", "b"]), &names(&["a", "b"]));
        assert_eq!(perfect.ndcg_10, 1.0);
    }

    #[test]
    fn the_ceiling_is_the_recall_of_the_whole_pool() {
        let mut ranked: Vec<String> = (0..60).map(|i| format!("n{i}")).collect();
        ranked[1] = "a".into();
        ranked[30] = "b".into();
        let s = score(&ranked, &names(&["a", "b", "gone"]));
        assert_eq!(s.recall_2, 1.0 / 3.0);
        assert_eq!(s.recall_20, 1.0 / 3.0);
        assert_eq!(s.recall_50, 2.0 / 3.0);
        assert_eq!(s.pool, 2.0 / 3.0);
    }

    #[test]
    fn chains_in_order() {
        let path = names(&["a", "x", "b", "c"]);
        assert!(contains_in_order(&path, &names(&["a", "b", "c"])));
        assert!(!contains_in_order(&path, &names(&["b", "a"])));
        assert_eq!(chain_recall(&path, &names(&["a", "z"])), 0.5);
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let l = latency(&(1..=100).map(f64::from).collect::<Vec<_>>());
        assert_eq!((l.p50, l.p95, l.max), (50.0, 95.0, 100.0));
    }
}
