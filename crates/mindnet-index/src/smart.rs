//! Smart edge allocation (CHAT-7, IMP-13): the plain wikilinks of notes
//! whose type enables it are judged one by one, and those that are part of
//! the content become typed edges with provenance `smart`. Navigation (a
//! list of links, a "Siehe auch" section) stays a plain reference.
//!
//! Two judges: an LLM (in the application layer, at background priority)
//! and the similarity rule here. Their verdicts are cached by content in
//! `<data>/smart_verdicts.json`, so a re-import asks nothing again; the
//! stored edges digest is the plan's, so smart edges never make a note
//! look changed.

use mindnet_core::ids::{edge_key, point_id};
use mindnet_core::{Chunk, Edge, NoteBundle, Provenance, SmartEdgeRules, TypeRegistry};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One link to judge.
#[derive(Debug, Clone)]
pub struct LinkCandidate<'a> {
    pub source_title: &'a str,
    pub source_type: &'a str,
    pub target_title: &'a str,
    pub target_type: &'a str,
    /// The line of the chunk that holds the link, links as their text.
    pub passage: String,
    /// Words of that line besides the links.
    pub context_words: usize,
    /// In a section named like navigation.
    pub navigation: bool,
    /// Cosine of the chunk's embedding and the target's title.
    pub similarity: f64,
}

/// Decides whether a link is content. Two implementations: the LLM (in
/// `mindnet-app`) and `SimilarityJudge`.
pub trait LinkJudge: Send + Sync + std::fmt::Debug {
    /// `llm` or `similarity`: the rule id is `smart:{method}`.
    fn method(&self) -> &'static str;
    /// What else the verdict depends on (the model, the thresholds), for
    /// the cache key.
    fn fingerprint(&self) -> String;
    fn confidence(&self) -> f64;
    fn keep(&self, c: &LinkCandidate<'_>) -> Result<bool, String>;
}

/// The rule without an LLM (types.yaml, `smart_edges`).
#[derive(Debug, Clone)]
pub struct SimilarityJudge {
    pub rules: SmartEdgeRules,
}

impl LinkJudge for SimilarityJudge {
    fn method(&self) -> &'static str {
        "similarity"
    }
    fn fingerprint(&self) -> String {
        format!(
            "{}:{}",
            self.rules.min_context_words, self.rules.min_similarity
        )
    }
    fn confidence(&self) -> f64 {
        0.8
    }
    fn keep(&self, c: &LinkCandidate<'_>) -> Result<bool, String> {
        Ok(!c.navigation
            && c.context_words >= self.rules.min_context_words
            && c.similarity >= self.rules.min_similarity)
    }
}

/// Verdicts by content hash, loaded once per sync and written at its end.
#[derive(Debug, Default)]
pub(crate) struct Verdicts {
    path: Option<PathBuf>,
    map: Mutex<BTreeMap<String, bool>>,
    asked: Mutex<usize>,
}

impl Verdicts {
    pub(crate) fn load(dir: Option<&Path>) -> Self {
        let path = dir.map(|d| d.join("smart_verdicts.json"));
        let map = path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Verdicts {
            path,
            map: Mutex::new(map),
            asked: Mutex::new(0),
        }
    }

    /// Written next to the index, atomically; a cache that cannot be
    /// written only costs the questions again.
    pub(crate) fn save(&self) {
        let Some(path) = &self.path else { return };
        if *self.asked.lock().unwrap_or_else(|e| e.into_inner()) == 0 {
            return;
        }
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let written = serde_json::to_vec(&*map)
            .map_err(std::io::Error::other)
            .and_then(|b| mindnet_core::file::write_atomically(path, &b));
        if let Err(e) = written {
            tracing::warn!("{}: {e}; smart-edge verdicts not cached", path.display());
        }
    }
}

/// What a note's links point at: title and type by note id.
pub(crate) type Targets<'a> = HashMap<&'a str, (&'a str, &'a str)>;

/// Lower-case words of 2+ letters outside `[[…]]`.
fn words_outside_links(line: &str) -> usize {
    mindnet_core::wikilink::outside_links(line)
        .prose
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count()
}

/// The chunk line that links to `title` (by its name in `[[…]]`), else the
/// first line with a link.
fn link_line<'c>(chunk: &'c Chunk, title: &str) -> &'c str {
    let wanted = title.to_lowercase();
    let mut first = None;
    for line in chunk.text.lines().filter(|l| l.contains("[[")) {
        first.get_or_insert(line);
        if line.to_lowercase().contains(&format!("[[{wanted}"))
            || line.to_lowercase().contains(&format!("/{wanted}"))
        {
            return line;
        }
    }
    first.unwrap_or("")
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

/// What `judge` needs to embed: the chunk windows and target titles it has
/// no vector for.
pub(crate) trait Vectors {
    fn chunk(&mut self, i: usize) -> Result<Vec<f32>, String>;
    fn title(&mut self, title: &str) -> Result<Vec<f32>, String>;
}

/// The smart edges of one note, and the warnings of failed verdicts.
pub(crate) fn edges_of(
    bundle: &NoteBundle,
    registry: &TypeRegistry,
    targets: &Targets<'_>,
    judge: &dyn LinkJudge,
    verdicts: &Verdicts,
    vectors: &mut dyn Vectors,
) -> (Vec<Edge>, Vec<String>) {
    let note = &bundle.note;
    let mut out: Vec<Edge> = Vec::new();
    let mut problems = Vec::new();
    if !registry
        .config(&note.note_type)
        .enable_smart_edge_allocation
    {
        return (out, problems);
    }
    for e in &bundle.edges {
        let Some(link) = plain_link(bundle, e, registry, targets, &out) else {
            continue;
        };
        match verdict(bundle, &link, registry, judge, verdicts, vectors) {
            Ok(true) => out.push(smart_edge(&note.note_id, e, link.kind, judge)),
            Ok(false) => {}
            Err(problem) => problems.push(problem),
        }
    }
    (out, problems)
}

