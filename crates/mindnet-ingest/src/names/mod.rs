//! The names a note mentions: runs of capitalised words in its prose ("Dr.
//! Weber", "Bank of England", "Projekt Atlas"), joined by the vocabulary's
//! connectors, and the words of its own title. Notes that share a rare name
//! are connected by it (the entity graph of the catalog), with no model and
//! no LLM: HippoRAG builds the same passage–entity graph with an LLM's
//! OpenIE.
//!
//! A capitalised word at a sentence's start is a name only when the same
//! note also writes it capitalised in mid-sentence: "Today" and "Die" open
//! sentences, "Weber" is written capitalised everywhere. In German every noun
//! is capitalised, so a German note's names include its rarer nouns; how
//! many notes share a name decides what it is worth, not its spelling.
//! Everything here reads one note only, so a note's names never depend on
//! the rest of the vault (or on which notes a partial import plans).

use crate::parse::Prose;
use mindnet_core::NameRules;
use mindnet_core::title::base_title;
use std::collections::{HashMap, HashSet};

/// At most this many names are kept per note (its most frequent): a long
/// export must not flood the entity graph.
pub const MAX_NAMES: usize = 256;

/// A word or a punctuation mark of the prose flow.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    /// A mark that may end a sentence or separates words (`,`, `(`).
    Mark(char),
    /// The end of a block, a list item, a cell or a heading.
    Break,
}

/// Splits prose into words and marks. A word holds letters, digits and
/// inner apostrophes and hyphens (`O'Neill`, `Baden-Württemberg`).
fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                let inner = matches!(d, '\'' | '’' | '-')
                    && text[j + d.len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric);
                if d.is_alphanumeric() || inner {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Token::Word(&text[i..end]));
        } else if c == '\u{2029}' {
            out.push(Token::Break);
        } else if !c.is_whitespace() {
            out.push(Token::Mark(c));
        }
    }
    out
}

/// The prose of a note as one text, blocks separated by U+2029: pieces that
/// touch or are separated by spaces and one line break flow on; a gap with
/// a blank line or markup (`- `, `> `, `|`) ends the run.
pub fn flow(text: &str, prose: &[Prose]) -> String {
    let mut out = String::new();
    let mut last: Option<usize> = None;
    for p in prose {
        if let Some(end) = last {
            let gap = text.get(end..p.range.start).unwrap_or("\n\n");
            let newlines = gap.matches('\n').count();
            let markup = gap.chars().any(|c| !c.is_whitespace());
            if newlines >= 2 || (newlines == 1 && markup) || gap.contains('|') {
                out.push('\u{2029}');
            } else if !gap.is_empty() {
                out.push(' ');
            }
        }
        out.push_str(text.get(p.range.clone()).unwrap_or_default());
        last = Some(p.range.end);
    }
    out
}

fn starts_upper(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_uppercase)
}

/// `Atlas's` → `Atlas`.
fn without_genitive(w: &str) -> &str {
    w.strip_suffix("'s")
        .or_else(|| w.strip_suffix("’s"))
        .unwrap_or(w)
}

struct Words<'r> {
    connectors: HashSet<&'r str>,
    function: HashSet<&'r str>,
    /// The note's language's `determiners` (empty: no noun rule).
    determiners: HashSet<&'r str>,
}

impl<'r> Words<'r> {
    fn new(rules: &'r NameRules, lang: &str) -> Self {
        let set = |v: &'r [String]| v.iter().map(String::as_str).collect();
        Words {
            connectors: set(&rules.connectors),
            function: set(&rules.function_words),
            determiners: set(rules.determiners(lang)),
        }
    }

    fn is_function(&self, w: &str) -> bool {
        self.function.contains(w.to_lowercase().as_str())
    }

    fn is_determiner(&self, w: &str) -> bool {
        self.determiners.contains(w.to_lowercase().as_str())
    }
}

