//! Missing targets and split spellings (LNT-1). A link that resolves to no
//! note is either a note still to be written (`link/missing-target`, one
//! finding per missing name, listing the notes that link to it) or another
//! spelling of a note that exists, or of another missing link
//! (`node/split-spelling`).
//!
//! A split spelling is reported only on strong evidence, because a false
//! one teaches an author to ignore the linter:
//! - the same name after normalisation (case, umlauts and ae/oe/ue/ss,
//!   hyphens, spaces and punctuation, a trailing `()`, a plural ending of
//!   the vault's language), with the difference named in the message;
//! - or, in a name of 8+ letters, the same words but one, and that one a
//!   word of 4+ letters with the same first letter, one edit away (two for
//!   words of 10+ letters): `Gewohnhieten` for `Gewohnheiten`, `Neue Stele`
//!   for `Neue Stelle`; never `Cancer` for `Scanners`, `Hormone` for
//!   `Harmony` or `LLVM fadd` for `LLVM add`, never two real words of the
//!   vault's language (`Embryo`, `Embargo`; see `lexicon.rs`), and never a
//!   word with digits (`Bericht 2023` names another note than `Bericht
//!   2024`) or with a sign that carries meaning (`C++`, `C#`, `B+ tree`,
//!   and an operator after a space: `X +`, `X -`).
//!
//! The two weak kinds need the vault's word besides the letters
//! (`usage.rs`): a singular and a plural count only where they are used
//! alike (a note links both, or writes the other form, or the two linking
//! notes link each other, or the note writes the link's form), and a letter
//! off only where the link is no name of its own (not one real word of the
//! vault's language, not linked so from several notes).

use crate::lexicon::RealWords;
use crate::{Finding, Lang, LinkRef, Msg, Vault};
use std::collections::{BTreeMap, HashMap};
use unicode_normalization::UnicodeNormalization;

mod distance;
mod usage;

pub(crate) use distance::distance;
use usage::{Side, Usage};

/// Signs that are part of a name where they touch a letter or digit: `C++`
/// is not `C`, `C#` not `C`, `B+ tree` not `B-tree`. A star is one too
/// (`A*`), unless the name holds a pair (`*Der Prozess*` is emphasis).
const MEANINGFUL: [char; 3] = ['+', '#', '*'];

/// Signs that, standing alone after a space, are a word of the name: the
/// operators `X +`, `X -`, `X *` are names of their own, not `X`. A dash
/// between two words stays a separator (`Projekt - Notizen`).
const OPERATORS: [char; 12] = ['+', '-', '*', '/', '=', '<', '>', '^', '%', '&', '|', '~'];

/// Lower case, umlauts folded, every other run of non-alphanumerics a word
/// break; but a meaningful sign touching a word, a hyphen that ends the
/// name (`C-`), and an operator standing alone (`X +`) stay in it.
pub(crate) fn words(name: &str) -> Vec<String> {
    // ASCII is its own normal form; composing it costs more than the rest.
    let chars: Vec<char> = if name.is_ascii() {
        name.chars().map(|c| c.to_ascii_lowercase()).collect()
    } else {
        name.nfc().flat_map(char::to_lowercase).collect()
    };
    let emphasis = chars.iter().filter(|c| **c == '*').count() > 1;
    let mut out = Vec::new();
    let mut w = String::new();
    let mut skip = 0;
    for (i, &c) in chars.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if push_letter(&mut w, c) {
            continue;
        }
        if let Some(op) = lone_operator(&chars, i, emphasis) {
            skip = op.chars().count() - 1;
            out.push(op);
            continue;
        }
        let next_is_word = chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        match c {
            c if MEANINGFUL.contains(&c)
                && !(c == '*' && emphasis)
                && (!w.is_empty() || next_is_word) =>
            {
                w.push(c)
            }
            '-' if !w.is_empty() && chars[i + 1..].iter().all(|n| n.is_whitespace()) => w.push(c),
            _ if !w.is_empty() => out.push(std::mem::take(&mut w)),
            _ => {}
        }
    }
    if !w.is_empty() {
        out.push(w);
    }
    out
}

