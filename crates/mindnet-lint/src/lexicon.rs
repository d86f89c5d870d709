//! The real words of a language, read from word lists (one word per line,
//! as Debian's `wngerman` and `wamerican` install them under
//! `/usr/share/dict`; `word_lists` in `config/lint.yaml`).
//!
//! Two spellings one or two letters apart are a misspelling only if they
//! are not both real words: `Embryo` and `Embargo`, `Stele` and `Stelle`
//! are two words, `Gewohnhieten` is a slip of `Gewohnheiten`. On real
//! vaults, half of the split spellings found by edit distance alone were
//! two real words. A list is read only when such a pair turns up, so a
//! vault without one pays nothing; without a list, edit distance decides
//! alone, as before.

use crate::names::words;
use std::sync::OnceLock;
use std::collections::HashSet;
use std::path::PathBuf;

/// Words in the folded form of `names::words` (lower case, `ä` as `ae`).
#[derive(Debug, Default)]
pub(crate) struct Lexicon {
    words: HashSet<String>,
}

impl Lexicon {
    /// Entries that are one word after folding (`cat's` and `New York` are
    /// left out: a name's words are compared one by one).
    pub fn from_words<'a>(entries: impl IntoIterator<Item = &'a str>) -> Self {
        let mut set = HashSet::new();
        for entry in entries {
            if let [w] = words(entry.trim()).as_slice() {
                set.insert(w.clone());
            }
        }
        Lexicon { words: set }
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
        let lexicon = Self::from_words(texts.iter().flat_map(|t| t.lines()));
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
        self.loaded
            .get_or_init(|| Lexicon::read(&self.paths))
            .as_ref()
            .is_some_and(|l| l.knows(a) && l.knows(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_folded_like_names_and_phrases_left_out() {
        let l = Lexicon::from_words(["Straße", "Größe", "cat's", "New York", "  Embryo "]);
        assert!(l.knows("strasse") && l.knows("groesse") && l.knows("embryo"));
        assert_eq!(l.len(), 3);
    }

    #[test]
    fn a_missing_list_is_no_list() {
        let w = RealWords::new(vec![PathBuf::from("/no/such/word/list")]);
        assert!(!w.both_known("embryo", "embargo"));
    }
}