/// Whether a capitalised word (not a function word) follows the word at
/// `i`, after an abbreviation's dot ("Dr. Weber"): the opener is then the
/// start of a name of several words.
fn name_follows(tokens: &[Token<'_>], i: usize, words: &Words<'_>) -> bool {
    let short = matches!(tokens[i], Token::Word(w) if w.chars().count() <= 3);
    let next = match tokens.get(i + 1) {
        Some(Token::Mark('.')) if short => tokens.get(i + 2),
        t => t,
    };
    matches!(next, Some(Token::Word(n)) if starts_upper(n) && !words.is_function(n))
}

/// The capitalised runs of `text`. With `sentences`, a capitalised word
/// opening a sentence counts only if `mid` holds it (it is written
/// capitalised in mid-sentence elsewhere); without, every capitalised word
/// counts (a title).
fn runs(
    tokens: &[Token<'_>],
    words: &Words<'_>,
    sentences: bool,
    mid: &HashSet<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>, out: &mut Vec<String>| {
        while run
            .last()
            .is_some_and(|w| words.connectors.contains(w) || !starts_upper(w))
        {
            run.pop();
        }
        if let Some(last) = run.last_mut() {
            *last = without_genitive(last);
            out.push(run.join(" "));
        }
        run.clear();
    };
    let mut sentence_start = true;
    for (i, t) in tokens.iter().enumerate() {
        match *t {
            Token::Word(w) => {
                let opening = sentence_start;
                sentence_start = false;
                if starts_upper(w) {
                    if words.is_function(w) {
                        flush(&mut run, &mut out);
                    } else if run.is_empty()
                        && sentences
                        && opening
                        && !mid.contains(w)
                        && !name_follows(tokens, i, words)
                    {
                        // "Today", "Locations": a sentence's first word.
                    } else {
                        run.push(w);
                    }
                } else if !run.is_empty() && words.connectors.contains(w) {
                    run.push(w);
                } else {
                    flush(&mut run, &mut out);
                }
            }
            Token::Mark('.') => {
                // An initial or a short abbreviation before a name stays in
                // the run ("George W. Bush", "Dr. Weber").
                let next_upper =
                    matches!(tokens.get(i + 1), Some(Token::Word(n)) if starts_upper(n));
                let short = run
                    .last()
                    .is_some_and(|w| w.chars().count() <= 3 && starts_upper(w));
                if !(short && next_upper) {
                    flush(&mut run, &mut out);
                    sentence_start = true;
                }
            }
            Token::Mark(c) => {
                flush(&mut run, &mut out);
                if matches!(c, '!' | '?' | ':' | ';' | '•' | '*' | '"' | '„' | '“') {
                    sentence_start = true;
                }
            }
            Token::Break => {
                flush(&mut run, &mut out);
                sentence_start = true;
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The capitalised words written in mid-sentence somewhere.
fn mid_sentence<'a>(toks: &[Token<'a>]) -> HashSet<&'a str> {
    let mut mid = HashSet::new();
    let mut opening = true;
    for t in toks {
        match *t {
            Token::Word(w) => {
                if !opening && starts_upper(w) {
                    mid.insert(w);
                }
                opening = false;
            }
            Token::Mark(c) => opening = matches!(c, '.' | '!' | '?' | ':' | ';'),
            Token::Break => opening = true,
        }
    }
    mid
}

/// The capitalised words a note writes in mid-sentence somewhere in its
/// prose: a word it capitalises only at a sentence's start ("People
/// focused …") is a common word there, not a name.
pub fn mid_sentence_capitals(text: &str, prose: &[Prose]) -> HashSet<String> {
    let flowing = flow(text, prose);
    mid_sentence(&tokens(&flowing))
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// German or English, by the function words of the first few hundred
/// words; `None` when neither leads. The lint's messages and the mention
/// endings of a note without `lang:` both go by it.
pub fn detect_lang(text: &str) -> Option<&'static str> {
    lang_votes(text).lead()
}

/// German and English function words among a note's first 400 words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LangVotes {
    pub de: usize,
    pub en: usize,
}

impl LangVotes {
    /// The language the words tell (`de` or `en`), if they tell one.
    pub fn lead(self) -> Option<&'static str> {
        match self.de.cmp(&self.en) {
            std::cmp::Ordering::Greater => Some("de"),
            std::cmp::Ordering::Less => Some("en"),
            std::cmp::Ordering::Equal => None,
        }
    }
}

/// Counts the function words of each language among the first 400 words.
///
/// The words are the pieces of each whitespace-separated token between
/// non-letters; a piece with a capital after its first letter (an acronym,
/// "MIT") is no word. URLs vote for neither: "csail.mit.edu" is no German
/// "mit". This runs on every note of every lint and import, so it walks the
/// bytes once, classifies ASCII by a table and decodes only the rest.
pub fn lang_votes(text: &str) -> LangVotes {
    let bytes = text.as_bytes();
    let mut votes = LangVotes::default();
    let mut left = 400usize;
    let mut at = 0;
    while at < bytes.len() && left > 0 {
        let (class, len) = class_at(text, at);
        if class & SPACE != 0 {
            at += len;
            continue;
        }
        // One token. Its pieces are tallied apart until the token is known
        // to be no URL.
        let start = at;
        let mut tally = LangVotes::default();
        let mut pieces = 0;
        let mut url = bytes[at..].starts_with(b"www.");
        let mut piece = at;
        let mut first = true;
        let mut inner_capital = false;
        loop {
            let (class, len) = if at < bytes.len() {
                class_at(text, at)
            } else {
                (SPACE, 0)
            };
            if class & LETTER != 0 {
                inner_capital |= !first && class & CAPITAL != 0;
                first = false;
                at += len;
                continue;
            }
            if !inner_capital && pieces < left {
                pieces += 1;
                vote(&mut tally, &bytes[piece..at]);
            }
            if class & SPACE != 0 {
                break;
            }
            url |= bytes[at..].starts_with(b"://");
            at += len;
            piece = at;
            first = true;
            inner_capital = false;
        }
        debug_assert!(start < at);
        if !url {
            votes.de += tally.de;
            votes.en += tally.en;
            left -= pieces;
        }
    }
    votes
}

const SPACE: u8 = 1;
const LETTER: u8 = 2;
const CAPITAL: u8 = 4;

/// The ASCII characters' classes, as `char::is_whitespace`,
/// `is_alphabetic` and `is_uppercase` give them.
const ASCII_CLASS: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = match b as u8 {
            b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => SPACE,
            b'a'..=b'z' => LETTER,
            b'A'..=b'Z' => LETTER | CAPITAL,
            _ => 0,
        };
        b += 1;
    }
    table
};

