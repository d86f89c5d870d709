//! Missing targets and split spellings (LNT-1): a link that resolves to no
//! note is either a note still to be written (`link/missing-target`) or
//! another spelling of a note that exists, or of another missing link
//! (`node/split-spelling`). Names are compared normalised: case, umlauts as
//! ae/oe/ue/ss, no punctuation or whitespace, a plural ending dropped; names
//! of six or more characters also match within a Damerau-Levenshtein
//! distance of 2.

use crate::{Finding, LinkRef, Vault};
use std::collections::{BTreeMap, HashMap};
use unicode_normalization::UnicodeNormalization;

pub(crate) fn normalize(name: &str) -> String {
    let mut s = String::new();
    for c in name.nfc().flat_map(char::to_lowercase) {
        match c {
            'ä' => s.push_str("ae"),
            'ö' => s.push_str("oe"),
            'ü' => s.push_str("ue"),
            'ß' => s.push_str("ss"),
            c if c.is_alphanumeric() => s.push(c),
            _ => {}
        }
    }
    for ending in ["en", "n", "e", "s"] {
        if s.chars().count() > ending.len() + 3
            && let Some(stem) = s.strip_suffix(ending)
        {
            return stem.to_string();
        }
    }
    s
}

/// Optimal string alignment distance, stopping early above `max`.
pub(crate) fn distance(a: &str, b: &str, max: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return max + 1;
    }
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        let mut best = usize::MAX;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
            best = best.min(v);
        }
        if best > max {
            return max + 1;
        }
    }
    d[a.len()][b.len()]
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

/// Every name a note answers to (title, file name, aliases), normalised,
/// grouped by length for the distance search.
pub(crate) struct NameIndex {
    exact: HashMap<String, usize>,
    by_len: BTreeMap<usize, Vec<(String, usize)>>,
}

impl NameIndex {
    pub fn new(v: &Vault<'_>) -> Self {
        let mut exact: HashMap<String, usize> = HashMap::new();
        let mut by_len: BTreeMap<usize, Vec<(String, usize)>> = BTreeMap::new();
        for (i, n) in v.notes.iter().enumerate() {
            let stem = std::path::Path::new(&n.path)
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default();
            let names = [n.title.clone(), stem]
                .into_iter()
                .chain(n.parsed.frontmatter.aliases.iter().cloned());
            for name in names {
                let key = normalize(&name);
                if key.is_empty() {
                    continue;
                }
                exact.entry(key.clone()).or_insert(i);
                by_len
                    .entry(key.chars().count())
                    .or_default()
                    .push((key, i));
            }
        }
        NameIndex { exact, by_len }
    }

    /// The note a (missing) link target probably means.
    pub fn similar(&self, target: &str) -> Option<usize> {
        let key = normalize(target);
        if let Some(i) = self.exact.get(&key) {
            return Some(*i);
        }
        let len = key.chars().count();
        if len < 6 {
            return None;
        }
        self.by_len
            .range(len - 2..=len + 2)
            .flat_map(|(_, v)| v)
            .filter(|(k, _)| k.chars().count() >= 6 && distance(&key, k, 2) <= 2)
            .map(|(_, i)| *i)
            .min()
    }
}

/// A link that resolves to no note of the vault (and is no attachment).
pub(crate) fn is_missing(l: &LinkRef<'_>) -> bool {
    l.target.is_none()
        && !l.outside
        && !l.link.parts.target.is_empty()
        && !is_attachment(&l.link.parts.target)
}

pub(crate) fn check(v: &Vault<'_>, links: &[LinkRef<'_>]) -> Vec<Finding> {
    let names = NameIndex::new(v);
    let missing: Vec<&LinkRef<'_>> = links.iter().filter(|l| is_missing(l)).collect();
    // Spellings of missing targets, to find two spellings of one missing note.
    let mut spellings: HashMap<String, BTreeMap<&str, usize>> = HashMap::new();
    for l in &missing {
        *spellings
            .entry(normalize(&l.link.parts.target))
            .or_default()
            .entry(l.link.parts.target.as_str())
            .or_default() += 1;
    }

    let mut out = Vec::new();
    for l in missing {
        let target = l.link.parts.target.as_str();
        let at = l.link.range.start;
        let key = normalize(target);
        if let Some(i) = names.similar(target) {
            let title = &v.notes[i].title;
            out.push(v.finding(
                l.note,
                at,
                "node/split-spelling",
                v.msg(
                    format!("`{target}` ist wohl eine andere Schreibweise von `{title}`"),
                    format!("`{target}` looks like another spelling of `{title}`"),
                ),
            ));
            continue;
        }
        out.push(v.finding(
            l.note,
            at,
            "link/missing-target",
            v.msg(
                format!("`{target}` gibt es nicht (noch zu schreiben? sonst als open_question markieren)"),
                format!("`{target}` does not exist (to be written? else mark it as an open_question)"),
            ),
        ));
        // The most used spelling of a missing name is taken as meant.
        if let Some(group) = spellings.get(&key)
            && group.len() > 1
        {
            let (main, _) = group
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(s, n)| (*s, *n))
                .unwrap_or((target, 0));
            if main != target {
                out.push(v.finding(
                    l.note,
                    at,
                    "node/split-spelling",
                    v.msg(
                        format!("`{target}` und `{main}` meinen wohl dieselbe Notiz"),
                        format!("`{target}` and `{main}` probably mean the same note"),
                    ),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_normalised() {
        assert_eq!(normalize("Rückenschmerzen"), normalize("Rueckenschmerzen"));
        assert_eq!(normalize("Gewohnheiten"), normalize("Gewohnheit"));
        assert_eq!(normalize("Job-Wechsel"), normalize("jobwechsel"));
        assert_eq!(distance("jobwechsel", "jobwehcsel", 2), 1);
        assert_eq!(distance("qdrant", "kafka", 2), 3);
    }
}
