//! The candidates of one query as plain data: every store read a ranking
//! needs, done once. `score.rs` ranks a pool without touching the store, so
//! `mindnet tune` can score the same pool under many weights in
//! microseconds, and the formula can be unit-tested without Qdrant.
//!
//! A pool holds the seed chunks (fused dense + BM25 search), every chunk of
//! the notes the graph expansion adds, each with its cosine and BM25 score,
//! and the content edges between the pool's notes. Scoring with the graph
//! off uses the seed chunks alone.

use crate::{Mode, Query, RetrieveError, Retriever};
use mindnet_core::Status;
use mindnet_core::ids::note_of;
use mindnet_store::{ChunkFilter, ChunkHit};
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    pub mode: Mode,
    /// Sorted by chunk id (a deterministic order for ties).
    pub chunks: Vec<PoolChunk>,
    pub notes: Vec<PoolNote>,
    /// Content edges between two notes of the pool, each once, as authored.
    pub edges: Vec<PoolEdge>,
    /// Candidate chunks the store sent along with their scores, by id (a
    /// server does, for a pool without expansion); the hits' texts are read
    /// from here before they are asked for.
    pub texts: HashMap<String, mindnet_core::Chunk>,
    /// The second hop (`hop.rs`), when the graph is on and it found one.
    pub bridge: Option<Bridge>,
    /// The rare names two or more of the pool's notes write, in name order:
    /// the graph the name walk (`walk.rs`) goes over.
    pub names: Vec<NameLink>,
    /// The notes the question names (title or alias; indices into
    /// `notes`): direct matches, which neither the second hop nor the walk
    /// lifts a note past ("Which magazine was started first, Arthur's
    /// Magazine or First for Women?").
    pub named: Vec<usize>,
}

/// A name shared by notes of the pool.
#[derive(Debug, Clone, PartialEq)]
pub struct NameLink {
    pub name: String,
    /// ln(N / n) / ln(N) for a name n of the N notes write.
    pub weight: f64,
    /// The pool's notes that write it (indices into `Pool::notes`, sorted).
    pub notes: Vec<usize>,
}

