use super::*;
use crate::lexicon::Lexicon;

/// No word list: edit distance decides alone.
fn none() -> RealWords {
    RealWords::default()
}

#[test]
fn normalisation_cases_are_the_same_name_with_their_evidence() {
    let de = Lang::De;
    let en = Lang::En;
    assert_eq!(
        same_name("Rückenschmerzen", "Rueckenschmerzen", de, &none()),
        Some(Evidence::Umlauts)
    );
    assert_eq!(
        same_name("Job-Wechsel", "Jobwechsel", de, &none()),
        Some(Evidence::Separators)
    );
    assert_eq!(
        same_name("Land Slide", "Landslide", en, &none()),
        Some(Evidence::Separators)
    );
    assert_eq!(
        same_name("Meta-Ethics", "Metaethics", en, &none()),
        Some(Evidence::Separators)
    );
    assert_eq!(
        same_name("qdrant", "Qdrant", de, &none()),
        Some(Evidence::Case)
    );
    assert_eq!(
        same_name("NtCreateFile()", "NtCreateFile", en, &none()),
        Some(Evidence::Parentheses)
    );
    assert_eq!(
        same_name("Gewohnheiten", "Gewohnheit", de, &none()),
        Some(Evidence::Plural)
    );
    assert_eq!(
        same_name("Processes", "Process", en, &none()),
        Some(Evidence::Plural)
    );
    assert_eq!(
        same_name("Gewohnhieten", "Gewohnheiten", de, &none()),
        Some(Evidence::Letters(1))
    );
    assert_eq!(
        same_name(
            "Neustart als Junior-Entwikler",
            "Neustart als Junior-Entwickler",
            de,
            &none()
        ),
        Some(Evidence::Letters(1))
    );
    assert_eq!(
        same_name("*Der Prozess*", "Der Prozess", de, &none()),
        Some(Evidence::Separators)
    );
    assert_eq!(
        same_name("Neue Stele", "Neue Stelle", de, &none()),
        Some(Evidence::Letters(1))
    );
}

#[test]
fn the_false_pairs_seen_on_real_vaults_are_never_reported() {
    for lang in [Lang::En, Lang::De] {
        for (a, b) in [
            ("Cancer", "Scanners"),
            ("Hormone", "Harmony"),
            ("Embryo", "Embargo"),
            ("Protein", "Process"),
            ("Twitter", "Jitter"),
            ("LLVM fadd", "LLVM add"),
            ("Espresso", "Installation"),
            ("OpenRC", "XML Paper Specification"),
            ("Copper", "List"),
            ("Murder", "The Partial Order/Order representing .$$"),
            ("biology", "Axiology"),
            ("education", "Reduction"),
            ("gender", "Blender"),
            ("Upanishad", "Origin of the Word"),
            ("qdrant", "kafka"),
            ("Jahresbericht 2023", "Jahresbericht 2024"),
            ("Q3 2023 Review", "Q3 2024 Review"),
            ("C++", "C"),
            ("C#", "C"),
            ("F#", "F"),
            ("A*", "A"),
            ("C-", "C"),
            ("B+ tree", "B-tree"),
            ("B+ Baum", "B Baum"),
            ("Notepad++", "Notepad+"),
            ("Notepad++", "Notepad"),
        ] {
            assert_eq!(same_name(a, b, lang, &none()), None, "{a} / {b}");
            assert_eq!(same_name(b, a, lang, &none()), None, "{b} / {a}");
        }
    }
}

/// Pairs of real words (Debian's `wngerman` and `wamerican` hold both
/// words of each) that edit distance alone takes for one name.
const REAL_PAIRS: [(&str, &str, Lang); 12] = [
    ("Körbchen", "Körnchen", Lang::De),
    ("Sennerei", "Sennerin", Lang::De),
    ("Archäologe", "Archäologin", Lang::De),
    ("Besteuerung", "Beteuerung", Lang::De),
    ("Entsendung", "Entwendung", Lang::De),
    ("Neue Entsendung", "Neue Entwendung", Lang::De),
    ("Conservation", "Conversation", Lang::En),
    ("Quilting", "Quitting", Lang::En),
    ("Alexandra", "Alexandria", Lang::En),
    ("Steering", "Sheering", Lang::En),
    ("Stimulates", "Stipulates", Lang::En),
    ("Extroverts", "Extraverts", Lang::En),
];

fn lexicon() -> RealWords {
    RealWords::given(Lexicon::from_words(
        REAL_PAIRS
            .iter()
            .flat_map(|(a, b, _)| a.split(' ').chain(b.split(' '))),
    ))
}

#[test]
fn two_real_words_are_two_names_and_only_a_word_list_knows_it() {
    let real = lexicon();
    for (a, b, lang) in REAL_PAIRS {
        assert!(
            matches!(same_name(a, b, lang, &none()), Some(Evidence::Letters(_))),
            "edit distance alone reports {a} / {b}"
        );
        assert_eq!(same_name(a, b, lang, &real), None, "{a} / {b}");
        assert_eq!(same_name(b, a, lang, &real), None, "{b} / {a}");
    }
}

#[test]
fn a_misspelt_name_is_found_with_a_word_list_too() {
    let real = lexicon();
    for (typo, name, lang) in [
        // A proper name, swapped, doubled and dropped letters.
        ("Schwarzenegegr", "Schwarzenegger", Lang::De),
        ("Schwarzzenegger", "Schwarzenegger", Lang::De),
        ("Schwarzeneger", "Schwarzenegger", Lang::De),
        ("Wittgenstien", "Wittgenstein", Lang::En),
        ("Kierkegard", "Kierkegaard", Lang::En),
        ("Dostojewksi Romane", "Dostojewski Romane", Lang::De),
        // A real word misspelt: the slip is no word.
        ("Besteurung", "Besteuerung", Lang::De),
        ("Conservaton", "Conservation", Lang::En),
    ] {
        assert!(
            matches!(
                same_name(typo, name, lang, &real),
                Some(Evidence::Letters(_))
            ),
            "{typo} / {name}"
        );
    }
}

#[test]
fn distances() {
    assert_eq!(distance("jobwechsel", "jobwehcsel", 2), 1);
    assert_eq!(distance("qdrant", "kafka", 2), 3);
}

/// An operator after a space is part of the name: `X +`, `X -` and `X *`
/// name other things than `X`; a dash between words stays a separator.
#[test]
fn operator_names_are_their_own() {
    for lang in [Lang::En, Lang::De] {
        for (a, b) in [
            ("Vector +", "Vector"),
            ("Vector -", "Vector"),
            ("Vector *", "Vector"),
            ("Vector +", "Vector -"),
            ("Matrix / Scalar", "Matrix Scalar"),
            ("Pointer ->", "Pointer"),
        ] {
            assert_eq!(same_name(a, b, lang, &none()), None, "{a} / {b}");
        }
        assert_eq!(
            same_name("Projekt - Notizen", "Projekt Notizen", lang, &none()),
            Some(Evidence::Separators)
        );
        assert_eq!(
            same_name("vector +", "Vector +", lang, &none()),
            Some(Evidence::Case)
        );
    }
    assert_eq!(words("C++ und X +"), ["c++", "und", "x", "+"]);
}
