//! `lint_fix`: the fixes the linter can make safely.

use crate::Settings;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The fixes the linter can make safely, as diffs; written with `write`.
pub struct LintFixOp;

impl Operation for LintFixOp {
    type Request = FixRequest;
    type Response = FixResponse;
    const NAME: &'static str = "lint_fix";
    const ABOUT: &'static str =
        "The fixes the linter can make safely, as diffs; written with `write`.";
    const EXAMPLE: &'static str = r#"{"add_inverses": true}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Files;
    const ROUTE: Route = Route::post("/lint/fix").summary(
        "`POST /lint/fix`: the fixes the linter can make safely, as diffs; with\n\
         `write: true` they are written (atomically, only into the vault, only to\n\
         files unchanged since they were read).",
    );
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<FixRequest>> = None;

    fn run(ws: &Workspace, req: &FixRequest) -> Result<FixResponse, AppError> {
        fix(ws.settings(), req)
    }

    fn run_on_files(
        settings: &Settings,
        req: &FixRequest,
    ) -> Option<Result<FixResponse, AppError>> {
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
    /// Write the changes (else only the diffs).
    #[serde(default)]
    pub write: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FileFix {
    pub path: String,
    /// Unified diff of the change.
    pub diff: String,
    /// One line per fix.
    pub fixes: Vec<String>,
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
    let vault = settings.require_vault()?;
    let config = settings.load_config()?;
    let opts = mindnet_lint::FixOptions {
        add_inverses: req.add_inverses,
        link_mentions: req.link_mentions,
    };
    let (fixes, skipped) = mindnet_lint::plan_fixes(vault, &config, &settings.load_lint()?, &opts)
        .map_err(|e| AppError::bad_request(e.to_string()))?;
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
                fixes: f.fixes.clone(),
                written,
                error,
            }
        })
        .collect();
    Ok(FixResponse { files, skipped })
}
