//! Obsidian Markdown → headings, blocks, links and tags, each with its byte
//! range in the file. pulldown-cmark gives the block structure (so nothing in
//! code is a link); Obsidian's own syntax (`%%comments%%`, `[!edge]` callouts,
//! `rel:` relations, `#tags`) is read on top of it.

use crate::frontmatter::{self, Frontmatter, FrontmatterIssue};
use crate::lines::LineIndex;
use crate::spans::Spans;
use crate::wikilink::{self, LinkParts};
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    pub range: Range<usize>,
}

/// A top-level Markdown block: the unit the chunker packs.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub range: Range<usize>,
    /// Index into `ParsedNote::headings` when the block is a heading.
    pub heading: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub parts: LinkParts,
    /// `![[...]]`
    pub embed: bool,
    /// The KIND of the `[!edge]` callout line the link stands in, as written.
    pub callout_kind: Option<String>,
    /// True for a link inside an `[!edge]` callout, even one without a kind.
    pub in_callout: bool,
    pub range: Range<usize>,
    pub line: usize,
}

impl Link {
    /// What a reader sees in place of the link.
    pub fn display(&self) -> &str {
        let p = &self.parts;
        p.label
            .as_deref()
            .or((!p.target.is_empty()).then_some(p.target.as_str()))
            .or(p.section.as_deref())
            .unwrap_or_default()
    }
}

