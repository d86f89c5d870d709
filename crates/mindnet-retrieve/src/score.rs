//! The score of RET-2 over a query's pool: a pure function of the pool and
//! the weights, so ranking is unit-tested without a store and `mindnet
//! tune` re-scores a pool under many weights.
//!
//! `total = W_sem·S_sem·W_type·M_status + W_edge·B_edge·G + W_cent·B_cent·G + W_hop·B_hop`
//!
//! - S_sem mixes the cosine (min–max over the candidates: embedders differ
//!   in their cosine ranges) and BM25 (relative to the best candidate).
//! - B_edge sums what reaches a note from the *relevant* notes (the
//!   `expansion.relevant` best by their semantic term): an edge x → n, or an
//!   edge n → x whose kind has an inverse (n caused_by x reads as x
//!   resulted_in n). Each contributes x's S_sem · confidence · provenance ·
//!   kind weight · intent boost. B_cent is the share of the other relevant
//!   notes the note is linked with. Both are divided by the note's degree
//!   to the power `hub_damping` (H): a passage such as "United States",
//!   mentioned by hundreds, is linked to every question's hits and proves
//!   nothing by it. B_edge saturates as 1 − e^(−H·sum).
//! - G, the gate, is `(1 − gate) + gate · S_sem(note)`: an edge counts as
//!   much as its note is itself about the query.
//! - The lift limit L (`expansion.lift_limit`, 0: none): the graph terms of
//!   a note are held so that its total stays below L times the semantic
//!   term of the best relevant note it is linked with. With L = 1 a link
//!   lifts a note up to the hit that vouches for it, never past it: the
//!   bridge to a second hop joins the top hits, and the best direct match
//!   keeps rank 1. A lifted total up to `lift_knee` of that limit counts
//!   as it is; beyond it, it approaches the limit as x/(1+x) and never
//!   reaches it, so the notes one hit lifts keep distinct totals in the
//!   order of their totals before the limit (their match plus their
//!   evidence) instead of tying just below it. The graph never lowers a
//!   note below its own semantic term.
//! - B_hop (`hop.rs`): a note of the second search, which followed the best
//!   hit's rare names, gets (k + 1) / (k + 1 + rank) by its place there;
//!   the lift limit holds it below that hit, and below every note the
//!   question names that it does not match better itself.

use crate::pool::Pool;
use crate::{Mode, RetrieverConfig, ScoreBreakdown};
use std::collections::HashSet;

/// An edge that added to a note's B_edge.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkIn {
    /// The relevant note it came from (index into `Pool::notes`).
    pub from: usize,
    pub kind: String,
    pub contribution: f64,
    /// `mention` for an edge the import found in prose, not in a link.
    pub provenance: &'static str,
}

/// One candidate chunk, scored.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Index into `Pool::chunks`.
    pub chunk: usize,
    pub breakdown: ScoreBreakdown,
    pub from: Vec<LinkIn>,
    /// Relevant notes this chunk's note links to.
    pub to: Vec<usize>,
    /// Relevant notes it only mentions (no link of its own joins them).
    pub mentions: Vec<usize>,
    /// The bridge names it shares with the hit of the second hop.
    pub bridge: Vec<String>,
    /// The names the walk reached it through, and the best note that sent
    /// it mass (index into `Pool::notes`).
    pub walked: Vec<String>,
    pub walked_from: Option<usize>,
}

/// Per note: its best semantic term and its best S_sem.
#[derive(Debug, Clone, Copy, Default)]
struct Best {
    semantic: f64,
    s_sem: f64,
}

/// Every candidate chunk, best first (ties by chunk id). With `graph` off,
/// the seed chunks alone and no graph terms.
pub fn score(pool: &Pool, cfg: &RetrieverConfig, intent: &str, graph: bool) -> Vec<Scored> {
    let (mut out, best) = semantic_terms(pool, cfg, graph);
    if graph {
        add_graph_terms(pool, cfg, intent, &best, &mut out);
    }
    out.sort_by(|a, b| {
        b.breakdown
            .total
            .total_cmp(&a.breakdown.total)
            .then_with(|| {
                pool.chunks[a.chunk]
                    .chunk_id
                    .cmp(&pool.chunks[b.chunk].chunk_id)
            })
    });
    out
}

