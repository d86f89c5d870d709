//! The edges around one note, read on demand and kept in a bounded cache.
//!
//! Graph expansion and causal walks ask for the neighbourhood of a few dozen
//! notes per query. Reading those by filtered reads on the edge collection
//! (`note_id` for the edges a note owns, `target_id` for those pointing at
//! it; both indexed, STO-2) costs milliseconds, where loading every edge
//! into memory cost seconds and gigabytes on a large vault, and cannot work
//! against a shared server at all. Edges are held as stored; inverse and
//! symmetric readings are computed when read.

use mindnet_core::{Edge, EdgeVocabulary};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// Every edge touching one note: those it owns (from its chunks), and those
/// of any note that point at it; but none of the kinds its cache leaves out.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct NoteEdges {
    pub note_id: String,
    /// Owned by the note, sorted by edge id.
    pub out: Vec<Edge>,
    /// Targeting the note (any owner, itself included), sorted by edge id.
    pub incoming: Vec<Edge>,
}

/// An edge read from one node's point of view.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbor<'a> {
    pub edge: &'a Edge,
    /// The node at the other end: the target for outgoing edges, the owner
    /// note for incoming ones.
    pub node: &'a str,
    /// The kind as read in this direction: the edge's kind, or its inverse.
    pub kind: &'a str,
    /// True when read against the edge's direction.
    pub reversed: bool,
}

impl NoteEdges {
    fn len(&self) -> usize {
        self.out.len() + self.incoming.len()
    }

    /// Every content edge touching the note, read from the note: its own
    /// edges forward, and edges of other notes that point at it backward,
    /// with the inverse kind where the vocabulary has one (IMP-9). Structure
    /// edges are left out.
    pub fn neighbors<'a>(&'a self, vocab: &'a EdgeVocabulary) -> Vec<Neighbor<'a>> {
        let note_id = self.note_id.as_str();
        let mut out = Vec::new();
        for e in &self.out {
            if vocab.is_structural(&e.kind) || e.target_id == note_id {
                continue;
            }
            out.push(Neighbor {
                edge: e,
                node: &e.target_id,
                kind: &e.kind,
                reversed: false,
            });
        }
        for e in &self.incoming {
            if vocab.is_structural(&e.kind) || e.note_id == note_id {
                continue;
            }
            // Without an inverse (`references`, `based_on`), the kind is kept
            // and `reversed` says it is read backwards ("referenced by").
            out.push(Neighbor {
                edge: e,
                node: &e.note_id,
                kind: vocab.inverse(&e.kind).unwrap_or(&e.kind),
                reversed: true,
            });
        }
        out
    }
}

/// How many edges the cache holds at most, counting an edge once per entry
/// it appears in. At about half a kilobyte per edge this is some 50 MB; a
/// query touches a few thousand.
pub const CACHE_EDGES: usize = 100_000;