/// The run of operator signs at `i` when it stands alone (space or the
/// name's edge on both sides), and is not a dash between two words nor an
/// emphasis star.
fn lone_operator(chars: &[char], i: usize, emphasis: bool) -> Option<String> {
    let apart = |c: Option<&char>| c.is_none_or(|c| c.is_whitespace());
    if !apart(i.checked_sub(1).and_then(|j| chars.get(j))) {
        return None;
    }
    let len = chars[i..]
        .iter()
        .take_while(|c| OPERATORS.contains(c))
        .count();
    if len == 0 || !apart(chars.get(i + len)) {
        return None;
    }
    let run: String = chars[i..i + len].iter().collect();
    let at_end = chars[i + len..].iter().all(|c| c.is_whitespace());
    let dash = run.chars().all(|c| c == '-');
    let star = run.chars().all(|c| c == '*') && emphasis;
    let at_start = chars[..i].iter().all(|c| c.is_whitespace());
    ((!dash || at_end) && !star && !at_start).then_some(run)
}

/// Appends a lower-case letter or digit to a word, umlauts and `ß` folded
/// (`ä` as `ae`); false for any other character.
pub(crate) fn push_letter(w: &mut String, c: char) -> bool {
    match c {
        'ä' => w.push_str("ae"),
        'ö' => w.push_str("oe"),
        'ü' => w.push_str("ue"),
        'ß' => w.push_str("ss"),
        c if c.is_alphanumeric() => w.push(c),
        _ => return false,
    }
    true
}

/// Plural endings, longest first, by language.
fn plural_endings(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::De => &["en", "n", "e", "s"],
        Lang::En => &["es", "s"],
    }
}

/// A word without its plural ending (if the rest keeps 4+ letters). A
/// final `s` after another `s` is the word's own (`Process`, `Prozess`),
/// and English `-es` is an ending only after a sibilant (`Processes`,
/// `Boxes`), so both forms of a word meet at one key.
fn singular(word: &str, lang: Lang) -> &str {
    for ending in plural_endings(lang) {
        let Some(stem) = word.strip_suffix(ending) else {
            continue;
        };
        if stem.chars().count() < 4 || (*ending == "s" && stem.ends_with('s')) {
            continue;
        }
        if lang == Lang::En
            && *ending == "es"
            && !["s", "x", "z", "ch", "sh"]
                .iter()
                .any(|e| stem.ends_with(e))
        {
            continue;
        }
        return stem;
    }
    word
}

/// The name as one key: its words joined, the last one singular.
pub(crate) fn normalize(name: &str, lang: Lang) -> String {
    let mut w = words(name);
    if let Some(last) = w.last_mut() {
        *last = singular(last, lang).to_string();
    }
    w.concat()
}

/// What two spellings of one name differ in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Evidence {
    Case,
    Umlauts,
    Separators,
    Parentheses,
    Plural,
    /// One word differs by `n` letters (an edit: changed, added, dropped or
    /// two swapped).
    Letters(usize),
}

impl Evidence {
    fn describe(self) -> Msg {
        let (de, en) = match self {
            Evidence::Case => ("bis auf Groß- und Kleinschreibung", "except for case"),
            Evidence::Umlauts => ("bis auf Umlaute (ä/ae)", "except for umlauts (ä/ae)"),
            Evidence::Separators => (
                "bis auf Bindestriche, Leerzeichen oder Satzzeichen",
                "except for hyphens, spaces or punctuation",
            ),
            Evidence::Parentheses => ("bis auf ein `()` am Ende", "except for a trailing `()`"),
            Evidence::Plural => (
                "bis auf Einzahl und Mehrzahl",
                "except for singular and plural",
            ),
            Evidence::Letters(1) => ("bis auf einen Buchstaben", "except for one letter"),
            Evidence::Letters(_) => ("bis auf zwei Buchstaben", "except for two letters"),
        };
        Msg::new(de, en)
    }
}

