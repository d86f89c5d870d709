//! `mindnet lint`: findings grouped by note like a compiler's; on a whole
//! vault the recommendations as a summary a person reads to the end.

use mindnet_app::ops::lint::{Finding, Severity};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// How many names a rule's summary shows.
const TOP_NAMES: usize = 5;

/// What the text shows, beside the findings.
#[derive(Debug, Clone, Copy)]
pub struct LintView {
    /// Notes checked.
    pub notes: usize,
    pub en: bool,
    /// Every recommendation on its own, as errors and warnings are. Without
    /// it they are summarised per rule: a vault of thousands of notes has
    /// tens of thousands, and the warnings would drown in them.
    pub all: bool,
}

/// `path:line:col severity rule: message`, the line itself and a caret, for
/// every error and warning (and recommendation with `view.all`); then the
/// recommendations per rule with their most frequent names; then the
/// totals. `line_of(path, line)` gives the quoted line (1-based), if it can.
pub fn lint_text(
    findings: &[Finding],
    view: LintView,
    line_of: &dyn Fn(&str, usize) -> Option<String>,
) -> String {
    let en = view.en;
    let (listed, summarised): (Vec<&Finding>, Vec<&Finding>) = findings
        .iter()
        .partition(|f| view.all || f.severity != Severity::Recommendation);
    let mut out = String::new();
    let mut current = "";
    for f in listed {
        if f.path != current {
            let _ = writeln!(out, "{}", f.path);
            current = &f.path;
        }
        finding_lines(&mut out, f, line_of);
    }
    if !summarised.is_empty() {
        summary(&mut out, &summarised, en);
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
        view.notes,
        if en { "notes" } else { "Notizen" },
    );
    out
}

fn finding_lines(out: &mut String, f: &Finding, line_of: &dyn Fn(&str, usize) -> Option<String>) {
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

/// How often one name comes up under a rule, and in how many notes.
#[derive(Default)]
struct NameCount<'a> {
    findings: usize,
    notes: BTreeSet<&'a str>,
}

/// Per rule: its count and notes, then its most frequent names (ties by
/// name, so the text is the same on every run).
fn summary(out: &mut String, findings: &[&Finding], en: bool) {
    let mut rules: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        rules.entry(&f.rule).or_default().push(f);
    }
    let _ = writeln!(
        out,
        "{}",
        if en {
            "recommendations per rule (`--all` lists each):"
        } else {
            "Empfehlungen je Regel (`--all` zeigt jede einzeln):"
        }
    );
    for (rule, fs) in rules {
        let notes: BTreeSet<&str> = fs.iter().map(|f| f.path.as_str()).collect();
        let _ = writeln!(
            out,
            "  {rule}: {} in {} {}",
            fs.len(),
            notes.len(),
            notes_word(notes.len(), en)
        );
        let mut names: BTreeMap<&str, NameCount<'_>> = BTreeMap::new();
        for f in &fs {
            if let Some(name) = subject(&f.message) {
                let c = names.entry(name).or_default();
                c.findings += 1;
                c.notes.insert(&f.path);
            }
        }
        let mut top: Vec<(&str, NameCount<'_>)> = names.into_iter().collect();
        top.sort_by(|a, b| b.1.findings.cmp(&a.1.findings).then(a.0.cmp(b.0)));
        if top.len() > TOP_NAMES && top.iter().all(|(_, c)| c.findings == 1) {
            // No name stands out: the first by the alphabet would say nothing.
            let _ = writeln!(
                out,
                "    {}",
                if en {
                    format!("{} names, each once", top.len())
                } else {
                    format!("{} Namen, jeder einmal", top.len())
                }
            );
            continue;
        }
        let more = top.len().saturating_sub(TOP_NAMES);
        for (name, c) in top.into_iter().take(TOP_NAMES) {
            let _ = writeln!(
                out,
                "    „{name}“: {} in {} {}",
                c.findings,
                c.notes.len(),
                notes_word(c.notes.len(), en)
            );
        }
        if more > 0 {
            let _ = writeln!(
                out,
                "    {}",
                if en {
                    format!("and {more} more")
                } else {
                    format!("und {more} weitere")
                }
            );
        }
    }
}

