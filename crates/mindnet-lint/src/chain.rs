//! `mindnet chain`: the causal neighbourhood of one note, 1–6 steps back to
//! its causes and forward to its effects, read from the files (LNT-4). Each
//! note appears once per branch; a note met again is marked, not expanded,
//! so cycles end.

use crate::LintError;
use crate::chains::causal_links;
use crate::{Vault, load_notes, resolve_links};
use mindnet_ingest::Config;
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainDirection {
    Backward,
    Forward,
    Both,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChainNode {
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The kind read from the parent: `caused_by` towards causes,
    /// `resulted_in` towards effects.
    pub kind: String,
    /// The same edge(s) read from cause to effect (for diagrams).
    pub forward_kind: String,
    /// Already on this branch (a cycle): not expanded again.
    pub repeated: bool,
    pub children: Vec<ChainNode>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChainPreview {
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub causes: Vec<ChainNode>,
    pub effects: Vec<ChainNode>,
}

/// One causal edge between two notes of the chain graph (indexes into the
/// notes).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Step {
    pub cause: usize,
    pub effect: usize,
    /// The kind read from cause to effect (`resulted_in`).
    pub forward: String,
    /// The kind read from effect to cause (`caused_by`).
    pub backward: String,
}

impl Step {
    /// A causal edge `source kind target`, if the vocabulary reads it as one.
    pub fn of(
        vocab: &mindnet_core::EdgeVocabulary,
        source: usize,
        target: usize,
        kind: &str,
    ) -> Option<Step> {
        let r = vocab.causal_reading(kind)?;
        let (cause, effect) = if r.cause_is_target {
            (target, source)
        } else {
            (source, target)
        };
        Some(Step {
            cause,
            effect,
            forward: r.forward.to_string(),
            backward: r.backward.to_string(),
        })
    }
}

/// A note of the chain graph.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainNote {
    pub path: String,
    pub title: String,
    pub note_type: String,
}

fn grow(
    v: &[ChainNote],
    steps: &[Step],
    from: usize,
    backward: bool,
    hops: usize,
    branch: &mut Vec<usize>,
) -> Vec<ChainNode> {
    if hops == 0 {
        return Vec::new();
    }
    // One entry per neighbour; several edges to it list their kinds together.
    let mut next: Vec<(usize, Vec<String>, Vec<String>)> = Vec::new();
    for st in steps {
        let fwd = &st.forward;
        let (n, kind) = match backward {
            true if st.effect == from => (st.cause, &st.backward),
            false if st.cause == from => (st.effect, fwd),
            _ => continue,
        };
        match next.iter_mut().find(|(m, _, _)| *m == n) {
            Some((_, kinds, forwards)) => {
                if !kinds.contains(kind) {
                    kinds.push(kind.clone());
                }
                if !forwards.contains(fwd) {
                    forwards.push(fwd.clone());
                }
            }
            None => next.push((n, vec![kind.clone()], vec![fwd.clone()])),
        }
    }
    next.sort_by(|a, b| v[a.0].title.cmp(&v[b.0].title));
    next.into_iter()
        .map(|(n, kinds, forwards)| {
            let ChainNote {
                path,
                title,
                note_type,
            } = &v[n];
            let repeated = branch.contains(&n);
            let children = if repeated {
                Vec::new()
            } else {
                branch.push(n);
                let c = grow(v, steps, n, backward, hops - 1, branch);
                branch.pop();
                c
            };
            ChainNode {
                title: title.clone(),
                path: path.clone(),
                note_type: note_type.clone(),
                kind: kinds.join(", "),
                forward_kind: forwards.join(", "),
                repeated,
                children,
            }
        })
        .collect()
}

pub fn chain_preview(
    root: &Path,
    config: &Config,
    note: &str,
    direction: ChainDirection,
    hops: usize,
) -> Result<ChainPreview, LintError> {
    let (notes, _) = load_notes(root, config, 0)?;
    let vault = Vault {
        notes,
        config,
        lang: crate::Lang::De,
        unreadable: Default::default(),
        // The chain reads no names.
        real: Default::default(),
        only: None,
    };
    let nodes: Vec<ChainNote> = vault
        .notes
        .iter()
        .map(|n| ChainNote {
            path: n.path.clone(),
            title: n.title.clone(),
            note_type: n.note_type.clone(),
        })
        .collect();
    let found = vault.find_note(note)?;
    let start = vault
        .notes
        .iter()
        .position(|n| std::ptr::eq(n, found))
        .unwrap_or_default();
    let links = resolve_links(&vault);
    let steps: Vec<Step> = causal_links(&vault, &links)
        .into_iter()
        .map(|c| c.step)
        .collect();
    Ok(chain_of(&nodes, steps, start, direction, hops))
}

/// The chain of `start` in any graph of notes and causal steps (the files'
/// links, or the index's edges).
pub fn chain_of(
    nodes: &[ChainNote],
    mut steps: Vec<Step>,
    start: usize,
    direction: ChainDirection,
    hops: usize,
) -> ChainPreview {
    steps.sort();
    steps.dedup();
    let mut branch = vec![start];
    let causes = if direction == ChainDirection::Forward {
        Vec::new()
    } else {
        grow(nodes, &steps, start, true, hops, &mut branch)
    };
    let effects = if direction == ChainDirection::Backward {
        Vec::new()
    } else {
        grow(nodes, &steps, start, false, hops, &mut branch)
    };
    let ChainNote {
        path,
        title,
        note_type,
    } = &nodes[start];
    ChainPreview {
        title: title.clone(),
        path: path.clone(),
        note_type: note_type.clone(),
        causes,
        effects,
    }
}