/// Neighbourhoods by note id, least recently used dropped first. Shared by
/// the readers of a store (behind its read lock), so it locks inside.
#[derive(Debug)]
pub struct EdgeCache {
    inner: Mutex<CacheInner>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct CacheInner {
    /// Kinds no neighbourhood is read with (see `EdgeCache::leave_out`).
    left_out: Vec<String>,
    entries: HashMap<String, Entry>,
    /// Edges held over all entries.
    edges: usize,
    tick: u64,
}

#[derive(Debug)]
struct Entry {
    edges: Arc<NoteEdges>,
    used: u64,
}

impl Default for EdgeCache {
    fn default() -> Self {
        Self::with_capacity(CACHE_EDGES)
    }
}

impl EdgeCache {
    pub fn with_capacity(capacity: usize) -> Self {
        EdgeCache {
            inner: Mutex::new(CacheInner::default()),
            capacity,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The note's edges from the cache, or from `load` (run without the lock
    /// held, so other readers go on meanwhile).
    pub fn get_or_load<E>(
        &self,
        note_id: &str,
        load: impl FnOnce() -> Result<NoteEdges, E>,
    ) -> Result<Arc<NoteEdges>, E> {
        {
            let mut inner = self.lock();
            inner.tick += 1;
            let tick = inner.tick;
            if let Some(e) = inner.entries.get_mut(note_id) {
                e.used = tick;
                return Ok(e.edges.clone());
            }
        }
        let loaded = Arc::new(load()?);
        let mut inner = self.lock();
        inner.tick += 1;
        let used = inner.tick;
        let size = loaded.len();
        if let Some(old) = inner.entries.insert(
            note_id.to_string(),
            Entry {
                edges: loaded.clone(),
                used,
            },
        ) {
            inner.edges -= old.edges.len();
        }
        inner.edges += size;
        if inner.edges > self.capacity {
            inner.evict(self.capacity * 3 / 4);
        }
        Ok(loaded)
    }

    /// Reads neighbourhoods without these kinds from now on. The
    /// vocabulary's structure edges (`belongs_to`, `next`, `prev`) are two
    /// thirds of the edges around a note, and no reader of a neighbourhood
    /// uses them (`NoteEdges::neighbors` drops them), so leaving them out
    /// saves their decoding and lets the cache hold three times the notes.
    pub fn leave_out(&self, mut kinds: Vec<String>) {
        kinds.sort();
        kinds.dedup();
        let mut inner = self.lock();
        if inner.left_out != kinds {
            inner.entries.clear();
            inner.edges = 0;
            inner.left_out = kinds;
        }
    }

    /// The kinds neighbourhoods are read without.
    pub fn left_out(&self) -> Vec<String> {
        self.lock().left_out.clone()
    }

    /// Of these notes, those whose edges are not cached, each once.
    pub fn missing(&self, note_ids: &[String]) -> Vec<String> {
        let inner = self.lock();
        let mut seen = HashSet::new();
        note_ids
            .iter()
            .filter(|id| !inner.entries.contains_key(id.as_str()) && seen.insert(id.as_str()))
            .cloned()
            .collect()
    }

    /// Caches a neighbourhood read elsewhere (a batched read).
    pub fn insert(&self, edges: NoteEdges) {
        let id = edges.note_id.clone();
        let _ = self.get_or_load(&id, || Ok::<_, ()>(edges));
    }

    /// Forgets everything a write of these notes (replaced or deleted) can
    /// have changed: their own entries, the entries their new edges point
    /// at, and every entry holding an edge they owned before.
    pub fn invalidate<'a>(
        &mut self,
        notes: &HashSet<&str>,
        new_targets: impl IntoIterator<Item = &'a str>,
    ) {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        let mut stale: HashSet<String> = new_targets.into_iter().map(str::to_string).collect();
        stale.extend(notes.iter().map(|n| n.to_string()));
        for (id, e) in &inner.entries {
            if e.edges
                .incoming
                .iter()
                .any(|x| notes.contains(x.note_id.as_str()))
            {
                stale.insert(id.clone());
            }
        }
        for id in stale {
            if let Some(old) = inner.entries.remove(&id) {
                inner.edges -= old.edges.len();
            }
        }
    }

    /// Edges held, and notes they belong to (for `status` and benchmarks).
    pub fn size(&self) -> CacheSize {
        let inner = self.lock();
        CacheSize {
            notes: inner.entries.len(),
            edges: inner.edges,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheSize {
    pub notes: usize,
    pub edges: usize,
}

impl CacheInner {
    /// Drops the least recently used entries until at most `keep` edges
    /// remain; sorting on each overflow keeps hits O(1) and is amortised
    /// over the quarter of the capacity it frees.
    fn evict(&mut self, keep: usize) {
        let mut by_age: Vec<(u64, String)> = self
            .entries
            .iter()
            .map(|(id, e)| (e.used, id.clone()))
            .collect();
        by_age.sort_unstable();
        for (_, id) in by_age {
            if self.edges <= keep {
                break;
            }
            if let Some(old) = self.entries.remove(&id) {
                self.edges -= old.edges.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mindnet_core::Provenance;

    fn edge(owner: &str, target: &str) -> Edge {
        Edge {
            edge_id: format!("{owner}->{target}"),
            source_id: format!("{owner}#c00"),
            target_id: target.into(),
            target_section: None,
            note_id: owner.into(),
            kind: "references".into(),
            scope: "note".into(),
            provenance: Provenance::Explicit,
            rule_id: "test".into(),
            confidence: 1.0,
            resolved: true,
        }
    }

    fn edges_of(note: &str, out: &[&str], incoming: &[&str]) -> NoteEdges {
        NoteEdges {
            note_id: note.into(),
            out: out.iter().map(|t| edge(note, t)).collect(),
            incoming: incoming.iter().map(|o| edge(o, note)).collect(),
        }
    }

    fn load(cache: &EdgeCache, note: &str, e: NoteEdges) -> (Arc<NoteEdges>, bool) {
        let mut loaded = false;
        let got = cache
            .get_or_load(note, || {
                loaded = true;
                Ok::<_, ()>(e)
            })
            .unwrap();
        (got, loaded)
    }

    #[test]
    fn a_second_read_comes_from_the_cache() {
        let cache = EdgeCache::default();
        let (_, first) = load(&cache, "a", edges_of("a", &["b"], &["c"]));
        let (got, second) = load(&cache, "a", NoteEdges::default());
        assert!(first && !second);
        assert_eq!(got.out.len() + got.incoming.len(), 2);
        assert_eq!(cache.size(), CacheSize { notes: 1, edges: 2 });
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_bound_holds() {
        let cache = EdgeCache::with_capacity(4);
        load(&cache, "a", edges_of("a", &["x"], &[]));
        load(&cache, "b", edges_of("b", &["x"], &[]));
        load(&cache, "c", edges_of("c", &["x", "y"], &[]));
        load(&cache, "a", NoteEdges::default()); // a is used again
        load(&cache, "d", edges_of("d", &["x"], &[]));
        // 5 > 4: evicted down to 3, oldest first (b, then c).
        let size = cache.size();
        assert!(size.edges <= 3, "{size:?}");
        assert!(!load(&cache, "a", NoteEdges::default()).1);
        assert!(load(&cache, "b", NoteEdges::default()).1);
    }

    #[test]
    fn a_write_forgets_what_it_can_have_changed() {
        let mut cache = EdgeCache::default();
        load(&cache, "a", edges_of("a", &["b"], &[]));
        load(&cache, "b", edges_of("b", &[], &["a"])); // holds a's old edge
        load(&cache, "c", edges_of("c", &[], &[])); // a's new target
        load(&cache, "d", edges_of("d", &["e"], &[])); // untouched
        cache.invalidate(&HashSet::from(["a"]), ["c"]);
        for note in ["a", "b", "c"] {
            assert!(load(&cache, note, NoteEdges::default()).1, "{note} kept");
        }
        assert!(!load(&cache, "d", NoteEdges::default()).1);
    }
}
