//! A query's hits: the pool (`pool.rs`), scored (`score.rs`), grouped by
//! note when asked, with the chunk texts and the reasons (`explain.rs`).

use crate::explain::{self, Link};
use crate::pool::Pool;
use crate::score::{self, Scored};
use crate::{Hit, Query, RetrieveError, Retriever, Section};
use mindnet_core::Provenance;
use std::collections::{HashMap, HashSet};

/// The hits, and every candidate note in ranking order with its best S_sem
/// (the starting points and the semantic term of causal paths).
pub(crate) struct Ranked {
    pub hits: Vec<Hit>,
    pub relevance: Vec<(String, f64)>,
}

/// Note ids in ranking order, each once (what `eval` and `tune` measure).
pub fn ranked_notes(pool: &Pool, scored: &[Scored]) -> Vec<String> {
    let mut seen = HashSet::new();
    scored
        .iter()
        .map(|s| pool.chunks[s.chunk].note)
        .filter(|n| seen.insert(*n))
        .map(|n| pool.notes[n].note_id.clone())
        .collect()
}

/// A note's other chunks among the first `3·k`, with their scores, by the
/// note's place in the pool.
type Sections = HashMap<usize, Vec<(usize, f64)>>;

pub(crate) fn rank(
    r: &Retriever<'_>,
    q: &Query,
    vector: &[f32],
    intent: &str,
    graph: bool,
) -> Result<Ranked, RetrieveError> {
    let pool = r.pool(q, vector, graph)?;
    let mut scored = score::score(&pool, r.config, intent, graph);
    let relevance = relevance(&pool, &scored);
    let sections = if q.group_by_note {
        grouped(&pool, &mut scored, q.k)
    } else {
        Sections::new()
    };
    scored.truncate(q.k);
    let ids: Vec<String> = scored
        .iter()
        .flat_map(|s| {
            let more = sections
                .get(&pool.chunks[s.chunk].note)
                .into_iter()
                .flatten();
            std::iter::once(s.chunk).chain(more.map(|(c, _)| *c))
        })
        .map(|c| pool.chunks[c].chunk_id.clone())
        .collect();
    let missing: Vec<String> = ids
        .iter()
        .filter(|id| !pool.texts.contains_key(*id))
        .cloned()
        .collect();
    let read = r.store.chunks_by_id(&missing)?;
    let chunks: HashMap<&str, &mindnet_core::Chunk> = read
        .iter()
        .chain(pool.texts.values())
        .map(|c| (c.chunk_id.as_str(), c))
        .collect();
    let hits = Hits {
        r,
        q,
        pool: &pool,
        chunks: &chunks,
        sections: &sections,
        graph,
        bridge_from: pool.bridge.as_ref().map(|b| {
            let id = &pool.notes[b.from].note_id;
            r.note(id).map_or_else(|| id.clone(), |n| n.title.clone())
        }),
    };
    let hits = scored.into_iter().filter_map(|s| hits.hit(s)).collect();
    Ok(Ranked { hits, relevance })
}

/// Every candidate note in ranking order with its best S_sem.
fn relevance(pool: &Pool, scored: &[Scored]) -> Vec<(String, f64)> {
    let note_of = |s: &Scored| pool.chunks[s.chunk].note;
    let mut best_s_sem = vec![0.0f64; pool.notes.len()];
    for s in scored {
        let b = &mut best_s_sem[note_of(s)];
        *b = b.max(s.breakdown.s_sem);
    }
    let mut seen = HashSet::new();
    scored
        .iter()
        .map(note_of)
        .filter(|n| seen.insert(*n))
        .map(|n| (pool.notes[n].note_id.clone(), best_s_sem[n]))
        .collect()
}

/// One hit per note: a note's other chunks among the first `3·k` chunks
/// are listed under its best one ("the note's other matching sections").
fn grouped(pool: &Pool, scored: &mut Vec<Scored>, k: usize) -> Sections {
    let note_of = |s: &Scored| pool.chunks[s.chunk].note;
    let mut sections = Sections::new();
    let mut seen = HashSet::new();
    for s in scored.iter().take(k.saturating_mul(3)) {
        if !seen.insert(note_of(s)) {
            sections
                .entry(note_of(s))
                .or_default()
                .push((s.chunk, s.breakdown.total));
        }
    }
    let mut seen = HashSet::new();
    scored.retain(|s| seen.insert(note_of(s)));
    sections
}

/// What a scored chunk needs to become a hit.
struct Hits<'a> {
    r: &'a Retriever<'a>,
    q: &'a Query,
    pool: &'a Pool,
    chunks: &'a HashMap<&'a str, &'a mindnet_core::Chunk>,
    sections: &'a Sections,
    graph: bool,
    /// The title of the hit the second hop started from.
    bridge_from: Option<String>,
}

impl Hits<'_> {
    fn note_link(&self, n: usize, kind: &str, contribution: f64, mention: bool) -> Link {
        Link::new(
            self.r,
            &self.pool.notes[n].note_id,
            kind,
            contribution,
            mention,
        )
    }

    /// The hit of a scored chunk, with its text, sections and reasons.
    fn hit(&self, s: Scored) -> Option<Hit> {
        let pool = self.pool;
        let pc = &pool.chunks[s.chunk];
        let note = self.r.notes.get(&pool.notes[pc.note].note_id)?;
        let chunk = self.chunks.get(pc.chunk_id.as_str()).copied();
        let from: Vec<Link> = s
            .from
            .iter()
            .map(|l| {
                let mention = l.provenance == Provenance::Mention.as_str();
                self.note_link(l.from, &l.kind, l.contribution, mention)
            })
            .collect();
        let to: Vec<Link> =
            s.to.iter()
                .map(|&n| self.note_link(n, "", 0.0, false))
                .chain(s.mentions.iter().map(|&n| self.note_link(n, "", 0.0, true)))
                .collect();
        let b = s.breakdown;
        let hop = self.bridge_from.as_ref().map(|t| explain::Bridged {
            names: s.bridge.clone(),
            from_title: t.clone(),
            walk: false,
        });
        let walk = s.walked_from.map(|n| explain::Bridged {
            names: s.walked.clone(),
            from_title: self.note_link(n, "", 0.0, false).title,
            walk: true,
        });
        let bridges: Vec<explain::Bridged> = hop.into_iter().chain(walk).collect();
        let reasons = explain::reasons(self.q.lang, note, &b, &from, &to, &bridges, self.graph);
        Some(Hit {
            chunk_id: pc.chunk_id.clone(),
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
            via: if pc.seed { "seed" } else { "graph" }.to_string(),
            sections: self.sections(pc.note),
        })
    }

    /// The note's other matching sections.
    fn sections(&self, note: usize) -> Vec<Section> {
        self.sections
            .get(&note)
            .into_iter()
            .flatten()
            .filter_map(|(c, score)| {
                let id = &self.pool.chunks[*c].chunk_id;
                let c = *self.chunks.get(id.as_str())?;
                Some(Section {
                    chunk_id: id.clone(),
                    section: c.section.clone(),
                    text: c.text.clone(),
                    score: *score,
                })
            })
            .collect()
    }
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
