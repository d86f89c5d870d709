//! Cutting a note into chunks (IMP-4). Heading boundaries first, then
//! paragraphs (Markdown blocks), then sentences, then words. Deterministic:
//! the same text and profile always give the same chunks.

use crate::parse::ParsedNote;
use mindnet_core::{ChunkProfile, ChunkStrategy};
use std::ops::Range;

/// Token estimate used for every size in a chunk profile: one token per four
/// characters, rounded up. Close to what multilingual subword tokenizers give
/// for German prose, and independent of any model, so chunks never change when
/// the embedding model does.
pub fn estimate_tokens(s: &str) -> usize {
    s.chars().count().div_ceil(4)
}

const CHARS_PER_TOKEN: usize = 4;

/// A chunk before it gets its ids.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkDraft {
    /// Byte range in the file; every link inside it belongs to this chunk.
    pub range: Range<usize>,
    pub text: String,
    pub window: String,
    pub section: String,
}

#[derive(Debug, Clone)]
struct Unit {
    range: Range<usize>,
    tokens: usize,
    is_heading: bool,
    section: usize,
}

pub fn chunk_note(
    source: &str,
    parsed: &ParsedNote,
    title: &str,
    profile: &ChunkProfile,
) -> Vec<ChunkDraft> {
    let (units, sections) = units(source, parsed, profile.max);
    let groups = pack(&units, profile);
    let render = Renderer { source, parsed };
    let mut out: Vec<ChunkDraft> = Vec::with_capacity(groups.len());
    let mut prev_plain = String::new();
    for group in groups {
        let range =
            group.first().map_or(0, |u| u.range.start)..group.last().map_or(0, |u| u.range.end);
        let text = render.text(range.clone(), false);
        if text.is_empty() {
            continue;
        }
        let section_idx = group
            .iter()
            .find(|u| !u.is_heading)
            .or(group.last())
            .map_or(0, |u| u.section);
        let section = sections[section_idx].clone();
        let mut window = heading_path(title, &section);
        window.push_str("\n\n");
        let tail = tail_chars(&prev_plain, profile.overlap * CHARS_PER_TOKEN).trim();
        if !tail.is_empty() {
            window.push_str(tail);
            window.push_str("\n\n");
        }
        let plain = render.text(range.clone(), true);
        window.push_str(&plain);
        prev_plain = plain;
        out.push(ChunkDraft {
            range,
            text,
            window,
            section,
        });
    }
    out
}

/// The title, then the headings above the chunk: `Title > H2 > H3`. The H1
/// usually repeats the title and is not written twice.
fn heading_path(title: &str, section: &str) -> String {
    if section.is_empty() {
        title.to_string()
    } else if section == title || section.starts_with(&format!("{title} > ")) {
        section.to_string()
    } else {
        format!("{title} > {section}")
    }
}

/// The last `max_chars` characters of `s`, starting at a word boundary.
fn tail_chars(s: &str, max_chars: usize) -> &str {
    if max_chars == 0 {
        return "";
    }
    let total = s.chars().count();
    if total <= max_chars {
        return s;
    }
    let start = s
        .char_indices()
        .nth(total - max_chars)
        .map_or(0, |(i, _)| i);
    let tail = &s[start..];
    match tail.find(char::is_whitespace) {
        Some(ws) => &tail[ws..],
        None => tail,
    }
}

