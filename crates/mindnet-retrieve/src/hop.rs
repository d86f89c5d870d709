//! The second hop: a multi-hop question names its first note ("the Bubye
//! River") but only describes the second ("the waterfall in the country
//! where …"). The best hit of the first search holds the name that bridges
//! the two ("Zimbabwe"), and the note the question wants mentions it too,
//! though no link joins them. So the best hit's rare names that the question
//! does not hold are searched together with the question, among the notes
//! that mention them (the catalog's entity graph), and the notes found get
//! B_hop by their place in that search (`score.rs`), held below the hit by
//! the lift limit. No model but the query's embedding, which is reused, and
//! no LLM: two filtered searches.
//!
//! Only a hit the question names is followed (`hop.from_named`): a best hit
//! the question does not name is the answer itself ("How many points did
//! the Panthers defense surrender?" finds its paragraph), and its names lead
//! away from it. Other notes the question names are direct matches too
//! (both magazines of "Which magazine was started first, …?"); the hop
//! lifts no note past them.
//!
//! A name is worth ln(N / n) / ln(N) for a name n of the N notes mention;
//! a name only one note mentions bridges nothing, and one that more than
//! `hop.hub_share` of the notes mention ("United States") is a hub.

use crate::pool::{Bridge, BridgeNote, Pool, PoolChunk, PoolNote};
use crate::{Query, RetrieveError, Retriever, score};
use mindnet_core::title::{base_title, holds_name};
use mindnet_store::ChunkFilter;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A name and what it is worth as a bridge.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighted {
    pub name: String,
    pub weight: f64,
}