/// The second hop of a pool: the notes that share a rare name with the
/// best hit, in the order of a search for the question and those names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bridge {
    /// The hit whose names were followed (index into `Pool::notes`).
    pub from: usize,
    /// The names followed, rarest first.
    pub names: Vec<String>,
    /// Best first.
    pub notes: Vec<BridgeNote>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BridgeNote {
    /// Index into `Pool::notes`.
    pub note: usize,
    /// The bridge names it mentions.
    pub names: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PoolChunk {
    pub chunk_id: String,
    /// Index into `Pool::notes`.
    pub note: usize,
    pub cosine: f64,
    /// 0 when BM25 did not match the chunk (or in semantic mode).
    pub bm25: f64,
    /// Found by the seed search (else added by the graph expansion).
    pub seed: bool,
    /// Added by the second hop: scored on the scale of the others (the
    /// cosine range and best BM25 of the first search), which it does not
    /// move, so the hop changes no order among the notes found before it.
    pub hop: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PoolNote {
    pub note_id: String,
    pub w_type: f64,
    pub status: Status,
    /// Distinct notes linked with this one in the whole vault (either
    /// direction): what hub damping divides by.
    pub degree: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PoolEdge {
    /// The note that states the edge.
    pub source: usize,
    pub target: usize,
    pub kind: String,
    /// The kind read from the target (`caused_by` for `resulted_in`), where
    /// the vocabulary has one.
    pub inverse: Option<String>,
    pub confidence: f64,
    pub provenance: &'static str,
}

/// The pool's notes and chunks, and where each note went.
struct Candidates {
    notes: Vec<PoolNote>,
    chunks: Vec<PoolChunk>,
    note_index: BTreeMap<String, usize>,
}

/// At most this many candidate chunks are scored.
const CANDIDATES: usize = 10_000;

/// The candidates' scores: cosine and BM25 by chunk id, and which were
/// seeds.
struct Scored<'a> {
    dense: HashMap<String, ChunkHit>,
    lexical: HashMap<String, ChunkHit>,
    seeds: &'a HashSet<&'a str>,
}

fn by_chunk(hits: Vec<ChunkHit>) -> HashMap<String, ChunkHit> {
    hits.into_iter().map(|h| (h.chunk_id.clone(), h)).collect()
}

impl Retriever<'_> {
    /// Resolved content neighbours of a note other than itself.
    pub(crate) fn linked_notes(&self, note: &str) -> Result<Vec<String>, RetrieveError> {
        let edges = self.store.note_edges(note)?;
        let mut out: Vec<String> = edges
            .neighbors(self.vocab)
            .into_iter()
            .filter(|nb| nb.edge.resolved)
            .map(|nb| note_of(nb.node))
            .filter(|other| *other != note)
            .map(str::to_string)
            .collect();
        out.sort_unstable();
        out.dedup();
        Ok(out)
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
            self.store.prefetch_edges(&frontier)?;
            for note in &frontier {
                for other in self.linked_notes(note)? {
                    if added.len() >= cfg.max_notes {
                        return Ok(added);
                    }
                    let Some(n) = self.notes.get(other.as_str()) else {
                        continue;
                    };
                    if !self.passes(n, filter) || !seen.insert(other.clone()) {
                        continue;
                    }
                    added.push(other.clone());
                    next.push(other);
                }
            }
            frontier = next;
        }
        Ok(added)
    }

    /// Gathers the pool of a query: seeds, expansion (when `graph`), the
    /// candidates' scores and the edges between their notes.
    pub fn pool(&self, q: &Query, vector: &[f32], graph: bool) -> Result<Pool, RetrieveError> {
        let seeds = self.seeds(q, vector)?;
        let mut seed_notes: Vec<String> = Vec::new();
        for s in &seeds {
            if !seed_notes.contains(&s.note_id) {
                seed_notes.push(s.note_id.clone());
            }
        }
        let expanded = if graph {
            self.expand(&seed_notes, &q.filters)?
        } else {
            Vec::new()
        };
        // Every candidate chunk scored against the query.
        let scope = ChunkFilter {
            chunks: Some(seeds.iter().map(|s| s.chunk_id.clone()).collect()),
            notes: (!expanded.is_empty()).then(|| expanded.clone()),
            ..Default::default()
        };
        let text = (q.mode != Mode::Semantic).then_some(q.text.as_str());
        // Without expansion the candidates are the seeds: few enough to
        // come with their texts.
        let with_texts = expanded.is_empty();
        let scores = self
            .store
            .score_candidates(vector, text, &scope, CANDIDATES, with_texts)?;
        let texts = scores
            .chunks
            .into_iter()
            .map(|c| (c.chunk_id.clone(), c))
            .collect();
        let seed_ids: HashSet<&str> = seeds.iter().map(|s| s.chunk_id.as_str()).collect();
        let scored = Scored {
            dense: by_chunk(scores.dense),
            lexical: by_chunk(scores.lexical),
            seeds: &seed_ids,
        };
        let Candidates {
            notes,
            chunks,
            note_index,
        } = self.candidates(&scored, graph)?;
        let edges = if graph {
            self.edges_between(&note_index)?
        } else {
            Vec::new()
        };
        let mut pool = Pool {
            mode: q.mode,
            chunks,
            notes,
            edges,
            texts,
            bridge: None,
            names: Vec::new(),
            named: Vec::new(),
        };
        if graph {
            self.second_hop(q, vector, &mut pool)?;
            self.name_graph(q, &mut pool);
            pool.named = (0..pool.notes.len())
                .filter(|&i| {
                    self.notes
                        .get(&pool.notes[i].note_id)
                        .is_some_and(|s| crate::hop::names_note(&q.text, s))
                })
                .collect();
        }
        Ok(pool)
    }

    /// The seed chunks: one fused dense + BM25 search (dense only in
    /// `semantic` mode, BM25 only in `lexical`).
    fn seeds(&self, q: &Query, vector: &[f32]) -> Result<Vec<ChunkHit>, RetrieveError> {
        let cfg = self.config;
        let filter = self.chunk_filter(&q.filters);
        Ok(match q.mode {
            Mode::Hybrid => self.store.search_fused(
                vector,
                &q.text,
                &filter,
                cfg.seeds.per_source,
                cfg.seeds.rrf_k,
                cfg.seeds.fused,
            )?,
            Mode::Semantic => self.store.search_dense(vector, &filter, cfg.seeds.fused)?,
            Mode::Lexical => self
                .store
                .search_lexical(&q.text, &filter, cfg.seeds.fused)?,
        })
    }

    /// The candidates as pool notes and chunks (in chunk id order), and
    /// where each note went.
    fn candidates(&self, scored: &Scored<'_>, graph: bool) -> Result<Candidates, RetrieveError> {
        if graph {
            let mut candidates: Vec<String> =
                scored.dense.values().map(|h| h.note_id.clone()).collect();
            candidates.sort();
            candidates.dedup();
            self.store.prefetch_edges(&candidates)?;
        }
        let mut note_index: BTreeMap<String, usize> = BTreeMap::new();
        let mut notes: Vec<PoolNote> = Vec::new();
        let mut sorted: Vec<(&String, &ChunkHit)> = scored.dense.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let mut chunks = Vec::new();
        for (id, h) in sorted {
            let Some(n) = self.notes.get(&h.note_id) else {
                continue;
            };
            let note = match note_index.get(&h.note_id) {
                Some(i) => *i,
                None => {
                    notes.push(PoolNote {
                        note_id: h.note_id.clone(),
                        w_type: n.retriever_weight,
                        status: n.status,
                        degree: if graph {
                            self.linked_notes(&h.note_id)?.len()
                        } else {
                            0
                        },
                    });
                    note_index.insert(h.note_id.clone(), notes.len() - 1);
                    notes.len() - 1
                }
            };
            chunks.push(PoolChunk {
                chunk_id: id.clone(),
                note,
                cosine: f64::from(h.score).max(0.0),
                bm25: scored.lexical.get(id).map_or(0.0, |l| f64::from(l.score)),
                seed: scored.seeds.contains(id.as_str()),
                hop: false,
            });
        }
        Ok(Candidates {
            notes,
            chunks,
            note_index,
        })
    }

    /// The content edges between the pool's notes, each once.
    fn edges_between(
        &self,
        note_index: &BTreeMap<String, usize>,
    ) -> Result<Vec<PoolEdge>, RetrieveError> {
        let mut edges = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for (note_id, &source) in note_index {
            let owned = self.store.note_edges(note_id)?;
            for e in &owned.out {
                let target_note = note_of(&e.target_id);
                if !e.resolved
                    || self.vocab.is_structural(&e.kind)
                    || target_note == *note_id
                    || !seen.insert(e.edge_id.clone())
                {
                    continue;
                }
                let Some(&target) = note_index.get(target_note) else {
                    continue;
                };
                edges.push(PoolEdge {
                    source,
                    target,
                    kind: e.kind.clone(),
                    inverse: self.vocab.inverse(&e.kind).map(str::to_string),
                    confidence: e.confidence,
                    provenance: e.provenance.as_str(),
                });
            }
        }
        Ok(edges)
    }
}