/// Blocks as units, big blocks split into sentences and words; plus the heading
/// path of every section.
fn units(source: &str, parsed: &ParsedNote, max: usize) -> (Vec<Unit>, Vec<String>) {
    let mut sections = vec![String::new()];
    let mut stack: Vec<(u8, &str)> = Vec::new();
    let mut out = Vec::new();
    for block in &parsed.blocks {
        if let Some(h) = block.heading.map(|i| &parsed.headings[i]) {
            while stack.last().is_some_and(|(lvl, _)| *lvl >= h.level) {
                stack.pop();
            }
            stack.push((h.level, h.text.as_str()));
            sections.push(
                stack
                    .iter()
                    .map(|(_, t)| *t)
                    .collect::<Vec<_>>()
                    .join(" > "),
            );
            out.push(Unit {
                tokens: estimate_tokens(&source[block.range.clone()]),
                range: block.range.clone(),
                is_heading: true,
                section: sections.len() - 1,
            });
            continue;
        }
        let section = sections.len() - 1;
        let tokens = estimate_tokens(&source[block.range.clone()]);
        if tokens <= max {
            out.push(Unit {
                range: block.range.clone(),
                tokens,
                is_heading: false,
                section,
            });
            continue;
        }
        for piece in sentences(source, block.range.clone()) {
            let t = estimate_tokens(&source[piece.clone()]);
            let pieces = if t <= max {
                vec![piece]
            } else {
                words(source, piece, max * CHARS_PER_TOKEN)
            };
            for range in pieces {
                out.push(Unit {
                    tokens: estimate_tokens(&source[range.clone()]),
                    range,
                    is_heading: false,
                    section,
                });
            }
        }
    }
    (out, sections)
}

/// Greedy packing. A chunk is closed when the next unit would pass `target`,
/// and (by_heading) before every heading. A chunk of headings alone is never
/// closed: the headings go with the text that follows them.
fn pack<'u>(units: &'u [Unit], profile: &ChunkProfile) -> Vec<&'u [Unit]> {
    let mut groups = Vec::new();
    let mut start = 0;
    let mut tokens = 0;
    let mut only_headings = true;
    for (i, u) in units.iter().enumerate() {
        let boundary = u.is_heading
            && match profile.strategy {
                ChunkStrategy::ByHeading => true,
                ChunkStrategy::Sliding => tokens >= profile.target / 2,
            };
        if i > start && !only_headings && (boundary || tokens + u.tokens > profile.target) {
            groups.push(&units[start..i]);
            start = i;
            tokens = 0;
            only_headings = true;
        }
        tokens += u.tokens;
        only_headings &= u.is_heading;
    }
    if start < units.len() {
        groups.push(&units[start..]);
    }
    groups
}

/// Splits at line breaks and after `.`, `!`, `?`, `…` followed by a space and an
/// upper-case letter, digit or opening quote (so `z. B. die` stays whole).
fn sentences(source: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let s = &source[range.clone()];
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let cut = if c == '\n' {
            Some(i + 1)
        } else if matches!(c, '.' | '!' | '?' | '…') {
            let after = &s[i + c.len_utf8()..];
            let trimmed = after.trim_start_matches([' ', '\t']);
            let spaced = trimmed.len() < after.len();
            let next = trimmed.chars().next();
            (spaced
                && next.is_some_and(|n| {
                    n.is_uppercase() || n.is_ascii_digit() || "\"„»(*".contains(n)
                }))
            .then(|| i + c.len_utf8() + (after.len() - trimmed.len()))
        } else {
            None
        };
        if let Some(end) = cut
            && end > start
        {
            if !s[start..end].trim().is_empty() {
                out.push(range.start + start..range.start + end);
            }
            start = end;
        }
    }
    if start < s.len() && !s[start..].trim().is_empty() {
        out.push(range.start + start..range.end);
    }
    out
}

/// Hard split of an over-long sentence at whitespace, each piece at most `max_chars`.
fn words(source: &str, range: Range<usize>, max_chars: usize) -> Vec<Range<usize>> {
    let s = &source[range.clone()];
    let mut out = Vec::new();
    let mut start = 0;
    let mut count = 0;
    let mut last_space = None;
    for (i, c) in s.char_indices() {
        if count >= max_chars {
            let cut = last_space.filter(|&sp| sp > start).unwrap_or(i);
            out.push(range.start + start..range.start + cut);
            start = cut;
            count = s[start..i].chars().count();
            last_space = None;
        }
        if c.is_whitespace() {
            last_space = Some(i);
        }
        count += 1;
    }
    if start < s.len() {
        out.push(range.start + start..range.end);
    }
    out
}

/// Builds chunk text from a byte range: comments removed and, for the
/// embedding window, wikilinks replaced by what a reader sees.
struct Renderer<'a> {
    source: &'a str,
    parsed: &'a ParsedNote,
}