/// A run of text a reader sees (outside code, comments and HTML), in file
/// order: what names and mentions are read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Prose {
    pub range: Range<usize>,
    /// The display text of a wikilink: part of the prose for names, never
    /// a mention (it already links).
    pub in_link: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParseIssue {
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct ParsedNote {
    pub frontmatter: Frontmatter,
    pub body_start: usize,
    pub headings: Vec<Heading>,
    pub blocks: Vec<Block>,
    pub links: Vec<Link>,
    /// Inline `#tags`, normalised, in order of appearance.
    pub tags: Vec<String>,
    /// `%%...%%` ranges; their text is neither indexed nor searched for links.
    pub comments: Vec<Range<usize>>,
    pub prose: Vec<Prose>,
    pub issues: Vec<ParseIssue>,
    pub lines: LineIndex,
}

impl ParsedNote {
    pub fn first_h1(&self) -> Option<&str> {
        self.headings
            .iter()
            .find(|h| h.level == 1 && !h.text.is_empty())
            .map(|h| h.text.as_str())
    }
}

pub(crate) fn options() -> Options {
    Options::ENABLE_WIKILINKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM
}

/// Parses one note. Never fails: problems become `issues`.
pub fn parse(text: &str) -> ParsedNote {
    let lines = LineIndex::new(text);
    let fm = frontmatter::split(text);
    let body_start = fm.body_start;
    let body = &text[body_start..];
    let mut issues: Vec<ParseIssue> = fm
        .issues
        .into_iter()
        .map(|FrontmatterIssue { line, message }| ParseIssue { line, message })
        .collect();

    let mut w = Walker::default();
    for (event, r) in Parser::new_ext(body, options()).into_offset_iter() {
        w.event(event, (r.start + body_start)..(r.end + body_start), text);
    }

    let code = Spans::new(w.code.iter().cloned());
    let comment_list = comment_ranges(text, body_start, &code);
    let comments = Spans::new(comment_list.iter().cloned());
    w.links.retain(|l| !comments.contains(l.range.start));
    w.tags.retain(|(o, _)| !comments.contains(*o));
    // A block wholly inside a comment is not content; headings in it are not headings.
    let hidden = |r: &Range<usize>| comments.covers(r);
    let mut kept_headings = Vec::new();
    let mut heading_map = vec![None; w.headings.len()];
    for (i, h) in w.headings.into_iter().enumerate() {
        if !hidden(&h.range) {
            heading_map[i] = Some(kept_headings.len());
            kept_headings.push(h);
        }
    }
    let blocks = w
        .blocks
        .into_iter()
        .filter(|b| !hidden(&b.range))
        .map(|b| Block {
            heading: b.heading.and_then(|i| heading_map[i]),
            range: b.range,
        })
        .collect();

    let callouts = edge_callouts(text, &w.quotes);
    let mut links = Vec::with_capacity(w.links.len());
    for raw in w.links {
        let inner = inner_text(&text[raw.range.clone()]);
        let line = lines.line(raw.range.start);
        let Some(parts) = wikilink::split(inner) else {
            issues.push(ParseIssue {
                line,
                message: format!("empty wikilink `{}` ignored", &text[raw.range.clone()]),
            });
            continue;
        };
        let callout = callout_at(&callouts, raw.range.start);
        links.push(Link {
            parts,
            embed: raw.embed,
            callout_kind: callout.and_then(|c| c.kind_at(raw.range.start)),
            in_callout: callout.is_some(),
            line,
            range: raw.range,
        });
    }

    let covered = Spans::new(
        w.code
            .iter()
            .chain(&comment_list)
            .chain(&w.link_ranges)
            .cloned(),
    );
    for pos in stray_brackets(text, body_start, &covered, &lines) {
        let rest = &text[pos + 2..];
        let message = if rest.starts_with("]]") || rest.starts_with("|]]") {
            "empty wikilink `[[]]` ignored".to_string()
        } else {
            "unclosed wikilink `[[` (no matching `]]` on this line); read as text".to_string()
        };
        issues.push(ParseIssue {
            line: lines.line(pos),
            message,
        });
    }
    issues.sort_by_key(|i| i.line);
    let hidden_in_prose: Vec<Range<usize>> = comment_list
        .iter()
        .cloned()
        .chain(callout_markers(text, &w.quotes))
        .collect();
    let prose = without(w.prose, &hidden_in_prose);

    ParsedNote {
        frontmatter: fm.frontmatter,
        body_start,
        headings: kept_headings,
        blocks,
        links,
        tags: w.tags.into_iter().map(|(_, t)| t).collect(),
        comments: comment_list,
        prose,
        issues,
        lines,
    }
}

/// The `[!type]` (and fold sign) that opens a callout: syntax, not prose;
/// its title after it is prose.
fn callout_markers(text: &str, quotes: &[Range<usize>]) -> Vec<Range<usize>> {
    quotes
        .iter()
        .filter_map(|q| {
            let first = text[q.clone()].lines().next()?;
            let content = first.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
            let rest = content.strip_prefix("[!")?;
            let close = rest.find(']')?;
            let start = q.start + (first.len() - content.len());
            let after = &rest[close + 1..];
            let sign = usize::from(after.starts_with(['+', '-']));
            Some(start..start + 2 + close + 1 + sign)
        })
        .collect()
}

/// The prose with the comments cut out (a comment may sit inside a text run).
fn without(prose: Vec<Prose>, comments: &[Range<usize>]) -> Vec<Prose> {
    let mut sorted: Vec<&Range<usize>> = comments.iter().collect();
    sorted.sort_by_key(|r| r.start);
    let mut out = Vec::with_capacity(prose.len());
    for p in prose {
        let mut start = p.range.start;
        let first = sorted.partition_point(|c| c.end <= start);
        for c in &sorted[first..] {
            if c.start >= p.range.end {
                break;
            }
            if c.start > start {
                out.push(Prose {
                    range: start..c.start,
                    in_link: p.in_link,
                });
            }
            start = start.max(c.end);
        }
        if start < p.range.end {
            out.push(Prose {
                range: start..p.range.end,
                in_link: p.in_link,
            });
        }
    }
    out
}

struct RawLink {
    range: Range<usize>,
    embed: bool,
}

/// Collects what we need from pulldown-cmark's event stream in one pass.
#[derive(Default)]
struct Walker {
    depth: usize,
    block_start: usize,
    block_heading: Option<usize>,
    heading: Option<(u8, usize, String)>,
    headings: Vec<Heading>,
    blocks: Vec<Block>,
    links: Vec<RawLink>,
    /// Every link's range, wiki or not: a `[[` inside one is not a stray bracket.
    link_ranges: Vec<Range<usize>>,
    link_depth: usize,
    /// Per open link or image: whether it is a Markdown image, whose alt
    /// text no reader sees (`![GitHub release](badge.svg)`).
    open_links: Vec<bool>,
    prose: Vec<Prose>,
    code: Vec<Range<usize>>,
    in_code_block: bool,
    quotes: Vec<Range<usize>>,
    quote_depth: usize,
    tags: Vec<(usize, String)>,
}

impl Walker {
    fn event(&mut self, event: Event<'_>, r: Range<usize>, text: &str) {
        match event {
            Event::Start(tag) => {
                if self.depth == 0 {
                    self.block_start = r.start;
                    self.block_heading = None;
                }
                self.depth += 1;
                match tag {
                    Tag::Heading { level, .. } => {
                        self.heading = Some((level as u8, r.start, String::new()));
                    }
                    Tag::CodeBlock(_) => {
                        self.code.push(r);
                        self.in_code_block = true;
                    }
                    Tag::BlockQuote(_) => {
                        if self.quote_depth == 0 {
                            self.quotes.push(r);
                        }
                        self.quote_depth += 1;
                    }
                    Tag::Link { link_type, .. } | Tag::Image { link_type, .. } => {
                        let wiki = matches!(link_type, LinkType::WikiLink { .. });
                        self.open_links
                            .push(!wiki && matches!(tag, Tag::Image { .. }));
                        if wiki {
                            let embed = text.as_bytes()[r.start] == b'!';
                            self.links.push(RawLink {
                                range: r.clone(),
                                embed,
                            });
                        }
                        self.link_ranges.push(r);
                        self.link_depth += 1;
                    }
                    _ => {}
                }
            }
            Event::End(end) => {
                match end {
                    TagEnd::Heading(_) => {
                        if let Some((level, start, text)) = self.heading.take() {
                            self.block_heading = Some(self.headings.len());
                            self.headings.push(Heading {
                                level,
                                text: text.trim().to_string(),
                                range: start..r.end,
                            });
                        }
                    }
                    TagEnd::CodeBlock => self.in_code_block = false,
                    TagEnd::BlockQuote(_) => self.quote_depth = self.quote_depth.saturating_sub(1),
                    TagEnd::Link | TagEnd::Image => {
                        self.open_links.pop();
                        self.link_depth = self.link_depth.saturating_sub(1);
                    }
                    _ => {}
                }
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.blocks.push(Block {
                        range: self.block_start..r.end,
                        heading: self.block_heading.take(),
                    });
                }
            }
            Event::Text(t) => {
                if let Some((_, _, h)) = &mut self.heading {
                    h.push_str(&t);
                }
                // A link's text is read (names), but already links: never a
                // mention. An image's alt text is not read at all.
                if !self.in_code_block && !self.open_links.contains(&true) {
                    self.prose.push(Prose {
                        range: r.clone(),
                        in_link: self.link_depth > 0,
                    });
                }
                if !self.in_code_block && self.link_depth == 0 {
                    scan_tags(text, r, &mut self.tags);
                }
            }
            Event::Code(t) => {
                if let Some((_, _, h)) = &mut self.heading {
                    h.push_str(&t);
                }
                self.code.push(r);
            }
            Event::InlineMath(_) | Event::DisplayMath(_) => self.code.push(r),
            Event::Rule | Event::Html(_) | Event::InlineHtml(_) if self.depth == 0 => {
                self.blocks.push(Block {
                    range: r,
                    heading: None,
                });
            }
            _ => {}
        }
    }
}