/// Each chunk in play with its semantic term (and no graph terms yet), and
/// each note's best. S_sem is relative to the query's candidates: the
/// min–max cosine of the first search, and BM25 over its best.
fn semantic_terms(pool: &Pool, cfg: &RetrieverConfig, graph: bool) -> (Vec<Scored>, Vec<Best>) {
    let in_play = |c: &crate::pool::PoolChunk| graph || c.seed;
    // The scale: the chunks of the first search, not those the hop added.
    let scale = || pool.chunks.iter().filter(|c| in_play(c) && !c.hop);
    let best_bm25 = scale().map(|c| c.bm25).fold(0.0, f64::max);
    let (lo, hi) = scale().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
        (lo.min(c.cosine), hi.max(c.cosine))
    });
    let relative_cosine = |c: f64| {
        if hi > lo {
            ((c - lo) / (hi - lo)).clamp(0.0, 1.0)
        } else {
            1.0
        }
    };
    let share = match pool.mode {
        Mode::Hybrid => cfg.lexical_share,
        Mode::Semantic => 0.0,
        Mode::Lexical => 1.0,
    };
    let mut out: Vec<Scored> = Vec::new();
    let mut best = vec![Best::default(); pool.notes.len()];
    for (i, c) in pool.chunks.iter().enumerate() {
        if !in_play(c) {
            continue;
        }
        let note = &pool.notes[c.note];
        let lexical = if best_bm25 > 0.0 {
            (c.bm25 / best_bm25).min(1.0)
        } else {
            0.0
        };
        let s_sem = (1.0 - share) * relative_cosine(c.cosine) + share * lexical;
        let w_type = note.w_type.max(0.0);
        let m_status = cfg.status_modifier(note.status);
        let semantic = cfg.weights.semantic * s_sem * w_type * m_status;
        let b = &mut best[c.note];
        b.semantic = b.semantic.max(semantic);
        b.s_sem = b.s_sem.max(s_sem);
        out.push(Scored {
            chunk: i,
            breakdown: ScoreBreakdown {
                semantic,
                edge_bonus: 0.0,
                centrality: 0.0,
                total: semantic,
                s_sem,
                cosine: c.cosine,
                lexical,
                w_type,
                m_status,
                b_edge: 0.0,
                b_cent: 0.0,
                hub: 1.0,
                gate: 1.0,
                w_sem: cfg.weights.semantic,
                w_edge: cfg.weights.edge,
                w_cent: cfg.weights.centrality,
                hop: 0.0,
                b_hop: 0.0,
                w_hop: cfg.hop.weight,
                walk: 0.0,
                b_walk: 0.0,
                w_walk: cfg.walk.weight,
            },
            from: Vec::new(),
            to: Vec::new(),
            mentions: Vec::new(),
            bridge: Vec::new(),
            walked: Vec::new(),
            walked_from: None,
        });
    }
    (out, best)
}

/// The edge, centrality and hop terms of each chunk's note, gated, and
/// held below `lift_limit` times the semantic term of the note they come
/// from.
fn add_graph_terms(
    pool: &Pool,
    cfg: &RetrieverConfig,
    intent: &str,
    best: &[Best],
    out: &mut [Scored],
) {
    let terms = graph_terms(pool, cfg, intent, best);
    let hops = hop_terms(pool, cfg, best);
    let semantic: Vec<f64> = best.iter().map(|b| b.semantic).collect();
    let walks = crate::walk::terms(pool, cfg, intent, &semantic);
    for s in out {
        let note = pool.chunks[s.chunk].note;
        let t = &terms[note];
        let h = &hops[note];
        let w = &walks[note];
        let b = &mut s.breakdown;
        b.b_edge = t.b_edge;
        b.b_cent = t.b_cent;
        b.hub = t.hub;
        b.gate = t.gate;
        b.b_hop = h.b_hop;
        b.edge_bonus = cfg.weights.edge * t.b_edge * t.gate;
        b.centrality = cfg.weights.centrality * t.b_cent * t.gate;
        b.hop = cfg.hop.weight * h.b_hop * t.gate;
        b.b_walk = w.b_walk;
        b.walk = cfg.walk.weight * w.b_walk * t.gate;
        let limit = cfg.expansion.lift_limit;
        let graph_terms = b.edge_bonus + b.centrality + b.hop + b.walk;
        if limit > 0.0 && graph_terms > 0.0 {
            // Below the source: a tie would be broken by chunk id.
            let source = t
                .source_semantic
                .max(h.source_semantic)
                .max(w.source_semantic);
            // The walk lifts no note past one the question names.
            let source = if b.walk > 0.0 {
                source.min(w.named_ceiling)
            } else {
                source
            };
            let ceiling = limit * source - 1e-9;
            let total = held(b.semantic + graph_terms, ceiling, cfg.expansion.lift_knee);
            let lift = (total - b.semantic).max(0.0);
            if lift < graph_terms {
                b.edge_bonus *= lift / graph_terms;
                b.centrality *= lift / graph_terms;
                b.hop *= lift / graph_terms;
                b.walk *= lift / graph_terms;
            }
        }
        b.total = b.semantic + b.edge_bonus + b.centrality + b.hop + b.walk;
        s.from = t.from.clone();
        s.to = t.to.clone();
        s.mentions = t.mentions.clone();
        s.bridge = h.names.clone();
        if b.walk > 0.0 {
            s.walked = w.names.clone();
            s.walked_from = w.from;
        }
    }
}