/// Why `a` and `b` name one note, if the evidence is strong (see the module
/// doc); `None` for two different names.
pub(crate) fn same_name(a: &str, b: &str, lang: Lang, real: &RealWords) -> Option<Evidence> {
    if a == b {
        return None;
    }
    let (wa, wb) = (words(a), words(b));
    if wa.is_empty() || wb.is_empty() {
        return None;
    }
    if normalize(a, lang) == normalize(b, lang) {
        let trimmed = |s: &str| s.trim().trim_end_matches("()").trim_end().to_string();
        let fold = |s: &str| {
            s.nfc()
                .flat_map(char::to_lowercase)
                .map(|c| match c {
                    'ä' => 'a',
                    'ö' => 'o',
                    'ü' => 'u',
                    c => c,
                })
                .collect::<String>()
                .replace("ae", "a")
                .replace("oe", "o")
                .replace("ue", "u")
        };
        return Some(if a.to_lowercase() == b.to_lowercase() {
            Evidence::Case
        } else if trimmed(a).to_lowercase() == trimmed(b).to_lowercase() {
            Evidence::Parentheses
        } else if wa.concat() != wb.concat() {
            Evidence::Plural
        } else if fold(a) == fold(b) {
            Evidence::Umlauts
        } else {
            Evidence::Separators
        });
    }
    // The same words but one, in a name of 8+ letters; that word of 4+
    // letters, with the same first letter, one edit away (two for words of
    // 10+ letters).
    if wa.len() != wb.len() {
        return None;
    }
    let name_len = |w: &[String]| w.iter().map(|x| x.chars().count()).sum::<usize>();
    if name_len(&wa).min(name_len(&wb)) < 8 {
        return None;
    }
    let differing: Vec<(&String, &String)> = wa.iter().zip(&wb).filter(|(x, y)| x != y).collect();
    let [(x, y)] = differing.as_slice() else {
        return None;
    };
    // A plural ending on one of the two (`Morgen` / `Morgenen` is not two
    // singulars of one stem, but one word and its plural).
    let plural_of = |long: &str, short: &str| {
        plural_endings(lang)
            .iter()
            .any(|e| long.strip_suffix(e) == Some(short))
    };
    if short_enough(x, y) && (plural_of(x, y) || plural_of(y, x)) {
        return Some(Evidence::Plural);
    }
    // A number or a sign that differs names another note (`Bericht 2023`,
    // `Bericht 2024`; `Notepad+`, `Notepad++`), not a slip of the finger.
    let marked = |w: &str| w.chars().any(|c| !c.is_alphabetic());
    if marked(x) || marked(y) {
        return None;
    }
    let (sx, sy) = (singular(x, lang), singular(y, lang));
    let len = sx.chars().count().min(sy.chars().count());
    if len < 4 || sx.chars().next() != sy.chars().next() {
        return None;
    }
    let max = if len >= 10 { 2 } else { 1 };
    let d = distance(sx, sy, max);
    (d <= max && !real.both_known(x, y)).then_some(Evidence::Letters(d))
}

/// Both words have 4+ letters: a plural of a shorter word says little.
fn short_enough(x: &str, y: &str) -> bool {
    x.chars().count().min(y.chars().count()) >= 4
}

/// A link target that is a file of another kind (`bild.png`), not a note.
fn is_attachment(target: &str) -> bool {
    std::path::Path::new(target)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| {
            !e.eq_ignore_ascii_case("md") && e.len() <= 4 && e.chars().all(char::is_alphanumeric)
        })
}

/// Every name a note answers to (title, file name, aliases), by normalised
/// key and, for the one-word-off search, by their words without the
/// differing one: two names that can match share all but one word, and that
/// word's first letter, and its lengths differ by a few letters at most. So a
/// name is filed once per word, under the other words, the word's first
/// letter and its length, and a lookup reads a few small buckets: the cost
/// is linear in the names, and a bucket does not grow with the vault the way
/// "every one-word name" did.
pub(crate) struct NameIndex<'v> {
    exact: HashMap<String, Vec<Named>>,
    near: HashMap<NearKey, Vec<Named>>,
    lang: Lang,
    real: &'v RealWords,
    usage: Usage<'v>,
}

