//! A note's section as a person names it: the heading's text (any case,
//! `#`s optional), or a path `A > B` where the text repeats under several
//! headings. `read_note` reads one, `edit_note` replaces one's body.

use mindnet_ingest::parse::Heading;
use std::ops::Range;

/// A section found: its heading and where it runs.
pub(crate) struct Section {
    pub heading: String,
    /// From the heading's first byte to the next heading of the same or a
    /// higher level (or the end of the note).
    pub range: Range<usize>,
    /// Where the body under the heading line starts.
    pub body_start: usize,
}

/// The section `wanted` names, or why there is none.
pub(crate) fn find_section(
    text: &str,
    headings: &[Heading],
    wanted: &str,
) -> Result<Section, String> {
    let path: Vec<String> = wanted.split(" > ").map(key).collect();
    let last = path.last().cloned().unwrap_or_default();
    let matches: Vec<usize> = (0..headings.len())
        .filter(|&i| key(&headings[i].text) == last && under(headings, i, &path))
        .collect();
    let i = match matches.as_slice() {
        [i] => *i,
        [] => {
            let all: Vec<&str> = headings.iter().map(|h| h.text.as_str()).collect();
            return Err(format!(
                "no heading {wanted:?}; its headings: {}",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.join(" | ")
                }
            ));
        }
        several => {
            let paths: Vec<String> = several.iter().map(|&i| path_of(headings, i)).collect();
            return Err(format!(
                "{} headings read {wanted:?}; name one by its path: {}",
                several.len(),
                paths.join(" | ")
            ));
        }
    };
    let h = &headings[i];
    let end = headings[i + 1..]
        .iter()
        .find(|n| n.level <= h.level)
        .map_or(text.len(), |n| n.range.start);
    // The heading's range may or may not hold its line end; the body starts
    // on the next line either way (byte offsets stay on char boundaries).
    let at = h.range.end.min(end);
    let body_start = if text[..at].ends_with('\n') {
        at
    } else {
        text[at..].find('\n').map_or(end, |j| (at + j + 1).min(end))
    };
    Ok(Section {
        heading: h.text.clone(),
        range: h.range.start..end,
        body_start,
    })
}

fn key(s: &str) -> String {
    s.trim().trim_start_matches('#').trim().to_lowercase()
}

/// Whether the headings above `i` read, from the top, as `path` without
/// its last part (each a parent of the next; levels may skip).
fn under(headings: &[Heading], i: usize, path: &[String]) -> bool {
    let mut want = path[..path.len() - 1].iter().rev();
    let Some(mut next) = want.next() else {
        return true;
    };
    let mut level = headings[i].level;
    for h in headings[..i].iter().rev() {
        if h.level < level {
            level = h.level;
            if key(&h.text) == *next {
                match want.next() {
                    Some(n) => next = n,
                    None => return true,
                }
            }
        }
    }
    false
}

/// `A > B > C`: the heading's parents and itself.
fn path_of(headings: &[Heading], i: usize) -> String {
    let mut parts = vec![headings[i].text.clone()];
    let mut level = headings[i].level;
    for h in headings[..i].iter().rev() {
        if h.level < level {
            level = h.level;
            parts.push(h.text.clone());
        }
    }
    parts.reverse();
    parts.join(" > ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(text: &str, wanted: &str) -> Result<(String, String, String), String> {
        let parsed = mindnet_ingest::parse::parse(text);
        find_section(text, &parsed.headings, wanted).map(|s| {
            (
                s.heading,
                text[s.range.clone()].to_string(),
                text[s.body_start..s.range.end].to_string(),
            )
        })
    }

    #[test]
    fn sections_by_text_and_by_path() {
        let text =
            "---\ntitle: X\n---\n# A\n\none\n\n## B\n\ntwo\n\n# C\n\nthree\n\n## B\n\nfour\n";
        let (_, whole, body) = find(text, "A").unwrap();
        assert_eq!(whole, "# A\n\none\n\n## B\n\ntwo\n\n");
        assert_eq!(body, "\none\n\n## B\n\ntwo\n\n");
        let e = find(text, "b").unwrap_err();
        assert!(e.contains("A > B | C > B"), "{e}");
        let (h, whole, _) = find(text, "C > ## B").unwrap();
        assert_eq!((h.as_str(), whole.as_str()), ("B", "## B\n\nfour\n"));
        assert!(find(text, "D").unwrap_err().contains("A | B | C | B"));
        assert!(find(text, "B > A").is_err());
    }

    #[test]
    fn a_last_heading_ending_in_a_wide_char_has_an_empty_body() {
        for text in ["# Größe", "# Größe\n", "Größe\n=====\n\ntext\n"] {
            let (h, _, body) = find(text, "größe").unwrap();
            assert_eq!(h, "Größe");
            assert!(body.is_empty() || body == "\ntext\n", "{text:?}: {body:?}");
        }
    }
}