/// A total `t` held below `ceiling`: as it is up to `knee · ceiling`,
/// then `knee·ceiling + (1 − knee)·ceiling · x/(1 + x)` with x the excess
/// over the knee in units of the rest. Continuous, with slope 1 at the
/// knee, rising in `t`, below `ceiling` for every `t`: notes held under
/// one ceiling keep the order of their totals before it.
fn held(t: f64, ceiling: f64, knee: f64) -> f64 {
    let knee = knee.clamp(0.0, 1.0) * ceiling;
    let rest = ceiling - knee;
    if t <= knee {
        return t;
    }
    if rest <= 0.0 {
        return ceiling.min(t);
    }
    let x = (t - knee) / rest;
    knee + rest * x / (1.0 + x)
}

#[derive(Debug, Clone, Default)]
struct Terms {
    b_edge: f64,
    b_cent: f64,
    hub: f64,
    gate: f64,
    /// The best semantic term among the relevant notes linked with it.
    source_semantic: f64,
    from: Vec<LinkIn>,
    to: Vec<usize>,
    mentions: Vec<usize>,
}

#[derive(Debug, Clone, Default)]
struct HopTerm {
    b_hop: f64,
    /// The semantic term it may not pass: the hit the hop started from, or
    /// a note the question names (`hop_terms`).
    source_semantic: f64,
    names: Vec<String>,
}

/// B_hop per note: (k + 1) / (k + 1 + rank) in the second search's order.
/// Its ceiling is the hit it came from, or a note the question names that
/// it does not already match better: the hop lifts a note past neither.
fn hop_terms(pool: &Pool, cfg: &RetrieverConfig, best: &[Best]) -> Vec<HopTerm> {
    let mut out = vec![HopTerm::default(); pool.notes.len()];
    let Some(bridge) = pool.bridge.as_ref().filter(|_| cfg.hop.weight > 0.0) else {
        return out;
    };
    let k = cfg.hop.rank_k;
    let semantic = |n: usize| best.get(n).map_or(0.0, |b| b.semantic);
    let source = semantic(bridge.from);
    for (rank, n) in bridge.notes.iter().enumerate() {
        let own = semantic(n.note);
        let ceiling = named_ceiling(pool, semantic, own).min(source);
        if let Some(t) = out.get_mut(n.note) {
            *t = HopTerm {
                b_hop: (k + 1.0) / (k + 1.0 + rank as f64),
                source_semantic: ceiling,
                names: n.names.clone(),
            };
        }
    }
    out
}

/// The lowest semantic term among the notes the question names that match
/// better than `own` (infinite: none). They are direct matches, and neither
/// the second hop nor the walk lifts a note past them.
pub(crate) fn named_ceiling(pool: &Pool, semantic: impl Fn(usize) -> f64, own: f64) -> f64 {
    pool.named
        .iter()
        .map(|&m| semantic(m))
        .filter(|&m| m > own)
        .fold(f64::INFINITY, f64::min)
}

