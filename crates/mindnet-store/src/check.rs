//! The integrity check (IMP-14, the seeds' `edges_full_check`): what a
//! healthy index never contains, and the payload indexes that exist.

use crate::payload::{CHUNKS, EDGES, INDEXES, NOTES};
use crate::{NoteState, Store, StoreError};
use mindnet_core::ids::{chunk_id, edge_key, point_id};
use mindnet_core::vocab::StructureKinds;
use mindnet_core::{Chunk, Edge, Note};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// `dangling_edge`, `orphan_edge`, `orphan_chunk`, `missing_belongs_to`,
    /// `broken_chain`, `duplicate_id`, `missing_index`, `unfinished_batch`,
    /// `corrupt_payload`.
    pub kind: &'static str,
    pub id: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub notes: usize,
    pub chunks: usize,
    pub edges: usize,
    pub unresolved: usize,
    /// When the import began that is writing now, or was cut short (a
    /// crash, a full disk); the next import completes it.
    pub unfinished_import: Option<String>,
    /// Resolved edges whose target that unfinished import had not written
    /// yet: expected in the middle of an import, so no problem.
    pub pending: usize,
    pub indexes: Vec<CollectionIndexes>,
    pub problems: Vec<Problem>,
}

/// The indexed payload fields of one collection, as Qdrant reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CollectionIndexes {
    pub collection: &'static str,
    pub fields: Vec<String>,
}

impl CheckReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Why a payload does not read back as what it stores (a field missing or
/// of the wrong type), if it does not. The checks below read fields
/// leniently so that they can go on; this is where such a payload shows.
fn undecodable(collection: &str, m: &Map<String, Value>) -> Option<String> {
    let mut m = m.clone();
    if collection == NOTES {
        // The check reads notes without their full text, to keep its
        // memory small.
        m.entry("fulltext").or_insert(Value::String(String::new()));
    }
    let v = Value::Object(m);
    let read = match collection {
        NOTES => serde_json::from_value::<Note>(v.clone())
            .map(drop)
            .and_then(|()| serde_json::from_value::<NoteState>(v).map(drop)),
        CHUNKS => serde_json::from_value::<Chunk>(v).map(drop),
        _ => serde_json::from_value::<Edge>(v).map(drop),
    };
    read.err().map(|e| e.to_string())
}

fn s<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or_default()
}

/// The problems found so far.
#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, kind: &'static str, id: &str, message: String) {
        self.0.push(Problem {
            kind,
            id: id.to_string(),
            message,
        });
    }
}

type Payload = Map<String, Value>;

/// The integrity check of any store: every payload read once.
/// `kinds` names the chunker's edges, whose chains it follows.
pub fn check<S: Store + ?Sized>(
    store: &S,
    kinds: &StructureKinds,
) -> Result<CheckReport, StoreError> {
    let notes = store.payloads(NOTES)?;
    let chunks = store.payloads(CHUNKS)?;
    let edges = store.payloads(EDGES)?;
    let mut problems = Problems::default();
    if let Some(ids) = store.unfinished_batch()? {
        problems.add(
            "unfinished_batch",
            &ids.join(", "),
            format!(
                "a write of {} notes is in progress, or was cut short; the next import completes it",
                ids.len()
            ),
        );
    }
    for (what, list, key, collection) in [
        ("note", &notes, "note_id", NOTES),
        ("chunk", &chunks, "chunk_id", CHUNKS),
        ("edge", &edges, "edge_id", EDGES),
    ] {
        check_payloads(what, list, key, collection, &mut problems);
    }
    let note_ids: HashSet<&str> = notes.iter().map(|n| s(n, "note_id")).collect();
    let chunk_ids: HashSet<&str> = chunks.iter().map(|c| s(c, "chunk_id")).collect();
    let mut by_note = check_chunks(&chunks, &note_ids, &mut problems);
    let unfinished = store.meta().import_started.clone();
    let ids = Ids {
        notes: &note_ids,
        chunks: &chunk_ids,
        unfinished: unfinished.is_some(),
    };
    let tally = check_edges(&edges, &ids, kinds, &mut problems);
    check_chains(&mut by_note, &tally.structure, kinds, &mut problems);
    let indexes = store.payload_indexes()?;
    check_indexes(&indexes, &mut problems);
    let mut problems = problems.0;
    problems.sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
    Ok(CheckReport {
        notes: notes.len(),
        chunks: chunks.len(),
        edges: edges.len(),
        unresolved: tally.unresolved,
        unfinished_import: unfinished,
        pending: tally.pending,
        indexes,
        problems,
    })
}

/// Payloads that do not read back, and ids stored twice.
fn check_payloads(
    what: &str,
    list: &[Payload],
    key: &str,
    collection: &str,
    problems: &mut Problems,
) {
    let mut seen = HashSet::new();
    for m in list {
        if let Some(why) = undecodable(collection, m) {
            problems.add(
                "corrupt_payload",
                s(m, key),
                format!("{what} payload: {why}"),
            );
        }
        if !seen.insert(s(m, key)) {
            problems.add("duplicate_id", s(m, key), format!("{what} id stored twice"));
        }
    }
}

