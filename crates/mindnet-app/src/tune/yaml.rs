//! The proposal as YAML: `retriever.yaml` with the tuned values written into
//! it, its comments and order kept.

use super::tunables;
use mindnet_retrieve::RetrieverConfig;
/// The formatted value of a parameter in YAML.
pub(super) fn yaml_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e9 {
        format!("{v:.1}")
    } else {
        format!("{}", (v * 1e6).round() / 1e6)
    }
}

/// `text` with each tuned value replaced in place, comments and layout
/// kept. A key missing from the text is appended to its section (or the
/// end), so an older file gains the new weights.
pub(super) fn rewrite(text: &str, c: &RetrieverConfig) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for p in tunables(c) {
        let Some(number) = c.number(&p.path) else {
            continue;
        };
        let value = if number.integer {
            format!("{}", number.value as u64)
        } else {
            yaml_value(number.value)
        };
        let (home, key) = match p.path.split_once('.') {
            Some((s, k)) => (Some(s), k),
            None => (None, p.path.as_str()),
        };
        let indent = if home.is_some() { "  " } else { "" };
        let prefix = format!("{indent}{key}:");
        let mut section: Option<String> = None;
        let mut found = false;
        // The last line inside the parameter's section.
        let mut last_in_section: Option<usize> = None;
        for (i, line) in lines.iter_mut().enumerate() {
            let top = !line.starts_with([' ', '#']) && !line.trim().is_empty();
            if top {
                section = line.strip_suffix(':').map(str::to_string);
            }
            let in_section = match home {
                Some(s) => section.as_deref() == Some(s) && line.starts_with("  "),
                None => top,
            };
            if in_section {
                last_in_section = Some(i);
            }
            if in_section && line.starts_with(&prefix) {
                let rest = &line[prefix.len()..];
                let comment = rest.find('#').map(|at| {
                    let pad = rest[..at].len().saturating_sub(value.len() + 1).max(1);
                    format!("{}{}", " ".repeat(pad), &rest[at..])
                });
                *line = format!("{prefix} {value}{}", comment.unwrap_or_default());
                found = true;
                break;
            }
        }
        if !found {
            let new = format!("{prefix} {value}");
            match (home, last_in_section) {
                (Some(_), Some(at)) => lines.insert(at + 1, new),
                (Some(s), None) => {
                    lines.push(format!("{s}:"));
                    lines.push(new);
                }
                (None, _) => lines.push(new),
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}
