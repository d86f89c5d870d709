//! `save`: writes a note into the vault (slugified name, only inside the
//! vault, atomic, never overwriting unless asked) and indexes it before
//! answering.

use crate::changes::ChangeKind;
use crate::draft::{folder_parts, inside_vault};
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::slugify;
use crate::writes::{current_bytes, findings_for, replace};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_ingest::note_bytes::{NoteBytes, version_of};
use mindnet_ingest::scan::rel_path;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Write a new note into the vault and index it before answering.
pub struct SaveOp;

impl Operation for SaveOp {
    type Request = SaveRequest;
    type Response = SaveResponse;
    const NAME: &'static str = "save";
    const ABOUT: &'static str = "Write a new note into the vault and index it before answering.";
    const EXAMPLE: &'static str = r#"{"title": "Zitronenbaum im Winter", "text": "Der Zitronenbaum überwintert hell und kühl.", "type": "experience", "tags": ["garten"]}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/ingest/save");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::Conflict, ErrorCode::Unprocessable];
    const TOOL: Option<Tool<SaveRequest>> = Some(Tool::new(
        "write_note",
        "Write a new note",
        "Creates a Markdown note in the user's vault and indexes it before \
            answering, so search finds it at once. The file name comes from the title; the note \
            is never written outside the vault, and an existing note is only replaced with \
            `overwrite: true`. Write only when the user asked for it.",
    ));

    fn run(ws: &Workspace, req: &SaveRequest) -> Result<SaveResponse, AppError> {
        save(ws, req)
    }
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
    /// With `overwrite`: the version of the file being replaced, as
    /// read_note gave it; refused if the file changed since.
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SaveResponse {
    pub note_id: String,
    /// Vault-relative path of the written file.
    pub path: String,
    /// False when an existing file was replaced.
    pub created: bool,
    /// The file's version, for a later write.
    pub version: String,
    /// What the linter finds in the note (links to missing notes, split
    /// spellings, type rules), to mend in the next call.
    pub findings: Vec<crate::ops::lint::Finding>,
    pub sync: crate::api::SyncSummary,
}

/// Writes the note, then indexes the vault; the response names the
/// note's id in the index.
fn save(ws: &Workspace, req: &SaveRequest) -> Result<SaveResponse, AppError> {
    let title = req.title.trim();
    if title.is_empty() || title.contains('\n') {
        return Err(AppError::unprocessable(
            "`title` must be one non-empty line",
        ));
    }
    let slug = slugify(title);
    if slug.is_empty() {
        return Err(AppError::unprocessable(format!(
            "`title` {title:?} leaves no usable file name; use letters or digits"
        )));
    }
    let vault = ws.settings().require_vault()?;
    let root = vault
        .canonicalize()
        .map_err(|e| AppError::internal(format!("{}: {e}", vault.display())))?;
    let parts = folder_parts("folder", req.folder.as_deref().unwrap_or(""))?;
    let dir = inside_vault(&root, &parts)?;
    let file = dir.join(format!("{slug}.md"));
    let path = rel_path(&root, &file);
    let _writing = ws.writing();
    let old = match std::fs::symlink_metadata(&file) {
        Ok(m) if m.file_type().is_symlink() || !m.is_file() => {
            return Err(AppError::unprocessable(format!(
                "{}: exists and is not a plain file; not touched",
                file.display()
            )));
        }
        Ok(_) if !req.overwrite => {
            return Err(AppError::conflict(format!(
                "{path}: a note of this name exists; give `overwrite: true` to replace it"
            )));
        }
        Ok(_) => Some(current_bytes(&root, &path, req.version.as_deref())?.1),
        Err(_) if req.version.is_some() => {
            return Err(AppError::conflict(format!(
                "{path}: no such note any more; `version` names a file that is gone"
            )));
        }
        Err(_) => None,
    };
    let existed = old.is_some();
    let text = note_text(req, title);
    // A replaced note keeps its line ends and byte-order mark where its
    // bytes show them; a file that mixes them gets the text as given.
    let kept = old.clone().and_then(|b| NoteBytes::new(b).ok());
    let new = kept.map_or_else(|| text.clone().into_bytes(), |n| n.encode(&text));
    replace(&file, &path, old.as_deref().unwrap_or_default(), &new)?;
    let change = if existed {
        ChangeKind::Edited
    } else {
        ChangeKind::Created
    };
    crate::changes::record(ws.settings(), &path, change, None);
    let sync = ws.sync_paths(vec![path.clone()])?;
    let note_id = ws
        .read()
        .catalog()?
        .by_path(&path)
        .map(|n| n.note_id.clone())
        .ok_or_else(|| {
            let why = sync
                .skipped
                .iter()
                .find(|s| s.path == path)
                .map_or("it was not indexed".to_string(), |s| s.reason.clone());
            AppError::unprocessable(format!("{path}: written, but {why}"))
        })?;
    Ok(SaveResponse {
        note_id,
        version: version_of(&new),
        findings: findings_for(ws.settings(), std::slice::from_ref(&path)),
        path,
        created: !existed,
        sync,
    })
}

fn note_text(req: &SaveRequest, title: &str) -> String {
    if req.text.starts_with("---\n") || req.text.starts_with("---\r\n") {
        return req.text.clone();
    }
    let mut s = String::from("---\n");
    s += &format!("title: {}\n", yaml_str(title));
    if let Some(t) = &req.note_type {
        s += &format!("type: {}\n", yaml_str(t.trim()));
    }
    if !req.tags.is_empty() {
        let tags: Vec<String> = req.tags.iter().map(|t| yaml_str(t.trim())).collect();
        s += &format!("tags: [{}]\n", tags.join(", "));
    }
    s += "---\n\n";
    s += &req.text;
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// A YAML scalar: JSON's double-quoted strings are valid YAML.
fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}
