//! `mindnet chain`: a note's causes and effects as an indented tree, or as
//! a Mermaid flowchart (cause → effect).

use mindnet_app::ops::chain::{ChainNode, ChainResponse};
use std::fmt::Write;

pub fn chain_tree(p: &ChainResponse) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", p.title, p.note_type);
    branch(&mut out, &p.causes, "⟵", 1);
    branch(&mut out, &p.effects, "⟶", 1);
    if p.causes.is_empty() && p.effects.is_empty() {
        out.push_str("  (keine kausalen Kanten / no causal edges)\n");
    }
    out
}

fn branch(out: &mut String, nodes: &[ChainNode], arrow: &str, depth: usize) {
    for n in nodes {
        let _ = writeln!(
            out,
            "{}{arrow} {} — {} ({}){}",
            "    ".repeat(depth - 1) + "  ",
            n.kind,
            n.title,
            n.note_type,
            if n.repeated {
                "  ↺ schon oben / seen above"
            } else {
                ""
            }
        );
        branch(out, &n.children, arrow, depth + 1);
    }
}

/// A note of the diagram and an edge between two of them.
struct Diagram {
    /// (path, title) in order of appearance.
    nodes: Vec<DiagramNode>,
    edges: Vec<DiagramEdge>,
}

struct DiagramNode {
    path: String,
    title: String,
}

#[derive(PartialEq)]
struct DiagramEdge {
    from: String,
    to: String,
    kind: String,
}

impl Diagram {
    fn walk(&mut self, parent: &str, nodes: &[ChainNode], backward: bool) {
        for n in nodes {
            if !self.nodes.iter().any(|d| d.path == n.path) {
                self.nodes.push(DiagramNode {
                    path: n.path.clone(),
                    title: n.title.clone(),
                });
            }
            let edge = if backward {
                DiagramEdge {
                    from: n.path.clone(),
                    to: parent.to_string(),
                    kind: n.forward_kind.clone(),
                }
            } else {
                DiagramEdge {
                    from: parent.to_string(),
                    to: n.path.clone(),
                    kind: n.forward_kind.clone(),
                }
            };
            if !self.edges.contains(&edge) {
                self.edges.push(edge);
            }
            self.walk(&n.path, &n.children, backward);
        }
    }

    fn index(&self, path: &str) -> usize {
        self.nodes.iter().position(|d| d.path == path).unwrap_or(0)
    }
}

pub fn chain_mermaid(p: &ChainResponse) -> String {
    let mut d = Diagram {
        nodes: vec![DiagramNode {
            path: p.path.clone(),
            title: p.title.clone(),
        }],
        edges: Vec::new(),
    };
    d.walk(&p.path, &p.causes, true);
    d.walk(&p.path, &p.effects, false);
    let mut out = String::from("```mermaid\ngraph LR\n");
    for (i, n) in d.nodes.iter().enumerate() {
        let _ = writeln!(out, "  n{i}[\"{}\"]", n.title.replace('"', "'"));
    }
    for e in &d.edges {
        let _ = writeln!(
            out,
            "  n{} -->|{}| n{}",
            d.index(&e.from),
            e.kind,
            d.index(&e.to)
        );
    }
    out.push_str("```\n");
    out
}
