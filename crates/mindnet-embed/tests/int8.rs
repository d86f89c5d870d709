//! e5-small with int8 linear layers against the same model in f32, on real
//! paragraphs (hotpotqa-100's notes). Needs the real weights: they are
//! fetched into the model cache on first run.

mod common;

use mindnet_embed::int8::Kernel;
use mindnet_embed::{Embedder, e5::E5Small, fetch, models};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

/// The bodies of the first `count` notes of the vault, by file name.
fn paragraphs(count: usize) -> Vec<String> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/hotpotqa-100/vault"
    );
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("hotpotqa vault")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    paths
        .iter()
        .take(count)
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("note");
            // Past the frontmatter.
            match text
                .strip_prefix("---\n")
                .and_then(|t| t.split_once("\n---\n"))
            {
                Some((_, body)) => body.to_string(),
                None => text,
            }
        })
        .collect()
}

/// Every vector within cosine 0.99 of f32's, on the VNNI kernel where the
/// CPU has it, else on the reference loops (fewer texts: they are slow).
#[test]
fn int8_vectors_stay_within_cosine_099_of_f32() {
    let dir = fetch::ensure(&common::model_settings(), models::E5_SMALL, &|m| {
        eprintln!("{m}")
    })
    .expect("e5-small weights");
    let f32_model = E5Small::load(&dir).unwrap();
    let (kernel, count) = match Kernel::detect() {
        Some(k) => (k, 12),
        None => (Kernel::Portable, 3),
    };
    let int8_model = E5Small::load(&dir).unwrap().int8(kernel);
    let texts = paragraphs(count);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let want = f32_model.embed_passages(&refs).unwrap();
    let got = int8_model.embed_passages(&refs).unwrap();
    let cosines: Vec<f32> = want.iter().zip(&got).map(|(a, b)| cosine(a, b)).collect();
    let min = cosines.iter().copied().fold(1.0f32, f32::min);
    let mean = cosines.iter().sum::<f32>() / cosines.len() as f32;
    eprintln!("{kernel:?}: {count} paragraphs, cosine to f32 min {min:.4}, mean {mean:.4}");
    assert!(min >= 0.99, "min cosine {min} (mean {mean})");
    let q = "Which magazine was started first?";
    let c = cosine(
        &f32_model.embed_query(q).unwrap(),
        &int8_model.embed_query(q).unwrap(),
    );
    assert!(c >= 0.99, "query cosine {c}");
}
