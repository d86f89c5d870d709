//! Notes and the graph: one note, its neighbourhood, causal chains, drafts
//! (analyze, save) and the linter.
//!
//! The requests MCP takes as they are (`read_note`, `recent_changes`,
//! `write_note`) also derive `JsonSchema`: one type and one description for
//! the OpenAPI document and the tool's schema.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NoteInfo {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub status: String,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub lang: String,
    /// Vault-relative, `/` separators.
    pub path: String,
    pub hash: String,
    /// The note's text without frontmatter and comments.
    pub text: String,
    /// The names the note mentions: what connects it to the notes that
    /// mention them too (the second retrieval hop walks them).
    #[serde(default)]
    pub names: Vec<String>,
    /// The words of its longer names that it never writes alone ("Weber"
    /// of "Dr Weber"): they connect it only to notes that write them alone.
    #[serde(default)]
    pub name_parts: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChunkInfo {
    pub chunk_id: String,
    pub ord: usize,
    pub section: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EdgeInfo {
    pub edge_id: String,
    /// The chunk that states the edge.
    pub source_id: String,
    /// A note or chunk id, or the raw link title while unresolved.
    pub target_id: String,
    pub target_section: Option<String>,
    /// The note that owns (wrote) the edge.
    pub note_id: String,
    pub kind: String,
    /// `explicit`, `smart`, `rule` or `structure`.
    pub provenance: String,
    pub rule_id: String,
    pub confidence: f64,
    pub resolved: bool,
}

/// `GET /notes/{id}`: the note, its chunks, and its edges in and out
/// (structure edges between its own chunks are left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NoteResponse {
    pub note: NoteInfo,
    pub chunks: Vec<ChunkInfo>,
    pub edges_out: Vec<EdgeInfo>,
    pub edges_in: Vec<EdgeInfo>,
}

/// `GET /notes/{id}`: which note.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Path)]
pub struct NoteKey {
    /// note id, vault path or title
    pub id: String,
}

/// `GET /graph/neighbors`: the notes within `hops` links of a note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
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

/// `POST /ingest/analyze`: for a draft, the notes it should link.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    /// The draft's Markdown.
    pub text: String,
    #[serde(default)]
    pub title: Option<String>,
    /// The draft's type (default: detected from its keywords, else the default type).
    #[serde(default, rename = "type")]
    pub note_type: Option<String>,
    /// Number of suggestions (default 8).
    #[serde(default)]
    pub k: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LinkSuggestion {
    pub note_id: String,
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The edge kind to use, from the type-pair matrix (else `related_to`).
    pub kind: String,
    /// Other kinds the matrix names as typical for this pair.
    pub typical: Vec<String>,
    /// The text to paste: `[[rel:kind Title]]`, or `[[Title]]` when the
    /// matrix derives the kind itself.
    pub link: String,
    pub score: f64,
    /// Why: the draft names the note, or its content matches.
    pub reason: String,
    /// True when the draft already links the note.
    pub linked: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AnalyzeResponse {
    #[serde(rename = "type")]
    pub note_type: String,
    pub suggestions: Vec<LinkSuggestion>,
    /// The edge kinds of the vocabulary that fit the draft's type.
    pub kinds: Vec<String>,
}

/// `POST /ingest/save`: writes a note into the vault and indexes it.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct SaveRequest {
    /// The note's title; the file name is slugified from it.
    pub title: String,
    /// The Markdown body. If it starts with a frontmatter block, it is
    /// written as it is; otherwise a frontmatter with title, type and tags
    /// is added.
    pub text: String,
    /// The note type, e.g. `concept`, `decision`, `experience`.
    #[serde(default, rename = "type")]
    pub note_type: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// A vault-relative folder (created if missing); default: the vault root.
    #[serde(default)]
    pub folder: Option<String>,
    /// Replace an existing file of the same name (default false: an existing
    /// file is an error and stays untouched).
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SaveResponse {
    pub note_id: String,
    /// Vault-relative path of the written file.
    pub path: String,
    /// False when an existing file was replaced.
    pub created: bool,
    pub sync: crate::api::SyncSummary,
}

/// `mindnet chain`: a note's causes and effects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
pub struct ChainRequest {
    /// The note's title or vault path.
    pub note: String,
    #[serde(default = "both")]
    pub direction: crate::api::Direction,
    /// Steps each way (1 to 6, default 3).
    #[serde(default)]
    pub hops: Option<usize>,
    /// Read the files even when an index exists.
    #[serde(default)]
    pub files: bool,
}

fn both() -> crate::api::Direction {
    crate::api::Direction::Both
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChainNode {
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The kind read from the parent.
    pub kind: String,
    /// The same edge read from cause to effect.
    pub forward_kind: String,
    /// Already on this branch (a cycle): not expanded again.
    pub repeated: bool,
    #[schema(no_recursion)]
    pub children: Vec<ChainNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChainResponse {
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub causes: Vec<ChainNode>,
    pub effects: Vec<ChainNode>,
}

/// `read_note`: a note as its file holds it, one section or whole.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ReadNoteRequest {
    /// The note's id, vault path (with or without `.md`), title or alias.
    pub note: String,
    /// A heading of the note: only that section (with its subsections).
    #[serde(default)]
    pub section: Option<String>,
}

/// One link of a note, with the note at its other end named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NoteLink {
    pub kind: String,
    /// The note at the other end; the raw link title while unresolved.
    pub note_id: String,
    pub title: String,
    /// Empty while unresolved.
    pub path: String,
    /// The heading the link points at, if any.
    pub section: Option<String>,
    pub provenance: String,
    pub resolved: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ReadNoteResponse {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub status: String,
    pub path: String,
    /// The section that was asked for, as its heading reads.
    pub section: Option<String>,
    /// The file's text (frontmatter included), or the section's.
    pub text: String,
    /// Every heading of the note, in order: what `section` can name.
    pub headings: Vec<String>,
    /// Links this note makes (structure edges left out).
    pub links_out: Vec<NoteLink>,
    /// Links other notes make to this one.
    pub links_in: Vec<NoteLink>,
}

/// `recent_changes`: the notes whose files changed within a window.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RecentRequest {
    /// How far back: `30m`, `24h`, `7d`, `2w`, or a date or time
    /// (`2026-11-30`, `2026-11-30T08:00:00Z`). Default `7d`.
    #[serde(default)]
    pub since: Option<String>,
    /// At most this many notes, newest first (1 to 500, default 20).
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RecentNote {
    pub path: String,
    /// The indexed note's title, else the file name.
    pub title: String,
    /// Empty while the file is not indexed yet.
    pub note_id: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The file's modification time (RFC 3339, UTC).
    pub modified: String,
    /// Whether the index holds this version of the file.
    pub indexed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RecentResponse {
    /// The window's start (RFC 3339, UTC).
    pub since: String,
    /// How many notes changed in the window (`notes` holds at most `limit`).
    pub total: usize,
    pub notes: Vec<RecentNote>,
}

/// A page of the indexed notes, in path order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ListNotesRequest {
    /// How many notes to skip.
    #[serde(default)]
    pub offset: usize,
    /// 1 to 1000 (default 200).
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NoteSummary {
    pub note_id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub note_type: String,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ListNotesResponse {
    pub total: usize,
    pub notes: Vec<NoteSummary>,
    /// The offset of the next page, if there is one.
    pub next_offset: Option<usize>,
}