/// Chunks of notes that are gone or whose id is not their note's and
/// place; each note's chunks by place, for the chains.
fn check_chunks<'a>(
    chunks: &'a [Payload],
    note_ids: &HashSet<&str>,
    problems: &mut Problems,
) -> HashMap<&'a str, Vec<(usize, &'a str)>> {
    let mut by_note: HashMap<&str, Vec<(usize, &str)>> = HashMap::new();
    for c in chunks {
        let (id, owner) = (s(c, "chunk_id"), s(c, "note_id"));
        if !note_ids.contains(owner) {
            problems.add("orphan_chunk", id, format!("its note {owner} is gone"));
        }
        let ord = c.get("ord").and_then(Value::as_u64).unwrap_or(0) as usize;
        if chunk_id(owner, ord) != id {
            problems.add(
                "duplicate_id",
                id,
                format!("chunk id does not match note {owner} and ord {ord}"),
            );
        }
        by_note.entry(owner).or_default().push((ord, id));
    }
    by_note
}

/// What the edges can point at.
struct Ids<'a> {
    notes: &'a HashSet<&'a str>,
    chunks: &'a HashSet<&'a str>,
    /// An import is under way (or was cut short): a resolved target it has
    /// not written yet is pending, not dangling.
    unfinished: bool,
}

/// What the edges add up to besides their problems.
struct EdgeTally<'a> {
    /// The chunker's edges, as `source->target` and kind.
    structure: HashSet<(String, &'a str)>,
    unresolved: usize,
    pending: usize,
}

/// Edges whose id is not their key, whose owner or source is gone, or
/// whose resolved target does not exist.
fn check_edges<'a>(
    edges: &'a [Payload],
    ids: &Ids<'_>,
    kinds: &StructureKinds,
    problems: &mut Problems,
) -> EdgeTally<'a> {
    let mut tally = EdgeTally {
        structure: HashSet::new(),
        unresolved: 0,
        pending: 0,
    };
    for e in edges {
        let (id, src, dst, kind, owner) = (
            s(e, "edge_id"),
            s(e, "source_id"),
            s(e, "target_id"),
            s(e, "kind"),
            s(e, "note_id"),
        );
        let section = e.get("target_section").and_then(Value::as_str);
        if point_id(&edge_key(src, dst, kind, section)).to_string() != id {
            problems.add("duplicate_id", id, "edge id does not match its key".into());
        }
        if !ids.notes.contains(owner) {
            problems.add("orphan_edge", id, format!("its owner note {owner} is gone"));
        }
        if !ids.chunks.contains(src) {
            problems.add(
                "dangling_edge",
                id,
                format!("source chunk {src} does not exist"),
            );
        }
        let resolved = e.get("resolved").and_then(Value::as_bool).unwrap_or(false);
        let present = ids.notes.contains(dst) || ids.chunks.contains(dst);
        if !resolved {
            tally.unresolved += 1;
        } else if !present && ids.unfinished {
            tally.pending += 1;
        } else if !present {
            problems.add(
                "dangling_edge",
                id,
                format!("resolved target {dst} does not exist"),
            );
        }
        if [&kinds.owner, &kinds.next, &kinds.previous]
            .iter()
            .any(|k| *k == kind)
        {
            tally.structure.insert((format!("{src}->{dst}"), kind));
        }
    }
    tally
}

/// Each note's chunks numbered from 1 without gaps, each with its owner
/// edge and linked to the next both ways.
fn check_chains(
    by_note: &mut HashMap<&str, Vec<(usize, &str)>>,
    structure: &HashSet<(String, &str)>,
    kinds: &StructureKinds,
    problems: &mut Problems,
) {
    for (owner, list) in by_note.iter_mut() {
        list.sort();
        for (i, (ord, id)) in list.iter().enumerate() {
            if *ord != i + 1 {
                problems.add(
                    "broken_chain",
                    id,
                    format!("note {owner}: expected chunk {} here, found {ord}", i + 1),
                );
            }
            if !structure.contains(&(format!("{id}->{owner}"), kinds.owner.as_str())) {
                problems.add(
                    "missing_belongs_to",
                    id,
                    format!("chunk without a {} edge", kinds.owner),
                );
            }
            let Some((_, next)) = list.get(i + 1) else {
                continue;
            };
            if !structure.contains(&(format!("{id}->{next}"), kinds.next.as_str())) {
                let kind = &kinds.next;
                problems.add("broken_chain", id, format!("no {kind} edge to {next}"));
            }
            if !structure.contains(&(format!("{next}->{id}"), kinds.previous.as_str())) {
                let kind = &kinds.previous;
                problems.add("broken_chain", next, format!("no {kind} edge to {id}"));
            }
        }
    }
}

/// Every payload index the filters need.
fn check_indexes(indexes: &[CollectionIndexes], problems: &mut Problems) {
    let present: BTreeMap<&str, &Vec<String>> =
        indexes.iter().map(|c| (c.collection, &c.fields)).collect();
    for (collection, fields) in INDEXES {
        for f in fields {
            if !present
                .get(collection)
                .is_some_and(|have| have.iter().any(|h| h == f))
            {
                problems.add(
                    "missing_index",
                    f,
                    format!("no payload index on {collection}.{f}"),
                );
            }
        }
    }
}

/// Every string id of a collection (`notes`, `chunks` or `edges`): two
/// stores hold the same index when these agree.
pub fn ids<S: Store + ?Sized>(
    store: &S,
    collection: &str,
) -> Result<std::collections::BTreeSet<String>, StoreError> {
    let key = match collection {
        NOTES => "note_id",
        CHUNKS => "chunk_id",
        _ => "edge_id",
    };
    Ok(store
        .payloads(collection)?
        .iter()
        .filter_map(|m| m.get(key).and_then(Value::as_str).map(str::to_string))
        .collect())
}
