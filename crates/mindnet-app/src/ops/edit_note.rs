//! `edit_note`: one change to one note (append, prepend, replace a
//! section, find and replace, set frontmatter fields), made to the file as
//! it is now and to nothing else, so a line the user typed in Obsidian a
//! moment ago survives. Written atomically, in the file's encoding, and
//! indexed before the answer; the answer carries the linter's findings for
//! the note, so an assistant sees a link it got wrong.

use crate::changes::ChangeKind;
use crate::find::find_note;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::ops::lint::Finding;
use crate::sections::find_section;
use crate::writes::{findings_for, read_for_change, write_back};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Changes one note in place.
pub struct EditNoteOp;

impl Operation for EditNoteOp {
    type Request = EditNoteRequest;
    type Response = EditNoteResponse;
    const NAME: &'static str = "edit_note";
    const ABOUT: &'static str = "Change one note in place: append, prepend, replace a section, find and replace, set frontmatter fields.";
    const EXAMPLE: &'static str = r#"{"note": "Qdrant als Vektordatenbank", "operation": "append", "content": "Nachtrag: Snapshots laufen nachts."}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/edit_note");
    const FAILS: &'static [ErrorCode] = &[
        ErrorCode::BadRequest,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::Unprocessable,
    ];
    const TOOL: Option<Tool<EditNoteRequest>> = Some(Tool::new(
        "edit_note",
        "Edit a note",
        "Changes one note of the user's vault in place, keeping everything else of the file: \
            `append` or `prepend` (after the frontmatter) `content`; `replace_section` replaces \
            the body under the heading `section` (its text, or a path `A > B`); `find_replace` \
            replaces `find` by `content` exactly `expected_replacements` times (default 1) or \
            changes nothing; `set_frontmatter` sets `fields` (null removes one). Give the \
            `version` read_note answered and a note changed since is not overwritten. The answer \
            lists the linter's findings for the note. Edit only when the user asked for it.",
    ));

    fn run(ws: &Workspace, req: &EditNoteRequest) -> Result<EditNoteResponse, AppError> {
        edit_note(ws, req)
    }
}

/// What `edit_note` does to the note.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EditOperation {
    /// `content` after the last line.
    #[default]
    Append,
    /// `content` before the first line of the body (after the frontmatter).
    Prepend,
    /// The body under the heading `section` becomes `content`.
    ReplaceSection,
    /// `find` becomes `content`, exactly `expected_replacements` times.
    FindReplace,
    /// The frontmatter's `fields` are set (null removes one).
    SetFrontmatter,
}

// The request of `edit_note`. (A plain comment: a doc comment would become
// the tool's schema description.)
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct EditNoteRequest {
    /// The note's title, alias, vault path or id.
    pub note: String,
    /// append, prepend, replace_section, find_replace or set_frontmatter.
    pub operation: EditOperation,
    /// The Markdown to add, or to put in place of the section or of `find`.
    #[serde(default)]
    pub content: String,
    /// replace_section: the heading's text, or a path `A > B` where it repeats.
    #[serde(default)]
    pub section: Option<String>,
    /// find_replace: the exact text to replace.
    #[serde(default)]
    pub find: Option<String>,
    /// find_replace: how often `find` must occur (default 1); any other
    /// count changes nothing.
    #[serde(default)]
    pub expected_replacements: Option<usize>,
    /// set_frontmatter: the fields to set; null removes a field.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub fields: Option<serde_json::Map<String, serde_json::Value>>,
    /// The note's version as read_note gave it: refused if the file changed since.
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EditNoteResponse {
    pub note_id: String,
    pub path: String,
    pub operation: EditOperation,
    /// False when the change left the file as it was (nothing written).
    pub changed: bool,
    /// find_replace: how many times `find` was replaced.
    pub replacements: usize,
    /// The file's version after the edit.
    pub version: String,
    /// What the linter finds in the note now (links to missing notes,
    /// split spellings, type rules).
    pub findings: Vec<Finding>,
}

fn edit_note(ws: &Workspace, req: &EditNoteRequest) -> Result<EditNoteResponse, AppError> {
    let vault = ws.settings().require_vault()?;
    let _writing = ws.writing();
    let path = find_note(&*ws.read(), &req.note)?.path;
    let cur = read_for_change(vault, &path, req.version.as_deref())?;
    let (text, replacements) = edited(&cur.note.text, req)
        .map_err(|why| AppError::unprocessable(format!("{path}: not changed: {why}")))?;
    let changed = text != cur.note.text;
    let version = if changed {
        let v = write_back(&cur, &text)?;
        crate::changes::record(ws.settings(), &path, ChangeKind::Edited, None);
        ws.sync_paths(vec![path.clone()])?;
        v
    } else {
        cur.note.version()
    };
    let note_id = ws
        .read()
        .catalog()?
        .by_path(&path)
        .map(|n| n.note_id.clone())
        .unwrap_or_default();
    Ok(EditNoteResponse {
        note_id,
        findings: findings_for(ws.settings(), std::slice::from_ref(&path)),
        path,
        operation: req.operation,
        changed,
        replacements,
        version,
    })
}

/// The note's text after the edit, and the number of replacements.
pub(crate) fn edited(text: &str, req: &EditNoteRequest) -> Result<(String, usize), String> {
    let content = req.content.replace("\r\n", "\n");
    let need = |field: &str| format!("`{field}` is needed for {:?}", req.operation);
    match req.operation {
        EditOperation::Append => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&line_ended(&content));
            Ok((out, 0))
        }
        EditOperation::Prepend => {
            let at = mindnet_ingest::frontmatter::split(text).body_start;
            let mut out = text.to_string();
            out.insert_str(at, &line_ended(&content));
            Ok((out, 0))
        }
        EditOperation::ReplaceSection => {
            let wanted = req.section.as_deref().ok_or_else(|| need("section"))?;
            let parsed = mindnet_ingest::parse::parse(text);
            let s = find_section(text, &parsed.headings, wanted)?;
            let mut body = String::new();
            let content = content.trim_matches('\n');
            if !content.is_empty() {
                body = format!("\n{content}\n");
            }
            if s.range.end < text.len() {
                body.push('\n');
            }
            let mut out = text.to_string();
            out.replace_range(s.body_start..s.range.end, &body);
            Ok((out, 0))
        }
        EditOperation::FindReplace => {
            let find = req
                .find
                .as_deref()
                .filter(|f| !f.is_empty())
                .ok_or_else(|| need("find"))?;
            let find = find.replace("\r\n", "\n");
            let expected = req.expected_replacements.unwrap_or(1);
            let found = text.matches(&find).count();
            if found != expected {
                return Err(format!(
                    "`find` occurs {found} times, `expected_replacements` is {expected}"
                ));
            }
            Ok((text.replace(&find, &content), found))
        }
        EditOperation::SetFrontmatter => {
            let fields = req.fields.as_ref().ok_or_else(|| need("fields"))?;
            crate::fields::set_fields(text, fields)
                .map(|t| (t, 0))
                .map_err(|e| e.message)
        }
    }
}

