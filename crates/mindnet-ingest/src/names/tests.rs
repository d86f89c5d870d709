use super::*;
use crate::parse::parse;
use mindnet_core::EdgeVocabulary;

/// Every name, whole or a part, sorted.
fn names_in(text: &str, title: &str, lang: &str) -> Vec<String> {
    let v = EdgeVocabulary::builtin();
    let p = parse(text);
    let n = note_names(text, &p.prose, title, v.names(), lang);
    let mut all = [n.whole, n.parts].concat();
    all.sort();
    all
}

fn names(text: &str, title: &str) -> Vec<String> {
    names_in(text, title, "en")
}

#[test]
fn capitalised_runs_with_connectors_initials_and_genitives() {
    let n = names(
        "The museum was founded by George W. Bush and the Bank of England. \
         Dr. Weber's report was late. Today nothing happened.",
        "museum",
    );
    // The dot of an initial is not part of the name.
    for want in [
        "George W Bush",
        "Bank of England",
        "Dr Weber",
        "Weber",
        "England",
    ] {
        assert!(n.contains(&want.to_string()), "{want} in {n:?}");
    }
    assert!(!n.iter().any(|x| x == "Today" || x == "The"), "{n:?}");
}

#[test]
fn german_prose_links_code_and_comments() {
    let text = "---\ntitle: x\n---\n# Projekt Atlas\n\nDie Migration leitete \
                [[Dr. Weber]] im Projekt Atlas. `Geheim Code` %%Versteckt Hier%%\n\n\
                ```\nAuch Nicht\n```\n";
    let n = names_in(text, "Projekt Atlas (2023)", "de");
    assert!(n.contains(&"Projekt Atlas".to_string()), "{n:?}");
    assert!(n.contains(&"Weber".to_string()), "{n:?}");
    assert!(n.contains(&"Atlas".to_string()), "{n:?}");
    for never in [
        "Geheim",
        "Code",
        "Versteckt",
        "Auch",
        "Nicht",
        "Die",
        "2023",
    ] {
        assert!(!n.iter().any(|x| x.contains(never)), "{never} in {n:?}");
    }
    // "Die Migration": a noun after an article, no name.
    assert!(!n.contains(&"Migration".to_string()), "{n:?}");
}

#[test]
fn german_nouns_after_determiners_are_no_names() {
    let text = "Nach dem Unfall im Herbst kam die neue Beziehung. Drei Stunden \
                sprach ich mit Weber über Leipzig. Der Herbst war lang.";
    let v = EdgeVocabulary::builtin();
    let p = parse(text);
    let de = note_names(text, &p.prose, "Unfall im Herbst", v.names(), "de");
    for noun in ["Unfall", "Herbst", "Beziehung", "Stunden"] {
        assert!(!de.whole.iter().any(|x| x == noun), "{noun} in {de:?}");
    }
    for name in ["Weber", "Leipzig"] {
        assert!(de.whole.iter().any(|x| x == name), "{name} in {de:?}");
    }
    // English has no such rule: "the Hall" may be a name.
    let en = note_names(text, &p.prose, "x", v.names(), "en");
    assert!(en.whole.iter().any(|x| x == "Beziehung"), "{en:?}");
}

#[test]
fn words_of_longer_names_are_parts_unless_written_alone() {
    let text = "Dr. Weber opened the Chiang Kai-shek Memorial Hall. Later Weber left.";
    let v = EdgeVocabulary::builtin();
    let p = parse(text);
    let n = note_names(text, &p.prose, "x", v.names(), "en");
    for whole in ["Dr Weber", "Chiang Kai-shek Memorial Hall", "Weber"] {
        assert!(n.whole.iter().any(|x| x == whole), "{whole} in {n:?}");
    }
    for part in ["Memorial", "Hall", "Chiang"] {
        assert!(n.parts.iter().any(|x| x == part), "{part} in {n:?}");
        assert!(!n.whole.iter().any(|x| x == part), "{part} in {n:?}");
    }
    assert!(!n.parts.iter().any(|x| x == "Weber"), "{n:?}");
}

#[test]
fn a_sentence_opener_counts_when_the_note_capitalises_it_elsewhere() {
    let n = names("Weber kam spät. Gestern sprach ich mit Weber.", "x");
    assert!(n.contains(&"Weber".to_string()), "{n:?}");
    assert!(!n.contains(&"Gestern".to_string()), "{n:?}");
}

#[test]
fn runs_end_at_blocks_and_list_items() {
    let n = names("- Alpha Beta\n- Gamma Delta\n\nEpsilon", "x");
    assert!(!n.iter().any(|x| x.contains("Beta Gamma")), "{n:?}");
}

#[test]
fn language_by_function_words_not_urls_or_acronyms() {
    let quadcopter = "- https://github.com/mit-gfx/multicopter_design (MIT CSAIL)\n\
                      - https://learn2fly.csail.mit.edu/ (MIT CSAIL - Controller Design for Drones)";
    assert_eq!(detect_lang(quadcopter), Some("en"));
    assert_eq!(detect_lang("Ich war mit ihr dort."), Some("de"));
    assert_eq!(detect_lang("SI Unit: Lux"), None);
}

/// The one-pass count equals the plain reading of its rule: lower-cased
/// pieces between non-letters, the first 400, no acronyms, no URLs.
#[test]
fn language_votes_equal_the_plain_reading() {
    fn plain(text: &str) -> LangVotes {
        const DE: [&str; 16] = [
            "der", "die", "das", "und", "ist", "nicht", "ich", "mit", "ein", "eine", "zu", "auf",
            "für", "sich", "dem", "den",
        ];
        const EN: [&str; 16] = [
            "the", "and", "is", "of", "to", "in", "that", "it", "with", "for", "this", "are", "on",
            "as", "be", "was",
        ];
        let mut v = LangVotes::default();
        let words = text
            .split_whitespace()
            .filter(|t| !t.contains("://") && !t.starts_with("www."))
            .flat_map(|t| t.split(|c: char| !c.is_alphabetic()))
            .filter(|w| !w.chars().skip(1).any(char::is_uppercase));
        for w in words.take(400) {
            let w = w.to_lowercase();
            v.de += usize::from(DE.contains(&w.as_str()));
            v.en += usize::from(EN.contains(&w.as_str()));
        }
        v
    }
    let pool = [
        "Der",
        "die",
        "FÜR",
        "Für",
        "für",
        "The",
        "THE",
        "tHe",
        "and,",
        "(mit",
        "MIT",
        "mit.",
        "https://mit.edu/the",
        "www.und.de",
        "x:y",
        "eine—",
        "ist…",
        "Übung",
        "it's",
        "be-in",
        "“of”",
        "İs",
        "\u{a0}to",
        "sich;;den",
        "dEm",
        "12",
        "",
        "was!",
        "on/as",
        "nicht",
        "\u{2003}",
        " die\t",
        "Ärger",
        "ÄRGER",
        "ﬁne",
        "Σίσυφος",
        "der's",
        "::",
        "mit\u{85}",
    ];
    let mut seed = 7u64;
    // Short texts, the 400th word's edges, and many mixes past it.
    let lens = [0, 1, 5, 50, 399, 400, 401, 1000]
        .into_iter()
        .chain([450; 40]);
    for len in lens {
        let mut text = String::new();
        for _ in 0..len {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.push_str(pool[(seed >> 33) as usize % pool.len()]);
            text.push(if seed & 1 == 0 { ' ' } else { '\n' });
        }
        assert_eq!(lang_votes(&text), plain(&text), "{len} words: {text}");
    }
}
