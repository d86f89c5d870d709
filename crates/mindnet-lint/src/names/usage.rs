//! How the vault uses two spellings: the evidence the names of a weak pair
//! need before they are taken for one. A singular and a plural are often two
//! things (`Dynamics`, a branch of physics; `Dynamic`, a word of
//! programming), and a name one letter from a note is often a name of its
//! own (`Entropy`), so the letters alone do not decide there.

use crate::{LinkRef, Vault};
use std::collections::{BTreeSet, HashMap, HashSet};

/// One side of a pair: a link target that resolves to nothing, or a note.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Side<'s> {
    Missing(&'s str),
    /// The note, and the name of it the other spelling was matched with.
    Note(usize, &'s str),
}

/// Who links what.
pub(crate) struct Usage<'a> {
    /// A missing target as written → the notes that link it.
    by_spelling: HashMap<&'a str, BTreeSet<usize>>,
    /// A note → the notes that link it.
    by_note: HashMap<usize, BTreeSet<usize>>,
    /// (from, to) for every resolved link.
    linked: HashSet<(usize, usize)>,
}

impl<'a> Usage<'a> {
    pub fn new(links: &'a [LinkRef<'a>]) -> Self {
        let mut u = Usage {
            by_spelling: HashMap::new(),
            by_note: HashMap::new(),
            linked: HashSet::new(),
        };
        for l in links {
            match l.target {
                Some(t) => {
                    u.by_note.entry(t).or_default().insert(l.note);
                    u.linked.insert((l.note, t));
                }
                None => {
                    u.by_spelling
                        .entry(l.link.parts.target.as_str())
                        .or_default()
                        .insert(l.note);
                }
            }
        }
        u
    }

    /// How many notes link a missing target written exactly so.
    pub fn linking(&self, spelling: &str) -> usize {
        self.by_spelling.get(spelling).map_or(0, BTreeSet::len)
    }

    fn notes_of(&self, side: Side<'_>) -> Option<&BTreeSet<usize>> {
        match side {
            Side::Missing(s) => self.by_spelling.get(s),
            Side::Note(n, _) => self.by_note.get(&n),
        }
    }

    /// Whether the missing spelling `a` and `b` are used for the same
    /// thing: a note links both, or a note that links one links a note that
    /// links the other, or a note that links one writes the other, or `b`'s
    /// own note writes `a`.
    pub fn alike(&self, v: &Vault<'_>, a: &str, b: Side<'_>) -> bool {
        let empty = BTreeSet::new();
        let from_a = self.by_spelling.get(a).unwrap_or(&empty);
        let from_b = self.notes_of(b).unwrap_or(&empty);
        let b_name = match b {
            Side::Missing(s) | Side::Note(_, s) => s,
        };
        let neighbours = |x: usize, y: usize| {
            x == y || self.linked.contains(&(x, y)) || self.linked.contains(&(y, x))
        };
        from_a
            .iter()
            .any(|&x| from_b.iter().any(|&y| neighbours(x, y)))
            || from_a.iter().any(|&x| writes(&v.notes[x].text, b_name))
            || from_b.iter().any(|&y| writes(&v.notes[y].text, a))
            || matches!(b, Side::Note(n, _) if writes(&v.notes[n].text, a))
    }

    /// The missing spellings of one key (`normalize`), as the names they
    /// are: spellings that differ in case, signs or umlauts only are one;
    /// a singular and a plural are one only where they are used alike.
    /// In the order of their first spelling.
    pub fn one_thing<'r, 'l>(
        &self,
        v: &Vault<'_>,
        group: &[&'r LinkRef<'l>],
    ) -> Vec<Vec<&'r LinkRef<'l>>> {
        let spellings: Vec<&str> = group
            .iter()
            .map(|l| l.link.parts.target.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut root: Vec<usize> = (0..spellings.len()).collect();
        fn find(root: &mut [usize], i: usize) -> usize {
            let mut r = i;
            while root[r] != r {
                r = root[r];
            }
            root[i] = r;
            r
        }
        for i in 0..spellings.len() {
            for j in i + 1..spellings.len() {
                let (a, b) = (spellings[i], spellings[j]);
                let letters = super::words(a).concat() == super::words(b).concat();
                if letters || self.alike(v, a, Side::Missing(b)) {
                    let (ri, rj) = (find(&mut root, i), find(&mut root, j));
                    root[ri.max(rj)] = ri.min(rj);
                }
            }
        }
        let mut out: Vec<Vec<&'r LinkRef<'l>>> = vec![Vec::new(); spellings.len()];
        for l in group {
            let i = spellings
                .binary_search(&l.link.parts.target.as_str())
                .unwrap_or(0);
            let r = find(&mut root, i);
            out[r].push(l);
        }
        out.retain(|g| !g.is_empty());
        out
    }
}

/// Whether `text` holds `name` as whole words, in any case.
pub(crate) fn writes(text: &str, name: &str) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return false;
    }
    let lower = text.to_lowercase();
    let want = name.to_lowercase();
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    lower.match_indices(&want).any(|(i, m)| {
        !word(lower[..i].chars().next_back()) && !word(lower[i + m.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::writes;

    #[test]
    fn whole_words_in_any_case() {
        assert!(writes("Any given [[gene]] will", "Gene"));
        assert!(writes("genes and a gene.", "gene"));
        assert!(!writes("genes only", "gene"));
        assert!(!writes("the dynamics of it", "dynamic"));
        assert!(!writes("anything", ""));
    }
}
