//! The graph linter and its fixes.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize, ToSchema,
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub rule: String,
    pub severity: Severity,
    pub message: String,
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
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