/// A name and the note it belongs to; in the near index, with the word it
/// is filed under.
struct Named {
    name: String,
    note: usize,
    word: String,
}

/// A name's words with the one at `slot` replaced by its first letter, and
/// that word's length in characters.
#[derive(PartialEq, Eq, Hash)]
struct NearKey {
    words: Vec<String>,
    slot: usize,
    len: usize,
}

impl NearKey {
    fn new(words: &[String], slot: usize, len: usize) -> Self {
        let mut words = words.to_vec();
        words[slot] = words[slot].chars().take(1).collect();
        NearKey { words, slot, len }
    }
}

/// How far the lengths of two words that `same_name` matches one word off
/// can differ: two edits, and a plural ending of two letters.
const NEAR_LENGTHS: usize = 4;

impl<'v> NameIndex<'v> {
    pub fn new(v: &'v Vault<'_>, links: &'v [LinkRef<'v>]) -> Self {
        let mut index = NameIndex {
            exact: HashMap::new(),
            near: HashMap::new(),
            lang: v.lang,
            real: &v.real,
            usage: Usage::new(links),
        };
        for (i, n) in v.notes.iter().enumerate() {
            let stem = std::path::Path::new(&n.path)
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default();
            let mut names = vec![n.title.clone()];
            if stem != n.title {
                names.push(stem);
            }
            names.extend(n.parsed.frontmatter.aliases.iter().cloned());
            for name in names {
                index.add(name, i);
            }
        }
        index
    }

    fn add(&mut self, name: String, note: usize) {
        let key = normalize(&name, self.lang);
        if key.is_empty() {
            return;
        }
        let w = words(&name);
        for (slot, word) in w.iter().enumerate() {
            self.near
                .entry(NearKey::new(&w, slot, word.chars().count()))
                .or_default()
                .push(Named {
                    name: name.clone(),
                    note,
                    word: word.clone(),
                });
        }
        self.exact.entry(key).or_default().push(Named {
            name,
            note,
            word: String::new(),
        });
    }

    /// The note a (missing) link target probably means: the name it
    /// matched, the note, and the evidence. The first by name on ties, so
    /// the answer does not depend on the order the files were read in.
    /// The weak kinds of evidence need the vault's word: a singular/plural
    /// pair counts only where the two are used for the same thing
    /// (`Usage::alike`), and a letter off only where the link is no name of
    /// its own: not one real word of the vault's language, not linked so
    /// from several notes.
    pub fn similar(&self, v: &Vault<'_>, target: &str) -> Option<Similar> {
        let mut found = self.candidates(target);
        let one_real_word = || match words(target).as_slice() {
            [w] => self.real.knows(w),
            _ => false,
        };
        found.retain(|s| match s.evidence {
            Evidence::Plural => self.usage.alike(v, target, Side::Note(s.note, &s.name)),
            Evidence::Letters(_) => self.usage.linking(target) < 2 && !one_real_word(),
            _ => true,
        });
        found.into_iter().next()
    }

    /// Every name `same_name` matches with `target`, by name.
    fn candidates(&self, target: &str) -> Vec<Similar> {
        let lang = self.lang;
        let mut found: Vec<Similar> = Vec::new();
        // `near`: the target's word where the candidates differ; a cheap
        // test of the two words comes before the whole comparison.
        let consider = |candidates: Option<&Vec<Named>>, near: Option<&str>, found: &mut Vec<_>| {
            for n in candidates.into_iter().flatten() {
                if near.is_some_and(|x| !may_be_near(x, &n.word, lang)) {
                    continue;
                }
                if let Some(evidence) = same_name(target, &n.name, lang, self.real) {
                    found.push(Similar {
                        name: n.name.clone(),
                        note: n.note,
                        evidence,
                    });
                }
            }
        };
        consider(self.exact.get(&normalize(target, lang)), None, &mut found);
        if found.is_empty() {
            let w = words(target);
            for (slot, word) in w.iter().enumerate() {
                let len = word.chars().count();
                for other in len.saturating_sub(NEAR_LENGTHS)..=len + NEAR_LENGTHS {
                    let bucket = self.near.get(&NearKey::new(&w, slot, other));
                    consider(bucket, Some(word), &mut found);
                }
            }
        }
        found.sort_by(|a, b| a.name.cmp(&b.name).then(a.note.cmp(&b.note)));
        found.dedup_by(|a, b| a.name == b.name && a.note == b.note);
        found
    }
}

