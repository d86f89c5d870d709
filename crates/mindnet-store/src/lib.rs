//! Storage of notes, chunks and edges (STO-1 … STO-3), embedded or on a
//! Qdrant server. `EmbeddedStore` keeps them in three Qdrant Edge shards in one
//! folder; `ServerStore` in three collections on a server or cluster.
//! Traversals read the edges around a note by filtered reads, through a
//! bounded `EdgeCache`.
//!
//! Write protocol (STO-3, `commit.rs`, the same for both): a batch of notes
//! is first named in a journal, then its chunks and edges are written and
//! made durable, and only then are the note points written. The note point
//! is the commit marker. A crash leaves the journal behind; the next writer
//! removes whatever the journalled notes had written, so they are imported
//! again from scratch. One writer at a time: the notes shard's file lock
//! (embedded), a lease (`lease.rs`, on a server).

mod catalog;
mod check;
mod commit;
mod embedded;
mod filter;
mod graph;
mod lease;
mod meta;
pub mod payload;
mod rest;
mod search;
mod server;
mod space;
mod wal;

pub use catalog::{Catalog, EntityGraphSize, Named};
pub use check::{CheckReport, CollectionIndexes, Problem, check, ids};
pub use embedded::{EmbeddedStore, journal_left};
pub use graph::{CACHE_EDGES, CacheSize, EdgeCache, Neighbor, NoteEdges};
pub use meta::{ModelInfo, StoreMeta};
pub use server::{ServerConfig, ServerStore};

use mindnet_core::{Chunk, Edge, Note, Status};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("qdrant: {0}")]
    Qdrant(String),
    #[error(
        "{path}: not enough free space for {doing}: {free_mb} MB free, {need_mb} MB needed (mindnet keeps 64 MB spare, as Qdrant grows its files in steps). Nothing of this batch was written; free space on that disk and import again"
    )]
    DiskFull {
        path: PathBuf,
        doing: &'static str,
        free_mb: u64,
        need_mb: u64,
    },
    #[error(
        "{path}: the index is in use by another mindnet process (an import or a server); waited 60 s. Try again when it has finished."
    )]
    Busy { path: PathBuf },
    #[error(
        "the index in {path} was built with the embedding model `{stored}` ({stored_dim} dimensions), not `{requested}` ({requested_dim}); re-import with `mindnet import --embedder {stored}`, or delete {path} to rebuild it with `{requested}`"
    )]
    ModelMismatch {
        path: PathBuf,
        stored: String,
        stored_dim: usize,
        requested: String,
        requested_dim: usize,
    },
    #[error(
        "{path}: the index format {found} is newer than this mindnet understands ({supported})"
    )]
    Format {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error(
        "a chunk has {got} vector values where the model gives {want}; nothing was written for note {note_id}"
    )]
    Dimension {
        note_id: String,
        got: usize,
        want: usize,
    },
    #[error(
        "{path}: the write journal of an interrupted import is unreadable ({message}), so which notes it left half written is unknown; nothing was changed. Delete the index folder that holds it and import again to rebuild the index"
    )]
    Journal { path: PathBuf, message: String },
    #[error(
        "the index `{prefix}` at {url} is being written by another mindnet process ({owner}); waited {waited} s. Try again when it has finished"
    )]
    ServerBusy {
        url: String,
        prefix: String,
        owner: String,
        waited: u64,
    },
    #[error("corrupt payload in the {collection} collection: {message}")]
    Payload {
        collection: &'static str,
        message: String,
    },
    #[error(
        "cannot reach the Qdrant server at {url}: {message}; is it running, and is this its REST port (6333 by default)?"
    )]
    Unreachable { url: String, message: String },
    #[error("Qdrant at {url}: {message}")]
    Server { url: String, message: String },
    /// The nodes answer, but none can serve the request now: a shard it
    /// needs has no live replica (more nodes down than the replication
    /// factor allows), or the cluster is electing a leader.
    #[error(
        "the Qdrant cluster at {url} cannot serve this now: {message}; a node is down or the cluster is electing a leader; it answers again once a replica of every shard is back"
    )]
    Degraded { url: String, message: String },
    #[error(
        "the collections `{prefix}_*` at {url} were built with the embedding model `{stored}` ({stored_dim} dimensions), not `{requested}` ({requested_dim}); re-import with `mindnet import --embedder {stored}`, or set another COLLECTION_PREFIX"
    )]
    ServerModelMismatch {
        url: String,
        prefix: String,
        stored: String,
        stored_dim: usize,
        requested: String,
        requested_dim: usize,
    },
}

