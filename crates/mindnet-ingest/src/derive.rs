//! Edge derivation (IMP-5 to IMP-9). Every edge starts at a chunk. Sources in
//! priority order: inline relation > edge callout > wikilink > type defaults >
//! type-pair matrix > structure. On a duplicate key the stronger provenance
//! wins, then the higher priority.

use crate::mentions::Mention;
use crate::parse::Link;
use crate::resolve::{Resolution, Resolver};
use mindnet_core::ids::{edge_key, point_id};
use mindnet_core::vocab::Canonical;
use mindnet_core::{Edge, EdgeVocabulary, Provenance, TypeRegistry, Warning};
use std::collections::HashMap;
use std::ops::Range;

pub const CONF_INLINE: f64 = 0.95;
pub const CONF_CALLOUT: f64 = 0.90;
pub const CONF_WIKILINK: f64 = 1.0;
pub const CONF_RULE: f64 = 0.7;
pub const CONF_STRUCTURE: f64 = 1.0;
/// The rule id of a mention edge.
pub const MENTION_RULE: &str = "mention";

/// A chunk as edge derivation sees it: its id and where it lies in the file.
#[derive(Debug, Clone)]
pub struct ChunkSpan {
    pub chunk_id: String,
    pub range: Range<usize>,
}

pub struct NoteContext<'a> {
    pub note_id: &'a str,
    pub note_type: &'a str,
    pub rel_path: &'a str,
    pub chunks: &'a [ChunkSpan],
    pub links: &'a [Link],
    /// The note's mentions of other notes (`mentions.rs`).
    pub mentions: &'a [Mention],
}

#[derive(Debug, Default)]
pub struct Derived {
    pub edges: Vec<Edge>,
    pub warnings: Vec<Warning>,
}

pub struct Deriver<'a> {
    pub resolver: &'a Resolver,
    pub registry: &'a TypeRegistry,
    pub vocab: &'a EdgeVocabulary,
}

/// Which syntax proposed an edge; lower is stronger among equal provenance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Inline,
    Callout,
    Wikilink,
    TypeDefault,
    Matrix,
    Mention,
    Structure,
}

struct Candidate {
    edge: Edge,
    source: Source,
}

