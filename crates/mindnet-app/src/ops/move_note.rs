//! `move_note`: renames a note or moves it into another folder, and
//! rewrites every link to it in the vault as Obsidian does ("Automatically
//! update internal links"): wikilinks, embeds, heading and block links,
//! aliases, table-escaped pipes, frontmatter properties and Markdown links,
//! each in the form it was written (`mindnet_ingest::relink`). The note
//! keeps its id (a path-derived id is written into its frontmatter as
//! `id:`), so its edges, feedback and history follow it.
//!
//! A kill during the move is finished at the next start from the move
//! journal (`move_journal.rs`), written before any file is.

use crate::changes::ChangeKind;
use crate::draft::{folder_parts, inside_vault};
use crate::find::find_note;
use crate::move_journal::{JournalFile, MoveJournal};
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::ops::lint::Finding;
use crate::writes::{Current, findings_for, read_for_change, replace};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_core::ids::note_id_for_path;
use mindnet_ingest::note_bytes::{NoteBytes, version_of};
use mindnet_ingest::relink::{Move, percent_encode, relinked};
use mindnet_ingest::resolve::Resolver;
use serde::{Deserialize, Serialize};
use std::path::Path;
use utoipa::ToSchema;

/// Renames or moves a note and rewrites every link to it.
pub struct MoveNoteOp;

impl Operation for MoveNoteOp {
    type Request = MoveNoteRequest;
    type Response = MoveNoteResponse;
    const NAME: &'static str = "move_note";
    const ABOUT: &'static str =
        "Rename a note or move it into another folder, with every link to it rewritten.";
    const EXAMPLE: &'static str = r#"{"note": "Jeden Morgen laufen", "to": "Morgens laufen"}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/move_note");
    const FAILS: &'static [ErrorCode] = &[
        ErrorCode::BadRequest,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::Unprocessable,
    ];
    const TOOL: Option<Tool<MoveNoteRequest>> = Some(Tool::new(
        "move_note",
        "Rename or move a note",
        "Renames a note of the user's vault or moves it into another folder (`to`: a \
            vault-relative path, `.md` optional; a bare name renames it in place), and rewrites \
            every link to it in every other note the way Obsidian does, keeping headings, \
            blocks, aliases and embeds. The note keeps its id and its links. The answer lists \
            the notes whose links changed. Move only when the user asked for it.",
    ));

    fn run(ws: &Workspace, req: &MoveNoteRequest) -> Result<MoveNoteResponse, AppError> {
        move_note(ws, req)
    }
}

// The request of `move_note`. (A plain comment: a doc comment would become
// the tool's schema description.)
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct MoveNoteRequest {
    /// The note's title, alias, vault path or id.
    pub note: String,
    /// The new vault-relative path (`.md` optional); a bare name renames
    /// the note in its folder.
    pub to: String,
    /// The note's version as read_note gave it: refused if the file changed since.
    #[serde(default)]
    pub version: Option<String>,
}

/// A note whose links were rewritten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RelinkedNote {
    pub path: String,
    /// How many of its links changed.
    pub links: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MoveNoteResponse {
    pub note_id: String,
    /// Where the note was, vault-relative.
    pub from: String,
    /// Where it is now, vault-relative.
    pub path: String,
    /// The moved file's version.
    pub version: String,
    /// The notes whose links were rewritten (the moved note itself when its
    /// own links had to follow it).
    pub relinked: Vec<RelinkedNote>,
    /// Notes that link to it but could not be rewritten, and why (a file
    /// changed during the move, invalid UTF-8, mixed line ends).
    pub not_relinked: Vec<String>,
    /// What the linter finds in the moved and the relinked notes.
    pub findings: Vec<Finding>,
}

/// A planned rewrite of one linking note.
struct Rewrite {
    path: String,
    old: Vec<u8>,
    new: Vec<u8>,
    links: usize,
}

