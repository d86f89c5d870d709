//! `mindnet lint`: findings grouped by note like a compiler's.

use mindnet_app::ops::lint::{Finding, Severity};
use std::fmt::Write;

/// `path:line:col severity rule: message`, the line itself and a caret.
/// `line_of(path, line)` gives the quoted line (1-based), if it can.
pub fn lint_text(
    findings: &[Finding],
    notes: usize,
    en: bool,
    line_of: &dyn Fn(&str, usize) -> Option<String>,
) -> String {
    let mut out = String::new();
    let mut current = "";
    for f in findings {
        if f.path != current {
            let _ = writeln!(out, "{}", f.path);
            current = &f.path;
        }
        let _ = writeln!(
            out,
            "  {}:{}:{} {} {}: {}",
            f.path,
            f.line,
            f.column,
            f.severity.as_str(),
            f.rule,
            f.message
        );
        if let Some(line) = line_of(&f.path, f.line) {
            let _ = writeln!(out, "   | {}", line.trim_end());
            let _ = writeln!(
                out,
                "   | {}^",
                " ".repeat(f.column.saturating_sub(1).min(line.chars().count()))
            );
        }
    }
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let _ = writeln!(
        out,
        "{} {}, {} {}, {} {} in {} {}",
        count(Severity::Error),
        if en { "errors" } else { "Fehler" },
        count(Severity::Warning),
        if en { "warnings" } else { "Warnungen" },
        count(Severity::Recommendation),
        if en {
            "recommendations"
        } else {
            "Empfehlungen"
        },
        notes,
        if en { "notes" } else { "Notizen" },
    );
    out
}
