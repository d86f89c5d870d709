//! The name walk: a personalized PageRank over the note–name graph, seeded
//! by the first scoring. A multi-hop question finds some of its notes
//! directly; the others share a rare name with them (the bridge: a person,
//! a place, a work) that the question does not hold. HippoRAG 2 walks such
//! a graph of passages and LLM-extracted entities; here the names are the
//! ones the import reads from the notes (the catalog's entity graph), so
//! no model runs at index or query time.
//!
//! Gathering (`Retriever::name_graph`) collects the rare names the pool's
//! notes share, none the question holds. Scoring (`terms`) is a pure
//! function of the pool, so `mindnet tune` replays it: the walk starts from
//! the `walk.seeds` best notes, each in proportion to its semantic term,
//! goes from a note to its names (in proportion to their rarity) and along
//! its links, from a name to the other notes that write it (evenly, so a
//! name many notes share gives each little), and returns to the seeds with
//! probability `walk.restart` at every step. What a note receives, relative
//! to the note that received most, is B_walk.
//!
//! The lift limit holds a note below the best note that sent it mass and
//! below the notes the question names: the walk orders the notes around a
//! hit; it does not put them above it.

use crate::hop::bridges;
use crate::pool::{NameLink, Pool};
use crate::{Query, Retriever, RetrieverConfig};
use std::collections::BTreeMap;

/// What the walk gives one note.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WalkTerm {
    /// What the note received, relative to the note that received most.
    pub b_walk: f64,
    /// The semantic term of the best note that sent it mass: the walk
    /// lifts it up to that note, not past it.
    pub source_semantic: f64,
    /// The lowest semantic term of the notes the question names that match
    /// better than this one (infinite: none): direct matches, which a
    /// note the walk lifts stays below ("Which singer is American, Mark
    /// King or Nick Hexum?" wants both, not Nick Hexum's neighbours).
    pub named_ceiling: f64,
    /// The best note that sent it mass (index into `Pool::notes`).
    pub from: Option<usize>,
    /// The names it received most through, most first (at most 3).
    pub names: Vec<String>,
}

/// B_walk per note (`Pool::notes` order), from each note's best semantic
/// term; all zero for an intent the walk is not for.
pub fn terms(pool: &Pool, cfg: &RetrieverConfig, intent: &str, semantic: &[f64]) -> Vec<WalkTerm> {
    let w = &cfg.walk;
    let mut out = vec![WalkTerm::default(); pool.notes.len()];
    if w.weight <= 0.0 || pool.names.is_empty() || !w.intents.iter().any(|i| i == intent) {
        return out;
    }
    let start = start_shares(pool, semantic, w.seeds);
    let out_of = steps_from(pool, cfg);
    let walked = propagate(&start, &out_of, w.restart.clamp(0.0, 1.0), w.steps.max(1));
    let most = walked.received.iter().copied().fold(0.0, f64::max);
    if most <= 0.0 {
        return out;
    }
    for (v, t) in out.iter_mut().enumerate() {
        t.b_walk = walked.received[v] / most;
        if t.b_walk <= 0.0 {
            continue;
        }
        t.from = out_of[v]
            .iter()
            .map(|s| s.to)
            .filter(|&u| walked.mass[u] > 0.0)
            .max_by(|&a, &b| semantic[a].total_cmp(&semantic[b]).then_with(|| b.cmp(&a)));
        t.source_semantic = t.from.map_or(0.0, |u| semantic[u]);
        t.named_ceiling = crate::score::named_ceiling(pool, |m| semantic[m], semantic[v]);
        let mut by: Vec<(Via, f64)> = walked.through[v].iter().map(|(&l, &x)| (l, x)).collect();
        by.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        t.names = by
            .into_iter()
            .filter_map(|(via, _)| match via {
                Via::Name(l) => Some(pool.names[l].name.clone()),
                Via::Link => None,
            })
            .take(3)
            .collect();
    }
    out
}

/// Where the walk ended: each note's mass, what it received in the last
/// step (not its own return to the start), and through which name or link.
struct Walked {
    mass: Vec<f64>,
    received: Vec<f64>,
    through: Vec<BTreeMap<Via, f64>>,
}

/// `steps` steps of the walk from `start`, returning to it with
/// probability `restart` at each; a note with no step out keeps its mass.
fn propagate(start: &[f64], out_of: &[Vec<Step>], restart: f64, steps: usize) -> Walked {
    let n = start.len();
    let mut w = Walked {
        mass: start.to_vec(),
        received: vec![0.0; n],
        through: vec![BTreeMap::new(); n],
    };
    for step in 0..steps {
        let last = step + 1 == steps;
        let mut next: Vec<f64> = start.iter().map(|s| restart * s).collect();
        w.received.iter_mut().for_each(|r| *r = 0.0);
        for u in 0..n {
            let m = (1.0 - restart) * w.mass[u];
            if m <= 0.0 {
                continue;
            }
            if out_of[u].is_empty() {
                next[u] += m;
            }
            for s in &out_of[u] {
                let share = m * s.share;
                next[s.to] += share;
                w.received[s.to] += share;
                if last {
                    *w.through[s.to].entry(s.via).or_default() += share;
                }
            }
        }
        w.mass = next;
    }
    w
}

