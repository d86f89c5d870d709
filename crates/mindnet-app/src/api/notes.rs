//! A note, its chunks and its edges as the index holds them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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
