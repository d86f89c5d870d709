//! The vocabulary loaders against their files.

use super::*;

#[test]
fn causal_readings_come_from_the_file() {
    let v = EdgeVocabulary::builtin();
    let r = v.causal_reading("caused_by").unwrap();
    assert!(r.cause_is_target);
    assert_eq!((r.forward, r.backward), ("resulted_in", "caused_by"));
    let r = v.causal_reading("resulted_in").unwrap();
    assert!(!r.cause_is_target);
    assert_eq!(r.forward, "resulted_in");
    assert!(v.causal_reading("related_to").is_none());
    // A kind added by a user, without an inverse: A triggers B.
    let text = DEFAULT_YAML.replace(
        "kinds:\n",
        "kinds:\n  triggers:\n    aliases: [löst_aus]\n    causal: true\n",
    );
    let v = EdgeVocabulary::from_yaml(Path::new("v.yaml"), &text).unwrap();
    let r = v.causal_reading("triggers").unwrap();
    assert!(!r.cause_is_target);
    assert_eq!((r.forward, r.backward), ("triggers", "triggers"));
    // Both ends named the same: refused.
    let bad = DEFAULT_YAML.replace(
        "    inverse: caused_by\n    causal: true\n",
        "    inverse: caused_by\n    causal: true\n    cause: target\n",
    );
    let bad = bad.replace(
        "    inverse: resulted_in\n    causal: true\n",
        "    inverse: resulted_in\n    causal: true\n    cause: target\n",
    );
    assert!(EdgeVocabulary::from_yaml(Path::new("v.yaml"), &bad).is_err());
}

#[test]
fn the_fallback_and_the_structure_kinds_come_from_the_file() {
    let v = EdgeVocabulary::builtin();
    assert_eq!(v.fallback_kind(), "related_to");
    assert_eq!(v.kind_of("frobnicates"), "related_to");
    let s = v.structure();
    assert_eq!(
        [s.owner.as_str(), s.next.as_str(), s.previous.as_str()],
        ["belongs_to", "next", "prev"]
    );
    let read = |text: &str| EdgeVocabulary::from_yaml(Path::new("v.yaml"), text);
    // Another fallback, named in the file.
    let other =
        read(&DEFAULT_YAML.replace("fallback: related_to", "fallback: similar_to")).unwrap();
    assert_eq!(other.kind_of("frobnicates"), "similar_to");
    // A file written before both keys takes the built-in ones.
    let old = DEFAULT_YAML
        .replace("fallback: related_to\n", "")
        .replace("    structure: owner\n", "")
        .replace("    structure: next\n", "")
        .replace("    structure: previous\n", "");
    assert_eq!(read(&old).unwrap().structure(), s);
    // A structural fallback, or a role given twice, is refused.
    let e = read(&DEFAULT_YAML.replace("fallback: related_to", "fallback: next")).unwrap_err();
    assert!(e.to_string().contains("fallback"), "{e}");
    let e = read(&DEFAULT_YAML.replace("structure: previous", "structure: next")).unwrap_err();
    assert!(e.to_string().contains("already has this role"), "{e}");
}

#[test]
fn builtin_vocabulary_covers_the_spec() {
    let v = EdgeVocabulary::builtin();
    for (alias, kind) in [
        ("ausgelöst_durch", "caused_by"),
        ("wegen", "caused_by"),
        ("abgeleitet_von", "derived_from"),
        ("quelle", "derived_from"),
        ("basiert_auf", "based_on"),
        ("fundament", "based_on"),
        ("löst", "solves"),
        ("fix_für", "solves"),
        ("teil_von", "part_of"),
        ("cluster", "part_of"),
        ("braucht", "depends_on"),
        ("requires", "depends_on"),
        ("blockiert", "blocks"),
        ("risiko_für", "blocks"),
        ("siehe_auch", "related_to"),
        ("kontext", "related_to"),
        ("preceeded_by", "preceded_by"),
        ("Ausgelöst durch", "caused_by"),
    ] {
        assert_eq!(v.canonicalize(alias), Canonical::Alias(kind), "{alias}");
    }
    assert_eq!(v.canonicalize("caused_by"), Canonical::Known("caused_by"));
    assert_eq!(v.canonicalize("frobnicates"), Canonical::Unknown);
    assert_eq!(v.kind_of("frobnicates"), "related_to");
    for (a, b) in [
        ("caused_by", "resulted_in"),
        ("derived_from", "source_of"),
        ("part_of", "consists_of"),
        ("followed_by", "preceded_by"),
        ("impacts", "impacted_by"),
    ] {
        assert_eq!(v.inverse(a), Some(b));
        assert_eq!(v.inverse(b), Some(a));
    }
    assert_eq!(v.inverse("related_to"), Some("related_to"));
    assert_eq!(v.inverse("similar_to"), Some("similar_to"));
    assert!(v.is_causal("caused_by") && !v.is_causal("followed_by"));
    for k in ["belongs_to", "next", "prev"] {
        assert!(v.is_structural(k), "{k}");
    }
}

#[test]
fn invalid_vocabulary_names_file_line_and_field() {
    let text = "version: 1\nkinds:\n  related_to: {}\n  caused_by:\n    inverse: nothing\n";
    let err = EdgeVocabulary::from_yaml(Path::new("v.yaml"), text).unwrap_err();
    match err {
        ConfigError::Invalid { line, field, .. } => {
            assert_eq!(line, 5);
            assert_eq!(field, "kinds.caused_by.inverse");
        }
        other => panic!("unexpected {other}"),
    }
    let err = EdgeVocabulary::from_yaml(
        Path::new("v.yaml"),
        "version: 1\nkinds:\n  related_to:\n    colour: red\n",
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("v.yaml:4:"), "{err}");
    assert!(err.to_string().contains("colour"), "{err}");
}
