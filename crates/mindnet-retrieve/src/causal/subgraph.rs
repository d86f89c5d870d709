//! The Minimal Explanation Subgraph (CAU-5): the best paths merged into at
//! most `max_nodes` notes. The best path is kept whole; of the rest, notes on
//! several paths (bridges) and decision/principle/state notes (anchors) come
//! first, and hub notes that only navigate (the `causal.hubs` of
//! `types.yaml`, or a type weight below 0.5) are dropped.

use super::CausalPath;
use super::engine::SubgraphConfig;
use crate::Retriever;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubgraphNode {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// On how many of the merged paths the note lies.
    pub paths: usize,
    /// `anchor` (an anchor type of `types.yaml`), `bridge` (on several paths) or `node`.
    pub role: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubgraphEdge {
    /// Cause.
    pub from: String,
    /// Effect.
    pub to: String,
    pub kind: String,
    pub edge_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Subgraph {
    pub nodes: Vec<SubgraphNode>,
    pub edges: Vec<SubgraphEdge>,
}

pub(super) fn merge(r: &Retriever<'_>, paths: &[CausalPath], cfg: &SubgraphConfig) -> Subgraph {
    let top: Vec<&CausalPath> = paths.iter().take(cfg.paths.max(1)).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<(&str, &str, &str)> = Vec::new(); // id, title, type
    for p in &top {
        for n in &p.notes {
            let c = count.entry(n.note_id.as_str()).or_insert(0);
            if *c == 0 {
                order.push((&n.note_id, &n.title, &n.note_type));
            }
            *c += 1;
        }
    }
    let mut keep: Vec<&str> = top
        .first()
        .map(|p| p.notes.iter().map(|n| n.note_id.as_str()).collect())
        .unwrap_or_default();
    let mut rest: Vec<(i32, usize, &str)> = order
        .iter()
        .enumerate()
        .filter(|(_, (id, _, _))| !keep.contains(id))
        .filter_map(|(i, (id, _, t))| {
            let hub = r.causal_types.is_hub(t) || r.engine.type_weight(t) < 0.5;
            if hub {
                return None;
            }
            let score = 2 * i32::from(count[id] > 1) + i32::from(r.causal_types.is_anchor(t));
            Some((score, i, *id))
        })
        .collect();
    rest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, id) in rest {
        if keep.len() >= cfg.max_nodes {
            break;
        }
        keep.push(id);
    }
    keep.truncate(cfg.max_nodes.max(1));

    let nodes = order
        .iter()
        .filter(|(id, _, _)| keep.contains(id))
        .map(|(id, title, t)| SubgraphNode {
            note_id: id.to_string(),
            title: title.to_string(),
            note_type: t.to_string(),
            paths: count[id],
            role: if count[id] > 1 {
                "bridge"
            } else if r.causal_types.is_anchor(t) {
                "anchor"
            } else {
                "node"
            }
            .to_string(),
        })
        .collect();
    let mut edges: Vec<SubgraphEdge> = Vec::new();
    for p in &top {
        for s in &p.steps {
            if keep.contains(&s.cause.as_str())
                && keep.contains(&s.effect.as_str())
                && !edges.iter().any(|e| e.edge_id == s.edge_id)
            {
                edges.push(SubgraphEdge {
                    from: s.cause.clone(),
                    to: s.effect.clone(),
                    kind: s.kind.clone(),
                    edge_id: s.edge_id.clone(),
                });
            }
        }
    }
    Subgraph { nodes, edges }
}
