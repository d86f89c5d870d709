//! How a person names a note: by its id, its vault path, its file name, its
//! title or one of its aliases. One rule for every surface (the CLI, HTTP,
//! MCP, the linter, the chain preview), over the index's catalog and over
//! the files alike, so a name that works in one place works in all.

/// The names of one note.
#[derive(Debug, Clone, Copy)]
pub struct NoteNames<'a> {
    pub id: &'a str,
    /// Vault-relative, `/`-separated, with `.md`.
    pub path: &'a str,
    pub title: &'a str,
    pub aliases: &'a [String],
}

/// What kind of name matched, best first: an exact id, then the path (with
/// or without `.md`), the file name, the title, an alias; each but the id in
/// any case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Match {
    Id,
    Path,
    FileName,
    Title,
    Alias,
}

/// The words a user may give, for error messages.
pub const HOW_TO_NAME: &str = "its id, vault path, file name, title or alias";

/// A note's file name: the last part of its vault path, without `.md`
/// (what a link by name writes).
pub fn file_name(path: &str) -> &str {
    without_md(path.rsplit('/').next().unwrap_or(path))
}

/// A path or name without its `.md` ending, written in any case: the scan
/// takes `Note.MD` for a note as Obsidian does, so every name of it must
/// drop the ending too. One ending only (`a.md.md` is the note `a.md`).
pub fn without_md(path: &str) -> &str {
    let cut = path.len().saturating_sub(3);
    match path.get(cut..) {
        Some(end) if end.eq_ignore_ascii_case(".md") => &path[..cut],
        _ => path,
    }
}

/// How `key` names a note, if it does.
pub fn matches(names: NoteNames<'_>, key: &str) -> Option<Match> {
    if names.id == key {
        return Some(Match::Id);
    }
    let wanted = without_md(key.trim()).to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let path = without_md(names.path);
    let file = path.rsplit('/').next().unwrap_or(path);
    let same = |s: &str| s.to_lowercase() == wanted;
    if same(path) {
        Some(Match::Path)
    } else if same(file) {
        Some(Match::FileName)
    } else if same(names.title.trim()) {
        Some(Match::Title)
    } else if names.aliases.iter().any(|a| same(a.trim())) {
        Some(Match::Alias)
    } else {
        None
    }
}

/// The note `key` names best (see `Match`); among equals, the one with the
/// first path, so the answer never depends on the order of `notes`.
pub fn find_note<'a, T>(
    notes: impl IntoIterator<Item = &'a T>,
    key: &str,
    names: impl Fn(&T) -> NoteNames<'_>,
) -> Option<&'a T>
where
    T: 'a,
{
    notes
        .into_iter()
        .filter_map(|n| Some((matches(names(n), key)?, n)))
        .min_by(|(ma, a), (mb, b)| ma.cmp(mb).then_with(|| names(a).path.cmp(names(b).path)))
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct N {
        id: &'static str,
        path: &'static str,
        title: &'static str,
        aliases: Vec<String>,
    }

    fn names(n: &N) -> NoteNames<'_> {
        NoteNames {
            id: n.id,
            path: n.path,
            title: n.title,
            aliases: &n.aliases,
        }
    }

    fn vault() -> Vec<N> {
        vec![
            N {
                id: "a1",
                path: "Projekte/Redis.md",
                title: "Redis als Cache",
                aliases: vec!["Cache".into()],
            },
            N {
                id: "b2",
                path: "Archiv/Cache.md",
                title: "Alter Cache",
                aliases: vec![],
            },
            N {
                id: "c3",
                path: "Redis als Cache.md",
                title: "Notiz",
                aliases: vec![],
            },
            N {
                id: "d4",
                path: "Zweites/Redis.md",
                title: "Redis",
                aliases: vec![],
            },
        ]
    }

    /// A note whose file ends in `.MD` is named like any other.
    #[test]
    fn the_ending_is_dropped_in_any_case_and_once() {
        assert_eq!(without_md("a/Note.MD"), "a/Note");
        assert_eq!(without_md("Note.Md"), "Note");
        assert_eq!(without_md("Note.md.md"), "Note.md");
        assert_eq!(without_md("Notes"), "Notes");
        assert_eq!(without_md("Ü.md"), "Ü");
        assert_eq!(without_md("dü"), "dü");
        assert_eq!(file_name("Projekte/Redis.MD"), "Redis");
        let n = N {
            id: "e5",
            path: "Projekte/Kafka.MD",
            title: "Kafka",
            aliases: vec![],
        };
        assert_eq!(matches(names(&n), "Projekte/Kafka.md"), Some(Match::Path));
        assert_eq!(matches(names(&n), "kafka.MD"), Some(Match::FileName));
    }

    #[test]
    fn every_kind_of_name_finds_its_note_and_the_better_kind_wins() {
        let v = vault();
        let find = |key: &str| find_note(&v, key, names).map(|n| n.id);
        assert_eq!(find("a1"), Some("a1"));
        assert_eq!(find("projekte/redis.md"), Some("a1"));
        assert_eq!(find("Projekte/Redis"), Some("a1"));
        // A file name beats a title, and a title an alias.
        assert_eq!(find("redis als cache"), Some("c3"));
        assert_eq!(find("Cache"), Some("b2"));
        assert_eq!(find("notiz"), Some("c3"));
        // Two file names `Redis`: the first path.
        assert_eq!(find("Redis"), Some("a1"));
        assert_eq!(find("nichts"), None);
        assert_eq!(find("  "), None);
        // The order of the notes does not matter.
        let mut r = vault();
        r.reverse();
        assert_eq!(find_note(&r, "Redis", names).map(|n| n.id), Some("a1"));
    }
}