/// How mass reached a note: through a shared name (index into
/// `Pool::names`) or along a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Via {
    Name(usize),
    Link,
}

/// One step of the walk out of a note: where to, which share of what
/// leaves the note, and how.
#[derive(Debug, Clone, Copy)]
struct Step {
    to: usize,
    share: f64,
    via: Via,
}

/// The steps out of each note: to the other notes of each of its names (a
/// name's share by its weight, split evenly among them) and along each of
/// its links, either way (by the link's weight times `walk.links`). The
/// shares of a note sum to 1.
fn steps_from(pool: &Pool, cfg: &RetrieverConfig) -> Vec<Vec<Step>> {
    let mut out: Vec<Vec<Step>> = vec![Vec::new(); pool.notes.len()];
    for (l, link) in pool.names.iter().enumerate() {
        let others = link.notes.len().saturating_sub(1).max(1) as f64;
        for &u in &link.notes {
            for &v in link.notes.iter().filter(|&&v| v != u) {
                out[u].push(Step {
                    to: v,
                    share: link.weight / others,
                    via: Via::Name(l),
                });
            }
        }
    }
    let links = cfg.walk.links;
    if links > 0.0 {
        for e in pool.edges.iter().filter(|e| e.source != e.target) {
            let w = links
                * e.confidence
                * cfg.provenance_weight(e.provenance)
                * cfg.kind_weight(&e.kind);
            if w > 0.0 {
                for (u, v) in [(e.source, e.target), (e.target, e.source)] {
                    out[u].push(Step {
                        to: v,
                        share: w,
                        via: Via::Link,
                    });
                }
            }
        }
    }
    for steps in &mut out {
        let sum: f64 = steps.iter().map(|s| s.share).sum();
        steps
            .iter_mut()
            .for_each(|s| s.share /= sum.max(f64::MIN_POSITIVE));
    }
    out
}

/// Where the walk starts: the `seeds` best notes by semantic term (ties by
/// note id), each in proportion to it; the shares sum to 1.
fn start_shares(pool: &Pool, semantic: &[f64], seeds: usize) -> Vec<f64> {
    let mut order: Vec<usize> = (0..pool.notes.len())
        .filter(|&v| semantic[v] > 0.0)
        .collect();
    order.sort_by(|&a, &b| {
        semantic[b]
            .total_cmp(&semantic[a])
            .then_with(|| pool.notes[a].note_id.cmp(&pool.notes[b].note_id))
    });
    order.truncate(seeds);
    let sum: f64 = order.iter().map(|&v| semantic[v]).sum();
    let mut out = vec![0.0; pool.notes.len()];
    if sum > 0.0 {
        for v in order {
            out[v] = semantic[v] / sum;
        }
    }
    out
}

impl Retriever<'_> {
    /// Adds the note–name graph of a pool gathered with the graph: the
    /// rare names (not in the question) that two or more of its notes
    /// write. Read from each note's own names, so a name's other notes in
    /// the vault are never listed; only their count (its rarity) is read.
    pub(crate) fn name_graph(&self, q: &Query, pool: &mut Pool) {
        let w = &self.config.walk;
        if w.weight <= 0.0 || !w.intents.contains(&self.intent_of(q)) {
            return;
        }
        let n = self.notes.len();
        let hub = (w.hub_share * n as f64).floor() as usize;
        let mut links: BTreeMap<String, NameLink> = BTreeMap::new();
        for (i, note) in pool.notes.iter().enumerate() {
            let Some(s) = self.notes.get(&note.note_id) else {
                continue;
            };
            let all: Vec<String> = [s.names.as_slice(), s.name_parts.as_slice()].concat();
            let count = |x: &str| self.notes.notes_named(x).len();
            for name in bridges(&all, count, n, hub, &q.text, usize::MAX) {
                let link = links.entry(name.name.clone()).or_insert_with(|| NameLink {
                    name: name.name,
                    weight: name.weight,
                    notes: Vec::new(),
                });
                if link.notes.last() != Some(&i) {
                    link.notes.push(i);
                }
            }
        }
        pool.names = links.into_values().filter(|l| l.notes.len() >= 2).collect();
    }
}

#[cfg(test)]
mod tests {
    //! The walk on hand-built pools: no store, no model.
    use super::*;
    use crate::Mode;
    use crate::pool::{PoolChunk, PoolNote};
    use crate::score::score;

    fn note(id: &str) -> PoolNote {
        PoolNote {
            note_id: id.to_string(),
            w_type: 1.0,
            status: mindnet_core::Status::Active,
            degree: 1,
        }
    }

