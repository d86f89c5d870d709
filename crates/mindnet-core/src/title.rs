//! What a note's title says about its name, shared by the import (mentions,
//! names) and retrieval (whether a question names a note).

/// A title without a trailing qualifier: `Hello Love (song)` → `Hello Love`
/// (Wikipedia's and many vaults' way to tell notes of one name apart).
pub fn base_title(title: &str) -> &str {
    let t = title.trim();
    match t
        .strip_suffix(')')
        .and_then(|s| s.rfind(" (").map(|i| &t[..i]))
    {
        Some(base) if !base.trim().is_empty() => base.trim(),
        _ => t,
    }
}

/// Whether `text` holds `name` as words, in any case: "Hello Love's
/// performer" holds "Hello Love", "Atlasberg" does not hold "Atlas".
pub fn holds_name(text: &str, name: &str) -> bool {
    let name = name.trim().to_lowercase();
    if name.is_empty() {
        return false;
    }
    let text = text.to_lowercase();
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    text.match_indices(&name).any(|(at, m)| {
        !word(text[..at].chars().next_back()) && !word(text[at + m.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualifiers_leave_the_title() {
        assert_eq!(base_title("Hello Love (song)"), "Hello Love");
        assert_eq!(base_title("(song)"), "(song)");
        assert_eq!(base_title("Atlas"), "Atlas");
    }

    #[test]
    fn names_are_held_as_whole_words_in_any_case() {
        assert!(holds_name(
            "Where did Hello Love's performer live?",
            "hello love"
        ));
        assert!(holds_name("Wer leitete Projekt Atlas?", "Projekt Atlas"));
        assert!(!holds_name("Wer war in Atlasberg?", "Atlas"));
        assert!(!holds_name("anything", " "));
        assert!(holds_name("Über Ärzte", "ärzte"));
    }
}