/// The class and byte length of the character at a byte offset: a table
/// for ASCII, inlined into the loop; the rest decoded aside.
#[inline(always)]
fn class_at(text: &str, at: usize) -> (u8, usize) {
    match text.as_bytes()[at] {
        b @ 0..0x80 => (ASCII_CLASS[usize::from(b)], 1),
        _ => wide_class_at(text, at),
    }
}

#[cold]
fn wide_class_at(text: &str, at: usize) -> (u8, usize) {
    let c = text[at..].chars().next().unwrap_or(' ');
    let class = if c.is_whitespace() {
        SPACE
    } else if c.is_alphabetic() {
        LETTER | if c.is_uppercase() { CAPITAL } else { 0 }
    } else {
        0
    };
    (class, c.len_utf8())
}

/// One word's vote. Only its first letter may be a capital, and the one
/// non-ASCII letter of the lists (the ü of "für") is never first, so ASCII
/// lower case is exact.
fn vote(votes: &mut LangVotes, word: &[u8]) {
    let mut low = [0u8; 5];
    let Some(low) = low.get_mut(..word.len()) else {
        return; // longer than every function word
    };
    for (l, b) in low.iter_mut().zip(word) {
        *l = b.to_ascii_lowercase();
    }
    let low: &[u8] = low; // b"f\xc3\xbcr" is "für"
    votes.de += usize::from(matches!(
        low,
        b"der"
            | b"die"
            | b"das"
            | b"und"
            | b"ist"
            | b"nicht"
            | b"ich"
            | b"mit"
            | b"ein"
            | b"eine"
            | b"zu"
            | b"auf"
            | b"f\xc3\xbcr"
            | b"sich"
            | b"dem"
            | b"den"
    ));
    votes.en += usize::from(matches!(
        low,
        b"the"
            | b"and"
            | b"is"
            | b"of"
            | b"to"
            | b"in"
            | b"that"
            | b"it"
            | b"with"
            | b"for"
            | b"this"
            | b"are"
            | b"on"
            | b"as"
            | b"be"
            | b"was"
    ));
}