impl From<qdrant_edge::OperationError> for StoreError {
    fn from(e: qdrant_edge::OperationError) -> Self {
        StoreError::Qdrant(e.to_string())
    }
}

/// A stored note without its full text: what change detection, link
/// resolution, filters and hit display need. Read from the note payload by
/// name (`payload::NOTE_STATE_FIELDS`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct NoteState {
    pub note_id: String,
    pub path: String,
    pub title: String,
    pub aliases: Vec<String>,
    #[serde(rename = "type")]
    pub note_type: String,
    pub status: Status,
    pub tags: Vec<String>,
    pub retriever_weight: f64,
    pub hash: String,
    pub chunks_digest: String,
    pub edges_digest: String,
    /// The names the note mentions (`Note::names`); empty in indexes
    /// written before names existed.
    #[serde(default)]
    pub names: Vec<String>,
    /// `Note::name_parts`.
    #[serde(default)]
    pub name_parts: Vec<String>,
}

/// One note to write: the note, its chunks with their dense vectors, its edges.
#[derive(Debug, Clone)]
pub struct NoteWrite<'a> {
    pub note: &'a Note,
    pub chunks: &'a [Chunk],
    /// `None`: keep the stored chunks (only the edges changed).
    pub vectors: Option<&'a [Vec<f32>]>,
    pub edges: &'a [Edge],
    pub chunks_digest: &'a str,
    pub edges_digest: &'a str,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub notes: usize,
    pub chunks: usize,
    pub edges: usize,
    /// Edges whose target note does not exist (yet).
    pub unresolved: usize,
}

/// Everything stored for one note, vectors included: what moves when an
/// index moves between backends (`mindnet migrate`), without re-embedding.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredNote {
    pub note: Note,
    pub chunks_digest: String,
    pub edges_digest: String,
    /// Sorted by `ord`, each with its dense vector.
    pub chunks: Vec<Chunk>,
    pub vectors: Vec<Vec<f32>>,
    pub edges: Vec<Edge>,
}

impl StoredNote {
    /// The write that stores this note again, as it was.
    pub fn as_write(&self) -> NoteWrite<'_> {
        NoteWrite {
            note: &self.note,
            chunks: &self.chunks,
            vectors: Some(&self.vectors),
            edges: &self.edges,
            chunks_digest: &self.chunks_digest,
            edges_digest: &self.edges_digest,
        }
    }
}

/// Which chunks a search may return. Empty lists allow everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkFilter {
    /// Any of these note types.
    pub types: Vec<String>,
    /// Any of these statuses.
    pub statuses: Vec<String>,
    /// Only chunks of these notes ...
    pub notes: Option<Vec<String>>,
    /// ... or (either suffices) these chunks.
    pub chunks: Option<Vec<String>>,
}

/// A chunk found by a search, with the search's own score.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkHit {
    pub chunk_id: String,
    pub note_id: String,
    pub score: f32,
}

/// The best `limit` of fused hits, ties by chunk id. Rank fusion ties
/// often (a chunk only the dense search found at rank 20 scores exactly
/// as one only BM25 found there), and Qdrant orders ties as its segments
/// answer, so a cut at `limit` took different seeds for the same question.
/// Both backends ask for `fused_request(limit)` hits and cut here.
pub(crate) fn cut_fused(mut hits: Vec<ChunkHit>, limit: usize) -> Vec<ChunkHit> {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.chunk_id.cmp(&b.chunk_id))
    });
    hits.truncate(limit);
    hits
}

/// How many fused hits to ask for, so that the ties at the `limit`-th are
/// all in hand for `cut_fused`.
pub(crate) fn fused_request(limit: usize) -> usize {
    limit.saturating_mul(2).max(limit + 10)
}

/// The scores of a query's candidate chunks, by each search.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CandidateScores {
    pub dense: Vec<ChunkHit>,
    /// Empty when no text was given.
    pub lexical: Vec<ChunkHit>,
    /// The candidates' chunks, when asked for and the backend reads them
    /// with the scores; else empty (read them with `chunks_by_id`).
    pub chunks: Vec<Chunk>,
}