/// Whether two words can be one word off in `same_name`: one is the other
/// with a plural ending, or their singulars are two edits apart at most.
fn may_be_near(x: &str, y: &str, lang: Lang) -> bool {
    let (long, short) = if x.len() >= y.len() { (x, y) } else { (y, x) };
    long.starts_with(short) && long.len() - short.len() <= 2
        || distance(singular(x, lang), singular(y, lang), 2) <= 2
}

/// The note a misspelt link target means.
#[derive(Debug, Clone)]
pub(crate) struct Similar {
    /// The note's name (title, file name or alias) the target matched.
    pub name: String,
    pub note: usize,
    pub evidence: Evidence,
}

/// A link that resolves to no note of the vault (and is no attachment).
pub(crate) fn is_missing(l: &LinkRef<'_>) -> bool {
    l.target.is_none()
        && !l.outside
        && !l.link.parts.target.is_empty()
        && !is_attachment(&l.link.parts.target)
}

pub(crate) fn check<'v>(v: &'v Vault<'_>, links: &'v [LinkRef<'v>]) -> Vec<Finding> {
    let names = NameIndex::new(v, links);
    let exists_unreadable = |target: &str| {
        v.unreadable
            .contains(&mindnet_core::lookup::file_name(target).to_lowercase())
    };
    let missing: Vec<&LinkRef<'_>> = links
        .iter()
        .filter(|l| is_missing(l) && !exists_unreadable(&l.link.parts.target))
        .collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for l in &missing {
        *uses.entry(l.link.parts.target.as_str()).or_default() += 1;
    }
    let mut out = Vec::new();
    // Misspellings of existing notes: one finding per link (each is to fix),
    // each spelling looked up once.
    let mut truly_missing: BTreeMap<String, Vec<&LinkRef<'_>>> = BTreeMap::new();
    let mut looked_up: HashMap<&str, Option<Similar>> = HashMap::new();
    for l in missing {
        let target = l.link.parts.target.as_str();
        let similar = looked_up
            .entry(target)
            .or_insert_with(|| names.similar(v, target));
        match similar.clone() {
            Some(similar) => out.push(misspelt(v, l, similar, uses[target])),
            None => truly_missing
                .entry(normalize(target, v.lang))
                .or_default()
                .push(l),
        }
    }
    // Notes still to be written: one finding per name, at its first link,
    // and each other spelling of it where it is written.
    for group in truly_missing.values() {
        for name in names.usage.one_thing(v, group) {
            missing_name(v, &name, &uses, &mut out);
        }
    }
    out
}

/// A link to another spelling of an existing note.
fn misspelt(v: &Vault<'_>, l: &LinkRef<'_>, similar: Similar, n: usize) -> Finding {
    let Similar {
        name,
        note,
        evidence,
    } = similar;
    let target = l.link.parts.target.as_str();
    let path = &v.notes[note].path;
    v.finding(
        l.note,
        l.link.range.start,
        "node/split-spelling",
        Msg::new(
            format!("`{target}` ist wohl `{name}`: derselbe Name "),
            format!("`{target}` is probably `{name}`: the same name "),
        )
        .then(evidence.describe())
        .then(Msg::new(
            format!(
                ". `{name}` ist die Notiz {path}, `{target}` ist {n}× verlinkt und existiert nicht; die Korrektur schreibt `{name}`"
            ),
            format!(
                ". `{name}` is the note {path}; `{target}` is linked {n}× and does not exist; the fix writes `{name}`"
            ),
        )),
    )
}

