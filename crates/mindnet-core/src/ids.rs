//! Deterministic identities. The same vault gives the same ids on any machine,
//! whatever order its files are read in.

use unicode_normalization::UnicodeNormalization;
use uuid::Uuid;

/// Namespace of every UUIDv5 mindnet derives. Fixed forever: changing it
/// changes every id of every existing index.
pub const NAMESPACE: Uuid = Uuid::from_u128(0x6d1e_4e7a_9c3b_5f21_8a40_2d7c_0b9e_13f5);

/// `note_id` of a note without a frontmatter `id`: UUIDv5 of its vault-relative
/// path, with `/` separators and NFC-normalised (macOS writes NFD file names).
pub fn note_id_for_path(rel_path: &str) -> String {
    let normalized: String = rel_path.replace('\\', "/").nfc().collect();
    Uuid::new_v5(&NAMESPACE, normalized.as_bytes()).to_string()
}

/// Lower-case hex of a digest, the one spelling every hash in mindnet uses.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

pub fn chunk_id(note_id: &str, ord: usize) -> String {
    format!("{note_id}#c{ord:02}")
}

/// The note a link target belongs to: the note id itself, or the note of a
/// chunk id `{note}#cNN` (the inverse of `chunk_id`).
pub fn note_of(target: &str) -> &str {
    match target.rfind("#c") {
        Some(i) if target[i + 2..].chars().all(|c| c.is_ascii_digit()) => &target[..i],
        _ => target,
    }
}

/// The deduplication key of an edge: `source->target:kind@section`. Two links
/// to different sections of one note are two edges (multigraph).
pub fn edge_key(source_id: &str, target_id: &str, kind: &str, section: Option<&str>) -> String {
    format!(
        "{source_id}->{target_id}:{kind}@{}",
        section.unwrap_or_default()
    )
}

/// Qdrant point ids must be integers or UUIDs; every string id maps to one.
pub fn point_id(string_id: &str) -> Uuid {
    Uuid::new_v5(&NAMESPACE, string_id.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_ids_ignore_separator_and_normal_form() {
        let nfd = "Notizen/Entscheidung fu\u{308}r Qdrant.md";
        let nfc = "Notizen\\Entscheidung für Qdrant.md";
        assert_eq!(note_id_for_path(nfd), note_id_for_path(nfc));
        assert_ne!(note_id_for_path("a.md"), note_id_for_path("b.md"));
    }

    #[test]
    fn ids_are_stable_across_releases() {
        // A changed value here breaks every existing index: do not update it lightly.
        // The value was computed independently with Python's uuid.uuid5.
        assert_eq!(
            note_id_for_path("Projekte/Mindnet.md"),
            "02e8f55b-b8ba-5187-9d30-8ff754d552ba"
        );
        assert_eq!(chunk_id("n1", 3), "n1#c03");
        assert_eq!(chunk_id("n1", 123), "n1#c123");
        assert_eq!(
            edge_key("n1#c01", "n2", "references", Some("Ziel")),
            "n1#c01->n2:references@Ziel"
        );
        assert_eq!(edge_key("a", "b", "next", None), "a->b:next@");
    }
}
