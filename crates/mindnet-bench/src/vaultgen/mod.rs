//! A seeded generator of synthetic vaults for benchmarks: German-looking
//! notes of realistic size (median ~2 KB), with frontmatter, headings,
//! wikilinks (some to sections, some with labels), inline relations, edge
//! callouts, code blocks and a few unresolved links. Same seed, same vault.

pub use mindnet_core::rng::Rng;
use std::fmt::Write as _;
use std::path::Path;

mod planted;
mod words;

pub use planted::*;
pub use words::*;

const WORDS: &[&str] = &[
    "Wissen",
    "Entscheidung",
    "Projekt",
    "Erfahrung",
    "Wert",
    "Prinzip",
    "Quelle",
    "Zustand",
    "Strategie",
    "Gewohnheit",
    "Arbeit",
    "Zeit",
    "Ziel",
    "Frage",
    "Antwort",
    "Grund",
    "Folge",
    "Veränderung",
    "Team",
    "Kunde",
    "System",
    "Daten",
    "Suche",
    "Vektor",
    "Graph",
    "Notiz",
    "Idee",
    "Plan",
    "Woche",
    "Morgen",
    "und",
    "oder",
    "aber",
    "weil",
    "dass",
    "wenn",
    "nicht",
    "immer",
    "oft",
    "selten",
    "wieder",
    "schon",
    "ich",
    "wir",
    "sie",
    "es",
    "der",
    "die",
    "das",
    "ein",
    "eine",
    "mit",
    "ohne",
    "für",
    "über",
    "unter",
    "hat",
    "ist",
    "war",
    "wird",
    "kann",
    "muss",
    "soll",
    "möchte",
    "lernt",
    "baut",
    "prüft",
    "schreibt",
    "schnell",
    "langsam",
    "klar",
    "schwierig",
    "wichtig",
    "ruhig",
    "müde",
    "neugierig",
    "gründlich",
    "Gesundheit",
    "Schlaf",
    "Laufen",
    "Familie",
    "Geld",
    "Karriere",
    "Wechsel",
    "Mut",
    "Angst",
    "Freude",
];

const TYPES: &[&str] = &[
    "concept",
    "project",
    "decision",
    "experience",
    "value",
    "principle",
    "source",
    "state",
    "strategy",
    "insight",
    "journal",
    "person",
];
const STATUSES: &[&str] = &["draft", "active", "stable", "stable", "active"];
const KINDS: &[&str] = &[
    "caused_by",
    "resulted_in",
    "derived_from",
    "based_on",
    "depends_on",
    "related_to",
    "wegen",
    "führte_zu",
];

pub struct GeneratedVault {
    pub notes: usize,
    pub bytes: u64,
    pub links: usize,
}

fn title(i: usize) -> String {
    format!("Notiz {i:05}")
}

fn section_name(j: usize) -> String {
    format!("Abschnitt {j}")
}

pub fn sentence(rng: &mut Rng, out: &mut String) {
    let n = 6 + rng.below(12);
    for k in 0..n {
        let w = rng.pick(WORDS);
        if k == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        } else {
            out.push(' ');
            out.push_str(w);
        }
    }
    out.push_str(". ");
}

