//! Mentions: another note's title or alias in a note's prose, unlinked.
//! Obsidian lists them as "unlinked mentions"; the import turns each into an
//! implicit edge (provenance `mention`) and never writes it into the note.
//!
//! One automaton holds every title, file name, alias and qualifier-free
//! title (`Hello Love` of `Hello Love (song)`) of the vault, lower-cased, so
//! a note is scanned once whatever the size of the vault. A match counts at
//! word boundaries only, after the case rule of its name:
//! - a name of several words matches in any case ("machine learning");
//! - a single word with a capital inside (`BM25`, `McRae`, `US`) matches
//!   exactly;
//! - a single word with a capital first letter matches a capitalised word
//!   only (note `Licht`, not "licht"); a lower-case one matches either.
//!
//! The language's endings may follow the name (`Webers`, `Atlas's`), and so
//! may a hyphen (`Atlas-Migration`). A name two notes share is ambiguous and
//! never matches; so are names shorter than `min_length` and function words.

use crate::parse::Prose;
use crate::resolve::NoteEntry;
use aho_corasick::{AhoCorasick, MatchKind};
use mindnet_core::NameRules;
use mindnet_core::title::base_title;
use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Case {
    /// Several words, or a lower-case word: any case.
    Any,
    /// A capitalised word: the mention starts with a capital too.
    Capital,
    /// A capital inside the word: as written.
    Exact,
}

fn case_of(name: &str, function: &HashSet<String>) -> Case {
    let content = name
        .split_whitespace()
        .filter(|w| !function.contains(&w.to_lowercase()))
        .count();
    // "machine learning" in any case; "To Do" (one content word) like a
    // word: "what to do" is no mention of it.
    if content > 1 {
        return Case::Any;
    }
    let mut chars = name.chars();
    let first_upper = chars.next().is_some_and(char::is_uppercase);
    if chars.any(char::is_uppercase) {
        Case::Exact
    } else if first_upper {
        Case::Capital
    } else {
        Case::Any
    }
}

/// One spelling of one note's name.
#[derive(Debug, Clone)]
struct Spelling {
    written: String,
    case: Case,
    /// One word: no plural ending, and not inside a longer name.
    one_word: bool,
}

/// A name found in a note's prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Index into the notes the index was built from.
    pub note: usize,
    /// The name as the prose writes it.
    pub text: String,
    pub range: Range<usize>,
}

pub struct MentionIndex {
    automaton: Option<AhoCorasick>,
    /// Per pattern: the note and the spellings it stands for.
    patterns: Vec<(usize, Vec<Spelling>)>,
    /// The rules' function words, lower case (built once, not per note).
    function: HashSet<String>,
}

/// Lower case with a map back to the original byte offsets (lower-casing
/// may change a character's length).
fn lowered(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut at = Vec::with_capacity(text.len() + 1);
    for (i, c) in text.char_indices() {
        for l in c.to_lowercase() {
            for _ in 0..l.len_utf8() {
                at.push(i);
            }
            out.push(l);
        }
    }
    at.push(text.len());
    (out, at)
}

