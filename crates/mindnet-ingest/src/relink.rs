//! Where a note's text names other notes, to the byte: the target part of
//! every wikilink and embed (in the body and in frontmatter properties) and
//! the path of every Markdown link to a `.md` file. A rename rewrites
//! exactly these ranges and nothing else: not the `#heading`, `#^block`,
//! alias or `!` around them, nothing inside code or comments (the parser
//! never reports links there), and not a heading of another note that
//! happens to contain the old name (`[[Settings#Internal links]]`).

use crate::parse::{ParsedNote, parse};
use pulldown_cmark::{Event, LinkType, Parser, Tag};
use std::ops::Range;

/// How a link is written; a rewrite keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkStyle {
    /// `[[target#section|alias]]`, `![[target]]`, a table's `[[target\|alias]]`.
    Wiki,
    /// `[text](target.md#section)`; `angle` for `<target with spaces.md>`,
    /// `encoded` when the path is percent-encoded (`Note%20Name.md`).
    Markdown { angle: bool, encoded: bool },
}

/// The part of one link that names a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTarget {
    /// The bytes of the target as written (without `#section`, alias, brackets).
    pub range: Range<usize>,
    /// The target as the resolver reads it (a Markdown path decoded).
    pub target: String,
    pub style: LinkStyle,
}

/// Every link target of `text`, in file order.
pub fn link_targets(text: &str) -> Vec<LinkTarget> {
    let parsed = parse(text);
    let mut out = frontmatter_targets(text, &parsed);
    out.extend(parsed.links.iter().filter_map(|l| {
        let start = l.range.start + usize::from(l.embed) + 2;
        wiki_target(text, start..l.range.end.saturating_sub(2))
    }));
    out.extend(markdown_targets(text, &parsed));
    out.sort_by_key(|t| t.range.start);
    out
}

/// The target inside `[[…]]` (`inner` is the range between the brackets):
/// before `#` and `|` (or `\|`), after an inline relation's `rel:KIND `.
fn wiki_target(text: &str, inner: Range<usize>) -> Option<LinkTarget> {
    let s = text.get(inner.clone())?;
    let mut end = s.find('|').unwrap_or(s.len());
    if s[..end].ends_with('\\') {
        end -= 1;
    }
    let mut start = 0;
    let dest = &s[..end];
    if let Some(rest) = dest.trim_start().strip_prefix("rel:") {
        let kind_at = dest.len() - rest.len();
        let rest_trim = rest.trim_start();
        let kind_len = rest_trim
            .find(char::is_whitespace)
            .unwrap_or(rest_trim.len());
        start = kind_at + (rest.len() - rest_trim.len()) + kind_len;
    }
    let end = start + dest[start..].find('#').unwrap_or(dest.len() - start);
    let raw = &s[start..end];
    let lead = raw.len() - raw.trim_start().len();
    let target = raw.trim();
    if target.is_empty() {
        return None;
    }
    let from = inner.start + start + lead;
    Some(LinkTarget {
        range: from..from + target.len(),
        target: target.to_string(),
        style: LinkStyle::Wiki,
    })
}

/// Wikilinks in frontmatter values (`up: "[[Note]]"`), which Obsidian's
/// properties hold and update on a rename.
fn frontmatter_targets(text: &str, parsed: &ParsedNote) -> Vec<LinkTarget> {
    let yaml = &text[..parsed.body_start];
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = yaml[at..].find("[[") {
        let start = at + open + 2;
        let Some(close) = yaml[start..].find("]]") else {
            break;
        };
        let end = start + close;
        if !yaml[start..end].contains('\n') {
            out.extend(wiki_target(text, start..end));
        }
        at = end + 2;
    }
    out
}

/// Markdown links and embeds whose path (before `#`) ends in `.md` and has
/// no scheme.
fn markdown_targets(text: &str, parsed: &ParsedNote) -> Vec<LinkTarget> {
    let body_start = parsed.body_start;
    let body = &text[body_start..];
    let mut out = Vec::new();
    for (event, r) in Parser::new_ext(body, crate::parse::options()).into_offset_iter() {
        let (Event::Start(Tag::Link {
            link_type,
            dest_url,
            ..
        })
        | Event::Start(Tag::Image {
            link_type,
            dest_url,
            ..
        })) = event
        else {
            continue;
        };
        if link_type != LinkType::Inline {
            continue;
        }
        let dest = dest_url.as_ref();
        if dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with('#') {
            continue;
        }
        let path = dest.split('#').next().unwrap_or(dest);
        if !path.to_ascii_lowercase().ends_with(".md") {
            continue;
        }
        let slice = &body[r.clone()];
        let Some((pos, angle)) = dest_position(slice, dest) else {
            continue;
        };
        let from = body_start + r.start + pos;
        out.push(LinkTarget {
            range: from..from + path.len(),
            target: percent_decode(path),
            style: LinkStyle::Markdown {
                angle,
                encoded: path.contains('%'),
            },
        });
    }
    out
}

/// Where `dest` is written in a link's source `[text](dest "title")`.
fn dest_position(slice: &str, dest: &str) -> Option<(usize, bool)> {
    slice.match_indices("](").find_map(|(i, _)| {
        let after = i + 2;
        let rest = &slice[after..];
        let ws = rest.len() - rest.trim_start().len();
        let rest = &rest[ws..];
        if let Some(inner) = rest.strip_prefix('<') {
            inner.starts_with(dest).then_some((after + ws + 1, true))
        } else {
            rest.starts_with(dest).then_some((after + ws, false))
        }
    })
}

/// `%20` and every other `%XX` back to its byte; a stray `%` stays.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// A path as a Markdown link writes it: spaces and the characters that
/// would end or break the link percent-encoded, the rest as it is.
pub fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<(String, String)> {
        link_targets(text)
            .into_iter()
            .map(|t| (text[t.range].to_string(), t.target))
            .collect()
    }

    #[test]
    fn every_link_form_names_its_target() {
        let text = "---\nup: \"[[Oben]]\"\n---\n\
            [[Note]] [[Note|alias]] [[Note#Heading]] [[Note#Heading|alias]] \
            [[Note#^block-id]] ![[Note]] ![[Note#^b]] [[folder/Note]] \
            [[ rel:depends_on  Note #x|y]]\n\n| a | [[Note\\|alias]] |\n|---|---|\n| b | c |\n\n\
            [text](folder/Note%20Name.md) [t](<Mit Leer.md#Teil>) ![e](Bild.png) \
            [w](https://x.org/a.md) `[[Code]]` %%[[Kommentar]]%%\n\n```\n[[Block]]\n```\n";
        let got = targets(text);
        let written: Vec<&str> = got.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            written,
            [
                "Oben",
                "Note",
                "Note",
                "Note",
                "Note",
                "Note",
                "Note",
                "Note",
                "folder/Note",
                "Note",
                "Note",
                "folder/Note%20Name.md",
                "Mit Leer.md"
            ]
        );
        assert_eq!(got[11].1, "folder/Note Name.md");
    }

    #[test]
    fn percent_coding_round_trips() {
        assert_eq!(percent_decode("a%20b%C3%BC%zz"), "a bü%zz");
        assert_eq!(percent_encode("a b (c).md"), "a%20b%20%28c%29.md");
    }
}
