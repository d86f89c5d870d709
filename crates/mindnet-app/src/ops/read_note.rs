//! `read_note`: a note as its file holds it (the file is the truth; the
//! index may lag behind it by one sync), whole or one section, with the
//! links it makes and receives, each with the note at its other end named.

use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::sections::find_section;
use crate::{AppError, ErrorCode, Workspace};
use mindnet_core::Edge;
use mindnet_core::ids::note_of;
use mindnet_ingest::note_bytes::version_of;
use mindnet_ingest::scan::SourceFile;
use mindnet_ingest::source::{decode, read_source};
use mindnet_store::Catalog;
use serde::{Deserialize, Serialize};
use std::path::Path;
use utoipa::ToSchema;

/// A note as its file holds it, whole or one section, with its links in and out.
pub struct ReadNoteOp;

impl Operation for ReadNoteOp {
    type Request = ReadNoteRequest;
    type Response = ReadNoteResponse;
    const NAME: &'static str = "read_note";
    const ABOUT: &'static str =
        "A note as its file holds it, whole or one section, with its links in and out.";
    const EXAMPLE: &'static str = r#"{"note": "Qdrant als Vektordatenbank", "section": "Kontext"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/read_note");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::NotFound];
    const TOOL: Option<Tool<ReadNoteRequest>> = Some(Tool::new(
        "read_note",
        "Read a note",
        "The full text of one note as its file holds it (frontmatter included), or \
            only one section of it, with the links it makes and the links other notes make to it. \
            Name the note by title, alias, vault path or id, as search returns them.",
    ));

    fn run(ws: &Workspace, req: &ReadNoteRequest) -> Result<ReadNoteResponse, AppError> {
        read_note(ws, req)
    }
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
    /// The version of the file (a hash of its bytes): give it to a write
    /// (`edit_note`, `move_note`, …) and the write is refused if the file
    /// changed since.
    pub version: String,
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

/// A note's file text (frontmatter included), or one section of it,
/// with the links it makes and receives.
fn read_note(ws: &Workspace, req: &ReadNoteRequest) -> Result<ReadNoteResponse, AppError> {
    let vocab = &ws.config().vocab;
    let (state, links_out, links_in) = {
        let store = ws.read();
        let state = find_note(&*store, &req.note)?;
        let catalog = store.catalog()?;
        let id = &state.note_id;
        let edges = store.note_edges(id)?;
        let out = unique(
            edges
                .out
                .iter()
                .filter(|e| !vocab.is_structural(&e.kind))
                .map(|e| link(catalog, e, note_of(&e.target_id)))
                .collect(),
        );
        let inc = unique(
            edges
                .incoming
                .iter()
                .filter(|e| e.note_id != *id && !vocab.is_structural(&e.kind))
                .map(|e| link(catalog, e, &e.note_id))
                .collect(),
        );
        (state, out, inc)
    };
    let (text, version) = note_file(ws, &state.path)?;
    let parsed = mindnet_ingest::parse::parse(&text);
    let headings: Vec<String> = parsed.headings.iter().map(|h| h.text.clone()).collect();
    let (section, text) = match &req.section {
        None => (None, text),
        Some(wanted) => {
            let s = find_section(&text, &parsed.headings, wanted).map_err(|why| {
                AppError::bad_request(format!("`section`: {}: {why}", state.path))
            })?;
            (Some(s.heading), text[s.range].trim_end().to_string())
        }
    };
    Ok(ReadNoteResponse {
        note_id: state.note_id,
        title: state.title,
        note_type: state.note_type,
        status: state.status.as_str().to_string(),
        path: state.path,
        version,
        section,
        text,
        headings,
        links_out,
        links_in,
    })
}

/// The text of a vault file the index knows, read only inside the vault,
/// and the version of its bytes.
fn note_file(ws: &Workspace, rel: &str) -> Result<(String, String), AppError> {
    let vault = ws.settings().require_vault()?;
    let file = SourceFile {
        rel_path: rel.to_string(),
        abs_path: vault.join(rel),
    };
    inside(vault, &file)?;
    let max = ws.settings().max_note_bytes;
    let len = std::fs::metadata(&file.abs_path).map_or(0, |m| m.len());
    if len > max {
        // read_source names the limit and the flag that raises it.
        return Err(read_source(&file, max).err().map_or_else(
            || AppError::not_found(rel),
            |w| AppError::unprocessable(w.to_string()),
        ));
    }
    let bytes = std::fs::read(&file.abs_path)
        .map_err(|e| AppError::not_found(format!("{rel}: cannot read it: {e}")))?;
    let version = version_of(&bytes);
    decode(&file, bytes)
        .map(|s| (s.text, version))
        .map_err(|w| AppError::not_found(w.to_string()))
}

/// Links by title and kind, each once: several chunks of one note often
/// state the same link, and a reader wants it once.
fn unique(mut links: Vec<NoteLink>) -> Vec<NoteLink> {
    let key = |l: &NoteLink| {
        (
            l.title.clone(),
            l.kind.clone(),
            l.note_id.clone(),
            l.section.clone(),
            l.provenance.clone(),
            l.resolved,
        )
    };
    links.sort_by_key(key);
    links.dedup();
    links
}

fn link(catalog: &Catalog, e: &Edge, other: &str) -> NoteLink {
    let known = e.resolved.then(|| catalog.get(other)).flatten();
    NoteLink {
        kind: e.kind.clone(),
        note_id: other.to_string(),
        title: known.map_or_else(|| other.to_string(), |n| n.title.clone()),
        path: known.map(|n| n.path.clone()).unwrap_or_default(),
        section: e.target_section.clone(),
        provenance: e.provenance.as_str().to_string(),
        resolved: e.resolved,
    }
}

/// Refuses a file whose real path (after symlinks) is outside the vault.
fn inside(vault: &Path, file: &SourceFile) -> Result<(), AppError> {
    let missing = |e: std::io::Error| {
        AppError::not_found(format!(
            "{}: indexed, but the file cannot be read ({e}); the next sync removes it",
            file.rel_path
        ))
    };
    let root = vault.canonicalize().map_err(missing)?;
    let real = file.abs_path.canonicalize().map_err(missing)?;
    if real.starts_with(&root) {
        Ok(())
    } else {
        Err(AppError::forbidden(format!(
            "{}: leads outside the vault; not read",
            file.rel_path
        )))
    }
}