fn graph_terms(pool: &Pool, cfg: &RetrieverConfig, intent: &str, best: &[Best]) -> Vec<Terms> {
    let x = cfg.expansion;
    let mut by_relevance: Vec<usize> = (0..pool.notes.len())
        .filter(|&n| best[n].semantic > 0.0 || best[n].s_sem > 0.0)
        .collect();
    by_relevance.sort_by(|&a, &b| {
        best[b]
            .semantic
            .total_cmp(&best[a].semantic)
            .then_with(|| pool.notes[a].note_id.cmp(&pool.notes[b].note_id))
    });
    let relevant: HashSet<usize> = by_relevance.iter().take(x.relevant).copied().collect();
    let others = relevant.len().saturating_sub(1).max(1) as f64;

    let mut sums = vec![0.0; pool.notes.len()];
    let mut terms = vec![Terms::default(); pool.notes.len()];
    let mut linked: Vec<HashSet<usize>> = vec![HashSet::new(); pool.notes.len()];
    let mut arrive = |to: usize, from: usize, kind: &str, e: &crate::pool::PoolEdge| {
        if !relevant.contains(&from) {
            return;
        }
        let c = best[from].s_sem
            * e.confidence
            * cfg.provenance_weight(e.provenance)
            * cfg.kind_weight(kind)
            * cfg.intent_boost(intent, kind);
        if c > 0.0 {
            sums[to] += c;
            terms[to].from.push(LinkIn {
                from,
                kind: kind.to_string(),
                contribution: c,
                provenance: e.provenance,
            });
        }
    };
    for e in &pool.edges {
        arrive(e.target, e.source, &e.kind, e);
        if let Some(inverse) = &e.inverse {
            arrive(e.source, e.target, inverse, e);
        }
    }
    for e in &pool.edges {
        if relevant.contains(&e.source) {
            linked[e.target].insert(e.source);
        }
        if relevant.contains(&e.target) {
            linked[e.source].insert(e.target);
            if e.provenance == mindnet_core::Provenance::Mention.as_str() {
                terms[e.source].mentions.push(e.target);
            } else {
                terms[e.source].to.push(e.target);
            }
        }
    }
    for (n, t) in terms.iter_mut().enumerate() {
        let degree = pool.notes[n].degree.max(1) as f64;
        t.hub = degree.powf(-x.hub_damping);
        t.b_edge = 1.0 - (-t.hub * sums[n]).exp();
        linked[n].remove(&n);
        t.source_semantic = linked[n]
            .iter()
            .map(|&x| best[x].semantic)
            .fold(0.0, f64::max);
        t.b_cent = t.hub * (linked[n].len() as f64 / others).min(1.0);
        t.gate = (1.0 - x.gate) + x.gate * best[n].s_sem;
        t.to.sort_unstable();
        t.to.dedup();
        let to = &t.to;
        t.mentions.retain(|m| !to.contains(m));
        t.mentions.sort_unstable();
        t.mentions.dedup();
    }
    terms
}

#[cfg(test)]
mod tests {
    //! The formula on hand-built pools: no store, no model, microseconds.
    use super::*;
    use crate::pool::{PoolChunk, PoolEdge, PoolNote};
    use mindnet_core::Status;

    fn note(id: &str, degree: usize) -> PoolNote {
        PoolNote {
            note_id: id.to_string(),
            w_type: 1.0,
            status: Status::Active,
            degree,
        }
    }

    fn chunk(note: usize, cosine: f64, bm25: f64, seed: bool) -> PoolChunk {
        PoolChunk {
            chunk_id: format!("n{note}#c00"),
            note,
            cosine,
            bm25,
            seed,
            hop: false,
        }
    }

    fn link(source: usize, target: usize) -> PoolEdge {
        PoolEdge {
            source,
            target,
            kind: "references".to_string(),
            inverse: None,
            confidence: 1.0,
            provenance: "explicit",
        }
    }

    /// A top hit (0) that mentions a weaker note (1), a hub (2) mentioned by
    /// every seed, and an unlinked seed (3).
    fn pool() -> Pool {
        Pool {
            mode: Mode::Hybrid,
            chunks: vec![
                chunk(0, 0.90, 10.0, true),
                chunk(1, 0.80, 2.0, false),
                chunk(2, 0.78, 0.0, true),
                chunk(3, 0.84, 5.0, true),
            ],
            notes: vec![
                note("top", 3),
                note("bridge", 1),
                note("hub", 400),
                note("other", 1),
            ],
            edges: vec![link(0, 1), link(0, 2), link(3, 2)],
            texts: Default::default(),
            bridge: None,
            names: Vec::new(),
            named: Vec::new(),
        }
    }

    /// Every graph weight set here, whatever the defaults are.
    fn base() -> RetrieverConfig {
        let mut c = RetrieverConfig::builtin();
        c.weights.semantic = 1.0;
        c.weights.edge = 0.7;
        c.weights.centrality = 0.5;
        c.lexical_share = 0.3;
        c.expansion.relevant = 10;
        c.expansion.hub_damping = 0.0;
        c.expansion.gate = 0.0;
        c.expansion.lift_limit = 0.0;
        c
    }

