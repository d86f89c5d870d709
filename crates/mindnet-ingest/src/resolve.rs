//! Link resolution (IMP-10): a link names a note by file name, path or
//! alias, case-insensitively, as Obsidian does.

use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;

/// What the resolver needs to know about one note.
#[derive(Debug, Clone)]
pub struct NoteEntry {
    pub note_id: String,
    pub rel_path: String,
    pub title: String,
    pub aliases: Vec<String>,
    pub note_type: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Index into the resolver's notes.
    Note(usize),
    Unresolved,
    /// An absolute path, or a relative one that climbs above the vault:
    /// never a note of this vault.
    OutsideVault,
}

#[derive(Debug, Default)]
pub struct Resolver {
    notes: Vec<NoteEntry>,
    by_path: HashMap<String, Vec<usize>>,
    by_stem: HashMap<String, Vec<usize>>,
    by_alias: HashMap<String, Vec<usize>>,
}

/// NFC, lower case, `/` separators, no `.md`: the form every lookup key takes.
pub fn link_key(s: &str) -> String {
    let s = s.trim();
    // Every note and every link passes here: ASCII, which NFC leaves as it
    // is, takes one copy instead of four.
    let mut key: String = if s.is_ascii() {
        s.bytes()
            .map(|b| match b {
                b'\\' => '/',
                b => char::from(b.to_ascii_lowercase()),
            })
            .collect()
    } else {
        s.replace('\\', "/")
            .nfc()
            .collect::<String>()
            .to_lowercase()
    };
    let start = key.len() - key.trim_start_matches("./").len();
    key.drain(..start);
    if key.ends_with(".md") {
        key.truncate(key.len() - 3);
    }
    key
}

impl Resolver {
    /// `notes` must come in a deterministic order (by path); ties resolve by it.
    pub fn new(notes: Vec<NoteEntry>) -> Self {
        let mut r = Resolver::default();
        for (i, n) in notes.iter().enumerate() {
            let path = link_key(&n.rel_path);
            let stem = path.rsplit('/').next().unwrap_or(&path).to_string();
            r.by_path.entry(path).or_default().push(i);
            r.by_stem.entry(stem).or_default().push(i);
            for a in &n.aliases {
                r.by_alias.entry(link_key(a)).or_default().push(i);
            }
        }
        r.notes = notes;
        r
    }

    /// Every note, in the order given (`Resolution::Note` indexes it).
    pub fn notes(&self) -> &[NoteEntry] {
        &self.notes
    }

