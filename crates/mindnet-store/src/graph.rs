//! The edges held in memory as adjacency lists, for graph expansion and
//! causal traversal without a database round trip per hop. Built from the
//! edges collection at open and updated on every note write. It holds the
//! edges as stored; inverse and symmetric readings are computed when read.

use mindnet_core::{Edge, EdgeVocabulary};
use std::collections::HashMap;

#[derive(Debug, Default, Clone)]
pub struct GraphIndex {
    edges: HashMap<String, Edge>,
    /// Source chunk id → edge ids.
    out_by_chunk: HashMap<String, Vec<String>>,
    /// Owner note id → edge ids (every edge starts in a chunk of its owner).
    out_by_note: HashMap<String, Vec<String>>,
    /// Target id (note id, chunk id, or raw title) → edge ids.
    incoming: HashMap<String, Vec<String>>,
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

impl GraphIndex {
    pub fn from_edges(edges: impl IntoIterator<Item = Edge>) -> Self {
        let mut g = GraphIndex::default();
        for e in edges {
            g.insert(e);
        }
        g
    }

    fn insert(&mut self, e: Edge) {
        let id = e.edge_id.clone();
        if self.edges.contains_key(&id) {
            self.remove_edge(&id);
        }
        self.out_by_chunk
            .entry(e.source_id.clone())
            .or_default()
            .push(id.clone());
        self.out_by_note
            .entry(e.note_id.clone())
            .or_default()
            .push(id.clone());
        self.incoming
            .entry(e.target_id.clone())
            .or_default()
            .push(id.clone());
        self.edges.insert(id, e);
    }

    fn remove_edge(&mut self, id: &str) {
        let Some(e) = self.edges.remove(id) else {
            return;
        };
        for (map, key) in [
            (&mut self.out_by_chunk, &e.source_id),
            (&mut self.out_by_note, &e.note_id),
            (&mut self.incoming, &e.target_id),
        ] {
            if let Some(list) = map.get_mut(key) {
                list.retain(|x| x != id);
                if list.is_empty() {
                    map.remove(key);
                }
            }
        }
    }

    /// Replaces every edge the note owns.
    pub fn replace_note(&mut self, note_id: &str, edges: &[Edge]) {
        self.remove_note(note_id);
        for e in edges {
            self.insert(e.clone());
        }
    }

    pub fn remove_note(&mut self, note_id: &str) {
        for id in self.out_by_note.get(note_id).cloned().unwrap_or_default() {
            self.remove_edge(&id);
        }
    }

    pub fn len(&self) -> usize {
        self.edges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges.values()
    }

    fn resolve<'a>(&'a self, ids: Option<&'a Vec<String>>) -> impl Iterator<Item = &'a Edge> {
        ids.into_iter()
            .flatten()
            .filter_map(|id| self.edges.get(id))
    }

    pub fn outgoing_from_chunk(&self, chunk_id: &str) -> impl Iterator<Item = &Edge> {
        self.resolve(self.out_by_chunk.get(chunk_id))
    }

    pub fn outgoing_from_note(&self, note_id: &str) -> impl Iterator<Item = &Edge> {
        self.resolve(self.out_by_note.get(note_id))
    }

    pub fn incoming(&self, target_id: &str) -> impl Iterator<Item = &Edge> {
        self.resolve(self.incoming.get(target_id))
    }

    /// Every content edge touching a note, read from the note: its own edges
    /// forward, and edges of other notes that point at it backward, with the
    /// inverse kind where the vocabulary has one (IMP-9). Structure edges are
    /// left out.
    pub fn neighbors<'a>(
        &'a self,
        note_id: &'a str,
        vocab: &'a EdgeVocabulary,
    ) -> Vec<Neighbor<'a>> {
        let mut out = Vec::new();
        for e in self.outgoing_from_note(note_id) {
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
        for e in self.incoming(note_id) {
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
