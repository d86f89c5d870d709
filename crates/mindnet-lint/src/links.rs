//! Checks of single typed links (LNT-1, LNT-2): the kind against the
//! vocabulary, the type-pair matrix (which also keeps hubs and principles
//! from linking causally), and chronology written as causality.

use crate::{Finding, LinkRef, Vault};
use mindnet_core::Canonical;

/// Words that tell time, not cause: "danach", "then", …
const CHRONOLOGY: [&str; 10] = [
    "danach",
    "anschließend",
    "später",
    "hinterher",
    "zuvor",
    "vorher",
    "then",
    "afterwards",
    "later",
    "before that",
];

/// The kind an author wrote on a link, if any.
pub(crate) fn written_kind<'a>(l: &LinkRef<'a>) -> Option<&'a str> {
    l.link
        .parts
        .relation
        .as_deref()
        .or(l.link.callout_kind.as_deref())
}

/// Where the kind of a typed link is written: inside the link for
/// `[[rel:KIND X]]`, else the nearest `KIND` before the link (the callout
/// line, which may be a line above for a continued callout).
pub(crate) fn kind_position(text: &str, l: &LinkRef<'_>, raw: &str) -> Option<usize> {
    let span = l.link.range.clone();
    if l.link.parts.relation.is_some() {
        let p = span.start + text.get(span.clone())?.find("rel:")? + 4;
        let p = p + text[p..].len() - text[p..].trim_start().len();
        text[p..].starts_with(raw).then_some(p)
    } else {
        text.get(..span.start)?.rfind(raw)
    }
}

pub(crate) fn check(v: &Vault<'_>, links: &[LinkRef<'_>]) -> Vec<Finding> {
    let vocab = &v.config.vocab;
    let mut out = Vec::new();
    for l in links {
        let note = &v.notes[l.note];
        let at = l.link.range.start;
        if l.outside {
            out.push(v.finding(
                l.note,
                at,
                "link/outside-vault",
                v.msg(
                    format!("`{}` zeigt aus dem Vault hinaus", l.link.parts.target),
                    format!("`{}` points outside the vault", l.link.parts.target),
                ),
            ));
        }
        let Some(raw) = written_kind(l) else { continue };
        let kind = match vocab.canonicalize(raw) {
            Canonical::Known(k) => k,
            Canonical::Alias(k) => {
                out.push(v.finding(
                    l.note,
                    kind_position(&note.text, l, raw).unwrap_or(at),
                    "edge/alias-not-canonical",
                    v.msg(
                        format!("`{raw}` ist ein Alias; kanonisch ist `{k}`"),
                        format!("`{raw}` is an alias; the canonical kind is `{k}`"),
                    ),
                ));
                k
            }
            Canonical::Unknown => {
                out.push(v.finding(
                    l.note,
                    kind_position(&note.text, l, raw).unwrap_or(at),
                    "edge/unknown-kind",
                    v.msg(
                        format!("unbekannte Kantenart `{raw}` (nicht in edge_vocabulary.yaml)"),
                        format!("unknown edge kind `{raw}` (not in edge_vocabulary.yaml)"),
                    ),
                ));
                continue;
            }
        };
        let causal = vocab.is_causal(kind);
        if let Some(t) = l.target {
            let target = &v.notes[t];
            if let Some(rule) = v
                .config
                .registry
                .matrix_rule(&note.note_type, &target.note_type)
                && rule.prohibited.iter().any(|p| p == kind)
            {
                out.push(v.finding(
                    l.note,
                    at,
                    "edge/prohibited-for-type",
                    v.msg(
                        format!(
                            "`{kind}` ist von {} zu {} nicht erlaubt (types.yaml, matrix)",
                            note.note_type, target.note_type
                        ),
                        format!(
                            "`{kind}` is prohibited from {} to {} (types.yaml, matrix)",
                            note.note_type, target.note_type
                        ),
                    ),
                ));
            }
        }
        if causal {
            let line_no = note.parsed.lines.line(at);
            let line = note
                .text
                .lines()
                .nth(line_no - 1)
                .unwrap_or_default()
                .to_lowercase();
            if let Some(word) = CHRONOLOGY.iter().find(|w| contains_word(&line, w)) {
                out.push(v.finding(
                    l.note,
                    at,
                    "edge/chronology-as-causality",
                    v.msg(
                        format!("„{word}“ beschreibt eine Abfolge; ist `{kind}` gemeint oder followed_by/preceded_by?"),
                        format!("“{word}” describes a sequence; is `{kind}` meant, or followed_by/preceded_by?"),
                    ),
                ));
            }
        }
    }
    out
}

fn contains_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}