    pub fn note(&self, i: usize) -> &NoteEntry {
        &self.notes[i]
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Resolves `target` as written in the note at `from_path`. Order: exact
    /// path, path suffix (`[[sub/Note]]`), file name, alias (as Obsidian: a
    /// title or heading never names a note). Among several
    /// notes of one name, the one in the linking note's folder wins, then the
    /// shortest path, then the first by path.
    pub fn resolve(&self, target: &str, from_path: &str) -> Resolution {
        let key = link_key(target);
        if key.is_empty() {
            return Resolution::Unresolved;
        }
        if key.starts_with('/') {
            return Resolution::OutsideVault;
        }
        if key == ".." || key.starts_with("../") || key.contains("/../") || key.contains("/./") {
            // Relative to the linking note's folder, as Obsidian reads it.
            return match relative(&link_key(from_path), &key) {
                Some(path) => self
                    .by_path
                    .get(&path)
                    .map_or(Resolution::Unresolved, |c| self.pick(c, from_path)),
                None => Resolution::OutsideVault,
            };
        }
        if key.contains('/') {
            if let Some(c) = self.by_path.get(&key) {
                return self.pick(c, from_path);
            }
            let suffix = format!("/{key}");
            let mut c: Vec<usize> = self
                .by_path
                .iter()
                .filter(|(p, _)| p.ends_with(&suffix))
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            c.sort_unstable();
            if !c.is_empty() {
                return self.pick(&c, from_path);
            }
        }
        for map in [&self.by_stem, &self.by_alias] {
            if let Some(c) = map.get(&key) {
                return self.pick(c, from_path);
            }
        }
        Resolution::Unresolved
    }

    /// How many notes have the file name `name` (any folder): a link by
    /// file name alone is unambiguous when one does.
    pub fn named(&self, name: &str) -> usize {
        self.by_stem.get(&link_key(name)).map_or(0, Vec::len)
    }

    fn pick(&self, candidates: &[usize], from_path: &str) -> Resolution {
        fn folder(p: &str) -> &str {
            p.rsplit_once('/').map_or("", |(d, _)| d)
        }
        let here = folder(from_path);
        let best = candidates.iter().copied().min_by_key(|&i| {
            let p = self.notes[i].rel_path.as_str();
            (folder(p) != here, p.len(), p)
        });
        best.map_or(Resolution::Unresolved, Resolution::Note)
    }
}

/// `key` read from the folder of the note at `from` (both link keys), with
/// `.` and `..` applied; `None` when it climbs above the vault.
fn relative(from: &str, key: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in key.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, title: &str, aliases: &[&str]) -> NoteEntry {
        NoteEntry {
            note_id: path.into(),
            rel_path: path.into(),
            title: title.into(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            note_type: "concept".into(),
        }
    }

    /// The ASCII shortcut gives the key the full normalisation gives.
    #[test]
    fn link_keys_equal_the_plain_normalisation() {
        fn plain(s: &str) -> String {
            let s: String = s
                .trim()
                .replace('\\', "/")
                .nfc()
                .collect::<String>()
                .to_lowercase();
            let s = s.trim_start_matches("./");
            s.strip_suffix(".md").unwrap_or(s).to_string()
        }
        for s in [
            "Note",
            " ./././A\\B.MD ",
            ".md",
            "./.md",
            "./",
            "a.md.md",
            "Über Mich.md",
            "u\u{308}ber",
            "\\x\\y",
            "../Up.md",
            "\tTab.Md\n",
            "",
            "İ.md",
            "ß/STRASSE",
        ] {
            assert_eq!(link_key(s), plain(s), "{s:?}");
        }
    }

    #[test]
    fn resolves_like_obsidian() {
        let r = Resolver::new(vec![
            entry("a/Note.md", "Note", &[]),
            entry("b/Note.md", "Note B", &[]),
            entry("Qdrant.md", "Qdrant Vektordatenbank", &["QDB"]),
            entry("Über mich.md", "Profil", &[]),
        ]);
        assert_eq!(r.resolve("note", "a/x.md"), Resolution::Note(0));
        assert_eq!(r.resolve("Note", "b/x.md"), Resolution::Note(1));
        assert_eq!(r.resolve("b/Note", "a/x.md"), Resolution::Note(1));
        assert_eq!(r.resolve("b/Note.md", "a/x.md"), Resolution::Note(1));
        // A title (frontmatter or heading) never names a note; Obsidian
        // links by file name, path and alias only.
        assert_eq!(
            r.resolve("qdrant vektordatenbank", "x.md"),
            Resolution::Unresolved
        );
        assert_eq!(r.resolve("Profil", "x.md"), Resolution::Unresolved);
        assert_eq!(r.resolve("qdb", "x.md"), Resolution::Note(2));
        assert_eq!(r.resolve("U\u{308}ber mich", "x.md"), Resolution::Note(3));
        assert_eq!(r.resolve("Nirgendwo", "x.md"), Resolution::Unresolved);
        assert_eq!(
            r.resolve("../../etc/passwd", "x.md"),
            Resolution::OutsideVault
        );
        // A relative path is read from the linking note's folder; it is
        // outside only when it climbs above the vault.
        assert_eq!(r.resolve("../b/Note", "a/x.md"), Resolution::Note(1));
        assert_eq!(r.resolve("../b/./Note.md", "a/x.md"), Resolution::Note(1));
        assert_eq!(r.resolve("../Qdrant", "a/x.md"), Resolution::Note(2));
        assert_eq!(r.resolve("../b/Fehlt", "a/x.md"), Resolution::Unresolved);
        assert_eq!(
            r.resolve("../../Qdrant", "a/x.md"),
            Resolution::OutsideVault
        );
        assert_eq!(r.resolve("..", "x.md"), Resolution::OutsideVault);
    }
}