/// The bridge names among `names`: shared by 2 to `hub` notes of `n` (the
/// hit's and those `count` says it reaches), not in the question, the
/// rarest first (ties by name), at most `limit`.
pub fn bridges(
    names: &[String],
    count: impl Fn(&str) -> usize,
    n: usize,
    hub: usize,
    question: &str,
    limit: usize,
) -> Vec<Weighted> {
    let question = question.to_lowercase();
    let total = (n.max(3) as f64).ln();
    let mut out: Vec<Weighted> = names
        .iter()
        .filter(|x| !question.contains(&x.to_lowercase()))
        .filter_map(|x| {
            let df = count(x);
            (2..=hub.max(2)).contains(&df).then(|| Weighted {
                name: x.clone(),
                weight: (n as f64 / df as f64).ln() / total,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then_with(|| a.name.cmp(&b.name))
    });
    out.truncate(limit);
    out
}

/// Whether `question` names the note: its title (without a qualifier such
/// as "(song)") or one of its aliases, as words.
pub fn names_note(question: &str, note: &mindnet_store::NoteState) -> bool {
    std::iter::once(base_title(&note.title))
        .chain(note.aliases.iter().map(String::as_str))
        .any(|name| holds_name(question, name))
}

/// The names the hop follows, and the notes that share them with the
/// names each shares.
struct Bridging {
    names: Vec<Weighted>,
    shared: BTreeMap<String, Vec<String>>,
}

impl Retriever<'_> {
    /// Adds the second hop to a pool gathered with the graph: the bridge
    /// notes (their chunks scored against the question, like every
    /// candidate) and their order.
    pub(crate) fn second_hop(
        &self,
        q: &Query,
        vector: &[f32],
        pool: &mut Pool,
    ) -> Result<(), RetrieveError> {
        let Some(top) = self.hop_start(q, pool) else {
            return Ok(());
        };
        let from_id = pool.notes[top].note_id.clone();
        let Some(Bridging { names, mut shared }) = self.bridge_names(q, &from_id) else {
            return Ok(());
        };
        let order = self.bridge_order(q, vector, &names, &shared)?;
        // Bridge notes outside the pool join it, scored against the question.
        let known: HashMap<String, usize> = pool
            .notes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.note_id.clone(), i))
            .collect();
        let new: Vec<String> = order
            .iter()
            .map(|(_, id)| id.clone())
            .filter(|id| !known.contains_key(id))
            .collect();
        let mut index = known;
        if !new.is_empty() {
            self.add_notes(q, vector, pool, &new, &mut index)?;
        }
        pool.bridge = Some(Bridge {
            from: top,
            names: names.into_iter().map(|w| w.name).collect(),
            notes: order
                .into_iter()
                .filter_map(|(_, id)| {
                    let note = *index.get(&id)?;
                    Some(BridgeNote {
                        note,
                        names: shared.remove(&id).unwrap_or_default(),
                    })
                })
                .collect(),
        });
        Ok(())
    }

    /// The best hit of the first scoring, where the hop starts: `None` when
    /// the hop is off, or the question does not name that hit (with
    /// `from_named`).
    fn hop_start(&self, q: &Query, pool: &Pool) -> Option<usize> {
        let cfg = self.config.hop;
        if cfg.weight <= 0.0 || cfg.names == 0 || pool.notes.is_empty() {
            return None;
        }
        let intent = self.intent_of(q);
        let first = score::score(pool, self.config, &intent, true);
        let top = first.first().map(|s| pool.chunks[s.chunk].note)?;
        let from = self.notes.get(&pool.notes[top].note_id)?;
        (!cfg.from_named || names_note(&q.text, from)).then_some(top)
    }

    /// The names of the hit to follow (rare, and not in the question), and
    /// the notes (passing the filters) that share them, with the names each
    /// shares. A word the hit writes only inside a longer name reaches the
    /// notes that write it alone.
    fn bridge_names(&self, q: &Query, from_id: &str) -> Option<Bridging> {
        let cfg = self.config.hop;
        let from = self.notes.get(from_id)?;
        let n = self.notes.len();
        let hub = (cfg.hub_share * n as f64).floor() as usize;
        let reached = |x: &str| {
            let named = self.notes.notes_named(x);
            let whole = from.names.binary_search_by(|y| y.as_str().cmp(x)).is_ok();
            let parts = if whole { named.parts } else { &[] };
            named.whole.iter().chain(parts)
        };
        let all: Vec<String> = [from.names.as_slice(), from.name_parts.as_slice()].concat();
        let names = bridges(
            &all,
            |x| reached(x).filter(|id| &***id != from_id).count() + 1,
            n,
            hub,
            &q.text,
            cfg.names,
        );
        if names.is_empty() {
            return None;
        }
        let mut shared: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for w in &names {
            for id in reached(&w.name) {
                if &**id != from_id {
                    shared
                        .entry(id.to_string())
                        .or_default()
                        .push(w.name.clone());
                }
            }
        }
        shared.retain(|id, _| {
            self.notes
                .get(id)
                .is_some_and(|s| self.passes(s, &q.filters))
        });
        (!shared.is_empty()).then_some(Bridging { names, shared })
    }

    /// The sharing notes in the order of one search for the question with
    /// the names, among them only: the share-weighted blend of their best
    /// BM25 (relative to the best) and their best cosine; the first
    /// `candidates`.
    fn bridge_order(
        &self,
        q: &Query,
        vector: &[f32],
        names: &[Weighted],
        shared: &BTreeMap<String, Vec<String>>,
    ) -> Result<Vec<(f64, String)>, RetrieveError> {
        let cfg = self.config.hop;
        let mut text = q.text.clone();
        for w in names {
            text.push(' ');
            text.push_str(&w.name);
        }
        let scope = ChunkFilter {
            notes: Some(shared.keys().cloned().collect()),
            ..self.chunk_filter(&q.filters)
        };
        let limit = cfg.candidates.saturating_mul(4).max(1);
        let found = self
            .store
            .score_candidates(vector, Some(&text), &scope, limit, false)?;
        let mut cosine: HashMap<String, f64> = HashMap::new();
        let mut lexical: HashMap<String, f64> = HashMap::new();
        for h in &found.dense {
            let c = cosine.entry(h.note_id.clone()).or_default();
            *c = c.max(f64::from(h.score));
        }
        for h in &found.lexical {
            let l = lexical.entry(h.note_id.clone()).or_default();
            *l = l.max(f64::from(h.score));
        }
        let best_lexical = lexical.values().copied().fold(0.0, f64::max);
        let share = cfg.lexical_share;
        let mut order: Vec<(f64, String)> = cosine
            .keys()
            .chain(lexical.keys())
            .collect::<HashSet<_>>()
            .into_iter()
            .map(|id| {
                let l = lexical
                    .get(id)
                    .map_or(0.0, |l| l / best_lexical.max(f64::MIN_POSITIVE));
                let c = cosine.get(id).copied().unwrap_or(0.0).max(0.0);
                (share * l + (1.0 - share) * c, id.clone())
            })
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        order.truncate(cfg.candidates);
        Ok(order)
    }

    /// Every chunk of `ids` into the pool, with its cosine and BM25 for the
    /// question; `index` learns where each note went.
    fn add_notes(
        &self,
        q: &Query,
        vector: &[f32],
        pool: &mut Pool,
        ids: &[String],
        index: &mut HashMap<String, usize>,
    ) -> Result<(), RetrieveError> {
        let scope = ChunkFilter {
            notes: Some(ids.to_vec()),
            ..Default::default()
        };
        let text = (q.mode == crate::Mode::Hybrid).then_some(q.text.as_str());
        let scores = self
            .store
            .score_candidates(vector, text, &scope, 10_000, false)?;
        let lexical: HashMap<&str, f64> = scores
            .lexical
            .iter()
            .map(|h| (h.chunk_id.as_str(), f64::from(h.score)))
            .collect();
        self.store.prefetch_edges(ids)?;
        let mut dense = scores.dense;
        dense.sort_by(|a, b| a.chunk_id.cmp(&b.chunk_id));
        for h in &dense {
            let Some(state) = self.notes.get(&h.note_id) else {
                continue;
            };
            let note = match index.get(&h.note_id) {
                Some(&i) => i,
                None => {
                    pool.notes.push(PoolNote {
                        note_id: h.note_id.clone(),
                        w_type: state.retriever_weight,
                        status: state.status,
                        degree: self.linked_notes(&h.note_id)?.len(),
                    });
                    index.insert(h.note_id.clone(), pool.notes.len() - 1);
                    pool.notes.len() - 1
                }
            };
            pool.chunks.push(PoolChunk {
                chunk_id: h.chunk_id.clone(),
                note,
                cosine: f64::from(h.score).max(0.0),
                bm25: lexical.get(h.chunk_id.as_str()).copied().unwrap_or(0.0),
                seed: false,
                hop: true,
            });
        }
        pool.chunks.sort_by(|a, b| a.chunk_id.cmp(&b.chunk_id));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bridges_are_rare_names_the_question_lacks() {
        let names: Vec<String> = ["Zimbabwe", "Africa", "Bubye River", "Solo", "Limpopo"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let df = |x: &str| match x {
            "Zimbabwe" => 5,
            "Africa" => 60,
            "Bubye River" => 2,
            "Solo" => 1,
            "Limpopo" => 3,
            _ => 0,
        };
        let b = bridges(
            &names,
            df,
            1000,
            25,
            "What waterfall is in the country of the Bubye River?",
            8,
        );
        let got: Vec<&str> = b.iter().map(|w| w.name.as_str()).collect();
        // Africa is a hub, Solo bridges nothing, Bubye River is asked about.
        assert_eq!(got, ["Limpopo", "Zimbabwe"]);
        assert!(b[0].weight > b[1].weight && b[1].weight > 0.0);
    }

    #[test]
    fn a_question_names_a_note_by_its_title_or_an_alias() {
        let note = |title: &str, aliases: &[&str]| mindnet_store::NoteState {
            note_id: "n".into(),
            path: "n.md".into(),
            title: title.into(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            note_type: "concept".into(),
            status: mindnet_core::Status::Active,
            tags: Vec::new(),
            retriever_weight: 1.0,
            hash: String::new(),
            chunks_digest: String::new(),
            edges_digest: String::new(),
            names: Vec::new(),
            name_parts: Vec::new(),
        };
        let q = "Where did Hello Love's performer live when he died?";
        assert!(names_note(q, &note("Hello Love (song)", &[])));
        assert!(!names_note(q, &note("Hank Snow", &[])));
        assert!(names_note(q, &note("Snow", &["Hello Love"])));
        // "How many points did the Panthers defense surrender?" describes
        // its paragraph and names none.
        assert!(!names_note(q, &note("Super_Bowl_50 01", &[])));
    }
}
