//! The linter works on the files, not on the index: it needs no workspace.

use crate::api::*;
use crate::{AppError, Settings};

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

/// The findings of the vault (or one note), at least `req.severity`.
pub(crate) fn lint(settings: &Settings, req: &LintRequest) -> Result<LintResponse, AppError> {
    let vault = settings.require_vault()?;
    let config = settings.load_config()?;
    let opts = mindnet_lint::LintOptions {
        lang: req.lang.map(lang),
        note: req.note.clone(),
        max_note_bytes: settings.max_note_bytes,
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
                } = f;
                Finding {
                    path,
                    line,
                    column,
                    rule: rule.to_string(),
                    severity: severity(s),
                    message,
                }
            })
            .filter(|f| f.severity >= req.severity)
            .collect(),
        skipped: skipped.into_iter().map(Into::into).collect(),
    })
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
                    Ok(()) => (true, None),
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
