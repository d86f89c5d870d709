//! The three kinds of records mindnet stores. Field names are the payload
//! names of the data model (`docs/requirements.md`) and must not change:
//! they are the storage format.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Lifecycle of a note. `system` and `template` notes are never indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Draft,
    Active,
    Stable,
    Archived,
    System,
    Template,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Draft,
        Status::Active,
        Status::Stable,
        Status::Archived,
        Status::System,
        Status::Template,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::Active => "active",
            Status::Stable => "stable",
            Status::Archived => "archived",
            Status::System => "system",
            Status::Template => "template",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        let s = s.trim().to_lowercase();
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Whether notes with this status go into the index at all (WP-22).
    pub fn is_indexed(self) -> bool {
        !matches!(self, Status::System | Status::Template)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an edge came from; decides who wins when two sources propose the same edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// The author wrote it: wikilink, inline relation or edge callout.
    Explicit,
    /// An LLM (or its offline stand-in) confirmed a candidate link.
    Smart,
    /// Inferred by the type registry: edge defaults or the type-pair matrix.
    Rule,
    /// Made by the chunker: `belongs_to`, `next`, `prev`.
    Structure,
    /// A note's title or alias found in another note's prose, unlinked
    /// (Obsidian's "unlinked mention"): derived at import, never written
    /// into the note.
    Mention,
}

impl Provenance {
    /// Higher wins on a duplicate content edge (IMP-8: explicit > smart > rule > structure).
    pub fn strength(self) -> u8 {
        match self {
            Provenance::Explicit => 3,
            Provenance::Smart => 2,
            Provenance::Rule => 1,
            Provenance::Mention => 1,
            Provenance::Structure => 0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Explicit => "explicit",
            Provenance::Smart => "smart",
            Provenance::Rule => "rule",
            Provenance::Structure => "structure",
            Provenance::Mention => "mention",
        }
    }
}

/// One Markdown file: the metadata container.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub status: Status,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub lang: String,
    pub retriever_weight: f64,
    pub chunk_profile: String,
    pub edge_defaults: Vec<String>,
    /// Vault-relative, `/` separators.
    pub path: String,
    /// `sha256:<hex>` of the normalised file content, for change detection.
    pub hash: String,
    pub fulltext: String,
    /// The names the note mentions (capitalised runs of its prose, its
    /// title's words), sorted: what the entity graph of `mindnet-store`'s
    /// catalog connects notes by. Indexes written before it read as empty.
    #[serde(default)]
    pub names: Vec<String>,
    /// The words of its longer names that it never writes alone ("Weber"
    /// of "Dr Weber"), sorted: they connect it only to a note that writes
    /// them alone.
    #[serde(default)]
    pub name_parts: Vec<String>,
}

/// The unit that is embedded and returned by search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub chunk_id: String,
    pub note_id: String,
    pub ord: usize,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The content without overlap, for display.
    pub text: String,
    /// Heading path, overlap and text: the embedding input.
    pub window: String,
    /// Heading path, ` > `-separated; empty before the first heading.
    pub section: String,
    pub retriever_weight: f64,
    pub chunk_profile: String,
    pub neighbors_prev: Vec<String>,
    pub neighbors_next: Vec<String>,
    pub status: Status,
}

/// A directed, chunk-scoped relation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub edge_id: String,
    pub source_id: String,
    /// A note or chunk id, or the raw link title while unresolved.
    pub target_id: String,
    pub target_section: Option<String>,
    /// The note that owns (wrote) this edge.
    pub note_id: String,
    pub kind: String,
    pub scope: String,
    pub provenance: Provenance,
    pub rule_id: String,
    pub confidence: f64,
    pub resolved: bool,
}

impl Edge {
    pub fn key(&self) -> String {
        crate::ids::edge_key(
            &self.source_id,
            &self.target_id,
            &self.kind,
            self.target_section.as_deref(),
        )
    }
}

/// Everything one note contributes to the index; replaced as a unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoteBundle {
    pub note: Note,
    pub chunks: Vec<Chunk>,
    pub edges: Vec<Edge>,
}
