//! The search: the metrics of every judged set under one set of weights, and
//! coordinate ascent over the weights with restarts and a guard.

use super::DEFICIT;
use super::GUARD;
use super::Item;
use super::MAX_ROUNDS;
use super::PULL;
use super::RESTART_SEED;
use super::RESTARTS;
use super::SetScore;
use super::tunables;
use super::value;
use mindnet_retrieve::RetrieverConfig;
use mindnet_retrieve::config::Tunable;
use mindnet_retrieve::eval;
use mindnet_retrieve::eval::Scores;
use mindnet_retrieve::ranked_notes;
use mindnet_retrieve::score;
/// The scores per set of the items that pass `keep`.
pub(super) fn evaluate(
    items: &[Item],
    sets: usize,
    cfg: &RetrieverConfig,
    graph: bool,
    keep: &(dyn Fn(&Item) -> bool + Sync),
) -> Vec<SetScore> {
    let score_of = |it: &Item| -> Scores {
        let scored = score::score(&it.pool, cfg, &it.intent, graph);
        eval::score(&ranked_notes(&it.pool, &scored), &it.gold)
    };
    // Two halves on two threads: the machines mindnet runs on have cores.
    let picked: Vec<&Item> = items.iter().filter(|it| keep(it)).collect();
    let half = picked.len().div_ceil(2);
    let results: Vec<(usize, Scores)> = std::thread::scope(|s| {
        let parts: Vec<_> = picked
            .chunks(half.max(1))
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|it| (it.set, score_of(it)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            // A panic in scoring is a bug: raise it, never drop the half.
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut sums = vec![(0usize, SetScore::default()); sets];
    for (set, s) in results {
        let e = &mut sums[set];
        e.0 += 1;
        e.1.recall_5 += s.recall_5;
        e.1.mrr += s.mrr;
    }
    sums.into_iter()
        .map(|(n, s)| {
            let n = n.max(1) as f64;
            SetScore {
                recall_5: s.recall_5 / n,
                mrr: s.mrr / n,
            }
        })
        .collect()
}

pub(super) fn objective(scores: &[SetScore]) -> f64 {
    scores.iter().map(SetScore::objective).sum::<f64>() / scores.len().max(1) as f64
}

/// How far the graph falls behind the same weights without it, summed over
/// the sets and both metrics, beyond `GUARD` ("the graph never hurts").
pub(super) fn graph_deficit(with: &[SetScore], without: &[SetScore]) -> f64 {
    with.iter()
        .zip(without)
        .map(|(g, n)| (n.recall_5 - GUARD - g.recall_5).max(0.0) + (n.mrr - GUARD - g.mrr).max(0.0))
        .sum()
}

/// Grid steps between two values of a parameter (for the pull).
pub(super) fn steps(p: &Tunable, a: f64, b: f64) -> f64 {
    let index = |v: f64| {
        p.grid
            .iter()
            .enumerate()
            .min_by(|x, y| (x.1 - v).abs().total_cmp(&(y.1 - v).abs()))
            .map_or(0, |(i, _)| i) as f64
    };
    (index(a) - index(b)).abs()
}

/// Coordinate ascent from the current weights and from `RESTARTS` seeded
/// random points of the grid (one start alone gets stuck where a weight
/// only helps together with another, such as the edge weight and the lift
/// limit); the best end wins, all pulled toward the current weights.
pub(super) fn ascend(
    items: &[Item],
    sets: usize,
    current: &RetrieverConfig,
    keep: &(dyn Fn(&Item) -> bool + Sync),
    trials: &mut usize,
) -> RetrieverConfig {
    let mut rng = mindnet_core::rng::Rng::new(RESTART_SEED);
    let mut starts = vec![current.clone()];
    for _ in 0..RESTARTS {
        let mut c = current.clone();
        for p in &tunables(current) {
            c.set_number(&p.path, *rng.pick(&p.grid));
        }
        starts.push(c);
    }
    let mut best: Option<(f64, RetrieverConfig)> = None;
    for start in &starts {
        let (value, end) = ascend_from(items, sets, current, start, keep, trials);
        if best.as_ref().is_none_or(|(v, _)| value > *v + 1e-12) {
            best = Some((value, end));
        }
    }
    best.map_or_else(|| current.clone(), |(_, c)| c)
}

/// Coordinate ascent from `from` on the items that pass `keep`, pulled
/// toward `current`; the end and its objective.
pub(super) fn ascend_from(
    items: &[Item],
    sets: usize,
    start: &RetrieverConfig,
    from: &RetrieverConfig,
    keep: &(dyn Fn(&Item) -> bool + Sync),
    trials: &mut usize,
) -> (f64, RetrieverConfig) {
    let params = tunables(start);
    let pulled = |c: &RetrieverConfig, trials: &mut usize| {
        *trials += 1;
        let penalty: f64 = params
            .iter()
            .map(|p| steps(p, value(c, p), value(start, p)))
            .sum::<f64>()
            * PULL;
        let with = evaluate(items, sets, c, true, keep);
        let without = evaluate(items, sets, c, false, keep);
        objective(&with) - penalty - DEFICIT * graph_deficit(&with, &without)
    };
    let mut best = from.clone();
    let mut best_value = pulled(&best, trials);
    for _ in 0..MAX_ROUNDS {
        let mut moved = false;
        for p in &params {
            for &v in &p.grid {
                if value(&best, p) == v {
                    continue;
                }
                let mut trial = best.clone();
                trial.set_number(&p.path, v);
                let value = pulled(&trial, trials);
                if value > best_value + 1e-12 {
                    best = trial;
                    best_value = value;
                    moved = true;
                }
            }
        }
        if !moved {
            break;
        }
    }
    (best_value, best)
}