/// File extensions that are attachments, not notes: an embed of them is no edge.
fn is_attachment(target: &str) -> bool {
    match target.rsplit_once('.') {
        Some((_, ext)) => {
            let ext = ext.to_ascii_lowercase();
            ext != "md" && ext.len() <= 5 && ext.chars().all(|c| c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// Where an edge goes: from a chunk of a note to a target (a note id, or
/// the raw title while unresolved), maybe to a section of it.
struct Ends<'a> {
    source: &'a str,
    target: &'a str,
    section: Option<&'a str>,
    note: &'a str,
    resolved: bool,
}

/// How an edge came to be.
struct Origin {
    provenance: Provenance,
    source: Source,
    rule_id: String,
    confidence: f64,
}

/// A link's target as the resolver finds it: the note id (or the raw
/// title), whether it resolved, and the target's type.
struct Target<'a> {
    id: String,
    resolved: bool,
    note_type: Option<&'a str>,
}

impl Deriver<'_> {
    pub fn derive(&self, note: &NoteContext<'_>) -> Derived {
        let mut out = Derived::default();
        let mut candidates: Vec<Candidate> = Vec::new();
        for link in note.links {
            self.link_edges(note, link, &mut candidates, &mut out.warnings);
        }
        let mentioned = self.mention_edges(note, &candidates);
        candidates.extend(mentioned);
        self.structure_edges(note, &mut candidates);
        out.edges = dedup(candidates);
        out
    }

    /// A link's edges: the one it makes, and for an untyped link the
    /// type's defaults and the type-pair matrix's kind.
    fn link_edges(
        &self,
        note: &NoteContext<'_>,
        link: &Link,
        candidates: &mut Vec<Candidate>,
        warnings: &mut Vec<Warning>,
    ) {
        let p = &link.parts;
        if is_external(&p.target) || (link.embed && is_attachment(&p.target)) {
            return;
        }
        let Some(source_chunk) = chunk_at(note.chunks, link.range.start) else {
            return;
        };
        let target = self.target(note, link, warnings);
        let self_link = target.id == note.note_id;
        if self_link && p.section.is_none() {
            warnings.push(Warning::new(
                note.rel_path,
                link.line,
                "link to the note itself without a section; no edge",
            ));
            return;
        }
        let (kind, origin) = self.explicit(note, link, warnings);
        let ends = Ends {
            source: &source_chunk.chunk_id,
            target: &target.id,
            section: p.section.as_deref(),
            note: note.note_id,
            resolved: target.resolved,
        };
        let mut push = |kind: &str, origin: Origin| {
            candidates.push(Candidate {
                source: origin.source,
                edge: edge(&ends, kind, origin),
            });
        };
        let source = origin.source;
        push(&kind, origin);
        if self_link {
            return;
        }
        let rule = |source: Source, rule_id: String| Origin {
            provenance: Provenance::Rule,
            source,
            rule_id,
            confidence: CONF_RULE,
        };
        // Type defaults follow every wikilink and callout target (not inline
        // relations: there the author chose the kind), as in the seeds.
        if source != Source::Inline {
            for k in &self.registry.config(note.note_type).edge_defaults {
                let rule_id = format!("edge_defaults:{}:{k}", note.note_type);
                push(k, rule(Source::TypeDefault, rule_id));
            }
        }
        // The matrix types only links whose kind the author left open.
        if source == Source::Wikilink
            && let Some(tt) = target.note_type
            && let Some(k) = self
                .registry
                .matrix_rule(note.note_type, tt)
                .and_then(|r| r.kind.as_deref())
        {
            push(
                k,
                rule(Source::Matrix, format!("matrix:{}:{tt}", note.note_type)),
            );
        }
    }

    /// Where a link points: the note itself for `[[#Section]]`, else what
    /// the resolver finds (a link out of the vault stays unresolved, with a
    /// warning).
    fn target(
        &self,
        note: &NoteContext<'_>,
        link: &Link,
        warnings: &mut Vec<Warning>,
    ) -> Target<'_> {
        let p = &link.parts;
        if p.target.is_empty() {
            return Target {
                id: note.note_id.to_string(),
                resolved: true,
                note_type: None,
            };
        }
        let unresolved = Target {
            id: p.target.clone(),
            resolved: false,
            note_type: None,
        };
        match self.resolver.resolve(&p.target, note.rel_path) {
            Resolution::Note(i) => {
                let n = self.resolver.note(i);
                Target {
                    id: n.note_id.clone(),
                    resolved: true,
                    note_type: Some(n.note_type.as_str()),
                }
            }
            Resolution::Unresolved => unresolved,
            Resolution::OutsideVault => {
                warnings.push(Warning::new(
                    note.rel_path,
                    link.line,
                    format!(
                        "link `{}` points outside the vault; kept unresolved",
                        p.target
                    ),
                ));
                unresolved
            }
        }
    }

    /// The kind and origin of the edge a link makes itself: an inline
    /// relation's or a callout's kind, else `references`.
    fn explicit(
        &self,
        note: &NoteContext<'_>,
        link: &Link,
        warnings: &mut Vec<Warning>,
    ) -> (String, Origin) {
        let (raw_kind, source, rule_id, confidence) = if let Some(rel) = &link.parts.relation {
            (
                Some(rel.as_str()),
                Source::Inline,
                "inline:rel",
                CONF_INLINE,
            )
        } else if link.in_callout {
            let fallback = self.vocab.fallback_kind();
            if link.callout_kind.is_none() {
                warnings.push(Warning::new(
                    note.rel_path,
                    link.line,
                    format!("edge callout line without a kind; `{fallback}` used"),
                ));
            }
            (
                Some(link.callout_kind.as_deref().unwrap_or(fallback)),
                Source::Callout,
                "callout:edge",
                CONF_CALLOUT,
            )
        } else {
            (None, Source::Wikilink, "explicit:wikilink", CONF_WIKILINK)
        };
        let kind = match raw_kind {
            None => "references".to_string(),
            Some(raw) => self.content_kind(raw, note.rel_path, link.line, warnings),
        };
        let origin = Origin {
            provenance: Provenance::Explicit,
            source,
            rule_id: rule_id.to_string(),
            confidence,
        };
        (kind, origin)
    }

    /// A mention adds an edge only where the note does not link the
    /// target already; one per chunk and target.
    fn mention_edges(&self, note: &NoteContext<'_>, candidates: &[Candidate]) -> Vec<Candidate> {
        let linked: std::collections::HashSet<&str> = candidates
            .iter()
            .filter(|c| c.edge.resolved)
            .map(|c| c.edge.target_id.as_str())
            .collect();
        let rules = self.vocab.names();
        let mut mentioned: Vec<Candidate> = Vec::new();
        for m in note.mentions {
            let target = self.resolver.note(m.note);
            if target.note_id == note.note_id || linked.contains(target.note_id.as_str()) {
                continue;
            }
            let Some(chunk) = chunk_at(note.chunks, m.range.start) else {
                continue;
            };
            let ends = Ends {
                source: &chunk.chunk_id,
                target: &target.note_id,
                section: None,
                note: note.note_id,
                resolved: true,
            };
            let origin = Origin {
                provenance: Provenance::Mention,
                source: Source::Mention,
                rule_id: MENTION_RULE.to_string(),
                confidence: rules.mention_confidence,
            };
            mentioned.push(Candidate {
                source: Source::Mention,
                edge: edge(&ends, &rules.mention_kind, origin),
            });
        }
        mentioned
    }

    /// The chunker's edges: each chunk to its note, and to the chunks
    /// before and after it.
    fn structure_edges(&self, note: &NoteContext<'_>, candidates: &mut Vec<Candidate>) {
        let kinds = self.vocab.structure();
        for (i, c) in note.chunks.iter().enumerate() {
            let mut structure = |target: &str, kind: &str| {
                let ends = Ends {
                    source: &c.chunk_id,
                    target,
                    section: None,
                    note: note.note_id,
                    resolved: true,
                };
                let origin = Origin {
                    provenance: Provenance::Structure,
                    source: Source::Structure,
                    rule_id: format!("structure:{kind}"),
                    confidence: CONF_STRUCTURE,
                };
                candidates.push(Candidate {
                    source: Source::Structure,
                    edge: edge(&ends, kind, origin),
                });
            };
            structure(note.note_id, &kinds.owner);
            if let Some(next) = note.chunks.get(i + 1) {
                structure(&next.chunk_id, &kinds.next);
            }
            if i > 0 {
                structure(&note.chunks[i - 1].chunk_id, &kinds.previous);
            }
        }
    }

    /// Canonical kind for an author-written one; unknown kinds and the
    /// structure kinds (provenance firewall, IMP-7) become `related_to`.
    fn content_kind(
        &self,
        raw: &str,
        path: &str,
        line: usize,
        warnings: &mut Vec<Warning>,
    ) -> String {
        let fallback = self.vocab.fallback_kind();
        match self.vocab.canonicalize(raw) {
            Canonical::Known(k) | Canonical::Alias(k) if self.vocab.is_structural(k) => {
                warnings.push(Warning::new(
                    path,
                    line,
                    format!(
                        "edge kind `{raw}` is reserved for structure edges; kept as `{fallback}`"
                    ),
                ));
                fallback.to_string()
            }
            Canonical::Unknown => {
                warnings.push(Warning::new(
                    path,
                    line,
                    format!("unknown edge kind `{raw}`; kept as `{fallback}`"),
                ));
                fallback.to_string()
            }
            Canonical::Known(k) | Canonical::Alias(k) => k.to_string(),
        }
    }
}

