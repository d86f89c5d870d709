//! The score of RET-2 over the candidate chunks, and the graph terms.
//!
//! B_edge of a note sums what reaches it from the *relevant* notes (the
//! `expansion.relevant` best notes by their semantic term): an edge x → n,
//! or an edge n → x whose kind has an inverse (n caused_by x reads as
//! x resulted_in n). Each contributes x's S_sem · confidence · provenance
//! weight · kind weight · intent boost, and the sum is saturated as
//! 1 − e^(−sum). B_cent is the share of the other relevant notes that the
//! note is linked with, in either direction.

use crate::explain::{self, Link};
use crate::{Hit, Mode, Query, RetrieveError, Retriever, ScoreBreakdown, Section};
use mindnet_core::ids::note_of;
use mindnet_store::{ChunkFilter, ChunkHit};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A chunk's search scores, before weighting.
#[derive(Debug, Clone, Default)]
struct Candidate {
    note_id: String,
    cosine: f64,
    bm25: f64,
    seed: bool,
}

/// One edge between two notes, read towards `to`.
struct Reading<'g> {
    from: &'g str,
    kind: &'g str,
    confidence: f64,
    provenance: &'static str,
}

impl Retriever<'_> {
    /// Content edges of a note, each read as arriving at it (where the
    /// vocabulary allows that reading), and the notes it links to.
    fn readings<'g>(
        &'g self,
        note: &'g str,
    ) -> Result<(Vec<Reading<'g>>, Vec<&'g str>), RetrieveError> {
        let graph = self.store.graph()?;
        let mut incoming = Vec::new();
        let mut outgoing = Vec::new();
        for nb in graph.neighbors(note, self.vocab) {
            if !nb.edge.resolved {
                continue;
            }
            let other = note_of(nb.node);
            if other == note {
                continue;
            }
            if nb.reversed {
                // x → note as authored by x.
                incoming.push(Reading {
                    from: other,
                    kind: &nb.edge.kind,
                    confidence: nb.edge.confidence,
                    provenance: nb.edge.provenance.as_str(),
                });
            } else {
                outgoing.push(other);
                if let Some(inverse) = self.vocab.inverse(&nb.edge.kind) {
                    incoming.push(Reading {
                        from: other,
                        kind: inverse,
                        confidence: nb.edge.confidence,
                        provenance: nb.edge.provenance.as_str(),
                    });
                }
            }
        }
        Ok((incoming, outgoing))
    }

    /// Notes reachable from the seeds within `depth` hops, in the order found.
    fn expand(
        &self,
        seeds: &[String],
        filter: &crate::Filters,
    ) -> Result<Vec<String>, RetrieveError> {
        let cfg = self.config.expansion;
        let mut seen: HashSet<String> = seeds.iter().cloned().collect();
        let mut frontier: Vec<String> = seeds.to_vec();
        let mut added = Vec::new();
        for _ in 0..cfg.depth {
            let mut next = Vec::new();
            for note in &frontier {
                let (incoming, outgoing) = self.readings(note)?;
                let neighbours = outgoing.into_iter().chain(incoming.iter().map(|r| r.from));
                for other in neighbours {
                    if added.len() >= cfg.max_notes {
                        return Ok(added);
                    }
                    let Some(n) = self.notes.get(other) else {
                        continue;
                    };
                    if !self.passes(n, filter) || !seen.insert(other.to_string()) {
                        continue;
                    }
                    added.push(other.to_string());
                    next.push(other.to_string());
                }
            }
            frontier = next;
        }
        Ok(added)
    }
}

fn by_chunk(hits: Vec<ChunkHit>) -> HashMap<String, ChunkHit> {
    hits.into_iter().map(|h| (h.chunk_id.clone(), h)).collect()
}

/// The hits, and every candidate note in ranking order with its best S_sem
/// (the starting points and the semantic term of causal paths).
pub(crate) struct Ranked {
    pub hits: Vec<Hit>,
    pub relevance: Vec<(String, f64)>,
}