fn move_note(ws: &Workspace, req: &MoveNoteRequest) -> Result<MoveNoteResponse, AppError> {
    let vault = ws.settings().require_vault()?;
    let data = &ws.settings().data;
    let _writing = ws.writing();
    let (state, entries) = {
        let store = ws.read();
        let state = find_note(&*store, &req.note)?;
        let mut entries = mindnet_index::known_notes(store.catalog()?.iter());
        entries.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
        (state, entries)
    };
    let to = destination(&state.path, &req.to)?;
    let root = vault
        .canonicalize()
        .map_err(|e| AppError::internal(format!("{}: {e}", vault.display())))?;
    let folder: Vec<String> = to.split('/').map(str::to_string).collect();
    let folder = &folder[..folder.len() - 1];
    if std::fs::symlink_metadata(vault.join(&to)).is_ok() {
        return Err(AppError::conflict(format!(
            "`to`: {to} exists; move the note elsewhere or move that one first"
        )));
    }
    let moved = read_for_change(vault, &state.path, req.version.as_deref())?;
    let index = entries
        .iter()
        .position(|e| e.rel_path == state.path)
        .ok_or_else(|| AppError::not_found(format!("{}: not in the index", state.path)))?;
    let before = Resolver::new(entries.clone());
    let mut after_entries = entries;
    after_entries[index].rel_path = to.clone();
    let after = Resolver::new(after_entries);
    let mv = Move {
        before: &before,
        after: &after,
        note: index,
    };
    let (own, own_links) = own_text(&moved, &state.note_id, &to, &mv)?;
    let (rewrites, not_relinked) = plan_rewrites(vault, &state.path, &to, &mv);
    inside_vault(&root, folder)?;
    let journal = MoveJournal {
        from: state.path.clone(),
        to: to.clone(),
        files: std::iter::once(JournalFile {
            path: to.clone(),
            old: String::new(),
            new: String::from_utf8_lossy(&own).into_owned(),
        })
        .chain(rewrites.iter().map(|r| JournalFile {
            path: r.path.clone(),
            old: version_of(&r.old),
            new: String::from_utf8_lossy(&r.new).into_owned(),
        }))
        .collect(),
    };
    journal.write(data)?;
    let outcome = carry_out(vault, &moved, &to, &own, rewrites, not_relinked);
    let _ = std::fs::remove_file(crate::move_journal::path(data));
    let (mut relinked, not_relinked) = outcome?;
    crate::changes::record(ws.settings(), &to, ChangeKind::Moved, Some(&state.path));
    for r in &relinked {
        crate::changes::record(ws.settings(), &r.path, ChangeKind::Edited, None);
    }
    if own_links > 0 {
        relinked.insert(
            0,
            RelinkedNote {
                path: to.clone(),
                links: own_links,
            },
        );
    }
    let mut paths: Vec<String> = vec![state.path.clone(), to.clone()];
    paths.extend(relinked.iter().map(|r| r.path.clone()));
    ws.sync_paths(paths.clone())?;
    let note_id = ws
        .read()
        .catalog()?
        .by_path(&to)
        .map_or(state.note_id, |n| n.note_id.clone());
    Ok(MoveNoteResponse {
        note_id,
        from: state.path,
        version: version_of(&own),
        findings: findings_for(ws.settings(), &paths[1..]),
        path: to,
        relinked,
        not_relinked,
    })
}

/// The vault path `to` names for the note now at `from`: `.md` added, a
/// bare name in the note's own folder; never outside the vault, hidden, or
/// with a character a link cannot hold.
fn destination(from: &str, to: &str) -> Result<String, AppError> {
    let to = to.trim();
    let bad = |why: &str| AppError::unprocessable(format!("`to` {to:?}: {why}"));
    let parts = folder_parts("to", to)?;
    let Some(name) = parts.last() else {
        return Err(bad("give a name or a vault-relative path"));
    };
    if let Some(c) = name.chars().find(|c| "[]#^|:*?\"<>".contains(*c)) {
        return Err(bad(&format!(
            "a note's name cannot hold `{c}` (links could not name it)"
        )));
    }
    let name = if name.to_ascii_lowercase().ends_with(".md") {
        name.clone()
    } else {
        format!("{name}.md")
    };
    let folder = if parts.len() == 1 {
        from.rsplit_once('/').map_or("", |(d, _)| d).to_string()
    } else {
        parts[..parts.len() - 1].join("/")
    };
    let path = if folder.is_empty() {
        name
    } else {
        format!("{folder}/{name}")
    };
    if path == from {
        return Err(AppError::bad_request(format!(
            "`to`: the note is already at {path}"
        )));
    }
    Ok(path)
}

/// The moved note's new bytes: its own links rewritten where they would
/// lead elsewhere from its new folder, and its id written into its
/// frontmatter when it came from the old path.
fn own_text(
    moved: &Current,
    note_id: &str,
    to: &str,
    mv: &Move<'_>,
) -> Result<(Vec<u8>, usize), AppError> {
    let mut text = moved.note.text.clone();
    let mut links = 0;
    if let Some(r) = relinked(&text, &moved.rel, to, mv) {
        text = r.text;
        links = r.links;
    }
    if note_id == note_id_for_path(&moved.rel) {
        let mut fields = serde_json::Map::new();
        fields.insert("id".into(), note_id.into());
        text = crate::fields::set_fields(&text, &fields)?;
    }
    Ok((moved.note.encode(&text), links))
}