/// The chunk whose range holds `offset`, else the last one before it.
fn chunk_at(chunks: &[ChunkSpan], offset: usize) -> Option<&ChunkSpan> {
    let after = chunks.partition_point(|c| c.range.start <= offset);
    chunks.get(after.saturating_sub(1)).or(chunks.first())
}

fn edge(ends: &Ends<'_>, kind: &str, origin: Origin) -> Edge {
    let key = edge_key(ends.source, ends.target, kind, ends.section);
    Edge {
        edge_id: point_id(&key).to_string(),
        source_id: ends.source.to_string(),
        target_id: ends.target.to_string(),
        target_section: ends.section.map(str::to_string),
        note_id: ends.note.to_string(),
        kind: kind.to_string(),
        scope: "chunk".to_string(),
        provenance: origin.provenance,
        rule_id: origin.rule_id,
        confidence: origin.confidence,
        resolved: ends.resolved,
    }
}

/// One edge per key, at the position of its first proposal; the strongest proposal wins.
fn dedup(candidates: Vec<Candidate>) -> Vec<Edge> {
    let mut slots: Vec<Candidate> = Vec::with_capacity(candidates.len());
    let mut index: HashMap<String, usize> = HashMap::with_capacity(candidates.len());
    for c in candidates {
        let key = c.edge.key();
        match index.get(&key) {
            Some(&i) => {
                let cur = &slots[i];
                let stronger = (c.edge.provenance.strength(), std::cmp::Reverse(c.source))
                    > (
                        cur.edge.provenance.strength(),
                        std::cmp::Reverse(cur.source),
                    );
                if stronger {
                    slots[i] = c;
                }
            }
            None => {
                index.insert(key, slots.len());
                slots.push(c);
            }
        }
    }
    slots.into_iter().map(|c| c.edge).collect()
}
