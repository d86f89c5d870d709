//! Causal retrieval (CAU-1 … CAU-6): from the best notes of the hybrid
//! ranking, walk the preferred edge kinds in the intent's direction (CAU-2, CAU-3),
//! rank the paths (CAU-4) and merge the best into a minimal explanation
//! subgraph (CAU-5).
//!
//! The walk is a best-first search with a bounded frontier: each open path
//! is scored by the product of its steps' weights (edge kind, provenance,
//! confidence, the new note's type) times `hop_decay^h`. A path never visits
//! a note twice, and a note is expanded at most once per depth (the visited
//! set), so cycles terminate and the cost depends on the frontier and the
//! hop limit, not on the vault's size. Paths are reported cause first.

mod engine;
mod subgraph;

pub use engine::{
    AnswerKind, ChatRules, DecisionEngine, Direction, ExtractiveLimits, IntentRule, Strategy,
};
pub use subgraph::{Subgraph, SubgraphEdge, SubgraphNode};

use crate::{RetrieveError, Retriever};
use mindnet_core::ids::note_of;
use serde::{Deserialize, Serialize};
use std::collections::{BinaryHeap, HashMap, HashSet};

mod evidence;

use evidence::evidence_sentence;

/// A note on a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathNote {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
}

/// One step of a path, cause → effect, with the edge and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathStep {
    pub cause: String,
    pub effect: String,
    /// The kind read from cause to effect (`resulted_in`, `source_of`, …).
    pub kind: String,
    /// The same edge read from effect to cause (`caused_by`, `derived_from`, …).
    pub inverse_kind: String,
    pub edge_id: String,
    pub provenance: String,
    /// The chunk that states the edge, and its sentence.
    pub evidence_chunk: String,
    pub evidence: String,
}

/// The terms of CAU-4; `total = alpha·semantic + beta·coherence + gamma·shape_match`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathScore {
    pub semantic: f64,
    pub coherence: f64,
    pub shape_match: f64,
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub total: f64,
    /// The walk's own score: product of step weights times the hop decay.
    pub traversal: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CausalPath {
    /// Cause first.
    pub notes: Vec<PathNote>,
    pub steps: Vec<PathStep>,
    /// The hybrid hit the walk started from.
    pub seed: String,
    pub score: f64,
    pub score_breakdown: PathScore,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CausalAnswer {
    pub direction: Direction,
    pub preferred_edges: Vec<String>,
    pub target_types: Vec<String>,
    pub max_hops: usize,
    pub paths: Vec<CausalPath>,
    pub subgraph: Subgraph,
}

/// In `preferred_edges`: every causal kind of the edge vocabulary.
pub const CAUSAL: &str = "causal";

/// Which way a walk goes along causal edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Toward {
    Causes,
    Effects,
}

/// One step as walked (from the walk's current note to the next).
#[derive(Debug, Clone)]
struct Walked {
    to: String,
    /// Kind as read from the current note.
    kind: String,
    /// The same edge read from `to` back to the current note.
    reverse: String,
    edge_id: String,
    source_chunk: String,
    provenance: &'static str,
    weight: f64,
}

#[derive(Debug, Clone)]
struct Open {
    score: f64,
    start: String,
    steps: Vec<Walked>,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.score == other.score
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Open {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.steps.len().cmp(&self.steps.len()))
    }
}

/// A path before ranking: cause-first notes and steps, its seed, and the
/// walk's score.
struct Candidate {
    notes: Vec<String>,
    steps: Vec<PathStep>,
    seed: String,
    walk: f64,
}

/// The kinds an intent walks towards causes and towards effects.
struct WalkKinds {
    backward: Vec<String>,
    forward: Vec<String>,
}