/// The findings of one missing name (its spellings' links): the name,
/// once, at its first link, and each other spelling where it is written.
fn missing_name(
    v: &Vault<'_>,
    group: &[&LinkRef<'_>],
    uses: &HashMap<&str, usize>,
    out: &mut Vec<Finding>,
) {
    // Every link of a spelling is in its group, so `uses` counts them.
    let spellings: BTreeMap<&str, usize> = group
        .iter()
        .map(|l| l.link.parts.target.as_str())
        .map(|t| (t, uses[t]))
        .collect();
    // The most used spelling is taken as meant.
    let (main, _) = spellings
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(s, n)| (*s, *n))
        .unwrap_or_default();
    let first = group
        .iter()
        .min_by(|a, b| {
            (v.notes[a.note].path.as_str(), a.link.range.start)
                .cmp(&(v.notes[b.note].path.as_str(), b.link.range.start))
        })
        .copied();
    let Some(first) = first else { return };
    out.push(not_yet_written(v, group, first, main));
    for l in group {
        let target = l.link.parts.target.as_str();
        if target != main {
            out.push(other_spelling(v, l, main, uses[target], uses[main]));
        }
    }
}

/// A name linked from notes and written nowhere yet, with the notes that
/// link it.
fn not_yet_written(
    v: &Vault<'_>,
    group: &[&LinkRef<'_>],
    first: &LinkRef<'_>,
    main: &str,
) -> Finding {
    let mut from: Vec<&str> = group
        .iter()
        .map(|l| v.notes[l.note].title.as_str())
        .collect();
    from.sort_unstable();
    from.dedup();
    let shown: Vec<&str> = from.iter().take(5).copied().collect();
    let more = from.len().saturating_sub(shown.len());
    let list = if more > 0 {
        format!("{} (+{more})", shown.join(", "))
    } else {
        shown.join(", ")
    };
    let n = from.len();
    v.finding(
        first.note,
        first.link.range.start,
        "link/missing-target",
        Msg::new(
            format!(
                "`{main}` wird von {n} {} verlinkt und existiert noch nicht ({list}); anlegen, oder als open_question-Notiz",
                if n == 1 { "Notiz" } else { "Notizen" }
            ),
            format!(
                "`{main}` is linked from {n} {} and does not exist yet ({list}); create it, or an open_question note",
                if n == 1 { "note" } else { "notes" }
            ),
        ),
    )
}

/// Another spelling of a missing name, linked `n` times; the main one
/// `m` times.
fn other_spelling(v: &Vault<'_>, l: &LinkRef<'_>, main: &str, n: usize, m: usize) -> Finding {
    let target = l.link.parts.target.as_str();
    let evidence = same_name(target, main, v.lang, &v.real).unwrap_or(Evidence::Separators);
    v.finding(
        l.note,
        l.link.range.start,
        "node/split-spelling",
        Msg::new(
            format!("`{target}` und `{main}` meinen wohl dieselbe Notiz: derselbe Name "),
            format!("`{target}` and `{main}` probably mean the same note: the same name "),
        )
        .then(evidence.describe())
        .then(if n < m {
            Msg::new(
                format!(
                    ". `{target}` ist {n}× verlinkt, `{main}` {m}×; behalten: `{main}`, die häufigere Schreibweise"
                ),
                format!(
                    ". `{target}` is linked {n}×, `{main}` {m}×; keep `{main}`, the spelling used more"
                ),
            )
        } else {
            Msg::new(
                format!(
                    ". Beide sind {n}× verlinkt; behalten: `{main}`, die erste nach dem Alphabet"
                ),
                format!(
                    ". Both are linked {n}×; keep `{main}`, the first in alphabetical order"
                ),
            )
        }),
    )
}

#[cfg(test)]
mod tests;