/// The capitalised words that follow a determiner, with at most two
/// lower-case words between ("die neue Beziehung"): common nouns in a
/// German note, however rare.
fn nouns<'a>(toks: &[Token<'a>], words: &Words<'_>) -> HashSet<&'a str> {
    let mut out = HashSet::new();
    if words.determiners.is_empty() {
        return out;
    }
    for (i, t) in toks.iter().enumerate() {
        let Token::Word(w) = *t else { continue };
        if !starts_upper(w) {
            continue;
        }
        let before = toks[..i].iter().rev().take(3);
        for b in before {
            match *b {
                Token::Word(d) if words.is_determiner(d) => {
                    out.insert(w);
                    break;
                }
                Token::Word(l) if !starts_upper(l) => {}
                _ => break,
            }
        }
    }
    out
}

/// A note's names, split by how the note writes them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NoteNames {
    /// Runs of capitalised words, its prose's and its title's ("Dr Weber",
    /// "Bank of England"), sorted.
    pub whole: Vec<String>,
    /// The words of its longer names that it never writes alone ("Weber"
    /// of "Dr Weber", "Hall" of "Chiang Kai-shek Memorial Hall"), sorted. A
    /// word connects two notes only if one of them writes it alone: "Dr.
    /// Weber" reaches the note "Weber, Gutachten", but two memorial halls
    /// share no name.
    pub parts: Vec<String>,
}

/// The names of a note: the runs of its prose and of its title, and the
/// words of several-word runs on their own, at most `MAX_NAMES` (the most
/// frequent). In a language with determiners, a one-word run the note
/// writes after one ("der Unfall") is a noun and no name.
pub fn note_names(
    text: &str,
    prose: &[Prose],
    title: &str,
    rules: &NameRules,
    lang: &str,
) -> NoteNames {
    let words = Words::new(rules, lang);
    let flowing = flow(text, prose);
    let toks = tokens(&flowing);
    let mid = mid_sentence(&toks);
    let nouns = nouns(&toks, &words);
    let title_tokens = tokens(base_title(title));
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut alone: HashSet<String> = HashSet::new();
    let found = runs(&toks, &words, true, &mid).into_iter().chain(runs(
        &title_tokens,
        &words,
        false,
        &HashSet::new(),
    ));
    for run in found {
        if run.contains(' ') {
            for part in run.split(' ') {
                let part = without_genitive(part);
                if starts_upper(part) && part.chars().count() >= 3 && !words.is_function(part) {
                    *counts.entry(part.to_string()).or_default() += 1;
                }
            }
        } else if nouns.contains(run.as_str()) {
            continue;
        }
        if run.chars().count() >= 2 {
            *counts.entry(run.clone()).or_default() += 1;
            alone.insert(run);
        }
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(MAX_NAMES);
    let (mut whole, mut parts): (Vec<String>, Vec<String>) = ranked
        .into_iter()
        .map(|(n, _)| n)
        .partition(|n| alone.contains(n));
    whole.sort();
    parts.sort();
    NoteNames { whole, parts }
}

#[cfg(test)]
mod tests;
