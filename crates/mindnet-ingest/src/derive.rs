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

impl Deriver<'_> {
    pub fn derive(&self, note: &NoteContext<'_>) -> Derived {
        let mut out = Derived::default();
        let mut candidates: Vec<Candidate> = Vec::new();
        let warn = |out: &mut Derived, line: usize, msg: String| {
            out.warnings.push(Warning::new(note.rel_path, line, msg));
        };

        for link in note.links {
            let p = &link.parts;
            if is_external(&p.target) || (link.embed && is_attachment(&p.target)) {
                continue;
            }
            let Some(source_chunk) = chunk_at(note.chunks, link.range.start) else {
                continue;
            };
            let (target_id, resolved, target_type) = if p.target.is_empty() {
                (note.note_id.to_string(), true, None)
            } else {
                match self.resolver.resolve(&p.target, note.rel_path) {
                    Resolution::Note(i) => {
                        let n = self.resolver.note(i);
                        (n.note_id.clone(), true, Some(n.note_type.as_str()))
                    }
                    Resolution::Unresolved => (p.target.clone(), false, None),
                    Resolution::OutsideVault => {
                        warn(
                            &mut out,
                            link.line,
                            format!(
                                "link `{}` points outside the vault; kept unresolved",
                                p.target
                            ),
                        );
                        (p.target.clone(), false, None)
                    }
                }
            };
            let self_link = target_id == note.note_id;
            if self_link && p.section.is_none() {
                warn(
                    &mut out,
                    link.line,
                    "link to the note itself without a section; no edge".into(),
                );
                continue;
            }

            let (raw_kind, source, rule_id, confidence) = if let Some(rel) = &p.relation {
                (
                    Some(rel.as_str()),
                    Source::Inline,
                    "inline:rel",
                    CONF_INLINE,
                )
            } else if link.in_callout {
                if link.callout_kind.is_none() {
                    warn(
                        &mut out,
                        link.line,
                        format!(
                            "edge callout line without a kind; `{}` used",
                            self.vocab.fallback_kind()
                        ),
                    );
                }
                (
                    Some(
                        link.callout_kind
                            .as_deref()
                            .unwrap_or(self.vocab.fallback_kind()),
                    ),
                    Source::Callout,
                    "callout:edge",
                    CONF_CALLOUT,
                )
            } else {
                (None, Source::Wikilink, "explicit:wikilink", CONF_WIKILINK)
            };
            let kind = match raw_kind {
                None => "references".to_string(),
                Some(raw) => self.content_kind(raw, note.rel_path, link.line, &mut out.warnings),
            };
            let section = p.section.as_deref();
            let mut push = |kind: &str, provenance, source, rule_id: String, confidence| {
                candidates.push(Candidate {
                    edge: edge(
                        &source_chunk.chunk_id,
                        &target_id,
                        section,
                        note.note_id,
                        kind,
                        provenance,
                        rule_id,
                        confidence,
                        resolved,
                    ),
                    source,
                });
            };
            push(
                &kind,
                Provenance::Explicit,
                source,
                rule_id.to_string(),
                confidence,
            );
            if self_link {
                continue;
            }
            // Type defaults follow every wikilink and callout target (not inline
            // relations: there the author chose the kind), as in the seeds.
            if source != Source::Inline {
                for k in &self.registry.config(note.note_type).edge_defaults {
                    let rule = format!("edge_defaults:{}:{k}", note.note_type);
                    push(k, Provenance::Rule, Source::TypeDefault, rule, CONF_RULE);
                }
            }
            // The matrix types only links whose kind the author left open.
            if source == Source::Wikilink
                && let Some(tt) = target_type
                && let Some(k) = self
                    .registry
                    .matrix_rule(note.note_type, tt)
                    .and_then(|r| r.kind.as_deref())
            {
                let rule = format!("matrix:{}:{tt}", note.note_type);
                push(k, Provenance::Rule, Source::Matrix, rule, CONF_RULE);
            }
        }

        // A mention adds an edge only where the note does not link the
        // target already; one per chunk and target.
        let linked: std::collections::HashSet<&str> = candidates
            .iter()
            .filter(|c| c.edge.resolved)
            .map(|c| c.edge.target_id.as_str())
            .collect();
        let mut mentioned: Vec<Candidate> = Vec::new();
        let rules = self.vocab.names();
        for m in note.mentions {
            let target = self.resolver.note(m.note);
            if target.note_id == note.note_id || linked.contains(target.note_id.as_str()) {
                continue;
            }
            let Some(chunk) = chunk_at(note.chunks, m.range.start) else {
                continue;
            };
            mentioned.push(Candidate {
                edge: edge(
                    &chunk.chunk_id,
                    &target.note_id,
                    None,
                    note.note_id,
                    &rules.mention_kind,
                    Provenance::Mention,
                    MENTION_RULE.to_string(),
                    rules.mention_confidence,
                    true,
                ),
                source: Source::Mention,
            });
        }
        candidates.extend(mentioned);

        for (i, c) in note.chunks.iter().enumerate() {
            let mut structure = |target: &str, kind: &str| {
                candidates.push(Candidate {
                    edge: edge(
                        &c.chunk_id,
                        target,
                        None,
                        note.note_id,
                        kind,
                        Provenance::Structure,
                        format!("structure:{kind}"),
                        CONF_STRUCTURE,
                        true,
                    ),
                    source: Source::Structure,
                });
            };
            let kinds = self.vocab.structure();
            structure(note.note_id, &kinds.owner);
            if let Some(next) = note.chunks.get(i + 1) {
                structure(&next.chunk_id, &kinds.next);
            }
            if i > 0 {
                structure(&note.chunks[i - 1].chunk_id, &kinds.previous);
            }
        }

        out.edges = dedup(candidates);
        out
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

#[allow(clippy::too_many_arguments)]
fn edge(
    source_id: &str,
    target_id: &str,
    section: Option<&str>,
    note_id: &str,
    kind: &str,
    provenance: Provenance,
    rule_id: String,
    confidence: f64,
    resolved: bool,
) -> Edge {
    let key = edge_key(source_id, target_id, kind, section);
    Edge {
        edge_id: point_id(&key).to_string(),
        source_id: source_id.to_string(),
        target_id: target_id.to_string(),
        target_section: section.map(str::to_string),
        note_id: note_id.to_string(),
        kind: kind.to_string(),
        scope: "chunk".to_string(),
        provenance,
        rule_id,
        confidence,
        resolved,
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