fn notes_word(n: usize, en: bool) -> &'static str {
    match (en, n == 1) {
        (true, true) => "note",
        (true, false) => "notes",
        (false, true) => "Notiz",
        (false, false) => "Notizen",
    }
}

/// The name a finding is about: every rule's message quotes it first, in
/// backticks or typographic quotes (`X`, „X“, “X”).
fn subject(message: &str) -> Option<&str> {
    let (start, open) = message
        .char_indices()
        .find(|(_, c)| matches!(c, '`' | '„' | '“'))?;
    let close = match open {
        '`' => '`',
        '„' => '“',
        _ => '”',
    };
    let rest = &message[start + open.len_utf8()..];
    rest.find(close).map(|end| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, line: usize, rule: &str, severity: Severity, message: &str) -> Finding {
        Finding {
            path: path.into(),
            line,
            column: 1,
            rule: rule.into(),
            severity,
            message: message.into(),
            fix: None,
        }
    }

    /// The summary's shape: warnings in full, recommendations per rule with
    /// their names by count (ties by name), the totals last.
    #[test]
    fn recommendations_are_summarised_and_warnings_listed() {
        let m = |name: &str| format!("“{name}” mentions the note “{name}” without a link");
        let r = Severity::Recommendation;
        let findings = vec![
            finding("a.md", 2, "link/unlinked-mention", r, &m("GitHub")),
            finding(
                "a.md",
                3,
                "node/split-spelling",
                Severity::Warning,
                "`Qdrnt` is probably `Qdrant`",
            ),
            finding("a.md", 5, "link/unlinked-mention", r, &m("MOC")),
            finding("b.md", 1, "link/unlinked-mention", r, &m("GitHub")),
            finding("b.md", 4, "link/unlinked-mention", r, &m("Zettel")),
            finding("c.md", 1, "link/unlinked-mention", r, &m("GitHub")),
            finding("c.md", 9, "chain/gap", r, "jump from `A` to `B`"),
        ];
        let mut findings = findings;
        for name in ["n1", "n2", "n3", "n4", "n5", "n6"] {
            let message = format!("`{name}` is linked from 1 note and does not exist yet");
            findings.push(finding("d.md", 1, "link/missing-target", r, &message));
        }
        let view = LintView {
            notes: 3,
            en: true,
            all: false,
        };
        let text = lint_text(&findings, view, &|_, l| {
            (l == 3).then(|| "See [[Qdrnt]].".into())
        });
        let want = "\
a.md
  a.md:3:1 warning node/split-spelling: `Qdrnt` is probably `Qdrant`
   | See [[Qdrnt]].
   | ^
recommendations per rule (`--all` lists each):
  chain/gap: 1 in 1 note
    „A“: 1 in 1 note
  link/missing-target: 6 in 1 note
    6 names, each once
  link/unlinked-mention: 5 in 3 notes
    „GitHub“: 3 in 3 notes
    „MOC“: 1 in 1 note
    „Zettel“: 1 in 1 note
0 errors, 1 warnings, 12 recommendations in 3 notes
";
        assert_eq!(text, want);
        // With `all` every finding is listed, and nothing summarised.
        let all = lint_text(&findings, LintView { all: true, ..view }, &|_, _| None);
        assert_eq!(
            all.lines().filter(|l| l.starts_with("  ")).count(),
            13,
            "{all}"
        );
        assert!(!all.contains("per rule"), "{all}");
    }

    #[test]
    fn the_subject_is_the_first_quoted_name() {
        assert_eq!(
            subject("„GitHub“ erwähnt die Notiz „GitHub“"),
            Some("GitHub")
        );
        assert_eq!(subject("“MOC” mentions the note"), Some("MOC"));
        assert_eq!(subject("`wegen` is an alias"), Some("wegen"));
        assert_eq!(subject("no name here"), None);
        assert_eq!(subject("„unclosed"), None);
    }
}
