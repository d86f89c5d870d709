//! `delete_note`: a note goes into the vault's `.trash/` folder (what
//! Obsidian's "move to Obsidian trash" does, so the user can take it back;
//! `.trash` is hidden and never indexed), and leaves the index before the
//! answer returns. The answer names the notes whose links now lead
//! nowhere, so an assistant can mend them in its next call.

use crate::changes::ChangeKind;
use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::writes::{checked_file, current_bytes};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_core::Provenance;
use mindnet_store::Store;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use utoipa::ToSchema;

/// Obsidian's trash folder, relative to the vault.
const TRASH: &str = ".trash";

/// Moves a note into the vault's trash.
pub struct DeleteNoteOp;

impl Operation for DeleteNoteOp {
    type Request = DeleteNoteRequest;
    type Response = DeleteNoteResponse;
    const NAME: &'static str = "delete_note";
    const ABOUT: &'static str = "Move a note into the vault's .trash folder, out of the index, and name the notes that linked it.";
    const EXAMPLE: &'static str = r#"{"note": "Excel-Makros Sammlung"}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/delete_note");
    const FAILS: &'static [ErrorCode] = &[
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::Unprocessable,
    ];
    const TOOL: Option<Tool<DeleteNoteRequest>> = Some(Tool::new(
        "delete_note",
        "Delete a note",
        "Moves one note of the user's vault into its `.trash` folder (the user can restore it \
            from there, as in Obsidian) and out of the index. The answer lists the notes whose \
            links to it now lead nowhere. Delete only when the user asked for it.",
    ));

    fn run(ws: &Workspace, req: &DeleteNoteRequest) -> Result<DeleteNoteResponse, AppError> {
        delete_note(ws, req)
    }
}

// The request of `delete_note`. (A plain comment: a doc comment would
// become the tool's schema description.)
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct DeleteNoteRequest {
    /// The note's title, alias, vault path or id.
    pub note: String,
    /// The note's version as read_note gave it: refused if the file changed since.
    #[serde(default)]
    pub version: Option<String>,
}

/// A note that linked the deleted one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LinkingNote {
    pub note_id: String,
    pub title: String,
    pub path: String,
    /// How many of its links pointed at the deleted note.
    pub links: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeleteNoteResponse {
    pub note_id: String,
    pub title: String,
    /// Where the note was, vault-relative.
    pub path: String,
    /// Where it is now, vault-relative (inside `.trash/`).
    pub trashed: String,
    /// The notes whose links to it now lead nowhere, by path.
    pub linked_from: Vec<LinkingNote>,
}

fn delete_note(ws: &Workspace, req: &DeleteNoteRequest) -> Result<DeleteNoteResponse, AppError> {
    let vault = ws.settings().require_vault()?;
    let _writing = ws.writing();
    let (state, linked_from) = {
        let store = ws.read();
        let state = find_note(&*store, &req.note)?;
        let linked_from = linking_notes(&*store, &state.note_id)?;
        (state, linked_from)
    };
    let from = match &req.version {
        Some(v) => current_bytes(vault, &state.path, Some(v))?.0,
        None => checked_file(vault, &state.path)?,
    };
    let trashed = free_place(vault, &state.path);
    let to = vault.join(&trashed);
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| AppError::internal(format!("{}: cannot create it: {e}", dir.display())))?;
    }
    std::fs::rename(&from, &to).map_err(|e| {
        AppError::internal(format!("{}: cannot move it to {trashed}: {e}", state.path))
    })?;
    crate::changes::record(ws.settings(), &state.path, ChangeKind::Deleted, None);
    for dir in [from.parent(), to.parent()].into_iter().flatten() {
        mindnet_core::file::sync_folder(dir);
    }
    // The path is gone: the sync deletes the note and re-plans the notes
    // whose links named it, which now lead nowhere.
    ws.sync_paths(vec![state.path.clone()])?;
    Ok(DeleteNoteResponse {
        note_id: state.note_id,
        title: state.title,
        path: state.path,
        trashed,
        linked_from,
    })
}

/// The other notes with a written link to `id` (a mention or an edge a
/// rule derived from a link is no link of its own), by path, each with its
/// number of such links.
fn linking_notes(store: &dyn Store, id: &str) -> Result<Vec<LinkingNote>, AppError> {
    let edges = store.note_edges(id)?;
    let catalog = store.catalog()?;
    let mut by_note: BTreeMap<&str, usize> = BTreeMap::new();
    let written = edges
        .incoming
        .iter()
        .filter(|e| e.note_id != id && e.provenance == Provenance::Explicit);
    for e in written {
        *by_note.entry(e.note_id.as_str()).or_default() += 1;
    }
    let mut out: Vec<LinkingNote> = by_note
        .into_iter()
        .filter_map(|(note, links)| {
            let n = catalog.get(note)?;
            Some(LinkingNote {
                note_id: n.note_id.clone(),
                title: n.title.clone(),
                path: n.path.clone(),
                links,
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// A place in the trash for `rel` that holds nothing yet: its own path
/// there, or with ` 1`, ` 2`, … before `.md`, as Obsidian names doubles.
fn free_place(vault: &Path, rel: &str) -> String {
    let base = format!("{TRASH}/{rel}");
    if !vault.join(&base).exists() {
        return base;
    }
    let stem = mindnet_core::lookup::without_md(&base);
    (1..)
        .map(|n| format!("{stem} {n}.md"))
        .find(|p| !vault.join(p).exists())
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::free_place;

    #[test]
    fn a_trashed_name_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        assert_eq!(free_place(v, "a/b.md"), ".trash/a/b.md");
        std::fs::create_dir_all(v.join(".trash/a")).unwrap();
        std::fs::write(v.join(".trash/a/b.md"), "x").unwrap();
        assert_eq!(free_place(v, "a/b.md"), ".trash/a/b 1.md");
        std::fs::write(v.join(".trash/a/b 1.md"), "x").unwrap();
        assert_eq!(free_place(v, "a/b.md"), ".trash/a/b 2.md");
    }
}
