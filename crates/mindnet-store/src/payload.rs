//! What both backends store in a point's payload, and how it is read back:
//! the collections and their indexed fields (STO-2), the JSON of notes,
//! chunks and edges, and the checks a write passes before anything is
//! written. One definition, so an index moves between backends unchanged.

use crate::{NoteState, NoteWrite, StoreError};
use serde_json::{Map, Value};

pub const NOTES: &str = "notes";
pub const CHUNKS: &str = "chunks";
pub const EDGES: &str = "edges";
pub const COLLECTIONS: [&str; 3] = [NOTES, CHUNKS, EDGES];
/// The chunks' named vectors.
pub const DENSE: &str = "dense";
pub const BM25: &str = "bm25";

/// Payload indexes per collection (STO-2).
pub const INDEXES: [(&str, &[&str]); 3] = [
    (NOTES, &["note_id", "type", "tags"]),
    (CHUNKS, &["note_id", "chunk_id", "type", "status"]),
    (
        EDGES,
        &[
            "source_id",
            "target_id",
            "kind",
            "scope",
            "note_id",
            "resolved",
        ],
    ),
];

/// Fields indexed as booleans; every other indexed field is a keyword.
pub const BOOL_FIELDS: [&str; 1] = ["resolved"];

/// The indexed fields of a collection.
pub fn indexes(collection: &str) -> &'static [&'static str] {
    INDEXES
        .iter()
        .find(|(n, _)| *n == collection)
        .map_or(&[][..], |(_, f)| *f)
}

/// The note payload fields a `NoteState` is read from (all but the text).
pub const NOTE_STATE_FIELDS: [&str; 13] = [
    "note_id",
    "path",
    "title",
    "aliases",
    "type",
    "status",
    "tags",
    "retriever_weight",
    "hash",
    "chunks_digest",
    "edges_digest",
    "names",
    "name_parts",
];

/// A value's JSON, with extra string fields beside its own.
pub fn payload<T: serde::Serialize>(value: &T, extra: &[(&str, &str)]) -> Value {
    let mut v = serde_json::to_value(value).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        for (k, x) in extra {
            map.insert((*k).to_string(), Value::String((*x).to_string()));
        }
    }
    v
}

/// Reads a stored payload back; a payload that does not parse is corrupt.
pub fn decode<T: serde::de::DeserializeOwned>(
    collection: &'static str,
) -> impl Fn(Map<String, Value>) -> Result<T, StoreError> {
    move |m| {
        serde_json::from_value(Value::Object(m)).map_err(|e| StoreError::Payload {
            collection,
            message: e.to_string(),
        })
    }
}

/// Edge payloads read back, sorted by edge id (the order every edge list
/// of the `Store` trait promises).
pub fn sorted_edges(maps: Vec<Map<String, Value>>) -> Result<Vec<mindnet_core::Edge>, StoreError> {
    let mut v: Vec<mindnet_core::Edge> = maps
        .into_iter()
        .map(decode(EDGES))
        .collect::<Result<_, _>>()?;
    v.sort_by(|a, b| a.edge_id.cmp(&b.edge_id));
    Ok(v)
}

/// A note's state from its stored payload. Every field is required: a
/// payload without one is corrupt, never read as a default (an empty hash
/// would make the note look changed, a missing status make it active).
pub fn note_state(m: Map<String, Value>) -> Result<NoteState, StoreError> {
    decode(NOTES)(m)
}

fn required_str(
    m: &Map<String, Value>,
    collection: &'static str,
    k: &str,
) -> Result<String, StoreError> {
    m.get(k)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| StoreError::Payload {
            collection,
            message: format!("the string field `{k}` is missing"),
        })
}

/// Refuses a write whose vectors do not fit the index's model: one vector
/// per chunk, each of `dim` finite values, none all zero.
pub fn validate(w: &NoteWrite<'_>, dim: usize) -> Result<(), StoreError> {
    let Some(vectors) = w.vectors else {
        return Ok(());
    };
    if vectors.len() != w.chunks.len() {
        return Err(StoreError::Dimension {
            note_id: w.note.note_id.clone(),
            got: vectors.len(),
            want: w.chunks.len(),
        });
    }
    for v in vectors {
        let zero = v.iter().all(|x| *x == 0.0);
        if v.len() != dim || zero || v.iter().any(|x| !x.is_finite()) {
            return Err(StoreError::Dimension {
                note_id: w.note.note_id.clone(),
                got: if zero { 0 } else { v.len() },
                want: dim,
            });
        }
    }
    Ok(())
}

/// Groups exported points by note, in the order the notes were asked for:
/// note payloads, and chunks (with their vectors) and edges of any order.
pub fn stored_notes(
    asked: &[String],
    notes: Vec<Map<String, Value>>,
    chunks: Vec<(Map<String, Value>, Vec<f32>)>,
    edges: Vec<Map<String, Value>>,
) -> Result<Vec<crate::StoredNote>, StoreError> {
    use mindnet_core::{Chunk, Edge, Note};
    use std::collections::HashMap;
    let mut by_id: HashMap<String, crate::StoredNote> = HashMap::new();
    for m in notes {
        let chunks_digest = required_str(&m, NOTES, "chunks_digest")?;
        let edges_digest = required_str(&m, NOTES, "edges_digest")?;
        let note: Note = decode(NOTES)(m)?;
        by_id.insert(
            note.note_id.clone(),
            crate::StoredNote {
                note,
                chunks_digest,
                edges_digest,
                chunks: Vec::new(),
                vectors: Vec::new(),
                edges: Vec::new(),
            },
        );
    }
    let mut chunk_list: Vec<(Chunk, Vec<f32>)> = chunks
        .into_iter()
        .map(|(m, v)| Ok((decode::<Chunk>(CHUNKS)(m)?, v)))
        .collect::<Result<_, StoreError>>()?;
    chunk_list.sort_by_key(|(c, _)| c.ord);
    for (c, v) in chunk_list {
        if let Some(n) = by_id.get_mut(&c.note_id) {
            n.chunks.push(c);
            n.vectors.push(v);
        }
    }
    for m in edges {
        let e: Edge = decode(EDGES)(m)?;
        if let Some(n) = by_id.get_mut(&e.note_id) {
            n.edges.push(e);
        }
    }
    Ok(asked
        .iter()
        .filter_map(|id| by_id.remove(id))
        .map(|mut n| {
            n.edges.sort_by(|a, b| a.edge_id.cmp(&b.edge_id));
            n
        })
        .collect())
}