    fn order(p: &Pool, cfg: &RetrieverConfig) -> Vec<String> {
        crate::ranked_notes(p, &score(p, cfg, "fact", true))
    }

    #[test]
    fn the_terms_add_up_and_graph_off_scores_the_seeds_alone() {
        let p = pool();
        let cfg = base();
        for s in score(&p, &cfg, "fact", true) {
            let b = &s.breakdown;
            assert!((b.semantic + b.edge_bonus + b.centrality - b.total).abs() < 1e-12);
        }
        let off = score(&p, &cfg, "fact", false);
        assert_eq!(off.len(), 3, "the expanded chunk is not a candidate");
        assert!(off.iter().all(|s| s.breakdown.edge_bonus == 0.0));
    }

    #[test]
    fn without_a_limit_a_neighbour_overtakes_the_hit_that_links_it() {
        let p = pool();
        let mut cfg = base();
        cfg.weights.edge = 1.5;
        cfg.weights.centrality = 0.0;
        cfg.expansion.lift_limit = 0.0;
        let ranked = order(&p, &cfg);
        assert_ne!(ranked[0], "top", "{ranked:?}");
        // With the limit a link lifts a note up to its source, never past:
        // the top hit keeps rank 1, its neighbours follow it.
        cfg.expansion.lift_limit = 1.0;
        let ranked = order(&p, &cfg);
        assert_eq!(ranked[0], "top");
        assert!(ranked[1..3].contains(&"bridge".to_string()), "{ranked:?}");
        assert_eq!(ranked[3], "other", "{ranked:?}");
    }

