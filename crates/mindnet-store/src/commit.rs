//! The write protocol (STO-3), once for both backends: a backend gives the
//! few operations that differ (where the journal lives, how points are
//! deleted and made durable), and `write_batch` fixes their order.
//!
//! The order is the invariant: the journal names every note of the batch
//! before anything is touched; chunks and edges are written and durable
//! before the note points, the commit markers; the journal is cleared last.
//! A reader therefore sees a note whole or not at all, and a batch cut short
//! anywhere leaves a journal that names everything it may have half written.

use crate::payload::{self, CHUNKS, EDGES, NOTES, payload};
use crate::{Catalog, EdgeCache, NoteWrite, StoreError};
use qdrant_edge::SparseVector;
use qdrant_edge::bm25_embed::EdgeBm25;
use serde_json::Value;
use std::sync::OnceLock;

/// One point to store. `key` gives its id (`mindnet_core::ids::point_id`);
/// only chunks carry vectors.
pub(crate) struct Point<'a> {
    pub key: String,
    pub payload: Value,
    pub vectors: Option<ChunkVectors<'a>>,
}

pub(crate) struct ChunkVectors<'a> {
    pub dense: &'a [f32],
    pub bm25: SparseVector,
}

/// What differs between the backends. The journal is durable when
/// `set_journal` returns; the points of a collection once `flush` of it
/// returns (a server acknowledges each request with `wait=true`).
pub(crate) trait Writer {
    /// Names the notes of a batch in progress; `None` clears the journal.
    fn set_journal(&mut self, ids: Option<&[&str]>) -> Result<(), StoreError>;
    /// Removes the note points of these notes.
    fn delete_note_points(&mut self, ids: &[String]) -> Result<(), StoreError>;
    /// Removes the points of one collection that these notes own.
    fn delete_owned(
        &mut self,
        collection: &'static str,
        note_ids: &[String],
    ) -> Result<(), StoreError>;
    /// Stores points in one collection, in batches.
    fn put(&mut self, collection: &'static str, points: Vec<Point<'_>>) -> Result<(), StoreError>;
    /// Makes every change to a collection so far durable.
    fn flush(&mut self, collection: &'static str);
}

/// The parts of a store a write keeps current.
pub(crate) struct Kept<'s> {
    pub bm25: &'s EdgeBm25,
    pub dim: usize,
    pub catalog: &'s mut OnceLock<Catalog>,
    pub edge_cache: &'s mut EdgeCache,
}

/// Writes a batch by the protocol above, then updates the catalog and forgets
/// the cached neighbourhoods the batch can have changed.
pub(crate) fn write_batch(
    w: &mut impl Writer,
    kept: Kept<'_>,
    writes: &[NoteWrite<'_>],
    deletes: &[String],
) -> Result<(), StoreError> {
    if writes.is_empty() && deletes.is_empty() {
        return Ok(());
    }
    for n in writes {
        payload::validate(n, kept.dim)?;
    }
    let ids: Vec<&str> = writes
        .iter()
        .map(|n| n.note.note_id.as_str())
        .chain(deletes.iter().map(String::as_str))
        .collect();
    w.set_journal(Some(&ids))?;

    delete_notes(w, deletes)?;
    let relinked: Vec<String> = writes.iter().map(|n| n.note.note_id.clone()).collect();
    let rewritten: Vec<String> = writes
        .iter()
        .filter(|n| n.vectors.is_some())
        .map(|n| n.note.note_id.clone())
        .collect();
    w.delete_owned(EDGES, &relinked)?;
    w.delete_owned(CHUNKS, &rewritten)?;

    let mut chunks = Vec::new();
    let mut edges = Vec::new();
    for n in writes {
        if let Some(vectors) = n.vectors {
            for (c, dense) in n.chunks.iter().zip(vectors) {
                chunks.push(Point {
                    key: c.chunk_id.clone(),
                    payload: payload(c, &[]),
                    vectors: Some(ChunkVectors {
                        dense,
                        bm25: kept.bm25.embed_document(&c.window),
                    }),
                });
            }
        }
        edges.extend(n.edges.iter().map(|e| Point {
            key: e.key(),
            payload: payload(e, &[]),
            vectors: None,
        }));
    }
    w.put(CHUNKS, chunks)?;
    w.put(EDGES, edges)?;
    w.flush(CHUNKS);
    w.flush(EDGES);
    // The commit markers, last.
    let notes = writes
        .iter()
        .map(|n| Point {
            key: n.note.note_id.clone(),
            payload: payload(
                n.note,
                &[
                    ("chunks_digest", n.chunks_digest),
                    ("edges_digest", n.edges_digest),
                ],
            ),
            vectors: None,
        })
        .collect();
    w.put(NOTES, notes)?;
    w.flush(NOTES);
    w.set_journal(None)?;

    if let Some(catalog) = kept.catalog.get_mut() {
        catalog.apply(writes, deletes);
    }
    kept.edge_cache.invalidate(
        &ids.iter().copied().collect(),
        writes
            .iter()
            .flat_map(|n| n.edges.iter().map(|e| e.target_id.as_str())),
    );
    Ok(())
}

/// Undoes a batch that was cut short: the notes its journal names are
/// removed completely, and will be imported again as new.
pub(crate) fn undo(w: &mut impl Writer, ids: &[String]) -> Result<(), StoreError> {
    tracing::warn!(
        "an earlier import stopped mid-batch; removing {} incomplete notes",
        ids.len()
    );
    delete_notes(w, ids)?;
    for c in [CHUNKS, EDGES, NOTES] {
        w.flush(c);
    }
    w.set_journal(None)
}

/// Removes every point of these notes from the three collections.
fn delete_notes(w: &mut impl Writer, ids: &[String]) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    w.delete_note_points(ids)?;
    w.delete_owned(CHUNKS, ids)?;
    w.delete_owned(EDGES, ids)
}
