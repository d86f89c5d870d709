//! `neighbors` (the MCP tool `note_context`): a note's neighbourhood in the
//! link graph, as an assistant needs it to build its context: the notes
//! within a few links, each typed edge with its provenance and the sentence
//! that carries it, and the causal chains through the note, bounded by
//! `max_notes` so that the answer fits into a model's context.

use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};

/// Beyond this a neighbourhood is not a picture any more.
const MAX_GRAPH_NODES: usize = 300;

/// Notes in an answer unless `max_notes` says otherwise: enough for two
/// hops around a well-linked note, little enough for a model's context.
const DEFAULT_MAX_NOTES: usize = 50;

/// A carrying sentence longer than this is cut (a list written as one line).
const MAX_SENTENCE_CHARS: usize = 300;
use crate::operation::ToolArgs;
use mindnet_core::Canonical;
use mindnet_core::ids::note_of;
use mindnet_store::Store;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use utoipa::ToSchema;

/// The notes within a few links of a note, and the typed edges between them.
pub struct NeighborsOp;

impl Operation for NeighborsOp {
    type Request = NeighborsRequest;
    type Response = GraphResponse;
    const NAME: &'static str = "neighbors";
    const ABOUT: &'static str =
        "The notes within a few links of a note, and the typed edges between them.";
    const EXAMPLE: &'static str = r#"{"note": "Qdrant als Vektordatenbank", "hops": 2}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/graph/neighbors");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::NotFound];
    const TOOL: Option<Tool<NeighborsRequest>> = Some(
        Tool::new(
            "note_context",
            "Notes around a note",
            "The context of a note in the link graph: every note within `hops` links (both \
            directions, at most `max_notes`), optionally only along some edge kinds; the typed \
            edges between them, each with its provenance and the sentence that carries it; and \
            the causal chains (causes and effects) through the note. Use it to see what a note \
            connects to before reading further.",
        )
        .with_args::<NoteContextArgs>(),
    );

    fn run(ws: &Workspace, req: &NeighborsRequest) -> Result<GraphResponse, AppError> {
        neighbors(ws, req)
    }
}

pub const MAX_HOPS: usize = 3;