impl WalkKinds {
    fn of(rule: &IntentRule, engine: &DecisionEngine) -> Self {
        let backward_kind = |k: &String| engine.traversal.backward_kinds.contains(k);
        let (backward, forward) = match rule.direction {
            Direction::Backward => (rule.preferred_edges.clone(), Vec::new()),
            Direction::Forward => (Vec::new(), rule.preferred_edges.clone()),
            Direction::Both => (
                rule.preferred_edges
                    .iter()
                    .filter(|k| *k == CAUSAL || backward_kind(k))
                    .cloned()
                    .collect(),
                rule.preferred_edges
                    .iter()
                    .filter(|k| !backward_kind(k))
                    .cloned()
                    .collect(),
            ),
        };
        WalkKinds { backward, forward }
    }
}

/// The candidates without those inside a longer one from the same seed: a
/// path inside another says less, so the merged paths show different
/// branches, not one branch and its prefixes. Candidates come seed by
/// seed, so a seed's paths are compared with each other only.
fn maximal(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    let contained = |small: &Candidate, big: &Candidate| {
        small.notes.len() < big.notes.len()
            && big
                .notes
                .windows(small.notes.len())
                .any(|w| w == small.notes.as_slice())
    };
    let keep: Vec<bool> = candidates
        .chunk_by(|a, b| a.seed == b.seed)
        .flat_map(|group| group.iter().map(|c| !group.iter().any(|o| contained(c, o))))
        .collect();
    let mut keep = keep.into_iter();
    candidates.retain(|_| keep.next().unwrap_or(true));
    candidates
}

