//! The evidence of a step: the line of a note that makes the link.

/// The line of `text` that links to one of `titles` (else the first line
/// with a link), without Markdown link brackets.
pub(super) fn evidence_sentence(text: &str, titles: &[&str]) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let pick = lines
        .iter()
        .find(|l| l.contains("[[") && titles.iter().any(|t| l.contains(t)))
        .or_else(|| lines.iter().find(|l| l.contains("[[")))
        .or_else(|| lines.iter().find(|l| !l.starts_with('#')))
        .copied()
        .unwrap_or_default();
    let plain = pick
        .replace("[[", "")
        .replace("]]", "")
        .trim_start_matches(['>', '-', ' '])
        .to_string();
    match plain.char_indices().nth(240) {
        Some((i, _)) => format!("{}…", &plain[..i]),
        None => plain,
    }
}