/// `[[inner]]` or `![[inner]]` → `inner`.
fn inner_text(raw: &str) -> &str {
    let s = raw.strip_prefix('!').unwrap_or(raw);
    let s = s.strip_prefix("[[").unwrap_or(s);
    s.strip_suffix("]]").unwrap_or(s)
}

/// `#tag` where the `#` starts a word; digits alone are no tag (`#1`).
fn scan_tags(text: &str, r: Range<usize>, out: &mut Vec<(usize, String)>) {
    let s = &text[r.clone()];
    for (i, _) in s.match_indices('#') {
        let abs = r.start + i;
        let before = text[..abs].chars().next_back();
        if before.is_some_and(|c| !c.is_whitespace() && c != '(') {
            continue;
        }
        let tag: &str = {
            let rest = &s[i + 1..];
            let end = rest
                .char_indices()
                .find(|&(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')))
                .map_or(rest.len(), |(j, _)| j);
            &rest[..end]
        };
        if !tag.is_empty() && !tag.chars().all(|c| c.is_ascii_digit()) {
            out.push((abs, tag.to_lowercase()));
        }
    }
}

/// Obsidian comments `%%...%%` outside code; an unclosed `%%` runs to the end.
fn comment_ranges(text: &str, body_start: usize, code: &Spans) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    // memchr's searcher, not `str::find`: two short scans of every note
    // were a twentieth of a lint.
    let finder = memchr::memmem::Finder::new("%%");
    let mut i = body_start;
    while let Some(found) = finder.find(&text.as_bytes()[i..]) {
        let pos = i + found;
        i = pos + 2;
        if code.contains(pos) {
            continue;
        }
        match open.take() {
            None => open = Some(pos),
            Some(start) => out.push(start..pos + 2),
        }
    }
    if let Some(start) = open {
        out.push(start..text.len());
    }
    out
}

/// Positions of `[[` that did not become a link: unclosed or empty wikilinks.
fn stray_brackets(text: &str, body_start: usize, covered: &Spans, lines: &LineIndex) -> Vec<usize> {
    let mut out = Vec::new();
    let mut last_line = 0;
    for i in memchr::memmem::find_iter(&text.as_bytes()[body_start..], "[[") {
        let pos = body_start + i;
        let line = lines.line(pos);
        // One report per line is enough; `[[[[` would otherwise report twice.
        if !covered.contains(pos) && line != last_line {
            out.push(pos);
            last_line = line;
        }
    }
    out
}

/// The callout that holds `offset`. Callouts are top-level quotes, so they
/// are disjoint and in order, and a binary search finds it.
fn callout_at(callouts: &[EdgeCallout], offset: usize) -> Option<&EdgeCallout> {
    let i = callouts.partition_point(|c| c.range.end <= offset);
    callouts.get(i).filter(|c| c.range.start <= offset)
}

/// An `> [!edge] KIND: [[A]] [[B]]` callout and the kind in force on each of its lines.
struct EdgeCallout {
    range: Range<usize>,
    /// (offset of the line start, KIND as written), in order.
    kinds: Vec<(usize, String)>,
}

impl EdgeCallout {
    fn kind_at(&self, offset: usize) -> Option<String> {
        self.kinds
            .iter()
            .take_while(|(start, _)| *start <= offset)
            .last()
            .map(|(_, k)| k.clone())
    }
}

fn edge_callouts(text: &str, quotes: &[Range<usize>]) -> Vec<EdgeCallout> {
    let mut out = Vec::new();
    for q in quotes {
        let mut lines = text[q.clone()].split_inclusive('\n');
        let Some(first) = lines.next() else { continue };
        let first_content = strip_quote(first);
        let Some(rest) = strip_prefix_ci(first_content, "[!edge]") else {
            continue;
        };
        let rest = rest.trim_start_matches(['-', '+']);
        let mut kinds = Vec::new();
        let mut offset = q.start;
        if let Some(k) = leading_kind(rest, false) {
            kinds.push((offset, k));
        }
        offset += first.len();
        for line in lines {
            let content = strip_quote(line);
            let content = content
                .strip_prefix("- ")
                .or_else(|| content.strip_prefix("* "))
                .unwrap_or(content);
            if let Some(k) = leading_kind(content, true) {
                kinds.push((offset, k));
            }
            offset += line.len();
        }
        out.push(EdgeCallout {
            range: q.clone(),
            kinds,
        });
    }
    out
}

fn strip_quote(line: &str) -> &str {
    let mut s = line.trim_start();
    while let Some(rest) = s.strip_prefix('>') {
        s = rest.trim_start();
    }
    s.trim_end()
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// `KIND:` (or, on the callout's title line, `KIND` alone) at the start of a line.
fn leading_kind(s: &str, need_colon: bool) -> Option<String> {
    let s = s.trim_start();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '-' | ' ')))
        .map_or(s.len(), |(i, _)| i);
    let word = s[..end].trim();
    let after = s[end..].trim_start();
    let colon = after.starts_with(':');
    let valid = !word.is_empty()
        && !word.contains("  ")
        && word.chars().next().is_some_and(char::is_alphabetic)
        && (colon || (!need_colon && (after.is_empty() || after.starts_with("[["))));
    valid.then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(p: &ParsedNote) -> Vec<(String, Option<String>, Option<String>)> {
        p.links
            .iter()
            .map(|l| {
                (
                    l.parts.target.clone(),
                    l.parts.section.clone(),
                    l.callout_kind.clone().or(l.parts.relation.clone()),
                )
            })
            .collect()
    }

    #[test]
    fn code_and_comments_hold_no_links() {
        let p =
            parse("a [[A]] `[[B]]`\n\n```\n[[C]]\n```\n\n%% [[D]] %% [[E]]\n\n%%\n# Hidden\n%%\n");
        let t: Vec<_> = p.links.iter().map(|l| l.parts.target.as_str()).collect();
        assert_eq!(t, vec!["A", "E"]);
        assert!(p.headings.is_empty());
    }

    #[test]
    fn callouts_over_several_lines_and_collapsed() {
        let text = "> [!edge]- caused_by: [[X]] [[Y]]\n> resulted_in: [[Z]]\n> [[W]]\n\n> [!edge] ausgelöst durch\n> - [[V]]\n\n> [!note] [[N]]\n";
        let p = parse(text);
        let kind = |s: &str| Some(s.to_string());
        assert_eq!(
            targets(&p),
            vec![
                ("X".into(), None, kind("caused_by")),
                ("Y".into(), None, kind("caused_by")),
                ("Z".into(), None, kind("resulted_in")),
                ("W".into(), None, kind("resulted_in")),
                ("V".into(), None, kind("ausgelöst durch")),
                ("N".into(), None, None),
            ]
        );
        assert!(p.links[..5].iter().all(|l| l.in_callout));
        assert!(!p.links[5].in_callout);
    }

    #[test]
    fn headings_tags_and_lines() {
        let text = "---\ntags: [x]\n---\n# Titel\nText mit #Tag und #123 und C#.\n\n## Unter `Code`\n[[A#Sek|B]]\n";
        let p = parse(text);
        assert_eq!(p.first_h1(), Some("Titel"));
        assert_eq!(p.headings[1].text, "Unter Code");
        assert_eq!(p.tags, vec!["tag"]);
        assert_eq!(p.links[0].line, 8);
        assert_eq!(p.links[0].display(), "B");
        assert_eq!(p.blocks.len(), 4);
    }

    #[test]
    fn stray_and_empty_brackets_are_reported() {
        let p = parse("ok [[A]]\nbroken [[B\nempty [[]]\n");
        let lines: Vec<_> = p
            .issues
            .iter()
            .map(|i| (i.line, i.message.contains("empty")))
            .collect();
        assert_eq!(lines, vec![(2, false), (3, true)]);
    }
}