/// Writes `count` notes into `dir` (which must exist) and returns their totals.
pub fn generate(dir: &Path, count: usize, seed: u64) -> std::io::Result<GeneratedVault> {
    let mut rng = Rng::new(seed);
    let mut total = GeneratedVault {
        notes: count,
        bytes: 0,
        links: 0,
    };
    for i in 0..count {
        let folder = format!("bereich-{:02}", i % 16);
        std::fs::create_dir_all(dir.join(&folder))?;
        let mut s = String::with_capacity(4096);
        let _ = writeln!(
            s,
            "---\ntype: {}\nstatus: {}\ntags: [{}, {}]\ncreated: 2026-{:02}-{:02}\n---",
            rng.pick(TYPES),
            rng.pick(STATUSES),
            rng.pick(WORDS).to_lowercase(),
            folder,
            1 + rng.below(12),
            1 + rng.below(28)
        );
        let _ = writeln!(s, "# {}\n", title(i));
        let sections = 1 + rng.below(4);
        for j in 0..sections {
            if j > 0 {
                let _ = writeln!(s, "## {}\n", section_name(j));
            }
            for _ in 0..1 + rng.below(3) {
                for _ in 0..2 + rng.below(4) {
                    sentence(&mut rng, &mut s);
                }
                if rng.chance(0.6) {
                    let t = title(rng.below(count));
                    total.links += 1;
                    match rng.below(6) {
                        0 => {
                            let _ = write!(s, "Siehe [[{t}#{}]]. ", section_name(1 + rng.below(3)));
                        }
                        1 => {
                            let _ = write!(s, "Dazu [[{t}|diese Notiz]]. ");
                        }
                        2 => {
                            let _ = write!(s, "Es gilt [[rel:{} {t}]]. ", rng.pick(KINDS));
                        }
                        3 if rng.chance(0.3) => {
                            let _ = write!(s, "Offen: [[Fehlende Notiz {}]]. ", rng.below(500));
                        }
                        _ => {
                            let _ =
                                write!(s, "Mehr in [[{t}]] #{}. ", rng.pick(WORDS).to_lowercase());
                        }
                    }
                }
                s.push_str("\n\n");
            }
            if rng.chance(0.08) {
                s.push_str("```python\nprint(\"[[kein Link]]\")\n```\n\n");
            }
        }
        if rng.chance(0.35) {
            let _ = writeln!(
                s,
                "> [!edge] {}: [[{}]] [[{}]]",
                rng.pick(KINDS),
                title(rng.below(count)),
                title(rng.below(count))
            );
            let _ = writeln!(s, "> {}: [[{}]]", rng.pick(KINDS), title(rng.below(count)));
            total.links += 3;
        }
        total.bytes += s.len() as u64;
        std::fs::write(dir.join(folder).join(format!("{}.md", title(i))), s)?;
    }
    Ok(total)
}

/// Chains with known ground truth for the causal benchmark: each chain is
/// 3–5 new notes in `ketten/`, typed experience → decision → state →
/// (strategy) → principle, each caused by the one before
/// (`[[rel:caused_by …]]`), plus a link into the rest of the vault as noise.
/// The last note carries a made-up word no other note has (letters only, so
/// the BM25 analyser keeps it whole), so a why question about it has one
/// right starting point. Returns, per chain, the
/// token and the note names, cause first.
pub fn plant_chains(
    dir: &Path,
    chains: usize,
    vault_notes: usize,
    seed: u64,
) -> std::io::Result<Vec<(String, Vec<String>)>> {
    const TYPES: [&str; 5] = ["experience", "decision", "state", "strategy", "principle"];
    let mut rng = Rng::new(seed ^ 0x5eed_c4a1);
    let folder = dir.join("ketten");
    std::fs::create_dir_all(&folder)?;
    let mut out = Vec::new();
    for c in 0..chains {
        let len = 3 + rng.below(3);
        let token = pseudo_word(c);
        let names: Vec<String> = (1..=len)
            .map(|s| format!("Kette {c:04} Schritt {s}"))
            .collect();
        for (s, name) in names.iter().enumerate() {
            let note_type = if s + 1 == len {
                "principle"
            } else {
                TYPES[s.min(3)]
            };
            let mut text = format!("---\ntype: {note_type}\n---\n# {name}\n\n");
            sentence(&mut rng, &mut text);
            sentence(&mut rng, &mut text);
            if s > 0 {
                text.push_str(&format!("Das kam so: [[rel:caused_by {}]]. ", names[s - 1]));
            }
            text.push_str(&format!(
                "Siehe auch [[{}]]. ",
                title(rng.below(vault_notes.max(1)))
            ));
            if s + 1 == len {
                text.push_str(&format!(
                    "\n\nDas Prinzip {token} gilt seitdem. Über {token} denke ich oft nach.\n"
                ));
            }
            std::fs::write(folder.join(format!("{name}.md")), text)?;
        }
        out.push((token, names));
    }
    Ok(out)
}