/// A plain wikilink a judge may type: its chunk, its target, and the kind
/// it would get.
struct PlainLink<'a> {
    edge: &'a Edge,
    index: usize,
    chunk: &'a Chunk,
    target_title: &'a str,
    target_type: &'a str,
    kind: String,
}

/// `e` as a link to judge: a resolved plain wikilink to another note that
/// the author did not type and that no edge of that kind covers yet.
fn plain_link<'a>(
    bundle: &'a NoteBundle,
    e: &'a Edge,
    registry: &TypeRegistry,
    targets: &Targets<'a>,
    out: &[Edge],
) -> Option<PlainLink<'a>> {
    let note = &bundle.note;
    if e.rule_id != "explicit:wikilink" || !e.resolved || e.target_id == note.note_id {
        return None;
    }
    // A link the author typed is never second-guessed.
    let typed = bundle.edges.iter().any(|o| {
        o.source_id == e.source_id
            && o.target_id == e.target_id
            && o.provenance == Provenance::Explicit
            && o.rule_id != "explicit:wikilink"
    });
    if typed {
        return None;
    }
    let (index, chunk) = bundle
        .chunks
        .iter()
        .enumerate()
        .find(|(_, c)| c.chunk_id == e.source_id)?;
    let &(target_title, target_type) = targets.get(e.target_id.as_str())?;
    let kind = registry
        .matrix_rule(&note.note_type, target_type)
        .and_then(|r| r.kind.clone())
        .or_else(|| {
            registry
                .config(&note.note_type)
                .edge_defaults
                .first()
                .cloned()
        })
        .unwrap_or_else(|| "related_to".to_string());
    let covered = bundle
        .edges
        .iter()
        .chain(out)
        .any(|o| o.source_id == e.source_id && o.target_id == e.target_id && o.kind == kind);
    (!covered).then_some(PlainLink {
        edge: e,
        index,
        chunk,
        target_title,
        target_type,
        kind,
    })
}

/// Whether the judge keeps the link: from the cache of verdicts (by the
/// judge, the passage and the target), else asked and remembered. An
/// error is the warning to report.
fn verdict(
    bundle: &NoteBundle,
    link: &PlainLink<'_>,
    registry: &TypeRegistry,
    judge: &dyn LinkJudge,
    verdicts: &Verdicts,
    vectors: &mut dyn Vectors,
) -> Result<bool, String> {
    let note = &bundle.note;
    let (chunk, target_title) = (link.chunk, link.target_title);
    let key = {
        let mut h = Sha256::new();
        for part in [
            judge.method(),
            &judge.fingerprint(),
            &chunk.text,
            &link.edge.target_id,
            target_title,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        mindnet_core::ids::hex(&h.finalize())
    };
    let cached = verdicts
        .map
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .copied();
    if let Some(v) = cached {
        return Ok(v);
    }
    let section = chunk
        .section
        .rsplit(" > ")
        .next()
        .unwrap_or("")
        .to_lowercase();
    let similarity = match (vectors.chunk(link.index), vectors.title(target_title)) {
        (Ok(a), Ok(b)) => cosine(&a, &b),
        (Err(err), _) | (_, Err(err)) => return Err(format!("smart edges: {err}")),
    };
    let line = link_line(chunk, target_title);
    let candidate = LinkCandidate {
        source_title: &note.title,
        source_type: &note.note_type,
        target_title,
        target_type: link.target_type,
        passage: line.to_string(),
        context_words: words_outside_links(line),
        navigation: registry.smart_edges.navigation_headings.contains(&section),
        similarity,
    };
    let verdict = judge.keep(&candidate);
    tracing::debug!(
        source = %note.title,
        target = %target_title,
        similarity = candidate.similarity,
        context_words = candidate.context_words,
        navigation = candidate.navigation,
        verdict = ?verdict,
        "smart edge"
    );
    let v = verdict.map_err(|err| format!("smart edge to `{target_title}` not judged: {err}"))?;
    verdicts
        .map
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, v);
    *verdicts.asked.lock().unwrap_or_else(|p| p.into_inner()) += 1;
    Ok(v)
}

/// The smart edge a kept link becomes.
fn smart_edge(note_id: &str, e: &Edge, kind: String, judge: &dyn LinkJudge) -> Edge {
    let k = edge_key(
        &e.source_id,
        &e.target_id,
        &kind,
        e.target_section.as_deref(),
    );
    Edge {
        edge_id: point_id(&k).to_string(),
        source_id: e.source_id.clone(),
        target_id: e.target_id.clone(),
        target_section: e.target_section.clone(),
        note_id: note_id.to_string(),
        kind,
        scope: "chunk".to_string(),
        provenance: Provenance::Smart,
        rule_id: format!("smart:{}", judge.method()),
        confidence: judge.confidence(),
        resolved: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_words_leave_the_links_out() {
        assert_eq!(words_outside_links("- [[A]]"), 0);
        assert_eq!(words_outside_links("[[A]], [[B]] und [[C]]"), 1);
        assert_eq!(
            words_outside_links("Die Entscheidung wurde durch [[Erschöpfung]] ausgelöst."),
            5
        );
    }
}
