//! Where a note's text names other notes, to the byte: the target part of
//! every wikilink and embed (in the body and in frontmatter properties) and
//! the path of every Markdown link to a `.md` file. A rename rewrites
//! exactly these ranges and nothing else: not the `#heading`, `#^block`,
//! alias or `!` around them, nothing inside code or comments (the parser
//! never reports links there), and not a heading of another note that
//! happens to contain the old name (`[[Settings#Internal links]]`).

use crate::parse::{ParsedNote, parse};
use crate::resolve::{Resolution, Resolver, link_key};
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

/// A note moving from one path to another: the vault resolved before
/// and after (the same notes in the same order, the moved one's path
/// changed).
pub struct Move<'a> {
    pub before: &'a Resolver,
    pub after: &'a Resolver,
    /// The moved note's index in both.
    pub note: usize,
}

/// A note's text with its links rewritten for a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relinked {
    pub text: String,
    /// How many links changed.
    pub links: usize,
}

/// `text` (of the note at `from_before`, which is at `from_after` once the
/// move is done; the two differ only for the moved note itself) with every
/// link to the moved note rewritten as Obsidian rewrites it, and every
/// other link that would lead elsewhere after the move (a link of the
/// moved note from its new folder, or a name the moved note now takes
/// from a note it did not mean) kept on the note it meant.
/// A link by alias stays (the alias moves with the note). `None` when no
/// link changes.
pub fn relinked(
    text: &str,
    from_before: &str,
    from_after: &str,
    mv: &Move<'_>,
) -> Option<Relinked> {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for t in link_targets(text) {
        let Resolution::Note(k) = mv.before.resolve(&t.target, from_before) else {
            continue;
        };
        let by_alias = !link_key(&t.target).contains('/') && mv.before.named(&t.target) == 0;
        if by_alias {
            continue;
        }
        let still = mv.after.resolve(&t.target, from_after) == Resolution::Note(k);
        if k != mv.note && still {
            continue;
        }
        let new = written(&t, k, from_after, mv.after);
        if link_key(&percent_decode(&new)) != link_key(&t.target) || !still {
            edits.push((t.range, new));
        }
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = text.to_string();
    for (range, new) in edits.iter().rev() {
        out.replace_range(range.clone(), new);
    }
    Some(Relinked {
        text: out,
        links: edits.len(),
    })
}

/// The target that names note `k` from the note at `from`, in the style
/// of the link `t`: a file name alone where it names one note, else the
/// vault path; a relative path stays relative, a path stays a path; a
/// written `.md` stays; a Markdown path is encoded as it was.
fn written(t: &LinkTarget, k: usize, from: &str, after: &Resolver) -> String {
    let path = after.note(k).rel_path.as_str();
    let with_md = matches!(t.style, LinkStyle::Markdown { .. })
        || t.target.to_ascii_lowercase().ends_with(".md");
    let bare = mindnet_core::lookup::without_md(path);
    let file = |p: &str| {
        if with_md {
            format!("{p}.md")
        } else {
            p.to_string()
        }
    };
    let stem = bare.rsplit('/').next().unwrap_or(bare);
    let written = t.target.trim();
    let form = if written.starts_with("./") || written.starts_with("../") {
        file(&relative_path(from, bare))
    } else if written.contains('/') || after.named(stem) != 1 {
        file(bare)
    } else {
        file(stem)
    };
    let form = if after.resolve(&form, from) == Resolution::Note(k) {
        form
    } else {
        file(bare)
    };
    match t.style {
        LinkStyle::Markdown { angle: false, .. } => percent_encode(&form),
        _ => form,
    }
}

/// `to` (a vault path) as seen from the folder of the note at `from`.
fn relative_path(from: &str, to: &str) -> String {
    let from_dirs: Vec<&str> = from.split('/').collect();
    let from_dirs = &from_dirs[..from_dirs.len() - 1];
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dirs
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to_parts.len() - 1);
    let mut out: Vec<&str> = vec![".."; from_dirs.len() - common];
    if out.is_empty() {
        out.push(".");
    }
    out.extend(&to_parts[common..]);
    out.join("/")
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

    fn vault(paths: &[&str]) -> Resolver {
        Resolver::new(
            paths
                .iter()
                .map(|p| crate::resolve::NoteEntry {
                    note_id: p.to_string(),
                    rel_path: p.to_string(),
                    title: p.to_string(),
                    aliases: if *p == "Alt.md" {
                        vec!["Beiname".into()]
                    } else {
                        vec![]
                    },
                    note_type: "concept".into(),
                })
                .collect(),
        )
    }

    /// `Alt.md` becomes `dir/Neu Name.md`: every form follows, everything else stays.
    #[test]
    fn a_rename_rewrites_every_form_and_nothing_else() {
        let before = vault(&["Alt.md", "Settings.md", "a/Quelle.md", "a/Andere.md"]);
        let after = vault(&[
            "dir/Neu Name.md",
            "Settings.md",
            "a/Quelle.md",
            "a/Andere.md",
        ]);
        let mv = Move {
            before: &before,
            after: &after,
            note: 0,
        };
        let text = "---\nup: \"[[Alt]]\"\n---\n[[Alt]] [[alt|x]] [[Alt#H|y]] [[Alt#^b1]] ![[Alt]] \
            [[./../Alt.md]] [[Settings#Alt]] [[Beiname]] `[[Alt]]` [m](../Alt.md#H) [n](<../Alt.md>) \
            [[rel:caused_by Alt]]\n\n| t | [[Alt\\|z]] |\n|---|---|\n";
        let r = relinked(text, "a/Quelle.md", "a/Quelle.md", &mv).unwrap();
        assert_eq!(
            r.text,
            "---\nup: \"[[Neu Name]]\"\n---\n[[Neu Name]] [[Neu Name|x]] [[Neu Name#H|y]] \
            [[Neu Name#^b1]] ![[Neu Name]] [[../dir/Neu Name.md]] [[Settings#Alt]] [[Beiname]] \
            `[[Alt]]` [m](../dir/Neu%20Name.md#H) [n](<../dir/Neu Name.md>) \
            [[rel:caused_by Neu Name]]\n\n| t | [[Neu Name\\|z]] |\n|---|---|\n"
        );
        assert_eq!(r.links, 11);
        assert_eq!(
            relinked("[[Andere]] [[Settings]]", "a/Quelle.md", "a/Quelle.md", &mv),
            None
        );
    }

    /// A name two notes share is written as a path; the moved note's own
    /// relative links follow it to its new folder.
    #[test]
    fn names_stay_unique_and_the_moved_notes_links_hold() {
        let before = vault(&["a/s/X.md", "b/Y.md", "c/X.md", "a/Z.md"]);
        let after = vault(&["b/X.md", "b/Y.md", "c/X.md", "a/Z.md"]);
        let mv = Move {
            before: &before,
            after: &after,
            note: 0,
        };
        let r = relinked("[[a/s/X]] [[X]]", "b/Y.md", "b/Y.md", &mv).unwrap();
        // `[[X]]` meant c/X; from b/ it would now mean the moved b/X.
        assert_eq!(r.text, "[[b/X]] [[c/X]]");
        let r = relinked(
            "[z](../Z.md) [y](../../b/Y.md) [[Y]]",
            "a/s/X.md",
            "b/X.md",
            &mv,
        );
        assert_eq!(r.unwrap().text, "[z](../a/Z.md) [y](./Y.md) [[Y]]");
    }
}