impl MentionIndex {
    /// `notes` in a deterministic order (by path): `Mention::note` indexes it.
    pub fn new(notes: &[NoteEntry], rules: &NameRules) -> Self {
        let function: HashSet<String> = rules
            .function_words
            .iter()
            .map(|w| w.to_lowercase())
            .collect();
        // Lower-cased name → the notes it names, and its spellings.
        let mut by_key: BTreeMap<String, BTreeMap<usize, Vec<Spelling>>> = BTreeMap::new();
        for (i, n) in notes.iter().enumerate() {
            let stem = Path::new(&n.rel_path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let names = [
                n.title.as_str(),
                base_title(&n.title),
                &stem,
                base_title(&stem),
            ]
            .into_iter()
            .map(str::to_string)
            .chain(n.aliases.iter().cloned());
            for name in names {
                let name = name.trim().to_string();
                let key = name.to_lowercase();
                let letters = name.chars().filter(|c| c.is_alphabetic()).count();
                if name.chars().count() < rules.min_length
                    || letters == 0
                    || function.contains(&key)
                {
                    continue;
                }
                let spellings = by_key.entry(key).or_default().entry(i).or_default();
                if !spellings.iter().any(|s| s.written == name) {
                    spellings.push(Spelling {
                        case: case_of(&name, &function),
                        one_word: !name.contains(char::is_whitespace),
                        written: name,
                    });
                }
            }
        }
        let mut keys = Vec::new();
        let mut patterns = Vec::new();
        for (key, mut owners) in by_key {
            if owners.len() != 1 {
                continue; // ambiguous
            }
            if let Some((note, spellings)) = owners.pop_first() {
                keys.push(key);
                patterns.push((note, spellings));
            }
        }
        let automaton = (!keys.is_empty())
            .then(|| {
                // The keys are lower case; prose whose only capitals are
                // ASCII is searched as written (see `folds_beyond_ascii`).
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .ascii_case_insensitive(true)
                    .build(&keys)
                    .ok()
            })
            .flatten();
        MentionIndex {
            automaton,
            patterns,
            function,
        }
    }

    /// The mentions in a note's prose (never in a link's text), each name
    /// once per place; `lang` picks the endings.
    pub fn find(&self, text: &str, prose: &[Prose], rules: &NameRules, lang: &str) -> Vec<Mention> {
        let Some(ac) = &self.automaton else {
            return Vec::new();
        };
        let suffixes = rules.suffixes(lang);
        let plurals = rules.plurals(lang);
        let singular: Vec<String> = suffixes
            .iter()
            .filter(|s| !plurals.contains(s))
            .cloned()
            .collect();
        let function = &self.function;
        let english = lang.starts_with("en");
        let mut mid: Option<HashSet<String>> = None;
        let mut out = Vec::new();
        let mut lower_case: Option<HashSet<String>> = None;
        for p in prose.iter().filter(|p| !p.in_link) {
            let Some(piece) = text.get(p.range.clone()) else {
                continue;
            };
            let lowered_piece = folds_beyond_ascii(piece).then(|| lowered(piece));
            let low = lowered_piece
                .as_ref()
                .map_or(piece, |(low, _)| low.as_str());
            for m in ac.find_iter(low) {
                let (start, end) = match &lowered_piece {
                    Some((_, at)) => (at[m.start()], at[m.end()]),
                    None => (m.start(), m.end()),
                };
                let found = &piece[start..end];
                if in_url(piece, start) {
                    continue;
                }
                let (note, spellings) = &self.patterns[m.pattern().as_usize()];
                let ok = spellings.iter().any(|s| {
                    let case_ok = match s.case {
                        Case::Any => true,
                        // "Licht", never "licht" nor the shouted "LICHT".
                        Case::Capital => {
                            let mut c = found.chars();
                            c.next().is_some_and(char::is_uppercase) && !c.any(char::is_uppercase)
                        }
                        Case::Exact => found == s.written,
                    };
                    if !case_ok {
                        return false;
                    }
                    if !s.one_word {
                        return bounded(piece, start, end, suffixes);
                    }
                    if !bounded(piece, start, end, &singular) {
                        return false;
                    }
                    if s.case == Case::Any {
                        // A lower-case name ("run") capitalised at the start of
                        // a sentence, heading or list item ("Run the tests")
                        // is the word, unless the note writes it capitalised
                        // in mid-sentence too. (The note, not the vault: an
                        // edge depends on its own note and the vault's names
                        // only, so an incremental import finds the same.)
                        return !found.starts_with(char::is_uppercase)
                            || name_where_it_opens(
                                text,
                                prose,
                                p.range.start + start,
                                found,
                                &mut mid,
                            );
                    }
                    if s.case != Case::Capital {
                        return true;
                    }
                    // English capitalises names only (German every noun:
                    // "Webers Gutachten"), so there a capitalised neighbour
                    // makes a longer name, and a sentence's first word is a
                    // name only if the note writes it capitalised in
                    // mid-sentence too.
                    if !english {
                        return true;
                    }
                    if in_longer_name(piece, start, end, function, &rules.connectors) {
                        return false;
                    }
                    // A note that writes the word in lower case too uses it
                    // as a common noun ("security"), capitalised or not.
                    if lower_case
                        .get_or_insert_with(|| lower_case_words(text, prose))
                        .contains(&found.to_lowercase())
                    {
                        return false;
                    }
                    name_where_it_opens(text, prose, p.range.start + start, found, &mut mid)
                });
                if ok {
                    out.push(Mention {
                        note: *note,
                        text: found.to_string(),
                        range: (p.range.start + start)..(p.range.start + end),
                    });
                }
            }
        }
        out
    }
}

/// Whether a capitalised word at `at` is taken as written: anywhere but at
/// the start of a sentence, heading or list item, and there only if the
/// note writes it capitalised in mid-sentence too (`mid`, read once per
/// note when first needed).
fn name_where_it_opens(
    text: &str,
    prose: &[Prose],
    at: usize,
    found: &str,
    mid: &mut Option<HashSet<String>>,
) -> bool {
    !opens_sentence(text, at)
        || mid
            .get_or_insert_with(|| crate::names::mid_sentence_capitals(text, prose))
            .contains(found)
}

/// Whether lower-casing changes a character the automaton cannot fold
/// itself (it folds ASCII): "Übung" must be lowered and mapped back,
/// "Veränderung" is searched as written, which is most prose.
fn folds_beyond_ascii(piece: &str) -> bool {
    !piece.is_ascii()
        && piece
            .chars()
            .any(|c| !c.is_ascii() && c.to_lowercase().ne(std::iter::once(c)))
}

/// Whether the word at `start..end` stands next to another capitalised
/// word (not a function word) on the same line: "Piston Ring", "Henry's
/// Law", "FULL POWER" are names of their own, not mentions of "Ring".
fn in_longer_name(
    text: &str,
    start: usize,
    end: usize,
    function: &HashSet<String>,
    connectors: &[String],
) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '\'' | '’' | '-');
    let capital = |w: &str| {
        w.chars().next().is_some_and(char::is_uppercase) && !function.contains(&w.to_lowercase())
    };
    let connector = |w: &str| connectors.iter().any(|c| c == w);
    // The word before `at` (one space between), and where it starts.
    let word_before = |at: usize| -> Option<(&str, usize)> {
        let b = text[..at].strip_suffix(' ')?;
        let from = b
            .char_indices()
            .rev()
            .find(|&(_, c)| !is_word(c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        Some((&b[from..], from))
    };
    // The word after `at` (one space between), and where it ends.
    let word_after = |at: usize| -> Option<(&str, usize)> {
        let r = text[at..].strip_prefix(' ')?;
        let len = r.find(|c: char| !is_word(c)).unwrap_or(r.len());
        Some((&r[..len], at + 1 + len))
    };
    let end = end
        + text[end..]
            .find(|c: char| !is_word(c))
            .unwrap_or(text.len() - end);
    let before = match word_before(start) {
        // "Cycle of Life": a connector after a capitalised word.
        Some((w, from)) if connector(w) => word_before(from).is_some_and(|(w, _)| capital(w)),
        Some((w, _)) => capital(w),
        None => false,
    };
    let after = match word_after(end) {
        // "Law of God", "Field of a Moving Charge", "Time of the Prophet":
        // a connector, perhaps an article, then a capitalised word.
        Some((w, mut to)) if connector(w) => loop {
            match word_after(to) {
                Some((w, next)) if function.contains(&w.to_lowercase()) => {
                    to = next;
                }
                Some((w, _)) => break capital(w),
                None => break false,
            }
        },
        Some((w, _)) => capital(w),
        None => false,
    };
    before || after
}

/// Whether `at` lies in a bare URL (`https://…#Standards`).
fn in_url(text: &str, at: usize) -> bool {
    // The token starts after the last whitespace, which may be wider than
    // a byte (a no-break space).
    let from = text[..at]
        .char_indices()
        .rev()
        .find(|&(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let token = &text[from..at];
    token.contains("://") || token.starts_with("www.")
}

/// The words a note writes in lower case in its prose.
fn lower_case_words(text: &str, prose: &[Prose]) -> HashSet<String> {
    let mut out = HashSet::new();
    for p in prose {
        let Some(piece) = text.get(p.range.clone()) else {
            continue;
        };
        for w in piece.split(|c: char| !c.is_alphanumeric()) {
            if w.chars().next().is_some_and(char::is_lowercase) {
                out.insert(w.to_string());
            }
        }
    }
    out
}

/// Whether `at` opens a sentence, a line or a list item: only markup
/// (`- `, `# `, `1. `, `> `, `|`, `**`) or a sentence's end stands before it.
fn opens_sentence(text: &str, at: usize) -> bool {
    for c in text[..at].chars().rev() {
        match c {
            '\n' | '.' | '!' | '?' | ':' | ';' => return true,
            c if c.is_whitespace() => {}
            '-' | '*' | '+' | '#' | '>' | '|' | '=' | '_' | '(' | '[' | '"' | '“' | '„' => {}
            c if c.is_ascii_digit() => {}
            _ => return false,
        }
    }
    true
}

/// Word boundaries around `start..end`: no letter or digit before; after,
/// none either, or one of the language's endings, or a hyphen.
fn bounded(text: &str, start: usize, end: usize, suffixes: &[String]) -> bool {
    let word = |c: char| c.is_alphanumeric();
    if text[..start].chars().next_back().is_some_and(word) {
        return false;
    }
    let rest = &text[end..];
    match rest.chars().next() {
        None => true,
        Some('-') => true,
        Some(c) if !word(c) && !matches!(c, '\'' | '’') => true,
        Some(_) => suffixes.iter().any(|s| {
            rest.strip_prefix(s.as_str())
                .is_some_and(|after| !after.chars().next().is_some_and(word))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;
    use mindnet_core::EdgeVocabulary;

    fn entry(path: &str, title: &str, aliases: &[&str]) -> NoteEntry {
        NoteEntry {
            note_id: path.to_string(),
            rel_path: path.to_string(),
            title: title.to_string(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            note_type: "concept".to_string(),
        }
    }

    fn found(notes: &[NoteEntry], text: &str, lang: &str) -> Vec<(String, String)> {
        let v = EdgeVocabulary::builtin();
        let idx = MentionIndex::new(notes, v.names());
        let p = parse(text);
        idx.find(text, &p.prose, v.names(), lang)
            .into_iter()
            .map(|m| {
                // Every range is the text the mention reports.
                assert_eq!(text[m.range.clone()], m.text, "{text}");
                (notes[m.note].title.clone(), m.text)
            })
            .collect()
    }

    fn vault() -> Vec<NoteEntry> {
        vec![
            entry("Projekt Atlas.md", "Projekt Atlas", &["Atlas"]),
            entry("Weber.md", "Weber", &[]),
            entry("Licht.md", "Licht", &[]),
            entry("BM25.md", "BM25", &[]),
            entry("qdrant.md", "qdrant", &[]),
            entry("Hello Love (song).md", "Hello Love (song)", &[]),
            entry("Atlas Copco.md", "Atlas Copco", &[]),
        ]
    }

    #[test]
    fn german_endings_hyphens_and_case() {
        let f = found(
            &vault(),
            "Webers Gutachten zur Atlas-Migration im projekt atlas. Licht und licht. \
             Wir nutzen Qdrant, nicht bm25, sondern BM25.",
            "de",
        );
        let has = |t: &str, s: &str| f.contains(&(t.to_string(), s.to_string()));
        assert!(has("Weber", "Weber"), "{f:?}"); // in "Webers"
        assert!(has("Projekt Atlas", "Atlas"), "{f:?}");
        assert!(has("Projekt Atlas", "projekt atlas"), "{f:?}");
        assert!(has("Licht", "Licht") && !has("Licht", "licht"), "{f:?}");
        assert!(has("qdrant", "Qdrant"), "{f:?}");
        assert!(has("BM25", "BM25") && !has("BM25", "bm25"), "{f:?}");
    }

    #[test]
    fn english_genitives_qualifiers_and_the_longest_name() {
        let f = found(
            &vault(),
            "Hello Love's chart run. Atlas Copco's tools are not Atlas. Weberian ideas.",
            "en",
        );
        assert!(
            f.contains(&("Hello Love (song)".into(), "Hello Love".into())),
            "{f:?}"
        );
        assert!(
            f.contains(&("Atlas Copco".into(), "Atlas Copco".into())),
            "{f:?}"
        );
        assert!(
            f.contains(&("Projekt Atlas".into(), "Atlas".into())),
            "{f:?}"
        );
        assert!(!f.iter().any(|(t, _)| t == "Weber"), "{f:?}");
        assert_eq!(f.len(), 3, "{f:?}");
    }

    /// The misses of a real English vault: a word of a longer name, a
    /// plural common noun, a sentence's first word, a phrase of function
    /// words.
    #[test]
    fn english_words_of_other_names_plurals_and_openers_are_no_mentions() {
        let notes = vec![
            entry("Ring.md", "Ring", &[]),
            entry("Image.md", "Image", &[]),
            entry("People.md", "People", &[]),
            entry("To Do.md", "To Do", &[]),
            entry("Karma.md", "Karma", &[]),
            entry("Logic.md", "Logic", &[]),
            entry("Time.md", "Time", &[]),
        ];
        let text = concat!(
            "A Piston Ring broke. See the Images below.\n\n",
            "People focused on semantics. What to do now?\n\n",
            "- Logic first\n- Karma and Ring theory\n\n",
            "We trust Logic here. The Cycle of Karma, LOGIC in capitals, in the Time of the Prophet, ",
            "https://example.org/wiki/Ring and the ring of logic."
        );
        let f = found(&notes, text, "en");
        let titles: Vec<&str> = f.iter().map(|(t, _)| t.as_str()).collect();
        // "logic" and "ring" are written in lower case too: common nouns
        // here. "Karma" opens a list item, but the note writes it
        // capitalised in mid-sentence as well ("The Cycle of Karma" is
        // itself a longer name).
        assert_eq!(titles, ["Karma"], "{f:?}");
        // German capitalises every noun: there neighbours and openers count.
        let f = found(&notes, "Karma Gutachten. Ring und Logic.", "de");
        assert_eq!(f.len(), 3, "{f:?}");
    }

    /// Multi-byte spaces, accents and emoji around a name: every offset
    /// stays on a character boundary.
    #[test]
    fn wide_characters_around_names() {
        let notes = vec![
            entry("Córdoba.md", "Córdoba", &[]),
            entry("Ring.md", "Ring", &[]),
        ];
        let text = "Über\u{a0}Córdoba\u{2003}Ring 🎉Ring🎉 İRing. Ünd\u{a0}Córdoba’s Ring—Córdoba";
        for lang in ["en", "de"] {
            let f = found(&notes, text, lang);
            assert!(f.iter().any(|(t, _)| t == "Córdoba"), "{lang}: {f:?}");
        }
    }

    /// Prose with non-ASCII letters is searched as written unless one of
    /// them is a capital: both ways find the same names at the same places.
    #[test]
    fn umlauts_as_written_and_lowered() {
        let notes = vec![
            entry("Übung.md", "Übung", &[]),
            entry("Veränderung.md", "Veränderung", &[]),
            entry("Größe.md", "große Frage", &[]),
        ];
        for (text, want) in [
            ("Die Veränderung, die große Frage.", 2),
            ("Die Übung, die Veränderung, die GROSSE Frage.", 2),
            ("Die Übung, die Veränderung, die Große Frage.", 3),
        ] {
            let f = found(&notes, text, "de");
            assert_eq!(f.len(), want, "{text}: {f:?}");
        }
    }

    #[test]
    fn never_in_links_code_or_comments() {
        let f = found(
            &vault(),
            "[[Weber]] und [[Licht|das Licht]]; `Weber` %%Weber%%\n\n```\nWeber\n```\n",
            "de",
        );
        assert!(f.is_empty(), "{f:?}");
    }

    /// Only prose a reader sees and could link: never an image's alt text, a
    /// link's text, URL or target, code, HTML, the frontmatter or a
    /// callout's `[!type]`. Each context is checked on its own, next to the
    /// same name in prose (found), so no context passes by accident.
    #[test]
    fn only_prose_holds_mentions() {
        let notes = vec![
            entry("GitHub.md", "GitHub", &[]),
            entry("Info.md", "Info", &[]),
        ];
        for context in [
            "![GitHub all releases](https://img.shields.io/github/downloads/x/total)",
            "[GitHub](https://github.com/x/y)",
            "[the releases](https://github.com/GitHub/releases)",
            "<https://github.com/GitHub>",
            "`GitHub`",
            "```\nGitHub\n```",
            "<div>GitHub</div>",
            "Siehe <img alt=\"GitHub\" src=\"x.png\"> hier.",
            "> [!Info]- Hinweis\n> Text",
            "[[Other|GitHub]]",
        ] {
            let body = format!("---\ntitle: GitHub\n---\n{context}\n\nEnde.\n");
            let f = found(&notes, &body, "de");
            assert!(f.is_empty(), "{context}: {f:?}");
            let body = format!("{body}\nWir nutzen GitHub und Info.\n");
            let f = found(&notes, &body, "de");
            assert_eq!(f.len(), 2, "{context}: {f:?}");
        }
        // A callout's title is prose; only its `[!type]` is syntax.
        let f = found(&notes, "> [!note] GitHub\n> Text\n", "de");
        assert_eq!(f.len(), 1, "{f:?}");
    }

    /// A lower-case one-word name capitalised at the start of a sentence, a
    /// heading or a list item is the word, in either language, unless the
    /// note writes it capitalised in mid-sentence as well.
    #[test]
    fn a_capitalised_opener_is_not_a_lower_case_name() {
        let notes = vec![entry("run.md", "run", &[]), entry("moc.md", "moc", &[])];
        for lang in ["en", "de"] {
            let text = "Run the tests.\n\n# Moc\n\n- Run again\n\n## Run\n\nWe run it.";
            let f = found(&notes, text, lang);
            assert_eq!(f, [("run".to_string(), "run".to_string())], "{lang}");
            let text = "Run the tests. The Run was long.";
            let f = found(&notes, text, lang);
            assert_eq!(f.len(), 2, "{lang}: {f:?}");
        }
    }

    #[test]
    fn a_name_two_notes_share_names_neither() {
        let mut notes = vault();
        notes.push(entry("sub/Weber.md", "Weber", &[]));
        let f = found(&notes, "Weber kam.", "de");
        assert!(f.is_empty(), "{f:?}");
    }
}
