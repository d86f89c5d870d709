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

use crate::names::base_title;
use crate::parse::Prose;
use crate::resolve::NoteEntry;
use aho_corasick::{AhoCorasick, MatchKind};
use mindnet_core::NameRules;
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

fn case_of(name: &str) -> Case {
    if name.split_whitespace().count() > 1 {
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
                        case: case_of(&name),
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
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&keys)
                    .ok()
            })
            .flatten();
        MentionIndex {
            automaton,
            patterns,
        }
    }

    /// The mentions in a note's prose (never in a link's text), each name
    /// once per place; `lang` picks the endings.
    pub fn find(&self, text: &str, prose: &[Prose], rules: &NameRules, lang: &str) -> Vec<Mention> {
        let Some(ac) = &self.automaton else {
            return Vec::new();
        };
        let suffixes = rules.suffixes(lang);
        let mut out = Vec::new();
        for p in prose.iter().filter(|p| !p.in_link) {
            let Some(piece) = text.get(p.range.clone()) else {
                continue;
            };
            let (low, at) = lowered(piece);
            for m in ac.find_iter(&low) {
                let (start, end) = (at[m.start()], at[m.end()]);
                let found = &piece[start..end];
                let (note, spellings) = &self.patterns[m.pattern().as_usize()];
                let case_ok = spellings.iter().any(|s| match s.case {
                    Case::Any => true,
                    Case::Capital => found.chars().next().is_some_and(char::is_uppercase),
                    Case::Exact => found == s.written,
                });
                if case_ok && bounded(piece, start, end, suffixes) {
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
            .map(|m| (notes[m.note].title.clone(), m.text))
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

    #[test]
    fn never_in_links_code_or_comments() {
        let f = found(
            &vault(),
            "[[Weber]] und [[Licht|das Licht]]; `Weber` %%Weber%%\n\n```\nWeber\n```\n",
            "de",
        );
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn a_name_two_notes_share_names_neither() {
        let mut notes = vault();
        notes.push(entry("sub/Weber.md", "Weber", &[]));
        let f = found(&notes, "Weber kam.", "de");
        assert!(f.is_empty(), "{f:?}");
    }
}