impl Retriever<'_> {
    /// Steps from `note` over `kinds` (as read from `note`), towards causes
    /// or effects. A causal kind is read through the vocabulary (which end
    /// is the cause), so a kind a user adds is walked like the built-in
    /// ones, in the right direction, with or without an inverse; the kind
    /// `causal` in `kinds` stands for every causal kind.
    fn causal_steps(
        &self,
        note: &str,
        kinds: &[String],
        toward: Toward,
    ) -> Result<Vec<Walked>, RetrieveError> {
        let engine = self.engine;
        let edges = self.store.note_edges(note)?;
        let any_causal = kinds.iter().any(|k| k == CAUSAL);
        let mut out = Vec::new();
        for nb in edges.neighbors(self.vocab) {
            let other = note_of(nb.node);
            if !nb.edge.resolved || other == note {
                continue;
            }
            let (kind, reverse) = match self.vocab.causal_reading(&nb.edge.kind) {
                Some(r) => {
                    // The edge as authored: `nb.edge.note_id` → target.
                    let cause_is_other = r.cause_is_target != nb.reversed;
                    if cause_is_other != (toward == Toward::Causes) {
                        continue;
                    }
                    let (kind, reverse) = if cause_is_other {
                        (r.backward, r.forward)
                    } else {
                        (r.forward, r.backward)
                    };
                    if !any_causal && !kinds.iter().any(|k| k == kind) {
                        continue;
                    }
                    (kind, reverse)
                }
                None => {
                    if (nb.reversed && self.vocab.inverse(&nb.edge.kind).is_none())
                        || !kinds.iter().any(|k| k == nb.kind)
                    {
                        continue;
                    }
                    let reverse = self.vocab.inverse(nb.kind).unwrap_or(nb.kind);
                    (nb.kind, reverse)
                }
            };
            let Some(n) = self.note(other) else { continue };
            let type_weight = engine.type_weight(&n.note_type);
            let provenance = nb.edge.provenance.as_str();
            let kind_weight = engine.edge_weight(kind, self.vocab.is_causal(&nb.edge.kind));
            let weight = kind_weight
                * engine.provenance_weight(provenance)
                * nb.edge.confidence
                * type_weight;
            if weight <= 0.0 {
                continue;
            }
            out.push(Walked {
                to: other.to_string(),
                kind: kind.to_string(),
                reverse: reverse.to_string(),
                edge_id: nb.edge.edge_id.clone(),
                source_chunk: nb.edge.source_id.clone(),
                provenance,
                weight,
            });
        }
        out.sort_by(|a, b| a.to.cmp(&b.to).then(a.edge_id.cmp(&b.edge_id)));
        Ok(out)
    }

    /// Every path the best-first walk from `start` reaches, in walk order.
    fn walk(
        &self,
        start: &str,
        kinds: &[String],
        toward: Toward,
        max_hops: usize,
    ) -> Result<Vec<Open>, RetrieveError> {
        let t = &self.engine.traversal;
        let mut heap = BinaryHeap::new();
        heap.push(Open {
            score: 1.0,
            start: start.to_string(),
            steps: Vec::new(),
        });
        let mut visited: HashSet<(String, usize)> = HashSet::new();
        let mut done = Vec::new();
        let mut expansions = 0;
        while let Some(open) = heap.pop() {
            let here = open
                .steps
                .last()
                .map_or(open.start.as_str(), |s| s.to.as_str())
                .to_string();
            let depth = open.steps.len();
            if !visited.insert((here.clone(), depth)) {
                continue;
            }
            if depth > 0 {
                done.push(open.clone());
            }
            expansions += 1;
            if depth >= max_hops || expansions > t.frontier * max_hops.max(1) {
                continue;
            }
            let on_path: HashSet<&str> = std::iter::once(open.start.as_str())
                .chain(open.steps.iter().map(|s| s.to.as_str()))
                .collect();
            let steps = self.causal_steps(&here, kinds, toward)?;
            // The next expansions come from these: read their edges at once.
            let ahead: Vec<String> = steps.iter().map(|s| s.to.clone()).collect();
            self.store.prefetch_edges(&ahead)?;
            for step in steps {
                if on_path.contains(step.to.as_str()) {
                    continue;
                }
                let mut next = open.clone();
                next.score *= step.weight * t.hop_decay;
                next.steps.push(step);
                heap.push(next);
            }
            if heap.len() > t.frontier {
                let mut keep: Vec<Open> = heap.into_sorted_vec();
                keep.drain(..keep.len() - t.frontier);
                heap = keep.into_iter().collect();
            }
        }
        Ok(done)
    }

    /// A walked path as cause-first notes and steps.
    fn orient(&self, open: &Open, backward: bool) -> (Vec<String>, Vec<PathStep>) {
        let mut notes = vec![open.start.clone()];
        let mut steps = Vec::new();
        let mut here = open.start.clone();
        for s in &open.steps {
            let reverse = s.reverse.clone();
            let (cause, effect, kind, inverse_kind) = if backward {
                (s.to.clone(), here.clone(), reverse, s.kind.clone())
            } else {
                (here.clone(), s.to.clone(), s.kind.clone(), reverse)
            };
            steps.push(PathStep {
                cause,
                effect,
                kind,
                inverse_kind,
                edge_id: s.edge_id.clone(),
                provenance: s.provenance.to_string(),
                evidence_chunk: s.source_chunk.clone(),
                evidence: String::new(),
            });
            notes.push(s.to.clone());
            here = s.to.clone();
        }
        if backward {
            notes.reverse();
            steps.reverse();
        }
        (notes, steps)
    }

    /// Causal paths and subgraph for an intent, from the hybrid ranking's
    /// note relevance (`relevance`: note → S_sem of its best chunk).
    pub(crate) fn explain_causally(
        &self,
        intent: &str,
        relevance: &[(String, f64)],
        traverse: bool,
    ) -> Result<CausalAnswer, RetrieveError> {
        let engine = self.engine;
        let rule = engine.rule(intent).clone();
        let seeds: Vec<&str> = relevance
            .iter()
            .filter(|(n, _)| {
                self.note(n)
                    .is_some_and(|n| engine.type_weight(&n.note_type) > 0.0)
            })
            .take(engine.traversal.seeds)
            .map(|(n, _)| n.as_str())
            .collect();
        let mut candidates: Vec<Candidate> = Vec::new();
        if traverse && rule.max_hops > 0 {
            let kinds = WalkKinds::of(&rule, engine);
            for seed in &seeds {
                candidates.extend(self.candidates_from(seed, &rule, &kinds)?);
            }
        }
        let mut candidates = maximal(candidates);
        // Without traversal (or with nothing to follow): the seeds alone.
        if candidates.is_empty() {
            for seed in &seeds {
                candidates.push(Candidate {
                    notes: vec![seed.to_string()],
                    steps: Vec::new(),
                    seed: seed.to_string(),
                    walk: 1.0,
                });
            }
        }
        let rel: HashMap<&str, f64> = relevance.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        let mut paths = self.ranked_paths(candidates, &rule, &rel);
        paths.truncate(engine.subgraph.paths.max(1));
        self.attach_evidence(&mut paths)?;
        let subgraph = subgraph::merge(self, &paths, &engine.subgraph);
        Ok(CausalAnswer {
            direction: rule.direction,
            preferred_edges: rule.preferred_edges.clone(),
            target_types: rule.target_types.clone(),
            max_hops: rule.max_hops,
            paths,
            subgraph,
        })
    }

    /// The paths walked from one seed, cause first: towards its causes,
    /// towards its effects, and (for both directions) the seed in the
    /// middle of a longer chain.
    fn candidates_from(
        &self,
        seed: &str,
        rule: &IntentRule,
        kinds: &WalkKinds,
    ) -> Result<Vec<Candidate>, RetrieveError> {
        let walk = |kinds: &[String], toward| -> Result<Vec<Open>, RetrieveError> {
            if kinds.is_empty() {
                return Ok(Vec::new());
            }
            self.walk(seed, kinds, toward, rule.max_hops)
        };
        let back = walk(&kinds.backward, Toward::Causes)?;
        let fwd = walk(&kinds.forward, Toward::Effects)?;
        let candidate = |(notes, steps): (Vec<String>, Vec<PathStep>), walk: f64| Candidate {
            notes,
            steps,
            seed: seed.to_string(),
            walk,
        };
        let mut out: Vec<Candidate> = Vec::new();
        for o in &back {
            out.push(candidate(self.orient(o, true), o.score));
        }
        for o in &fwd {
            out.push(candidate(self.orient(o, false), o.score));
        }
        if rule.direction != Direction::Both {
            return Ok(out);
        }
        let best = |v: &[Open]| {
            v.iter()
                .max_by(|a, b| {
                    (a.steps.len(), a.score)
                        .partial_cmp(&(b.steps.len(), b.score))
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
                .cloned()
        };
        if let (Some(b), Some(f)) = (best(&back), best(&fwd)) {
            let (mut n1, mut s1) = self.orient(&b, true);
            let (n2, s2) = self.orient(&f, false);
            let overlap = n2.iter().skip(1).any(|n| n1.contains(n));
            if !overlap {
                n1.extend(n2.into_iter().skip(1));
                s1.extend(s2);
                out.push(candidate((n1, s1), b.score * f.score));
            }
        }
        Ok(out)
    }

    /// The candidates as scored paths, best first, each chain once (the
    /// same chain reached from two seeds is one path).
    fn ranked_paths(
        &self,
        candidates: Vec<Candidate>,
        rule: &IntentRule,
        rel: &HashMap<&str, f64>,
    ) -> Vec<CausalPath> {
        let mut paths: Vec<CausalPath> = candidates
            .into_iter()
            .map(|c| {
                let score = self.path_score(rule, &c.notes, &c.steps, &c.seed, rel, c.walk);
                CausalPath {
                    notes: c.notes.iter().map(|id| self.path_note(id)).collect(),
                    steps: c.steps,
                    seed: c.seed,
                    score: score.total,
                    score_breakdown: score,
                }
            })
            .collect();
        paths.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.notes.len().cmp(&b.notes.len()))
                .then_with(|| {
                    a.notes
                        .iter()
                        .map(|n| &n.note_id)
                        .cmp(b.notes.iter().map(|n| &n.note_id))
                })
        });
        let mut seen = HashSet::new();
        paths.retain(|p| {
            seen.insert(
                p.notes
                    .iter()
                    .map(|n| n.note_id.clone())
                    .collect::<Vec<_>>(),
            )
        });
        paths
    }

    fn path_note(&self, id: &str) -> PathNote {
        let n = self.note(id);
        PathNote {
            note_id: id.to_string(),
            title: n.map_or_else(|| id.to_string(), |n| n.title.clone()),
            note_type: n.map(|n| n.note_type.clone()).unwrap_or_default(),
        }
    }

    fn path_score(
        &self,
        rule: &IntentRule,
        notes: &[String],
        steps: &[PathStep],
        seed: &str,
        rel: &HashMap<&str, f64>,
        traversal: f64,
    ) -> PathScore {
        let engine = self.engine;
        let r = engine.ranking;
        let rel_of = |n: &str| rel.get(n).copied().unwrap_or(0.0);
        // Semantic: how well the seed, the note the walk started from,
        // matches. A path is about its seed: a why path ends there, a
        // consequence path starts there. A cause rarely sounds like the
        // question about its effect (that is why it must be found by
        // walking), so a weaker note on the path must not pull it down. A
        // note on the path that matches better than the seed is what the
        // question is about, and the path runs past it (a why path on to
        // that note's consequences): the path loses what the seed lacks.
        let best_on_path = notes.iter().map(|n| rel_of(n)).fold(0.0, f64::max);
        let semantic = rel_of(seed) - (best_on_path - rel_of(seed)).max(0.0);
        let types: Vec<String> = notes
            .iter()
            .map(|n| {
                self.note(n)
                    .map(|n| n.note_type.clone())
                    .unwrap_or_default()
            })
            .collect();
        // Coherence: how causal and how certain the edges are (geometric
        // mean per step, so a longer chain is not punished for its length);
        // paths of navigation or chronology only get half.
        let coherence = if steps.is_empty() {
            0.0
        } else {
            let product: f64 = steps
                .iter()
                .map(|s| {
                    let causal =
                        self.vocab.is_causal(&s.kind) || self.vocab.is_causal(&s.inverse_kind);
                    let w = engine
                        .edge_weight(&s.kind, causal)
                        .max(engine.edge_weight(&s.inverse_kind, causal));
                    w * engine.provenance_weight(&s.provenance)
                })
                .product();
            let mean = product.powf(1.0 / steps.len() as f64);
            let causal = steps.iter().any(|s| self.vocab.is_causal(&s.kind));
            if causal { mean } else { 0.5 * mean }
        };
        let type_names: Vec<&str> = types.iter().map(String::as_str).collect();
        let core = self.causal_types.matches_shape(&type_names);
        let targets = types
            .iter()
            .filter(|t| rule.target_types.contains(t))
            .count() as f64
            / types.len().max(1) as f64;
        let length = steps.len().min(rule.max_hops) as f64 / rule.max_hops.max(1) as f64;
        let shape_match = 0.4 * f64::from(u8::from(core)) + 0.3 * targets + 0.3 * length;
        let total = r.alpha * semantic + r.beta * coherence + r.gamma * shape_match;
        PathScore {
            semantic,
            coherence,
            shape_match,
            alpha: r.alpha,
            beta: r.beta,
            gamma: r.gamma,
            total,
            traversal,
        }
    }

    /// Fills each step's evidence: the sentence of its source chunk that
    /// holds the link.
    fn attach_evidence(&self, paths: &mut [CausalPath]) -> Result<(), RetrieveError> {
        let mut ids: Vec<String> = paths
            .iter()
            .flat_map(|p| p.steps.iter().map(|s| s.evidence_chunk.clone()))
            .collect();
        ids.sort();
        ids.dedup();
        let chunks: HashMap<String, String> = self
            .store
            .chunks_by_id(&ids)?
            .into_iter()
            .map(|c| (c.chunk_id, c.text))
            .collect();
        for p in paths.iter_mut() {
            let titles: HashMap<String, String> = p
                .notes
                .iter()
                .map(|n| (n.note_id.clone(), n.title.clone()))
                .collect();
            for s in p.steps.iter_mut() {
                let Some(text) = chunks.get(&s.evidence_chunk) else {
                    continue;
                };
                let wanted: Vec<&str> = [&s.cause, &s.effect]
                    .iter()
                    .filter_map(|id| titles.get(*id).map(String::as_str))
                    .collect();
                s.evidence = evidence_sentence(text, &wanted);
            }
        }
        Ok(())
    }
}
