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

pub(crate) fn rank(
    r: &Retriever<'_>,
    q: &Query,
    vector: &[f32],
    intent: &str,
    graph: bool,
) -> Result<Ranked, RetrieveError> {
    let pool = r.pool(q, vector, graph)?;
    let mut scored = score::score(&pool, r.config, intent, graph);
    let note_of = |s: &Scored| pool.chunks[s.chunk].note;

    let mut best_s_sem = vec![0.0f64; pool.notes.len()];
    for s in &scored {
        let b = &mut best_s_sem[note_of(s)];
        *b = b.max(s.breakdown.s_sem);
    }
    let mut seen = HashSet::new();
    let relevance: Vec<(String, f64)> = scored
        .iter()
        .map(note_of)
        .filter(|n| seen.insert(*n))
        .map(|n| (pool.notes[n].note_id.clone(), best_s_sem[n]))
        .collect();

    // Grouped: a note's other chunks among the first `3·k` chunks are listed
    // under its best one ("the note's other matching sections").
    let mut sections: HashMap<usize, Vec<(usize, f64)>> = HashMap::new();
    if q.group_by_note {
        let mut seen = HashSet::new();
        for s in scored.iter().take(q.k.saturating_mul(3)) {
            if !seen.insert(note_of(s)) {
                sections
                    .entry(note_of(s))
                    .or_default()
                    .push((s.chunk, s.breakdown.total));
            }
        }
        let mut seen = HashSet::new();
        scored.retain(|s| seen.insert(note_of(s)));
    }
    scored.truncate(q.k);

    let ids: Vec<String> = scored
        .iter()
        .flat_map(|s| {
            let more = sections.get(&note_of(s)).into_iter().flatten();
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
    let note_link = |n: usize, kind: &str, contribution: f64, mention: bool| {
        Link::new(r, &pool.notes[n].note_id, kind, contribution, mention)
    };
    let bridge_from = pool.bridge.as_ref().map(|b| {
        let id = &pool.notes[b.from].note_id;
        r.note(id).map_or_else(|| id.clone(), |n| n.title.clone())
    });
    let hits = scored
        .into_iter()
        .filter_map(|s| {
            let pc = &pool.chunks[s.chunk];
            let note = r.notes.get(&pool.notes[pc.note].note_id)?;
            let chunk = chunks.get(pc.chunk_id.as_str()).copied();
            let from: Vec<Link> = s
                .from
                .iter()
                .map(|l| {
                    let mention = l.provenance == Provenance::Mention.as_str();
                    note_link(l.from, &l.kind, l.contribution, mention)
                })
                .collect();
            let to: Vec<Link> =
                s.to.iter()
                    .map(|&n| note_link(n, "", 0.0, false))
                    .chain(s.mentions.iter().map(|&n| note_link(n, "", 0.0, true)))
                    .collect();
            let b = s.breakdown;
            let bridged = bridge_from.as_ref().map(|t| explain::Bridged {
                names: s.bridge.clone(),
                from_title: t.clone(),
            });
            let reasons = explain::reasons(q.lang, note, &b, &from, &to, bridged.as_ref(), graph);
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
                sections: sections
                    .get(&pc.note)
                    .into_iter()
                    .flatten()
                    .filter_map(|(c, score)| {
                        let id = &pool.chunks[*c].chunk_id;
                        let c = *chunks.get(id.as_str())?;
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