/// `GET /graph/neighbors`: the notes within `hops` links of a note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct NeighborsRequest {
    /// The note's id, vault path or title.
    pub note: String,
    /// 1 to 3 (default 1).
    #[serde(default)]
    pub hops: Option<usize>,
    /// Comma-separated edge kinds to follow (default: every content kind).
    #[serde(default)]
    pub kinds: Option<String>,
    /// At most this many notes, nearest first (1 to 300, default 50).
    #[serde(default)]
    pub max_notes: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GraphNode {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub path: String,
    /// Steps from the start note (0 for the start).
    pub hops: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GraphEdge {
    /// Owner note of the edge.
    pub from: String,
    /// Target note.
    pub to: String,
    pub kind: String,
    pub provenance: String,
    pub edge_id: String,
    /// The sentence of the owner note that carries the link, as written
    /// (none when no sentence of its source names the other note, as for
    /// an edge a type rule adds).
    pub sentence: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GraphResponse {
    pub start: String,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    /// True when `max_notes` left notes out.
    pub truncated: bool,
    /// The causal chains through the start note: its causes and effects.
    pub chains: crate::ops::chain::ChainResponse,
}

/// The notes within `hops` links of a note (both directions), the content
/// edges between them with their sentences, and the note's chains.
fn neighbors(ws: &Workspace, req: &NeighborsRequest) -> Result<GraphResponse, AppError> {
    let hops = req.hops.unwrap_or(1);
    if !(1..=MAX_HOPS).contains(&hops) {
        return Err(AppError::bad_request(format!(
            "`hops` must be 1 to {MAX_HOPS}, not {hops}"
        )));
    }
    let max_notes = req.max_notes.unwrap_or(DEFAULT_MAX_NOTES);
    if !(1..=MAX_GRAPH_NODES).contains(&max_notes) {
        return Err(AppError::bad_request(format!(
            "`max_notes` must be 1 to {MAX_GRAPH_NODES}, not {max_notes}"
        )));
    }
    let kinds = kinds_of(ws, req.kinds.as_deref())?;
    let mut graph = {
        let store = ws.read();
        walk(ws, &*store, req, hops, max_notes, kinds.as_ref())?
    };
    let chain = crate::ops::chain::ChainRequest {
        note: graph.start.clone(),
        direction: crate::api::Direction::Both,
        hops: Some(hops),
        files: false,
    };
    graph.chains = crate::ops::chain::ChainOp::run(ws, &chain)?;
    Ok(graph)
}

/// Kinds as the author may write them (aliases too), canonicalised.
fn kinds_of(ws: &Workspace, list: Option<&str>) -> Result<Option<HashSet<String>>, AppError> {
    let vocab = &ws.config().vocab;
    list.map(|list| {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|k| match vocab.canonicalize(k) {
                Canonical::Known(c) | Canonical::Alias(c) => Ok(c.to_string()),
                Canonical::Unknown => Err(AppError::bad_request(format!(
                    "unknown edge kind `{k}` in `kinds`"
                ))),
            })
            .collect()
    })
    .transpose()
}

/// The breadth-first walk: nearest notes first, up to `max_notes`.
fn walk(
    ws: &Workspace,
    store: &dyn Store,
    req: &NeighborsRequest,
    hops: usize,
    max_notes: usize,
    kinds: Option<&HashSet<String>>,
) -> Result<GraphResponse, AppError> {
    let vocab = &ws.config().vocab;
    let start = find_note(store, &req.note)?;
    let catalog = store.catalog()?;
    let mut depth: BTreeMap<String, usize> = BTreeMap::new();
    depth.insert(start.note_id.clone(), 0);
    let mut edges: BTreeMap<String, mindnet_core::Edge> = BTreeMap::new();
    let mut frontier = vec![start.note_id.clone()];
    let mut truncated = false;
    'walk: for d in 1..=hops {
        let mut next = Vec::new();
        store.prefetch_edges(&frontier)?;
        for note in &frontier {
            let around = store.note_edges(note)?;
            for n in around.neighbors(vocab) {
                let kind_ok = kinds.is_none_or(|k| k.contains(n.kind) || k.contains(&n.edge.kind));
                let other = note_of(n.node).to_string();
                if !kind_ok || catalog.get(&other).is_none() {
                    continue;
                }
                edges
                    .entry(n.edge.edge_id.clone())
                    .or_insert_with(|| n.edge.clone());
                if !depth.contains_key(&other) {
                    if depth.len() >= max_notes {
                        truncated = true;
                        break 'walk;
                    }
                    depth.insert(other.clone(), d);
                    next.push(other);
                }
            }
        }
        frontier = next;
    }
    let nodes = depth
        .iter()
        .filter_map(|(id, hops)| {
            let n = catalog.get(id)?;
            Some(GraphNode {
                note_id: n.note_id.clone(),
                title: n.title.clone(),
                note_type: n.note_type.clone(),
                path: n.path.clone(),
                hops: *hops,
            })
        })
        .collect();
    let kept: Vec<mindnet_core::Edge> = edges
        .into_values()
        .filter(|e| depth.contains_key(&e.note_id) && depth.contains_key(note_of(&e.target_id)))
        .collect();
    Ok(GraphResponse {
        start: start.note_id,
        nodes,
        edges: with_sentences(store, catalog, kept)?,
        truncated,
        chains: crate::ops::chain::ChainResponse::default(),
    })
}