pub(crate) fn rank(
    r: &Retriever<'_>,
    q: &Query,
    vector: &[f32],
    intent: &str,
    graph: bool,
) -> Result<Ranked, RetrieveError> {
    let cfg = r.config;
    let filter = r.chunk_filter(&q.filters);
    let seeds = match q.mode {
        Mode::Hybrid => r.store.search_fused(
            vector,
            &q.text,
            &filter,
            cfg.seeds.per_source,
            cfg.seeds.rrf_k,
            cfg.seeds.fused,
        )?,
        Mode::Semantic => r.store.search_dense(vector, &filter, cfg.seeds.fused)?,
    };
    let mut seed_notes: Vec<String> = Vec::new();
    for s in &seeds {
        if !seed_notes.contains(&s.note_id) {
            seed_notes.push(s.note_id.clone());
        }
    }
    let expanded = if graph {
        r.expand(&seed_notes, &q.filters)?
    } else {
        Vec::new()
    };

    // Score every candidate chunk against the query.
    let scope = ChunkFilter {
        chunks: Some(seeds.iter().map(|s| s.chunk_id.clone()).collect()),
        notes: (!expanded.is_empty()).then(|| expanded.clone()),
        ..Default::default()
    };
    let limit = 10_000;
    let dense = by_chunk(r.store.search_dense(vector, &scope, limit)?);
    let lexical = match q.mode {
        Mode::Hybrid => by_chunk(r.store.search_lexical(&q.text, &scope, limit)?),
        Mode::Semantic => HashMap::new(),
    };
    let seed_ids: HashSet<&str> = seeds.iter().map(|s| s.chunk_id.as_str()).collect();
    let mut candidates: BTreeMap<String, Candidate> = BTreeMap::new();
    for (id, h) in &dense {
        candidates.insert(
            id.clone(),
            Candidate {
                note_id: h.note_id.clone(),
                cosine: f64::from(h.score).max(0.0),
                bm25: lexical.get(id).map_or(0.0, |l| f64::from(l.score)),
                seed: seed_ids.contains(id.as_str()),
            },
        );
    }
    // Both signals relative to this query's candidates: embedders differ in
    // their cosine ranges (e5 ~0.7–0.9, USE ~0–0.5), BM25 has no upper bound.
    let best_bm25 = candidates.values().map(|c| c.bm25).fold(0.0, f64::max);
    let (lo, hi) = candidates
        .values()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
            (lo.min(c.cosine), hi.max(c.cosine))
        });
    let relative_cosine = |c: f64| if hi > lo { (c - lo) / (hi - lo) } else { 1.0 };
    let share = match q.mode {
        Mode::Hybrid => cfg.lexical_share,
        Mode::Semantic => 0.0,
    };

    // The semantic term per chunk, and each note's best.
    struct Scored {
        id: String,
        c: Candidate,
        lexical: f64,
        s_sem: f64,
        w_type: f64,
        m_status: f64,
        semantic: f64,
    }
    let mut scored: Vec<Scored> = Vec::new();
    for (id, c) in candidates {
        let Some(note) = r.notes.get(&c.note_id) else {
            continue;
        };
        let lexical = if best_bm25 > 0.0 {
            c.bm25 / best_bm25
        } else {
            0.0
        };
        let s_sem = (1.0 - share) * relative_cosine(c.cosine) + share * lexical;
        let w_type = note.retriever_weight.max(0.0);
        let m_status = cfg.status_modifier(note.status);
        let semantic = cfg.weights.semantic * s_sem * w_type * m_status;
        scored.push(Scored {
            id,
            c,
            lexical,
            s_sem,
            w_type,
            m_status,
            semantic,
        });
    }
    let mut note_best: HashMap<String, (f64, f64)> = HashMap::new(); // note → (semantic, s_sem)
    for s in &scored {
        let e = note_best.entry(s.c.note_id.clone()).or_insert((0.0, 0.0));
        e.0 = e.0.max(s.semantic);
        e.1 = e.1.max(s.s_sem);
    }
    let mut by_relevance: Vec<(&str, f64)> =
        note_best.iter().map(|(n, v)| (n.as_str(), v.0)).collect();
    by_relevance.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let relevant: HashSet<&str> = by_relevance
        .iter()
        .take(cfg.expansion.relevant)
        .map(|(n, _)| *n)
        .collect();

    // Graph terms per note.
    #[derive(Clone, Default)]
    struct GraphTerms {
        b_edge: f64,
        b_cent: f64,
        from: Vec<Link>,
        to: Vec<Link>,
    }
    let mut graph_terms: HashMap<String, GraphTerms> = HashMap::new();
    if graph {
        let others = relevant.len().saturating_sub(1).max(1) as f64;
        for note in note_best.keys() {
            let (incoming, outgoing) = r.readings(note)?;
            let mut sum = 0.0;
            let mut linked: HashSet<&str> = HashSet::new();
            let mut from_links = Vec::new();
            for rd in &incoming {
                if !relevant.contains(rd.from) {
                    continue;
                }
                linked.insert(rd.from);
                let rel = note_best.get(rd.from).map_or(0.0, |v| v.1);
                let c = rel
                    * rd.confidence
                    * cfg.provenance_weight(rd.provenance)
                    * cfg.kind_weight(rd.kind)
                    * cfg.intent_boost(intent, rd.kind);
                if c > 0.0 {
                    sum += c;
                    from_links.push(Link::new(r, rd.from, rd.kind, c));
                }
            }
            let mut to_links = Vec::new();
            for other in outgoing {
                if relevant.contains(other) {
                    linked.insert(other);
                    to_links.push(Link::new(r, other, "", 0.0));
                }
            }
            linked.remove(note.as_str());
            let b_edge = 1.0 - (-sum).exp();
            let b_cent = linked.len() as f64 / others;
            graph_terms.insert(
                note.to_string(),
                GraphTerms {
                    b_edge,
                    b_cent: b_cent.min(1.0),
                    from: from_links,
                    to: to_links,
                },
            );
        }
    }

    let mut hits: Vec<(Scored, ScoreBreakdown, GraphTerms)> = scored
        .into_iter()
        .map(|s| {
            let g = graph_terms.get(&s.c.note_id).cloned().unwrap_or_default();
            let (b_edge, b_cent) = (g.b_edge, g.b_cent);
            let edge_bonus = cfg.weights.edge * b_edge;
            let centrality = cfg.weights.centrality * b_cent;
            let b = ScoreBreakdown {
                semantic: s.semantic,
                edge_bonus,
                centrality,
                total: s.semantic + edge_bonus + centrality,
                s_sem: s.s_sem,
                cosine: s.c.cosine,
                lexical: s.lexical,
                w_type: s.w_type,
                m_status: s.m_status,
                b_edge,
                b_cent,
                w_sem: cfg.weights.semantic,
                w_edge: cfg.weights.edge,
                w_cent: cfg.weights.centrality,
            };
            (s, b, g)
        })
        .collect();
    hits.sort_by(|a, b| b.1.total.total_cmp(&a.1.total).then(a.0.id.cmp(&b.0.id)));
    // Notes in ranking order, each with its best S_sem (for causal paths).
    let mut relevance: Vec<(String, f64)> = Vec::new();
    for (s, _, _) in &hits {
        if !relevance.iter().any(|(n, _)| *n == s.c.note_id) {
            let best = note_best.get(s.c.note_id.as_str()).map_or(0.0, |v| v.1);
            relevance.push((s.c.note_id.clone(), best));
        }
    }
    // Grouped: a note's other chunks among the first `3·k` chunks are listed
    // under its best one ("the note's other matching sections").
    let mut sections: HashMap<String, Vec<(String, f64)>> = HashMap::new();
    if q.group_by_note {
        let mut seen = HashSet::new();
        for (s, b, _) in hits.iter().take(q.k.saturating_mul(3)) {
            if !seen.insert(s.c.note_id.clone()) {
                sections
                    .entry(s.c.note_id.clone())
                    .or_default()
                    .push((s.id.clone(), b.total));
            }
        }
        let mut seen = HashSet::new();
        hits.retain(|h| seen.insert(h.0.c.note_id.clone()));
    }
    hits.truncate(q.k);

    let ids: Vec<String> = hits
        .iter()
        .flat_map(|h| {
            let more = sections.get(&h.0.c.note_id).into_iter().flatten();
            std::iter::once(h.0.id.clone()).chain(more.map(|(id, _)| id.clone()))
        })
        .collect();
    let chunks: HashMap<String, mindnet_core::Chunk> = r
        .store
        .chunks_by_id(&ids)?
        .into_iter()
        .map(|c| (c.chunk_id.clone(), c))
        .collect();
    let hits = hits
        .into_iter()
        .filter_map(|(s, b, g)| {
            let note = r.notes.get(&s.c.note_id)?;
            let chunk = chunks.get(&s.id);
            let reasons = explain::reasons(q.lang, note, &b, &g.from, &g.to, graph);
            Some(Hit {
                chunk_id: s.id,
                note_id: note.note_id.clone(),
                title: note.title.clone(),
                path: note.path.clone(),
                note_type: note.note_type.clone(),
                status: note.status.as_str().to_string(),
                section: chunk.map(|c| c.section.clone()).unwrap_or_default(),
                text: chunk.map(|c| c.text.clone()).unwrap_or_default(),
                score: b.total,
                score_breakdown: b,
                reasons,
                via: if s.c.seed { "seed" } else { "graph" }.to_string(),
                sections: sections
                    .get(&s.c.note_id)
                    .into_iter()
                    .flatten()
                    .filter_map(|(id, score)| {
                        let c = chunks.get(id)?;
                        Some(Section {
                            chunk_id: id.clone(),
                            section: c.section.clone(),
                            text: c.text.clone(),
                            score: *score,
                        })
                    })
                    .collect(),
            })
        })
        .collect();
    Ok(Ranked { hits, relevance })
}

#[cfg(test)]
mod tests {
    use mindnet_core::ids::note_of;

    #[test]
    fn chunk_targets_belong_to_their_note() {
        assert_eq!(note_of("abc#c03"), "abc");
        assert_eq!(note_of("abc"), "abc");
        assert_eq!(note_of("Titel #cool"), "Titel #cool");
    }
}