/// `s` ending with a line end (an empty `s` stays empty).
fn line_ended(s: &str) -> String {
    if s.is_empty() || s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, req: serde_json::Value) -> Result<String, String> {
        let mut req = req;
        req["note"] = "x".into();
        let req: EditNoteRequest = serde_json::from_value(req).unwrap();
        edited(text, &req).map(|(t, _)| t)
    }

    const NOTE: &str = "---\ntitle: X\n---\n# A\n\none\n\n## B\n\ntwo\n";

    #[test]
    fn append_and_prepend_keep_the_rest() {
        let t = edit(
            "x",
            serde_json::json!({"operation": "append", "content": "y"}),
        )
        .unwrap();
        assert_eq!(t, "x\ny\n");
        let t = edit(
            NOTE,
            serde_json::json!({"operation": "prepend", "content": "Vorweg."}),
        );
        assert_eq!(
            t.unwrap(),
            "---\ntitle: X\n---\nVorweg.\n# A\n\none\n\n## B\n\ntwo\n"
        );
    }

    #[test]
    fn a_section_body_is_replaced_up_to_the_next_heading() {
        let t = edit(
            NOTE,
            serde_json::json!({"operation": "replace_section", "section": "A", "content": "neu"}),
        );
        assert_eq!(t.unwrap(), "---\ntitle: X\n---\n# A\n\nneu\n");
        let t = edit(
            NOTE,
            serde_json::json!({"operation": "replace_section", "section": "A > B", "content": "zwei\n"}),
        );
        assert_eq!(
            t.unwrap(),
            "---\ntitle: X\n---\n# A\n\none\n\n## B\n\nzwei\n"
        );
        let t = "# A\n\nalt\n\n# C\n\nc\n";
        let r = edit(
            t,
            serde_json::json!({"operation": "replace_section", "section": "a", "content": "neu"}),
        );
        assert_eq!(r.unwrap(), "# A\n\nneu\n\n# C\n\nc\n");
    }

    #[test]
    fn find_replace_needs_the_expected_count() {
        let t = "a b a";
        let r = edit(
            t,
            serde_json::json!({"operation": "find_replace", "find": "a", "content": "c"}),
        );
        assert!(r.unwrap_err().contains("occurs 2 times"));
        let r = edit(
            t,
            serde_json::json!({"operation": "find_replace", "find": "a", "content": "c", "expected_replacements": 2}),
        );
        assert_eq!(r.unwrap(), "c b c");
        let r = edit(
            t,
            serde_json::json!({"operation": "find_replace", "content": "c"}),
        );
        assert!(r.unwrap_err().contains("`find`"));
    }
}
