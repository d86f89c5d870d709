//! `words:<dim>`: a bag of hashed words, no model. It measures the write
//! path at sizes where a real model would spend an hour embedding (`mindnet
//! import --embedder words:512` of a generated vault), and it gives fast
//! tests of logic a deterministic embedder. Its searches find shared words
//! only; it is no substitute for a model.

use crate::{EmbedError, Embedder, ModelId};

/// The name prefix; the dimension follows it.
pub const PREFIX: &str = "words:";
/// Wider vectors than any model we know of would only waste memory.
const MAX_DIM: usize = 8192;

pub struct Words(ModelId);

impl Words {
    /// Named `words:<dim>`, which `mindnet_embed::open` opens again.
    pub fn new(dim: usize) -> Words {
        Words(ModelId {
            name: format!("{PREFIX}{dim}"),
            dim,
        })
    }

    /// The embedder a `words:<dim>` name selects; `None` for a dimension
    /// that is not a number in 1..=8192.
    pub fn parse(dim: &str) -> Option<Words> {
        let dim: usize = dim.parse().ok()?;
        (1..=MAX_DIM).contains(&dim).then(|| Words::new(dim))
    }

    /// Each word of three or more letters is hashed (FNV-1a) to one of
    /// `dim` axes; the sum is L2-normalised.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let dim = self.0.dim;
        let mut v = vec![0f32; dim];
        for w in text.to_lowercase().split(|c: char| !c.is_alphanumeric()) {
            if w.chars().count() < 3 {
                continue;
            }
            let h = w.bytes().fold(2_166_136_261u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(16_777_619)
            });
            v[h as usize % dim] += 1.0;
        }
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
        v.iter().map(|x| x / n).collect()
    }
}

impl Embedder for Words {
    fn id(&self) -> &ModelId {
        &self.0
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self.vector(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_dimensions_are_refused() {
        let w = Words::parse("512").expect("512 is a dimension");
        assert_eq!(w.id().name, "words:512");
        assert_eq!(w.vector("Pumpe im Keller").len(), 512);
        for bad in ["0", "-3", "abc", "", "8193"] {
            assert!(Words::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn shared_words_make_close_vectors() {
        let w = Words::new(64);
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let a = w.vector("Die Pumpe im Keller");
        assert!((dot(&a, &a) - 1.0).abs() < 1e-5);
        assert!(dot(&a, &w.vector("Keller Pumpe")) > dot(&a, &w.vector("Garten Rose")));
    }
}
