//! `lint`: the graph linter. It works on the files, not on the index.

use crate::Settings;
use crate::api::Lang;
use crate::operation::ToolArgs;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Check the vault's edges and links as an author: vocabulary, targets, spellings, type rules, chains.
pub struct LintOp;

impl Operation for LintOp {
    type Request = LintRequest;
    type Response = LintResponse;
    const NAME: &'static str = "lint";
    const ABOUT: &'static str = "Check the vault's edges and links as an author: vocabulary, targets, spellings, type rules, chains.";
    const EXAMPLE: &'static str = r#"{"severity": "warning"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Files;
    const ROUTE: Route = Route::post("/lint");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::NotFound];
    const TOOL: Option<Tool<LintRequest>> = Some(
        Tool::new(
            "lint",
            "Check notes for graph problems",
            "Runs the graph linter on one note or the whole vault: links to missing \
            notes, split spellings of one name, edge kinds that do not fit the note types, \
            causal cycles and gaps. Each finding names the file, line and rule.",
        )
        .with_args::<LintArgs>(),
    );

    fn run(ws: &Workspace, req: &LintRequest) -> Result<LintResponse, AppError> {
        lint(ws.settings(), req)
    }

    fn run_on_files(
        settings: &Settings,
        req: &LintRequest,
    ) -> Option<Result<LintResponse, AppError>> {
        Some(lint(settings, req))
    }
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Recommendation,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Recommendation => "recommendation",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "recommendation" => Ok(Severity::Recommendation),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(format!(
                "unknown severity `{other}` (error, warning, recommendation)"
            )),
        }
    }
}

#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct LintRequest {
    /// Only this note (its vault-relative path).
    #[serde(default)]
    pub note: Option<String>,
    /// Findings of at least this severity.
    #[serde(default)]
    pub severity: Severity,
    /// The vault's language for notes without `lang:`; default: detected
    /// from the notes.
    #[serde(default)]
    pub lang: Option<crate::api::Lang>,
    /// Each finding with its safe fix, where the linter has one (what an
    /// editor offers beside the finding; `lint_fix` writes it).
    #[serde(default)]
    pub fixes: bool,
}

/// The safe fix of one finding: `lint_fix` with the note, `line`, `column`
/// and `version` writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FindingFix {
    pub line: usize,
    pub column: usize,
    /// The change, e.g. `` `wegen` → `caused_by` ``.
    pub what: String,
    /// The version of the note's file it was planned on.
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    /// With `fixes`: the finding's safe fix, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<FindingFix>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LintResponse {
    pub notes: usize,
    /// The vault's language the messages use (a note's `lang:` wins).
    pub lang: crate::api::Lang,
    pub findings: Vec<Finding>,
    /// Files that could not be read.
    pub skipped: Vec<crate::api::Warning>,
}

impl LintResponse {
    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

/// The findings of the vault (or one note), at least `req.severity`.
pub(crate) fn lint(settings: &Settings, req: &LintRequest) -> Result<LintResponse, AppError> {
    let vault = settings.require_vault()?;
    let config = settings.load_config()?;
    let opts = mindnet_lint::LintOptions {
        lang: req.lang.map(lang),
        note: req.note.clone(),
        max_note_bytes: settings.max_note_bytes,
        fixes: req.fixes,
    };
    let report = mindnet_lint::lint_vault(vault, &config, &settings.load_lint()?, &opts)?;
    let mindnet_lint::LintReport {
        notes,
        lang: vault_lang,
        findings,
        skipped,
    } = report;
    Ok(LintResponse {
        notes,
        lang: api_lang(vault_lang),
        findings: findings
            .into_iter()
            .map(|f| {
                let mindnet_lint::Finding {
                    path,
                    line,
                    column,
                    rule,
                    severity: s,
                    message,
                    fix,
                } = f;
                Finding {
                    path,
                    line,
                    column,
                    rule: rule.to_string(),
                    severity: severity(s),
                    message,
                    fix: fix.map(finding_fix),
                }
            })
            .filter(|f| f.severity >= req.severity)
            .collect(),
        skipped: skipped.into_iter().map(Into::into).collect(),
    })
}

fn finding_fix(f: mindnet_lint::FindingFix) -> FindingFix {
    let mindnet_lint::FindingFix {
        line,
        column,
        what,
        version,
    } = f;
    FindingFix {
        line,
        column,
        what,
        version,
    }
}

fn lang(l: Lang) -> mindnet_lint::Lang {
    match l {
        Lang::De => mindnet_lint::Lang::De,
        Lang::En => mindnet_lint::Lang::En,
    }
}

fn api_lang(l: mindnet_lint::Lang) -> Lang {
    match l {
        mindnet_lint::Lang::De => Lang::De,
        mindnet_lint::Lang::En => Lang::En,
    }
}

fn severity(s: mindnet_lint::Severity) -> Severity {
    match s {
        mindnet_lint::Severity::Recommendation => Severity::Recommendation,
        mindnet_lint::Severity::Warning => Severity::Warning,
        mindnet_lint::Severity::Error => Severity::Error,
    }
}

// The `lint` tool's arguments: severity and language as plain words. (A plain comment: a doc comment would become
// the tool's schema description.)
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintArgs {
    /// One note (title, alias, path or id); the whole vault when left out.
    #[serde(default)]
    pub note: Option<String>,
    /// The least severity to report: `recommendation` (default), `warning`
    /// or `error`.
    #[serde(default)]
    pub severity: Option<String>,
    /// The messages' language, `de` or `en` (default: each note's).
    #[serde(default)]
    pub lang: Option<String>,
}

impl ToolArgs for LintArgs {
    type Request = LintRequest;
    fn into_request(self) -> Result<LintRequest, AppError> {
        let severity = match self.severity.as_deref() {
            None => Severity::default(),
            Some(s) => s
                .parse()
                .map_err(|e| AppError::bad_request(format!("`severity`: {e}")))?,
        };
        Ok(LintRequest {
            note: self.note,
            severity,
            lang: Lang::parse_field("lang", self.lang.as_deref())?,
            fixes: false,
        })
    }
}