/// Every other note whose links change, with its new bytes; and the notes
/// that link but cannot be rewritten. Only files that hold one of the two
/// file names (as written or percent-encoded, any case) are parsed.
fn plan_rewrites(vault: &Path, from: &str, to: &str, mv: &Move<'_>) -> (Vec<Rewrite>, Vec<String>) {
    let stem = |p: &str| mindnet_core::lookup::file_name(p).to_lowercase();
    let mut names = vec![stem(from), stem(to)];
    names.extend([percent_encode(&stem(from)), percent_encode(&stem(to))]);
    names.sort();
    names.dedup();
    let mut rewrites = Vec::new();
    let mut refused = Vec::new();
    for e in mv.before.notes().iter().filter(|e| e.rel_path != from) {
        let Ok(bytes) = std::fs::read(vault.join(&e.rel_path)) else {
            continue;
        };
        let lower = String::from_utf8_lossy(&bytes).to_lowercase();
        if !names.iter().any(|n| lower.contains(n.as_str())) {
            continue;
        }
        match rewrite(&e.rel_path, bytes, mv) {
            Ok(Some(r)) => rewrites.push(r),
            Ok(None) => {}
            Err(why) => refused.push(why),
        }
    }
    (rewrites, refused)
}

/// One note's rewrite, if its links change.
fn rewrite(path: &str, bytes: Vec<u8>, mv: &Move<'_>) -> Result<Option<Rewrite>, String> {
    let note = match NoteBytes::new(bytes.clone()) {
        Ok(n) => n,
        Err(e) => {
            // Only a note that links the moved one is worth naming.
            let lossy = String::from_utf8_lossy(&bytes).replace("\r\n", "\n");
            return match relinked(&lossy, path, path, mv) {
                Some(_) => Err(format!("{path}: links not rewritten: {e}")),
                None => Ok(None),
            };
        }
    };
    Ok(relinked(&note.text, path, path, mv).map(|r| Rewrite {
        path: path.to_string(),
        new: note.encode(&r.text),
        old: note.bytes,
        links: r.links,
    }))
}

/// Writes the moved note at its new place, removes the old one, and
/// rewrites the linking notes; a note changed meanwhile is planned again
/// from its new bytes (twice at most), else reported.
fn carry_out(
    vault: &Path,
    moved: &Current,
    to: &str,
    own: &[u8],
    rewrites: Vec<Rewrite>,
    mut not_relinked: Vec<String>,
) -> Result<(Vec<RelinkedNote>, Vec<String>), AppError> {
    let dest = vault.join(to);
    replace(&dest, to, b"", own)?;
    if std::fs::read(&moved.file).ok().as_deref() != Some(&moved.note.bytes[..]) {
        let _ = std::fs::remove_file(&dest);
        return Err(crate::writes::conflict(
            &moved.rel,
            &std::fs::read(&moved.file).unwrap_or_default(),
        ));
    }
    std::fs::remove_file(&moved.file)
        .map_err(|e| AppError::internal(format!("{}: cannot remove it: {e}", moved.rel)))?;
    if let Some(dir) = moved.file.parent() {
        mindnet_core::file::sync_folder(dir);
    }
    let mut relinked = Vec::new();
    for r in rewrites {
        let file = vault.join(&r.path);
        match replace(&file, &r.path, &r.old, &r.new) {
            Ok(()) => relinked.push(RelinkedNote {
                path: r.path,
                links: r.links,
            }),
            Err(e) => not_relinked.push(format!("{}: {}", r.path, e.message)),
        }
    }
    relinked.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((relinked, not_relinked))
}

#[cfg(test)]
mod tests {
    use super::destination;

    #[test]
    fn destinations() {
        assert_eq!(destination("a/X.md", "Y").unwrap(), "a/Y.md");
        assert_eq!(destination("a/X.md", "b/Y.md").unwrap(), "b/Y.md");
        assert_eq!(destination("X.md", "Neu Name").unwrap(), "Neu Name.md");
        assert!(destination("X.md", "../Y").is_err());
        assert!(destination("X.md", "/etc/Y").is_err());
        assert!(destination("X.md", ".obsidian/Y").is_err());
        assert!(destination("X.md", "a#b").is_err());
        assert!(destination("X.md", "X").is_err());
        assert!(destination("X.md", "").is_err());
    }
}
