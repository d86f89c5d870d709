//! The inside of `[[...]]`: target, section, label and inline relation.

/// What a wikilink says, before it is resolved against the vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkParts {
    /// Note name or path as written; empty for a self-link `[[#Section]]`.
    pub target: String,
    /// Heading (`#Section`) or block reference (`#^id`), without the `#`.
    pub section: Option<String>,
    /// Display text after `|`.
    pub label: Option<String>,
    /// The KIND of an inline relation `[[rel:KIND Target]]`, as written.
    pub relation: Option<String>,
}

/// Splits the text between `[[` and `]]`. Returns `None` for a link that names
/// nothing (`[[]]`, `[[|x]]`, `[[rel:kind]]`).
///
/// Obsidian treats `\|` as the alias separator (the backslash only escapes the
/// pipe from a surrounding table), so `[[A\|B]]` is target `A`, label `B`.
pub fn split(inner: &str) -> Option<LinkParts> {
    let (dest, label) = match inner.find('|') {
        Some(i) => (
            inner[..i].strip_suffix('\\').unwrap_or(&inner[..i]),
            Some(&inner[i + 1..]),
        ),
        None => (inner, None),
    };
    let label = label
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string);
    let mut dest = dest.trim();
    let mut relation = None;
    if let Some(rest) = dest.strip_prefix("rel:") {
        let rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        relation = Some(rest[..end].to_string());
        dest = rest[end..].trim();
    }
    let (target, section) = match dest.find('#') {
        Some(i) => (dest[..i].trim(), Some(dest[i + 1..].trim())),
        None => (dest, None),
    };
    let section = section.filter(|s| !s.is_empty()).map(str::to_string);
    if target.is_empty() && section.is_none() {
        return None;
    }
    Some(LinkParts {
        target: target.to_string(),
        section,
        label,
        relation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(t: &str, s: Option<&str>, l: Option<&str>, r: Option<&str>) -> Option<LinkParts> {
        Some(LinkParts {
            target: t.into(),
            section: s.map(Into::into),
            label: l.map(Into::into),
            relation: r.map(Into::into),
        })
    }

    #[test]
    fn splits_every_variant() {
        assert_eq!(split("Note"), parts("Note", None, None, None));
        assert_eq!(
            split("Note|alias"),
            parts("Note", None, Some("alias"), None)
        );
        assert_eq!(split("Note#Ziel"), parts("Note", Some("Ziel"), None, None));
        assert_eq!(
            split("Note#^abc123"),
            parts("Note", Some("^abc123"), None, None)
        );
        assert_eq!(split("#Ziel"), parts("", Some("Ziel"), None, None));
        assert_eq!(split("A\\|B"), parts("A", None, Some("B"), None));
        assert_eq!(split("link|"), parts("link", None, None, None));
        assert_eq!(
            split("rel:depends_on Qdrant Vektordatenbank#Setup|Qdrant"),
            parts(
                "Qdrant Vektordatenbank",
                Some("Setup"),
                Some("Qdrant"),
                Some("depends_on")
            )
        );
        assert_eq!(split(""), None);
        assert_eq!(split("|x"), None);
        assert_eq!(split("rel:caused_by"), None);
        assert_eq!(split("#"), None);
    }
}