/// The edges as the answer gives them, each with the sentence of its
/// source chunk that names the note it points at.
fn with_sentences(
    store: &dyn Store,
    catalog: &mindnet_store::Catalog,
    edges: Vec<mindnet_core::Edge>,
) -> Result<Vec<GraphEdge>, AppError> {
    let mut sources: Vec<String> = edges.iter().map(|e| e.source_id.clone()).collect();
    sources.sort();
    sources.dedup();
    let chunks: std::collections::HashMap<String, String> = store
        .chunks_by_id(&sources)?
        .into_iter()
        .map(|c| (c.chunk_id, c.text))
        .collect();
    Ok(edges
        .into_iter()
        .map(|e| {
            let to = note_of(&e.target_id).to_string();
            let sentence = chunks
                .get(&e.source_id)
                .zip(catalog.get(&to))
                .and_then(|(text, target)| carrying_sentence(text, target));
            GraphEdge {
                from: e.note_id,
                to,
                kind: e.kind,
                provenance: e.provenance.as_str().to_string(),
                edge_id: e.edge_id,
                sentence,
            }
        })
        .collect())
}

/// The first sentence of `text` that names `target` (by file name, title
/// or alias, any case).
fn carrying_sentence(text: &str, target: &mindnet_store::NoteState) -> Option<String> {
    let stem = mindnet_core::lookup::file_name(&target.path);
    let names: Vec<String> = [stem, target.title.as_str()]
        .into_iter()
        .chain(target.aliases.iter().map(String::as_str))
        .filter(|n| !n.trim().is_empty())
        .map(str::to_lowercase)
        .collect();
    let found = mindnet_chat::extract::sentences(text)
        .into_iter()
        .find(|s| {
            let lower = s.to_lowercase();
            names.iter().any(|n| lower.contains(n.as_str()))
        })?;
    Some(if found.chars().count() > MAX_SENTENCE_CHARS {
        let cut: String = found.chars().take(MAX_SENTENCE_CHARS).collect();
        format!("{cut}…")
    } else {
        found
    })
}

/// Every edge touching a note less than `hops` links (either way) from
/// `start`: all a chain of `hops` steps from it can use, whatever the
/// steps' directions.
pub(crate) fn edges_within(
    store: &dyn Store,
    start: &str,
    hops: usize,
) -> Result<Vec<mindnet_core::Edge>, AppError> {
    let mut seen: HashSet<String> = HashSet::from([start.to_string()]);
    let mut frontier = vec![start.to_string()];
    let mut edges: BTreeMap<String, mindnet_core::Edge> = BTreeMap::new();
    for _ in 0..hops {
        let mut next = Vec::new();
        store.prefetch_edges(&frontier)?;
        for note in &frontier {
            let around = store.note_edges(note)?;
            for e in around.out.iter().chain(&around.incoming) {
                let target = e.resolved.then(|| note_of(&e.target_id));
                for end in target.into_iter().chain([e.note_id.as_str()]) {
                    if seen.insert(end.to_string()) {
                        next.push(end.to_string());
                    }
                }
                edges.entry(e.edge_id.clone()).or_insert_with(|| e.clone());
            }
        }
        frontier = next;
    }
    Ok(edges.into_values().collect())
}

// The `note_context` tool's arguments: the kinds as a list. (A plain comment: a doc comment would become
// the tool's schema description.)
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteContextArgs {
    /// The note's title, alias, vault path or id.
    pub note: String,
    /// How many links away (1 to 3, default 1).
    #[serde(default, alias = "depth")]
    pub hops: Option<usize>,
    /// Follow only these edge kinds, e.g. `caused_by`, `depends_on`
    /// (default: every content kind).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// At most this many notes, nearest first (1 to 300, default 50).
    #[serde(default)]
    pub max_notes: Option<usize>,
}

impl ToolArgs for NoteContextArgs {
    type Request = NeighborsRequest;
    fn into_request(self) -> Result<NeighborsRequest, AppError> {
        if self.kinds.iter().any(|k| k.contains(',')) {
            return Err(AppError::bad_request(
                "`kinds`: give each kind as its own list item",
            ));
        }
        Ok(NeighborsRequest {
            note: self.note,
            hops: self.hops,
            kinds: (!self.kinds.is_empty()).then(|| self.kinds.join(",")),
            max_notes: self.max_notes,
        })
    }
}