impl Renderer<'_> {
    fn text(&self, range: Range<usize>, plain: bool) -> String {
        let mut cuts: Vec<(Range<usize>, &str)> = Vec::new();
        let overlaps = |r: &Range<usize>| r.start < range.end && r.end > range.start;
        for c in self.parsed.comments.iter().filter(|c| overlaps(c)) {
            cuts.push((c.clone(), ""));
        }
        if plain {
            let first = self
                .parsed
                .links
                .partition_point(|l| l.range.end <= range.start);
            for l in self.parsed.links[first..]
                .iter()
                .take_while(|l| l.range.start < range.end)
            {
                cuts.push((l.range.clone(), l.display()));
            }
        }
        cuts.sort_by_key(|(r, _)| r.start);
        let mut out = String::with_capacity(range.len());
        let mut pos = range.start;
        for (r, replacement) in cuts {
            let (start, end) = (r.start.max(range.start), r.end.min(range.end));
            if start < pos {
                continue;
            }
            out.push_str(&self.source[pos..start]);
            out.push_str(replacement);
            pos = end;
        }
        if pos < range.end {
            out.push_str(&self.source[pos..range.end]);
        }
        out.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn profile(strategy: ChunkStrategy, target: usize, max: usize, overlap: usize) -> ChunkProfile {
        ChunkProfile {
            strategy,
            target,
            max,
            overlap,
        }
    }

    #[test]
    fn headings_start_chunks_and_carry_their_path() {
        let text = "# Titel\nEinleitung.\n\n## A\nText A.\n\n### A1\nText A1 mit [[Ziel|Anzeige]].\n\n## B\nText B.\n";
        let p = parse(text);
        let chunks = chunk_note(
            text,
            &p,
            "Titel",
            &profile(ChunkStrategy::ByHeading, 100, 200, 10),
        );
        let sections: Vec<_> = chunks.iter().map(|c| c.section.as_str()).collect();
        assert_eq!(
            sections,
            vec!["Titel", "Titel > A", "Titel > A > A1", "Titel > B"]
        );
        assert!(chunks[2].text.contains("[[Ziel|Anzeige]]"));
        assert!(chunks[2].window.starts_with("Titel > A > A1\n\n"));
        assert!(
            chunks[2].window.ends_with("Text A1 mit Anzeige."),
            "{}",
            chunks[2].window
        );
        // Overlap: the window repeats the end of the previous chunk.
        assert!(
            chunks[1].window.contains("Einleitung."),
            "{}",
            chunks[1].window
        );
    }

    #[test]
    fn sliding_packs_small_sections_and_big_blocks_are_split() {
        let text = "## A\nEins.\n\n## B\nZwei.\n";
        let p = parse(text);
        let chunks = chunk_note(
            text,
            &p,
            "T",
            &profile(ChunkStrategy::Sliding, 100, 200, 10),
        );
        assert_eq!(chunks.len(), 1);

        let sentence = "Das ist ein Satz mit z. B. einer Abkürzung und etwas Länge. ";
        let long = sentence.repeat(40);
        let p = parse(&long);
        let chunks = chunk_note(
            &long,
            &p,
            "T",
            &profile(ChunkStrategy::ByHeading, 60, 80, 10),
        );
        assert!(chunks.len() > 5);
        for c in &chunks {
            assert!(estimate_tokens(&c.text) <= 80, "{}", c.text);
            assert!(
                c.text.ends_with("Länge."),
                "split inside a sentence: {}",
                c.text
            );
        }
    }

    #[test]
    fn giant_words_are_cut_hard() {
        let text = "x".repeat(5000);
        let p = parse(&text);
        let chunks = chunk_note(
            &text,
            &p,
            "T",
            &profile(ChunkStrategy::ByHeading, 50, 100, 0),
        );
        assert_eq!(chunks.iter().map(|c| c.text.len()).sum::<usize>(), 5000);
        assert!(chunks.iter().all(|c| estimate_tokens(&c.text) <= 100));
    }

    #[test]
    fn comments_are_not_chunk_text() {
        let text = "Sichtbar %%geheim%% weiter.\n\n%%\nganz geheim\n%%\n";
        let p = parse(text);
        let chunks = chunk_note(
            text,
            &p,
            "T",
            &profile(ChunkStrategy::ByHeading, 100, 200, 10),
        );
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "Sichtbar  weiter.");
    }
}
