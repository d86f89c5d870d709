//! `neighbors`: a note's neighbourhood in the link graph.

use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};

/// Beyond this a neighbourhood is not a picture any more.
const MAX_GRAPH_NODES: usize = 300;
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
            "The neighbourhood of a note in the link graph: every note within `hops` \
            links (both directions), optionally only along some edge kinds, and the typed edges \
            between them. Use it to see what a note connects to before reading further.",
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GraphResponse {
    pub start: String,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

/// The notes within `hops` links of a note (both directions), and the
/// content edges between them.
fn neighbors(ws: &Workspace, req: &NeighborsRequest) -> Result<GraphResponse, AppError> {
    let hops = req.hops.unwrap_or(1);
    if !(1..=MAX_HOPS).contains(&hops) {
        return Err(AppError::bad_request(format!(
            "`hops` must be 1 to {MAX_HOPS}, not {hops}"
        )));
    }
    let vocab = &ws.config().vocab;
    // Kinds as the author may write them (aliases too), canonicalised.
    let kinds: Option<HashSet<String>> = match &req.kinds {
        None => None,
        Some(list) => Some(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|k| match vocab.canonicalize(k) {
                    Canonical::Known(c) | Canonical::Alias(c) => Ok(c.to_string()),
                    Canonical::Unknown => Err(AppError::bad_request(format!(
                        "unknown edge kind `{k}` in `kinds`"
                    ))),
                })
                .collect::<Result<_, _>>()?,
        ),
    };
    let store = ws.read();
    let start = find_note(&*store, &req.note)?;
    let catalog = store.catalog()?;
    let mut depth: BTreeMap<String, usize> = BTreeMap::new();
    depth.insert(start.note_id.clone(), 0);
    let mut edges: BTreeMap<String, GraphEdge> = BTreeMap::new();
    let mut frontier = vec![start.note_id.clone()];
    'walk: for d in 1..=hops {
        let mut next = Vec::new();
        store.prefetch_edges(&frontier)?;
        for note in &frontier {
            let around = store.note_edges(note)?;
            for n in around.neighbors(vocab) {
                let kind_ok = kinds
                    .as_ref()
                    .is_none_or(|k| k.contains(n.kind) || k.contains(&n.edge.kind));
                let other = note_of(n.node).to_string();
                if !kind_ok || catalog.get(&other).is_none() {
                    continue;
                }
                let e = n.edge;
                edges.entry(e.edge_id.clone()).or_insert_with(|| GraphEdge {
                    from: e.note_id.clone(),
                    to: note_of(&e.target_id).to_string(),
                    kind: e.kind.clone(),
                    provenance: e.provenance.as_str().to_string(),
                    edge_id: e.edge_id.clone(),
                });
                if !depth.contains_key(&other) {
                    if depth.len() >= MAX_GRAPH_NODES {
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
    Ok(GraphResponse {
        start: start.note_id,
        nodes,
        edges: edges
            .into_values()
            .filter(|e| depth.contains_key(&e.from) && depth.contains_key(&e.to))
            .collect(),
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
    #[serde(default)]
    pub hops: Option<usize>,
    /// Follow only these edge kinds, e.g. `caused_by`, `depends_on`
    /// (default: every content kind).
    #[serde(default)]
    pub kinds: Vec<String>,
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
        })
    }
}
