//! Graph reads of a workspace: a note's neighbourhood and its causal chain.

use crate::api::*;
use crate::{AppError, Workspace};
use mindnet_core::Canonical;
use mindnet_core::ids::note_of;
use mindnet_lint::{ChainDirection, ChainNote};
use mindnet_store::Store;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Beyond this a neighbourhood is not a picture any more.
const MAX_GRAPH_NODES: usize = 300;
pub const MAX_HOPS: usize = 3;
use crate::settings::{DEFAULT_CHAIN_HOPS, MAX_CHAIN_HOPS};

impl Workspace {
    /// The notes within `hops` links of a note (both directions), and the
    /// content edges between them.
    pub fn neighbors(&self, req: &NeighborsRequest) -> Result<GraphResponse, AppError> {
        let hops = req.hops.unwrap_or(1);
        if !(1..=MAX_HOPS).contains(&hops) {
            return Err(AppError::bad_request(format!(
                "`hops` must be 1 to {MAX_HOPS}, not {hops}"
            )));
        }
        let vocab = &self.config().vocab;
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
        let store = self.read();
        let start = self.find_note(&*store, &req.note)?;
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

    /// A note's causes and effects from the index's edge graph, which also
    /// knows the edges derived from types and the matrix; with `files`,
    /// from the vault's files as they are now.
    pub fn chain(&self, req: &ChainRequest) -> Result<ChainResponse, AppError> {
        if req.files {
            return chain_from_files(self.settings(), req);
        }
        let (direction, hops) = chain_args(req)?;
        let store = self.read();
        let notes = store.note_states()?;
        let nodes: Vec<ChainNote> = notes
            .iter()
            .map(|n| ChainNote {
                path: n.path.clone(),
                title: n.title.clone(),
                note_type: n.note_type.clone(),
            })
            .collect();
        let wanted = self.find_note(&*store, &req.note)?;
        let start = notes
            .iter()
            .position(|n| n.note_id == wanted.note_id)
            .ok_or_else(|| AppError::not_found(format!("no note `{}` in the index", req.note)))?;
        let index: HashMap<&str, usize> = notes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.note_id.as_str(), i))
            .collect();
        let vocab = &self.config().vocab;
        let mut steps = Vec::new();
        for e in edges_within(&*store, &notes[start].note_id, hops)? {
            let target = note_of(&e.target_id);
            let (Some(&owner), Some(&other)) = (index.get(e.note_id.as_str()), index.get(target))
            else {
                continue;
            };
            if owner == other {
                continue;
            }
            if let Some(step) = mindnet_lint::Step::of(vocab, owner, other, &e.kind) {
                steps.push(step);
            }
        }
        Ok(mindnet_lint::chain_of(&nodes, steps, start, direction, hops).into())
    }
}

/// Direction and hop count of a chain request, checked.
pub(crate) fn chain_args(req: &ChainRequest) -> Result<(ChainDirection, usize), AppError> {
    let hops = req.hops.unwrap_or(usize::from(DEFAULT_CHAIN_HOPS));
    if !(1..=usize::from(MAX_CHAIN_HOPS)).contains(&hops) {
        return Err(AppError::bad_request(format!(
            "`hops` must be 1 to {MAX_CHAIN_HOPS}, not {hops}"
        )));
    }
    let direction = match req.direction {
        Direction::Backward => ChainDirection::Backward,
        Direction::Forward => ChainDirection::Forward,
        Direction::Both => ChainDirection::Both,
    };
    Ok((direction, hops))
}

/// The chain read from the files alone (no index needed).
pub(crate) fn chain_from_files(
    settings: &crate::Settings,
    req: &ChainRequest,
) -> Result<ChainResponse, AppError> {
    let (direction, hops) = chain_args(req)?;
    let config = settings.load_config()?;
    let vault = settings.require_vault()?;
    Ok(mindnet_lint::chain_preview(vault, &config, &req.note, direction, hops)?.into())
}

/// Every edge touching a note less than `hops` links (either way) from
/// `start`: all a chain of `hops` steps from it can use, whatever the
/// steps' directions.
fn edges_within(
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
