//! Problems planted for the linter's benchmark, each of known truth: links to
//! missing notes, split spellings of one name, and one case per rule.

use super::WORDS;
use mindnet_core::rng::Rng;
use std::path::Path;
/// A pronounceable word unique to `n` ("Kalomi…"), four syllables.
pub fn pseudo_word(n: usize) -> String {
    const SYLLABLES: [&str; 20] = [
        "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "bo", "da", "fe", "gi", "ho",
        "ju", "ke", "la", "mo", "ni",
    ];
    let mut word = String::new();
    let mut rest = n;
    for _ in 0..4 {
        word.push_str(SYLLABLES[rest % 20]);
        rest /= 20;
    }
    let mut chars = word.chars();
    chars
        .next()
        .map(|f| f.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A link planted by `plant_spellings`, and what the linter should say.
pub struct PlantedLink {
    /// The note that holds the link (vault-relative).
    pub path: String,
    /// The target as written.
    pub written: String,
    /// The existing note it is another spelling of; `None` for a decoy, a
    /// missing name that only looks alike.
    pub means: Option<String>,
    /// How the spelling was made.
    pub variant: &'static str,
}

/// The capitalised words of the generator's vocabulary.
fn nouns() -> Vec<&'static str> {
    WORDS
        .iter()
        .copied()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .collect()
}

/// Links to notes nobody wrote yet, `share` of the distinct link targets of
/// a vault of `notes` notes (about one in ten in the real vaults measured):
/// notes in `offen/`, each linking three names that look like the names of
/// `plant_spellings` (a proper name and a noun) but exist nowhere. Returns
/// how many names are missing.
pub fn plant_missing(dir: &Path, notes: usize, share: f64, seed: u64) -> std::io::Result<usize> {
    let mut rng = Rng::new(seed ^ 0x0ffe);
    let nouns = nouns();
    let share = share.clamp(0.0, 0.9);
    let missing = (notes as f64 * share / (1.0 - share)).round() as usize;
    std::fs::create_dir_all(dir.join("offen"))?;
    let names: Vec<String> = (0..missing)
        .map(|i| format!("{} {}", pseudo_word(120_000 + i * 3), rng.pick(&nouns)))
        .collect();
    for (k, three) in names.chunks(3).enumerate() {
        let links: Vec<String> = three.iter().map(|n| format!("[[{n}]]")).collect();
        std::fs::write(
            dir.join("offen").join(format!("Offen {k:05}.md")),
            format!(
                "---\ntype: concept\n---\nNoch zu schreiben: {}.\n",
                links.join(", ")
            ),
        )?;
    }
    Ok(missing)
}

/// Misspellings with known truth for the linter: `count` notes in `namen/`
/// named "<pseudo word> <noun>", and as many notes in `verweise/` that link
/// to one of them in another spelling (underscore, hyphen, plural written
/// beside the singular, two letters swapped; a change of case alone
/// resolves, as in Obsidian) or to a decoy (first letter changed, another
/// noun, another word, a plural the linking note never writes as the
/// singular), which is a missing note and no misspelling.
pub fn plant_spellings(dir: &Path, count: usize, seed: u64) -> std::io::Result<Vec<PlantedLink>> {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let nouns = nouns();
    std::fs::create_dir_all(dir.join("namen"))?;
    std::fs::create_dir_all(dir.join("verweise"))?;
    let mut out = Vec::new();
    for i in 0..count {
        let word = pseudo_word(50_000 + i * 7);
        let noun = *rng.pick(&nouns);
        let name = format!("{word} {noun}");
        std::fs::write(
            dir.join("namen").join(format!("{name}.md")),
            format!("---\ntype: concept\n---\nÜber {name}.\n"),
        )?;
        let swapped = {
            let mut c: Vec<char> = word.chars().collect();
            c.swap(3, 4);
            c.into_iter().collect::<String>()
        };
        let other_noun = nouns
            .iter()
            .copied()
            .find(|n| *n != noun && n.chars().next() != noun.chars().next())
            .unwrap_or("Frage");
        // The pseudo-word is a proper name: no word list knows it.
        let edited = |f: fn(&mut Vec<char>)| {
            let mut c: Vec<char> = word.chars().collect();
            f(&mut c);
            c.into_iter().collect::<String>()
        };
        let (written, means, variant) = match i % 9 {
            0 => (format!("{word}_{noun}"), Some(&name), "underscore"),
            1 => (format!("{word}-{noun}"), Some(&name), "hyphen"),
            // A plural is the same name where the note that links it
            // writes the singular too; without that, two things.
            2 if i % 2 == 0 => (format!("{word} {noun}en"), Some(&name), "plural"),
            2 => (
                format!("{word} {noun}en"),
                None,
                "decoy: plural, not used alike",
            ),
            3 => (format!("{swapped} {noun}"), Some(&name), "swapped letters"),
            7 => (
                format!("{} {noun}", edited(|c| c.insert(5, c[5]))),
                Some(&name),
                "doubled letter",
            ),
            8 => (
                format!(
                    "{} {noun}",
                    edited(|c| {
                        c.remove(5);
                    })
                ),
                Some(&name),
                "dropped letter",
            ),
            4 => (
                format!("X{} {noun}", &word[1..]),
                None,
                "decoy: first letter",
            ),
            5 => (format!("{word} {other_noun}"), None, "decoy: another noun"),
            _ => (
                format!("{} {noun}", pseudo_word(90_000 + i)),
                None,
                "decoy: another word",
            ),
        };
        let path = format!("verweise/Verweis {i:04}.md");
        let also = if variant == "plural" {
            format!(" Mehr zu {name} später.")
        } else {
            String::new()
        };
        std::fs::write(
            dir.join(&path),
            format!("---\ntype: concept\n---\nSiehe [[{written}]].{also}\n"),
        )?;
        out.push(PlantedLink {
            path,
            written,
            means: means.cloned(),
            variant,
        });
    }
    Ok(out)
}

/// A finding that a planted case must give: its rule, in which note.
pub struct Expected {
    pub rule: &'static str,
    /// The note that holds the finding (vault-relative).
    pub path: String,
}

/// A case planted by `plant_rules`: a few notes in their own folder with
/// one problem of known truth, or a decoy that only looks like one.
pub struct PlantedCase {
    /// The folder of the case's notes (vault-relative, `regeln/NNNN`).
    pub folder: String,
    /// The rule the case is about.
    pub rule: &'static str,
    /// What was planted, in a few words.
    pub variant: &'static str,
    /// Every finding the case should give; empty for a decoy.
    pub expect: Vec<Expected>,
}

/// One planted note: its name, type and body.
struct CaseNote {
    pub(super) name: String,
    pub(super) note_type: &'static str,
    pub(super) front: String,
    pub(super) body: String,
}

/// Problems of known truth for every lint rule besides split spellings,
/// each next to a decoy that a careless rule would flag: an alias next to
/// a canonical kind and the same words in prose, a chronology word on
/// another line or inside a longer word, one cause written twice, the
/// chain through every stage, links by case, section, alias, path, label
/// and embed, a year in a name. `count` cases in `regeln/`, cycling
/// through the variants.
pub fn plant_rules(dir: &Path, count: usize) -> std::io::Result<Vec<PlantedCase>> {
    let mut out = Vec::new();
    for i in 0..count {
        let p = pseudo_word(110_000 + i * 3);
        let folder = format!("regeln/{i:04}");
        std::fs::create_dir_all(dir.join(&folder))?;
        let (a, b, c) = (
            format!("{p} Auslöser"),
            format!("{p} Wirkung"),
            format!("{p} Mitte"),
        );
        let note = |name: &str, note_type: &'static str, body: String| CaseNote {
            name: name.to_string(),
            note_type,
            front: String::new(),
            body,
        };
        let plain =
            |name: &str, note_type: &'static str| note(name, note_type, "Ein Gedanke.".into());
        let at = |name: &str| format!("{folder}/{name}.md");
        let expect = |rule: &'static str, name: &str| Expected {
            rule,
            path: at(name),
        };
        let (rule, variant, notes, expected): (&str, &str, Vec<CaseNote>, Vec<Expected>) = match i
            % 19
        {
            0 => (
                "edge/alias-not-canonical",
                "an alias as the kind",
                vec![
                    note(&a, "concept", format!("Das [[rel:führte_zu {b}]].")),
                    plain(&b, "concept"),
                ],
                vec![expect("edge/alias-not-canonical", &a)],
            ),
            1 => (
                "edge/alias-not-canonical",
                "decoy: the canonical kind, and the alias's words in prose",
                vec![
                    note(
                        &a,
                        "concept",
                        format!("Das [[rel:resulted_in {b}]]. Das führte zu [[{b}]]."),
                    ),
                    plain(&b, "concept"),
                ],
                vec![],
            ),
            2 => (
                "edge/unknown-kind",
                "a kind not in the vocabulary",
                vec![
                    note(&a, "concept", format!("Es [[rel:verschlimmbessert {b}]].")),
                    plain(&b, "concept"),
                ],
                vec![expect("edge/unknown-kind", &a)],
            ),
            3 => (
                "edge/unknown-kind",
                "decoy: a plain callout and a Dataview field with a link",
                vec![
                    note(
                        &a,
                        "concept",
                        format!("> [!note] Hinweis: [[{b}]]\n\nAutor:: [[{b}]]"),
                    ),
                    plain(&b, "person"),
                ],
                vec![],
            ),
            4 => (
                "edge/prohibited-for-type",
                "a principle caused by a value",
                vec![
                    note(&a, "principle", format!("Das kommt [[rel:caused_by {b}]].")),
                    plain(&b, "value"),
                ],
                vec![expect("edge/prohibited-for-type", &a)],
            ),
            5 => (
                "edge/prohibited-for-type",
                "decoy: a principle based on a value",
                vec![
                    note(&a, "principle", format!("Das ruht [[rel:based_on {b}]].")),
                    plain(&b, "value"),
                ],
                vec![],
            ),
            6 => (
                "edge/chronology-as-causality",
                "„danach“ on the line of a causal link",
                vec![
                    note(
                        &a,
                        "decision",
                        format!("Danach kam [[rel:resulted_in {b}]]."),
                    ),
                    plain(&b, "state"),
                ],
                vec![expect("edge/chronology-as-causality", &a)],
            ),
            7 => (
                "edge/chronology-as-causality",
                "decoy: „danach“ on a sequence link, „später“ on another line, „spätere“",
                vec![
                    note(
                        &a,
                        "decision",
                        format!(
                            "Danach [[rel:followed_by {b}]].\n\nDas kam später.\n\nDie spätere Folge: [[rel:resulted_in {c}]]."
                        ),
                    ),
                    plain(&b, "decision"),
                    plain(&c, "state"),
                ],
                vec![],
            ),
            8 => (
                "chain/cycle",
                "two notes that cause each other",
                vec![
                    note(&a, "state", format!("Kommt [[rel:caused_by {b}]].")),
                    note(&b, "state", format!("Kommt [[rel:caused_by {a}]].")),
                ],
                vec![expect("chain/cycle", &a), expect("chain/cycle", &b)],
            ),
            9 => (
                "chain/cycle",
                "decoy: one cause written from both ends",
                vec![
                    note(&a, "state", format!("Kommt [[rel:caused_by {b}]].")),
                    note(&b, "decision", format!("Das [[rel:resulted_in {a}]].")),
                ],
                vec![],
            ),
            10 => (
                "chain/gap",
                "a principle straight from an experience",
                vec![
                    note(
                        &a,
                        "principle",
                        format!("Gelernt [[rel:derived_from {b}]]."),
                    ),
                    plain(&b, "experience"),
                ],
                vec![expect("chain/gap", &a)],
            ),
            11 => (
                "chain/gap",
                "decoy: experience, decision, principle",
                vec![
                    note(
                        &a,
                        "principle",
                        format!("Gelernt [[rel:derived_from {c}]]."),
                    ),
                    plain(&b, "experience"),
                    note(
                        &c,
                        "decision",
                        format!("Entschieden [[rel:caused_by {b}]]."),
                    ),
                ],
                vec![],
            ),
            12 => (
                "chain/multiple-causes",
                "a state with two causes",
                vec![
                    note(
                        &a,
                        "state",
                        format!("Kommt [[rel:caused_by {b}]] und [[rel:caused_by {c}]]."),
                    ),
                    plain(&b, "decision"),
                    plain(&c, "decision"),
                ],
                vec![expect("chain/multiple-causes", &a)],
            ),
            13 => (
                "chain/multiple-causes",
                "decoy: one cause written twice",
                vec![
                    note(
                        &a,
                        "state",
                        format!("Kommt [[rel:caused_by {b}]].\n\n> [!edge] caused_by: [[{b}]]"),
                    ),
                    plain(&b, "decision"),
                ],
                vec![],
            ),
            14 => (
                "link/missing-target",
                "a link to a note not written yet",
                vec![note(
                    &a,
                    "concept",
                    format!("Offen: [[{p} Unbekanntes Kapitel]]."),
                )],
                vec![expect("link/missing-target", &a)],
            ),
            15 => {
                std::fs::write(
                    dir.join(&folder).join(format!("{p} Bild.png")),
                    [0x89, b'P', b'N', b'G'],
                )?;
                let mut target = note(
                    &b,
                    "concept",
                    "Ein Gedanke.\n\n## Abschnitt\n\nMehr.".into(),
                );
                target.front = format!("aliases: [{p} Zweitname]\n");
                (
                    "link/missing-target",
                    "decoy: links by case, section, alias, path, relative path, label, embed",
                    vec![
                        note(
                            &a,
                            "concept",
                            format!(
                                "[[{}]], [[{b}#Abschnitt]], [[{p} Zweitname]], [[{folder}/{b}]], [[../{i:04}/{b}]], [[{b}|Text]], ![[{p} Bild.png]]",
                                b.to_lowercase()
                            ),
                        ),
                        target,
                    ],
                    vec![],
                )
            }
            16 => (
                "link/outside-vault",
                "a path out of the vault",
                vec![note(
                    &a,
                    "concept",
                    format!("Dort: [[../../../{p} Draußen]]."),
                )],
                vec![expect("link/outside-vault", &a)],
            ),
            17 => (
                "link/outside-vault",
                "decoy: a relative path that stays inside",
                vec![
                    note(&a, "concept", format!("Dort: [[../{i:04}/{b}]].")),
                    plain(&b, "concept"),
                ],
                vec![],
            ),
            _ => (
                "node/split-spelling",
                "decoy: another year in a name (a missing note, no misspelling)",
                vec![
                    note(&a, "journal", format!("Wie im [[{p} Bericht 2023]].")),
                    plain(&format!("{p} Bericht 2024"), "journal"),
                ],
                vec![expect("link/missing-target", &a)],
            ),
        };
        for n in notes {
            std::fs::write(
                dir.join(&folder).join(format!("{}.md", n.name)),
                format!("---\ntype: {}\n{}---\n{}\n", n.note_type, n.front, n.body),
            )?;
        }
        out.push(PlantedCase {
            folder,
            rule,
            variant,
            expect: expected,
        });
    }
    Ok(out)
}