/// The operations the importer and the retriever need, independent of where
/// Qdrant runs (embedded, or a server). `Send + Sync`: one process
/// shares a store between threads behind a `RwLock` (reads share it, a batch
/// commit takes it alone), so a reader sees each note whole or not at all.
pub trait Store: Send + Sync {
    fn meta(&self) -> &StoreMeta;
    /// Every stored note's identity and digests, in memory; loaded on first
    /// use, then updated on every write.
    fn catalog(&self) -> Result<&Catalog, StoreError>;
    /// Every stored note's identity and digests, sorted by path.
    fn note_states(&self) -> Result<Vec<NoteState>, StoreError> {
        Ok(self.catalog()?.sorted())
    }
    /// Writes a batch atomically from a reader's view (see the crate docs).
    fn write_batch(
        &mut self,
        writes: &[NoteWrite<'_>],
        deletes: &[String],
    ) -> Result<(), StoreError>;
    fn counts(&self) -> Result<Counts, StoreError>;
    fn chunks_of(&self, note_id: &str) -> Result<Vec<Chunk>, StoreError>;
    /// The edges a note owns, sorted by edge id.
    fn edges_of(&self, note_id: &str) -> Result<Vec<Edge>, StoreError> {
        self.edges_of_notes(&[note_id.to_string()], &[])
    }
    /// The edges these notes own, but none of the `left_out` kinds, sorted
    /// by edge id.
    fn edges_of_notes(
        &self,
        note_ids: &[String],
        left_out: &[String],
    ) -> Result<Vec<Edge>, StoreError>;
    /// The edges whose target is one of these ids exactly (a note id, or a
    /// raw title while unresolved), but none of the `left_out` kinds, sorted
    /// by edge id.
    fn edges_into(&self, targets: &[String], left_out: &[String]) -> Result<Vec<Edge>, StoreError>;
    /// Every edge whose target is not (yet) a note.
    fn unresolved_edges(&self) -> Result<Vec<Edge>, StoreError>;
    /// The neighbourhood cache; every write updates it.
    fn edge_cache(&self) -> &EdgeCache;
    /// Every payload of a collection (`notes` without their text), for
    /// `check`.
    fn payloads(
        &self,
        collection: &str,
    ) -> Result<Vec<serde_json::Map<String, serde_json::Value>>, StoreError>;
    /// Makes this process the index's one writer (waiting for another to
    /// finish) until `end_write`. Returns whether another process wrote to
    /// the index since this one last read or wrote it: then the caller
    /// `reload`s before it plans. An embedded index has one process only.
    fn begin_write(&self) -> Result<bool, StoreError> {
        Ok(false)
    }
    /// Lets other processes write again.
    fn end_write(&self) {}
    /// Forgets what is kept in memory (the catalog, the neighbourhoods), so
    /// it is read again.
    fn reload(&mut self) {}
    /// The notes of a write batch whose journal is still there: one in
    /// progress, or one cut short that no writer has undone yet (only a
    /// server's readers can see one; an embedded store undoes it on open).
    fn unfinished_batch(&self) -> Result<Option<Vec<String>>, StoreError> {
        Ok(None)
    }
    /// Indexed payload fields per collection, as Qdrant reports them.
    fn payload_indexes(&self) -> Result<Vec<CollectionIndexes>, StoreError>;
    /// Everything stored for these notes, vectors included, in the order
    /// asked; unknown ids are left out.
    fn export(&self, note_ids: &[String]) -> Result<Vec<StoredNote>, StoreError>;
    /// Every edge touching a note but the kinds the cache leaves out, from
    /// the cache or by two filtered reads.
    fn note_edges(&self, note_id: &str) -> Result<std::sync::Arc<NoteEdges>, StoreError> {
        self.edge_cache().get_or_load(note_id, || {
            let ids = [note_id.to_string()];
            let left_out = self.edge_cache().left_out();
            Ok(NoteEdges {
                note_id: note_id.to_string(),
                out: self.edges_of_notes(&ids, &left_out)?,
                incoming: self.edges_into(&ids, &left_out)?,
            })
        })
    }
    /// Reads the neighbourhoods of these notes that are not cached, with two
    /// filtered reads for all of them: a walk asks for a whole frontier at
    /// once, so against a server a hop costs two round trips, not two per
    /// note.
    fn prefetch_edges(&self, note_ids: &[String]) -> Result<(), StoreError> {
        let missing = self.edge_cache().missing(note_ids);
        if missing.is_empty() {
            return Ok(());
        }
        let mut by_note: std::collections::HashMap<&str, NoteEdges> = missing
            .iter()
            .map(|id| {
                let e = NoteEdges {
                    note_id: id.clone(),
                    ..Default::default()
                };
                (id.as_str(), e)
            })
            .collect();
        let left_out = self.edge_cache().left_out();
        for e in self.edges_of_notes(&missing, &left_out)? {
            if let Some(n) = by_note.get_mut(e.note_id.as_str()) {
                n.out.push(e);
            }
        }
        for e in self.edges_into(&missing, &left_out)? {
            if let Some(n) = by_note.get_mut(e.target_id.as_str()) {
                n.incoming.push(e);
            }
        }
        for (_, edges) in by_note {
            self.edge_cache().insert(edges);
        }
        Ok(())
    }
    fn note(&self, note_id: &str) -> Result<Option<Note>, StoreError>;
    /// Nearest chunks by cosine similarity of the dense vectors.
    fn search_dense(
        &self,
        dense: &[f32],
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError>;
    /// Best chunks by BM25 (the index language's analyser).
    fn search_lexical(
        &self,
        text: &str,
        filter: &ChunkFilter,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError>;
    /// Dense and BM25 candidates (`per_source` each) fused by reciprocal rank
    /// fusion (`rrf_k`) in one query.
    fn search_fused(
        &self,
        dense: &[f32],
        text: &str,
        filter: &ChunkFilter,
        per_source: usize,
        rrf_k: usize,
        limit: usize,
    ) -> Result<Vec<ChunkHit>, StoreError>;
    /// The dense and (with `text`) the BM25 scores of the chunks in `scope`:
    /// the two searches that score a query's candidates. A server answers
    /// both in one request, and with `with_chunks` (for a small scope) sends
    /// the chunks themselves along, which saves the request for the hits'
    /// texts; in-process that read costs nothing, so the embedded store
    /// leaves it for later.
    fn score_candidates(
        &self,
        dense: &[f32],
        text: Option<&str>,
        scope: &ChunkFilter,
        limit: usize,
        with_chunks: bool,
    ) -> Result<CandidateScores, StoreError> {
        let _ = with_chunks;
        Ok(CandidateScores {
            dense: self.search_dense(dense, scope, limit)?,
            lexical: match text {
                Some(t) => self.search_lexical(t, scope, limit)?,
                None => Vec::new(),
            },
            chunks: Vec::new(),
        })
    }
    /// Chunks by id, in the order asked; unknown ids are left out.
    fn chunks_by_id(&self, ids: &[String]) -> Result<Vec<Chunk>, StoreError>;
    /// Marks an import as begun before its first batch, so that `check`
    /// knows edges may point to notes it has not written yet.
    fn start_import(&mut self) -> Result<(), StoreError>;
    /// Records the time of a finished import.
    fn finish_import(&mut self, seconds: f64) -> Result<(), StoreError>;
    /// Builds the vector indexes (HNSW) of segments that have grown large
    /// enough; readers go on meanwhile. Returns whether anything was done.
    fn optimize(&self) -> Result<bool, StoreError> {
        Ok(false)
    }
    /// Called after each batch of a long import, because writing slows down
    /// as the unoptimized part grows: once enough was written since the last
    /// time, indexes it without merging segments, which the final `optimize`
    /// does once. Returns whether anything was done.
    fn optimize_midway(&self) -> Result<bool, StoreError> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fused_cut_at_a_tie_is_the_same_in_any_order() {
        let hit = |id: &str, score: f32| ChunkHit {
            chunk_id: id.to_string(),
            note_id: id.to_string(),
            score,
        };
        let one = vec![hit("a", 0.5), hit("d", 0.2), hit("c", 0.2), hit("b", 0.2)];
        let mut other = one.clone();
        other.reverse();
        let ids = |h: Vec<ChunkHit>| h.into_iter().map(|h| h.chunk_id).collect::<Vec<_>>();
        assert_eq!(ids(cut_fused(one, 3)), ["a", "b", "c"]);
        assert_eq!(ids(cut_fused(other, 3)), ["a", "b", "c"]);
        assert!(fused_request(30) >= 40 && fused_request(1) >= 11);
    }
}
