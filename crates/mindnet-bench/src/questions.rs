//! Questions drawn from a vault's own notes, for benchmarks: a sentence of
//! a random note each, with that note as the gold answer.

use anyhow::Result;

/// A question of a generated set: a sentence of a note, and that note.
pub struct Sampled {
    pub question: String,
    pub gold: String,
}

/// `count` sentences of random notes of the vault (seeded).
pub fn sample_questions(vault: &std::path::Path, count: usize, seed: u64) -> Result<Vec<Sampled>> {
    let files = mindnet_ingest::scan::scan_vault(vault)?.files;
    anyhow::ensure!(!files.is_empty(), "{}: no notes", vault.display());
    let mut rng = mindnet_core::rng::Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..count.saturating_mul(10) {
        if out.len() == count {
            break;
        }
        let f = rng.pick(&files);
        let Ok(text) = std::fs::read_to_string(&f.abs_path) else {
            continue;
        };
        let candidates = sentences(&text);
        if candidates.is_empty() {
            continue;
        }
        let question = rng.pick(&candidates).clone();
        let gold = std::path::Path::new(&f.rel_path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        out.push(Sampled { question, gold });
    }
    Ok(out)
}

/// Sentences of plain prose: no headings, frontmatter or links.
fn sentences(text: &str) -> Vec<String> {
    let body = text.split("\n---\n").nth(1).unwrap_or(text);
    body.lines()
        .filter(|l| !l.starts_with('#') && !l.contains("[[") && !l.starts_with('>'))
        .flat_map(|l| l.split(". "))
        .map(|s| s.trim().trim_end_matches('.').to_string())
        .filter(|s| s.split_whitespace().count() >= 6)
        .collect()
}