    /// Three notes linked from the top hit, with more and more evidence
    /// (B_edge), all beyond the limit: cut at it they tie just below the
    /// hit; held below it they keep the order of their evidence.
    #[test]
    fn notes_lifted_by_one_hit_keep_the_order_of_their_evidence() {
        let mut p = pool();
        for (i, kinds) in [(4usize, 1usize), (5, 2), (6, 3)] {
            p.notes.push(note(&format!("lifted by {kinds}"), 1));
            p.chunks.push(chunk(i, 0.78, 0.0, false));
            for _ in 0..kinds {
                p.edges.push(link(0, i));
            }
        }
        let mut cfg = base();
        cfg.weights.edge = 10.0;
        cfg.weights.centrality = 0.0;
        cfg.expansion.lift_limit = 1.0;
        let totals = |cfg: &RetrieverConfig| -> Vec<f64> {
            let scored = score(&p, cfg, "fact", true);
            (4..7)
                .map(|c| {
                    scored
                        .iter()
                        .find(|s| s.chunk == c)
                        .unwrap()
                        .breakdown
                        .total
                })
                .collect()
        };
        let top = score(&p, &cfg, "fact", true)[0].breakdown.total;
        cfg.expansion.lift_knee = 1.0;
        let cut = totals(&cfg);
        assert!(
            cut.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-12),
            "{cut:?}"
        );
        cfg.expansion.lift_knee = 0.5;
        let held = totals(&cfg);
        assert!(held[0] < held[1] && held[1] < held[2], "{held:?}");
        assert!(held[2] < top, "{held:?} against the hit's {top}");
        // Two decimals apart at least: a reader sees the order in the score.
        assert!(held[2] - held[0] > 0.01, "{held:?}");
    }

    #[test]
    fn a_held_total_rises_with_its_evidence_and_stays_below_the_limit() {
        let mut last = 0.0;
        for i in 0..200 {
            let g = i as f64 * 0.05;
            let h = held(g, 1.0, 0.5);
            assert!(h >= last && h < 1.0, "{g}: {h}");
            last = h;
        }
        assert_eq!(
            held(0.3, 1.0, 0.5),
            0.3,
            "below the knee a lift is as it is"
        );
        assert_eq!(held(2.0, 1.0, 1.0), 1.0, "knee 1: the old cut");
    }

    #[test]
    fn hub_damping_keeps_a_much_linked_note_down() {
        let p = pool();
        let mut cfg = base();
        cfg.weights.edge = 1.0;
        cfg.weights.centrality = 0.5;
        cfg.expansion.hub_damping = 0.0;
        let undamped = order(&p, &cfg);
        cfg.expansion.hub_damping = 1.0;
        let damped = order(&p, &cfg);
        let at = |v: &[String]| v.iter().position(|n| n == "hub").unwrap();
        assert!(at(&damped) > at(&undamped), "{undamped:?} → {damped:?}");
        assert_eq!(damped.last().map(String::as_str), Some("hub"));
    }

    #[test]
    fn the_gate_scales_graph_terms_by_the_notes_own_match() {
        let p = pool();
        let mut cfg = base();
        cfg.expansion.gate = 1.0;
        let scored = score(&p, &cfg, "fact", true);
        let bridge = scored.iter().find(|s| s.chunk == 1).unwrap();
        assert!((bridge.breakdown.gate - bridge.breakdown.s_sem).abs() < 1e-12);
    }

    /// The top hit (0) and two notes that share a rare name with it and
    /// match the question weakly (4 first, then 5 in the second search).
    fn hop_pool() -> Pool {
        let mut p = pool();
        for (note, cosine) in [(4, 0.79), (5, 0.81)] {
            p.chunks.push(PoolChunk {
                hop: true,
                ..chunk(note, cosine, 0.0, false)
            });
        }
        p.notes.push(note("second hop", 1));
        p.notes.push(note("third hop", 1));
        p.bridge = Some(crate::pool::Bridge {
            from: 0,
            names: vec!["Zimbabwe".into()],
            notes: [4, 5]
                .map(|note| crate::pool::BridgeNote {
                    note,
                    names: vec!["Zimbabwe".into()],
                })
                .to_vec(),
        });
        p
    }

    #[test]
    fn the_second_hop_lifts_its_notes_by_their_order_below_the_hit() {
        let p = hop_pool();
        let mut cfg = base();
        cfg.hop.weight = 0.0;
        let off = order(&p, &cfg);
        let at = |v: &[String], n: &str| v.iter().position(|x| x == n).unwrap();
        assert!(at(&off, "third hop") < at(&off, "second hop"), "{off:?}");
        assert_eq!(
            &off[off.len() - 2..],
            ["third hop", "second hop"],
            "{off:?}"
        );

        cfg.weights.edge = 0.0;
        cfg.weights.centrality = 0.0;
        cfg.hop.weight = 1.0;
        cfg.hop.rank_k = 3.0;
        cfg.expansion.lift_limit = 1.0;
        let scored = score(&p, &cfg, "fact", true);
        let on = crate::ranked_notes(&p, &scored);
        // The hit keeps rank 1; the second search's best note follows it,
        // ahead of the one it ranked below, though its own match is weaker.
        assert_eq!(on[0], "top", "{on:?}");
        assert_eq!(on[1], "second hop", "{on:?}");
        assert!(at(&on, "second hop") < at(&on, "third hop"), "{on:?}");
        // The notes found before the hop keep their order among themselves:
        // the hop's notes are scored on their scale and do not move it.
        let first = |v: &[String]| -> Vec<String> {
            v.iter().filter(|n| !n.contains("hop")).cloned().collect()
        };
        let mut without = cfg.clone();
        without.hop.weight = 0.0;
        assert_eq!(first(&on), first(&order(&p, &without)));
        let hop = scored.iter().find(|s| s.chunk == 4).unwrap();
        let b = &hop.breakdown;
        assert_eq!(b.b_hop, 1.0, "rank 0 of the second search");
        assert!((b.semantic + b.edge_bonus + b.centrality + b.hop - b.total).abs() < 1e-12);
        assert_eq!(hop.bridge, ["Zimbabwe"]);
        let third = scored.iter().find(|s| s.chunk == 5).unwrap();
        assert!((third.breakdown.b_hop - 4.0 / 5.0).abs() < 1e-12);
    }

    #[test]
    fn the_second_hop_lifts_no_note_past_one_the_question_names() {
        let mut p = hop_pool();
        let mut cfg = base();
        cfg.weights.edge = 0.0;
        cfg.weights.centrality = 0.0;
        cfg.hop.weight = 1.0;
        cfg.expansion.lift_limit = 1.0;
        let unnamed = order(&p, &cfg);
        let at = |v: &[String], n: &str| v.iter().position(|x| x == n).unwrap();
        assert!(
            at(&unnamed, "second hop") < at(&unnamed, "other"),
            "{unnamed:?}"
        );
        // "other" (3) is the question's second subject: it keeps its place
        // above the notes the hop lifts.
        p.named = vec![3];
        let named = order(&p, &cfg);
        assert_eq!(named[0], "top");
        assert!(at(&named, "other") < at(&named, "second hop"), "{named:?}");
        assert!(
            at(&named, "second hop") < at(&named, "third hop"),
            "{named:?}"
        );
    }
}