    fn chunk(note: usize, id: &str, cosine: f64) -> PoolChunk {
        PoolChunk {
            chunk_id: format!("{id}#c00"),
            note,
            cosine,
            bm25: 0.0,
            seed: true,
            hop: false,
        }
    }

    fn link(name: &str, weight: f64, notes: &[usize]) -> NameLink {
        NameLink {
            name: name.into(),
            weight,
            notes: notes.to_vec(),
        }
    }

    /// The question's best hit "Bubye River"; "Victoria Falls" matches the
    /// question weakly but shares the rare "Zimbabwe" with it; "Orinoco"
    /// matches a little better and shares nothing; ten notes share the
    /// common "Africa" with the hit.
    fn pool() -> Pool {
        let mut notes = vec![note("Bubye River"), note("Victoria Falls"), note("Orinoco")];
        let mut cosines = vec![0.90, 0.60, 0.64];
        for i in 0..10 {
            notes.push(note(&format!("Africa {i:02}")));
            cosines.push(0.62);
        }
        let chunks = notes
            .iter()
            .zip(&cosines)
            .enumerate()
            .map(|(i, (n, &c))| chunk(i, &n.note_id, c))
            .collect();
        Pool {
            mode: Mode::Semantic,
            chunks,
            notes,
            edges: Vec::new(),
            texts: Default::default(),
            bridge: None,
            names: vec![
                link("Africa", 0.3, &(3..13).chain([0]).collect::<Vec<_>>()),
                link("Zimbabwe", 0.9, &[0, 1]),
            ],
            named: Vec::new(),
        }
    }

    fn config(weight: f64) -> RetrieverConfig {
        let mut c = RetrieverConfig::builtin();
        c.walk.weight = weight;
        c.walk.seeds = 1;
        c.walk.intents = vec!["fact".into()];
        c.expansion.lift_limit = 1.0;
        c
    }

    fn order(p: &Pool, cfg: &RetrieverConfig, intent: &str) -> Vec<String> {
        score(p, cfg, intent, true)
            .iter()
            .map(|s| p.notes[p.chunks[s.chunk].note].note_id.clone())
            .collect()
    }

    fn at(order: &[String], id: &str) -> usize {
        order.iter().position(|x| x == id).unwrap()
    }

    #[test]
    fn the_walk_finds_the_bridge_below_the_hit() {
        let p = pool();
        let off = order(&p, &config(0.0), "fact");
        assert!(at(&off, "Orinoco") < at(&off, "Victoria Falls"), "{off:?}");
        let on = order(&p, &config(0.3), "fact");
        assert_eq!(on[0], "Bubye River");
        assert_eq!(on[1], "Victoria Falls", "{on:?}");
        let scored = score(&p, &config(0.3), "fact", true);
        let bridge = scored.iter().find(|s| s.chunk == 1).unwrap();
        assert_eq!(bridge.walked, ["Zimbabwe"]);
        assert_eq!(bridge.walked_from, Some(0));
        let b = &bridge.breakdown;
        assert!(b.walk > 0.0 && (b.semantic + b.walk - b.total).abs() < 1e-12);
    }

    #[test]
    fn a_common_name_gives_each_of_its_notes_little() {
        let p = pool();
        let semantic: Vec<f64> = [0.9, 0.6, 0.64].into_iter().chain([0.62; 10]).collect();
        let t = terms(&p, &config(0.3), "fact", &semantic);
        // The hit gets most back (2 steps): the bridge is next.
        assert!(t[1].b_walk > 0.9, "{:?}", t[1]);
        for hub in &t[3..13] {
            assert!(
                hub.b_walk > 0.0 && hub.b_walk < t[1].b_walk / 10.0,
                "{hub:?}"
            );
        }
        assert_eq!(
            t[2],
            WalkTerm::default(),
            "a note sharing nothing gets nothing"
        );
    }

    #[test]
    fn the_walk_lifts_no_note_past_one_the_question_names() {
        let mut p = pool();
        // "Orinoco" is the question's second subject.
        p.named = vec![2];
        let on = order(&p, &config(1.0), "fact");
        assert!(at(&on, "Orinoco") < at(&on, "Victoria Falls"), "{on:?}");
    }

    #[test]
    fn a_causal_question_does_not_walk() {
        let p = pool();
        assert_eq!(
            order(&p, &config(0.3), "why"),
            order(&p, &config(0.0), "why")
        );
    }

    #[test]
    fn the_same_pool_in_another_order_ranks_the_same() {
        let p = pool();
        let first = order(&p, &config(0.3), "fact");
        // The notes reversed, every index remapped.
        let n = p.notes.len();
        let flip = |i: usize| n - 1 - i;
        let mut q = p.clone();
        q.notes.reverse();
        for c in &mut q.chunks {
            c.note = flip(c.note);
        }
        q.chunks.reverse();
        for l in &mut q.names {
            l.notes = l.notes.iter().map(|&i| flip(i)).rev().collect();
        }
        assert_eq!(order(&q, &config(0.3), "fact"), first);
    }
}
