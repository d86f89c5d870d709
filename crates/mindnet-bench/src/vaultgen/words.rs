//! Vaults of real words, for the linter's precision on names that are not
//! misspellings of each other.

use mindnet_core::rng::Rng;
use std::path::Path;
/// A vault whose note names and link targets are real words, for the
/// linter's precision: no name in it is a misspelling of another, so every
/// split-spelling finding by edit distance is false.
pub struct WordVault {
    /// Distinct names: notes and missing link targets.
    pub names: usize,
    pub notes: usize,
    pub missing: usize,
}

/// Writes a vault of `notes` notes named by the entries of a word list
/// (one per line), linking each other and `share` of missing names. Names
/// are made the way real vault names are, and so that near pairs are
/// common: half are single words taken in runs of three neighbours of the
/// sorted list (`Abbildung`, `Abbildungen`, `Abbildungsverzeichnis`:
/// inflections and derivations, the hard case), a quarter two words with a
/// head shared by many (`Theorie der Wahl`, `Theorie der Zahl`), and a
/// quarter product-style names next to their plain word (`Word+`, `Word
/// Pro`, `Word 2`).
pub fn word_vault(
    dir: &Path,
    list: &str,
    notes: usize,
    share: f64,
    english: bool,
    seed: u64,
) -> std::io::Result<WordVault> {
    let mut rng = Rng::new(seed ^ 0x0ace);
    // Entries that can be file names and link targets, capitalised as note
    // names are.
    let entries: Vec<String> = list
        .lines()
        .map(str::trim)
        .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        })
        .collect();
    if entries.len() < 100 {
        return Err(std::io::Error::other(
            "the word list holds fewer than 100 usable words",
        ));
    }
    let share = share.clamp(0.0, 0.9);
    let wanted = (notes as f64 / (1.0 - share)).round() as usize;
    let heads: Vec<String> = (0..50)
        .map(|_| entries[rng.below(entries.len())].clone())
        .collect();
    let (of, and) = if english {
        ("of", "and")
    } else {
        ("der", "und")
    };
    const PRODUCT: [&str; 6] = ["+", "++", " Pro", " Plus", " 2", " Lite"];
    let mut seen = std::collections::HashSet::new();
    let mut names: Vec<String> = Vec::new();
    let mut i = 0usize;
    while names.len() < wanted && i < wanted * 10 {
        i += 1;
        let at = rng.below(entries.len());
        let made: Vec<String> = match i % 4 {
            0 | 1 => (at..(at + 3).min(entries.len()))
                .map(|k| entries[k].clone())
                .collect(),
            2 => vec![format!("{} {of} {}", rng.pick(&heads), entries[at])],
            _ => vec![
                entries[at].clone(),
                format!("{}{}", entries[at], rng.pick(&PRODUCT)),
            ],
        };
        for name in made {
            if seen.insert(name.to_lowercase()) {
                names.push(name);
            }
        }
    }
    rng.shuffle(&mut names);
    names.truncate(wanted);
    let notes = notes.min(names.len());
    let (written, missing) = names.split_at(notes);
    std::fs::create_dir_all(dir.join("namen"))?;
    // Every missing name is linked once, by a random note; every note links
    // two more names at random.
    let mut links: Vec<Vec<&str>> = vec![Vec::new(); written.len()];
    for m in missing {
        links[rng.below(written.len())].push(m);
    }
    for (k, name) in written.iter().enumerate() {
        let mut targets = std::mem::take(&mut links[k]);
        for _ in 0..2 {
            targets.push(&names[rng.below(names.len())]);
        }
        let listed: Vec<String> = targets.iter().map(|t| format!("[[{t}]]")).collect();
        let body = if english {
            format!("About {name}. See {} {and} more.\n", listed.join(", "))
        } else {
            format!("Über {name}. Siehe {} {and} mehr.\n", listed.join(", "))
        };
        std::fs::write(
            dir.join("namen").join(format!("{name}.md")),
            format!("---\ntype: concept\n---\n{body}"),
        )?;
    }
    Ok(WordVault {
        names: names.len(),
        notes: written.len(),
        missing: missing.len(),
    })
}
