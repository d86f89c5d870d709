//! `lint_fix`: the fixes the linter can make safely, for the vault, one
//! note, or one finding (a note's line: what an editor's "apply" sends).
//! Written fixes are synced into the index before the answer wherever
//! there is one, so a search right after sees them.

use crate::Settings;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_ingest::note_bytes::version_of;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The fixes the linter can make safely, as diffs; written with `write`.
pub struct LintFixOp;

impl Operation for LintFixOp {
    type Request = FixRequest;
    type Response = FixResponse;
    const NAME: &'static str = "lint_fix";
    const ABOUT: &'static str = "The fixes the linter can make safely (in the vault, one note, or at one line and column), as diffs; written with `write`.";
    const EXAMPLE: &'static str = r#"{"add_inverses": true}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::FilesOrIndex;
    const ROUTE: Route = Route::post("/lint/fix").summary(
        "`POST /lint/fix`: the fixes the linter can make safely, as diffs; with\n\
         `write: true` they are written (atomically, only into the vault, only to\n\
         files unchanged since they were read) and synced into the index. `note`\n\
         (with `line` and `column`) narrows them to what an editor offers beside\n\
         a finding; `version` refuses a note changed since the preview.",
    );
    const FAILS: &'static [ErrorCode] = &[
        ErrorCode::BadRequest,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
    ];
    const TOOL: Option<Tool<FixRequest>> = None;

    fn run(ws: &Workspace, req: &FixRequest) -> Result<FixResponse, AppError> {
        let _one_writer = ws.writing();
        let answer = fix(ws.settings(), req)?;
        let written: Vec<String> = answer
            .files
            .iter()
            .filter(|f| f.written)
            .map(|f| f.path.clone())
            .collect();
        if !written.is_empty() {
            ws.sync_paths(written)?;
        }
        Ok(answer)
    }

    /// A dry run needs only the files; so does a write to a vault without
    /// an index. A write where there is an index goes through it (`run`).
    fn run_on_files(
        settings: &Settings,
        req: &FixRequest,
    ) -> Option<Result<FixResponse, AppError>> {
        if req.write && crate::open::has_index(settings) {
            return None;
        }
        Some(fix(settings, req))
    }
}

#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct FixRequest {
    /// Add the missing inverse of each causal edge to its target note.
    #[serde(default)]
    pub add_inverses: bool,
    /// Turn each note's first unlinked mention of another note into a link.
    #[serde(default)]
    pub link_mentions: bool,
    /// Only the fixes of this note (its vault-relative path).
    #[serde(default)]
    pub note: Option<String>,
    /// Only the fixes on this line of `note` (1-based).
    #[serde(default)]
    pub line: Option<usize>,
    /// With `line`: only the fix that starts in this column (1-based): one
    /// finding's fix, as the preview gave it.
    #[serde(default)]
    pub column: Option<usize>,
    /// The version of `note` the fix was previewed on: refused if the file
    /// changed since.
    #[serde(default)]
    pub version: Option<String>,
    /// Write the changes (else only the diffs).
    #[serde(default)]
    pub write: bool,
}

/// One change of a fix, where the author sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FixLine {
    /// The line it changes (1-based); `null` for an edge appended at the end.
    pub line: Option<usize>,
    /// The column where the change starts (1-based, in characters).
    pub column: Option<usize>,
    pub what: String,
}

impl std::fmt::Display for FixLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.what),
            None => f.write_str(&self.what),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FileFix {
    pub path: String,
    /// Unified diff of the change.
    pub diff: String,
    /// Each change, with its line.
    pub fixes: Vec<FixLine>,
    /// The file's version before the fix (what `version` names).
    pub version: String,
    /// Written (with `write`); `false` with `error` when the write failed.
    pub written: bool,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FixResponse {
    pub files: Vec<FileFix>,
    /// Notes that could not be fixed safely, and why.
    pub skipped: Vec<String>,
}

/// The safe fixes as diffs, written with `req.write` (each file atomically;
/// a file changed since it was read is left alone and reported).
pub(crate) fn fix(settings: &Settings, req: &FixRequest) -> Result<FixResponse, AppError> {
    // One finding's fix names its note: without it, `line` would be
    // ignored and `write` would fix the whole vault.
    if req.note.is_none() && (req.line.is_some() || req.column.is_some() || req.version.is_some()) {
        return Err(AppError::bad_request(
            "`line`, `column` and `version` need `note` (the note's vault path)",
        ));
    }
    if req.column.is_some() && req.line.is_none() {
        return Err(AppError::bad_request("`column` needs `line`"));
    }
    let vault = settings.require_vault()?;
    let config = settings.load_config()?;
    if let (Some(note), Some(v)) = (&req.note, &req.version) {
        crate::writes::current_bytes(vault, note, Some(v))?;
    }
    let opts = mindnet_lint::FixOptions {
        add_inverses: req.add_inverses,
        link_mentions: req.link_mentions,
        note: req.note.clone(),
        line: req.line,
        column: req.column,
    };
    let (fixes, skipped) = mindnet_lint::plan_fixes(vault, &config, &settings.load_lint()?, &opts)
        .map_err(|e| match e {
            mindnet_lint::FixError::NoNote(_) => AppError::not_found(e.to_string()),
            other => AppError::bad_request(other.to_string()),
        })?;
    // The plan read the file again: it must still be the version named.
    if let (Some(v), Some(f)) = (&req.version, fixes.first())
        && version_of(&f.old) != v.trim()
    {
        return Err(crate::writes::conflict(&f.path, &f.old));
    }
    let files = fixes
        .iter()
        .map(|f| {
            let (written, error) = if req.write {
                match mindnet_lint::write_fix(vault, f) {
                    Ok(()) => {
                        let edited = crate::changes::ChangeKind::Edited;
                        crate::changes::record(settings, &f.path, edited, None);
                        (true, None)
                    }
                    Err(e) => (false, Some(e.to_string())),
                }
            } else {
                (false, None)
            };
            FileFix {
                path: f.path.clone(),
                diff: mindnet_lint::unified_diff(&f.path, &f.old, &f.new),
                fixes: f.fixes.iter().map(fix_line).collect(),
                version: version_of(&f.old),
                written,
                error,
            }
        })
        .collect();
    Ok(FixResponse { files, skipped })
}

fn fix_line(f: &mindnet_lint::Fix) -> FixLine {
    let mindnet_lint::Fix { line, column, what } = f;
    FixLine {
        line: *line,
        column: *column,
        what: what.clone(),
    }
}
