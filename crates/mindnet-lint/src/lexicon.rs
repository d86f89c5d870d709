//! The real words of a language, read from word lists (one word per line,
//! as Debian's `wngerman` and `wamerican` install them under
//! `/usr/share/dict`; `word_lists` in `config/lint.yaml`).
//!
//! Two spellings one or two letters apart are a misspelling only if they
//! are not both real words: `Embryo` and `Embargo`, `Körbchen` and `Körnchen`
//! are two words, `Gewohnhieten` is a slip of `Gewohnheiten`. On real
//! vaults, half of the split spellings found by edit distance alone were
//! two real words. A list is read only when such a pair turns up, so a
//! vault without one pays nothing; without a list, edit distance decides
//! alone, as before.

use crate::names::{push_letter, words};
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Words in the folded form of `names::words` (lower case, `ä` as `ae`).
#[derive(Debug, Default)]
pub(crate) struct Lexicon {
    words: HashSet<String>,
}

impl Lexicon {
    /// Entries that are one word after folding (`cat's` and `New York` are
    /// left out: a name's words are compared one by one).
    #[cfg(test)]
    pub fn from_words<'a>(entries: impl IntoIterator<Item = &'a str>) -> Self {
        Lexicon {
            words: entries.into_iter().filter_map(fold).collect(),
        }
    }

    /// Every listed file that exists, as one lexicon; `None` when none does.
    /// A list that cannot be read is named in a warning and skipped.
    pub fn read(paths: &[PathBuf]) -> Option<Self> {
        let mut texts = Vec::new();
        for p in paths {
            match std::fs::read(p) {
                Ok(bytes) => texts.push(String::from_utf8_lossy(&bytes).into_owned()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => tracing::warn!("word list {}: {e}; not used", p.display()),
            }
        }
        if texts.is_empty() {
            return None;
        }
        // In parallel: a German list has 356,000 entries, and a lint that
        // waits for it should not take longer than an import.
        let lexicon = Lexicon {
            words: texts
                .par_iter()
                .flat_map(|t| t.par_lines())
                .filter_map(fold)
                .collect(),
        };
        tracing::debug!(
            "{} real words from {}",
            lexicon.len(),
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        Some(lexicon)
    }

    /// Whether `word` (folded) is a real word.
    pub fn knows(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }
}

/// An entry as `names::words` folds a one-word name (lower case, `ä` as
/// `ae`, `ß` as `ss`); `None` for an entry that is not one word of letters.
fn fold(entry: &str) -> Option<String> {
    let entry = entry.trim();
    // Decomposed umlauts (rare in lists) take the names' own way.
    if !entry.is_ascii() && !unicode_normalization::is_nfc(entry) {
        return match words(entry).as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        };
    }
    let mut w = String::with_capacity(entry.len() + 2);
    for c in entry.chars().flat_map(char::to_lowercase) {
        if !push_letter(&mut w, c) {
            return None;
        }
    }
    (!w.is_empty()).then_some(w)
}

/// A language's lexicon, read on first use.
#[derive(Debug, Default)]
pub(crate) struct RealWords {
    paths: Vec<PathBuf>,
    loaded: OnceLock<Option<Lexicon>>,
}

impl RealWords {
    pub fn new(paths: Vec<PathBuf>) -> Self {
        RealWords {
            paths,
            loaded: OnceLock::new(),
        }
    }

    /// A lexicon given whole.
    #[cfg(test)]
    pub fn given(lexicon: Lexicon) -> Self {
        RealWords {
            paths: Vec::new(),
            loaded: OnceLock::from(Some(lexicon)),
        }
    }

    /// Whether both words are real words; false without a word list.
    pub fn both_known(&self, a: &str, b: &str) -> bool {
        self.knows(a) && self.knows(b)
    }

    /// Whether a word (folded) is a real word; false without a word list.
    pub fn knows(&self, word: &str) -> bool {
        self.loaded
            .get_or_init(|| Lexicon::read(&self.paths))
            .as_ref()
            .is_some_and(|l| l.knows(word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_folded_like_names_and_phrases_left_out() {
        let l = Lexicon::from_words([
            "Straße",
            "Größe",
            "cat's",
            "New York",
            "  Embryo ",
            "Gro\u{308}ße",
        ]);
        assert!(l.knows("strasse") && l.knows("groesse") && l.knows("embryo"));
        assert_eq!(l.len(), 3);
        for name in ["Straße", "Größe", "Embryo", "Gro\u{308}ße", "Ärger"] {
            assert_eq!(fold(name), words(name).pop(), "{name}");
        }
    }

    #[test]
    fn a_missing_list_is_no_list() {
        let w = RealWords::new(vec![PathBuf::from("/no/such/word/list")]);
        assert!(!w.both_known("embryo", "embargo"));
    }
}
