//! Universal Sentence Encoder multilingual v3 (512-d): a SentencePiece unigram
//! tokenizer, a 6-bit quantised word table, three CNN n-gram branches (n = 2,
//! 3, 5) and a small dense stack. Our own forward pass on candle tensors,
//! following the numpy reference shipped in the wheel.

use crate::{EmbedError, Embedder, ModelId, Product, normalize, npz, sentencepiece};
use candle_core::{D, Device, Tensor};
use rayon::prelude::*;
use std::path::Path;
use tokenizers::models::unigram::Unigram;
use tokenizers::normalizers::{Precompiled, Replace, Sequence, Strip};
use tokenizers::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use tokenizers::{NormalizerWrapper, Tokenizer};

const DIM: usize = 512;
const CNN: usize = 256;
const CHUNKS: usize = 17;
/// (n-gram order, tokens of left context) of the three CNN branches.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
const BOS: u32 = 1;
const EOS: u32 = 2;
const UNK: u32 = 0;
/// Longer inputs are cut: the model saw sentences, and cost grows with length.
const MAX_TOKENS: usize = 1024;

pub struct UseM3 {
    id: ModelId,
    tokenizer: Tokenizer,
    /// Quantised word table, row `id` at `id * DIM`.
    table: Vec<u8>,
    scale: Vec<f32>,
    lo: Vec<f32>,
    proj_w: Tensor,
    proj_b: Tensor,
    ln_g_all: Tensor,
    ln_b_all: Tensor,
    w1: Vec<Tensor>,
    b1: Vec<Tensor>,
    w2: Vec<Tensor>,
    b2: Vec<Tensor>,
    ln_g: Tensor,
    ln_b: Tensor,
    cnn_w: Tensor,
    cnn_b: Tensor,
    d0: Tensor,
    d1: Tensor,
    p1: Tensor,
    d2: Tensor,
    p3: Tensor,
    d3: Tensor,
    eps: f32,
}

fn weights_error(path: &Path, message: impl Into<String>) -> EmbedError {
    EmbedError::Weights {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

pub fn tokenizer(sp_model: &Path) -> Result<Tokenizer, EmbedError> {
    let bytes = std::fs::read(sp_model).map_err(|e| weights_error(sp_model, e.to_string()))?;
    let sp = sentencepiece::parse(&bytes).map_err(|e| weights_error(sp_model, e))?;
    let unigram = Unigram::from(sp.pieces, Some(UNK as usize), false)
        .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    let precompiled =
        Precompiled::from(&sp.charsmap).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    let collapse = Replace::new(
        tokenizers::normalizers::replace::ReplacePattern::Regex(" {2,}".into()),
        " ",
    )
    .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    let normalizer = Sequence::new(vec![
        NormalizerWrapper::Precompiled(precompiled),
        NormalizerWrapper::Replace(collapse),
        NormalizerWrapper::StripNormalizer(Strip::new(true, true)),
    ]);
    let mut tok = Tokenizer::new(unigram);
    tok.with_normalizer(Some(normalizer))
        .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    tok.with_pre_tokenizer(Some(Metaspace::new('▁', PrependScheme::Always, true)));
    Ok(tok)
}

/// Token ids with `<s>` and `</s>`, as the model was trained.
pub fn encode(tok: &Tokenizer, text: &str) -> Result<Vec<u32>, EmbedError> {
    let enc = tok
        .encode(text, false)
        .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    let mut ids = Vec::with_capacity(enc.len() + 2);
    ids.push(BOS);
    ids.extend(enc.get_ids().iter().take(MAX_TOKENS - 2));
    if ids.len() == 1 {
        ids.push(UNK);
    }
    ids.push(EOS);
    Ok(ids)
}

impl UseM3 {
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let npz_path = dir.join("weights.npz");
        let tokenizer = tokenizer(&dir.join("sp.model"))?;
        let arrays = npz::read(&npz_path).map_err(|e| weights_error(&npz_path, e))?;
        let cpu = Device::Cpu;
        let get = |name: &str| {
            arrays
                .get(name)
                .ok_or_else(|| weights_error(&npz_path, format!("missing array {name}")))
        };
        let f32s = |name: &str| -> Result<&[f32], EmbedError> {
            get(name)?
                .f32()
                .ok_or_else(|| weights_error(&npz_path, format!("{name} is not float")))
        };
        let tensor = |name: &str| -> Result<Tensor, EmbedError> {
            let a = get(name)?;
            Ok(Tensor::from_slice(f32s(name)?, a.shape.as_slice(), &cpu)?)
        };
        let cat = |names: [&str; 3], dim: usize| -> Result<Tensor, EmbedError> {
            let parts = names
                .iter()
                .map(|n| tensor(n))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Tensor::cat(&parts, dim)?)
        };
        let rows = get("q1")?.shape[0];
        let mut table = vec![0u8; rows * CHUNKS * DIM];
        for c in 0..CHUNKS {
            let q = get(&format!("q{}", c + 1))?
                .u8()
                .ok_or_else(|| weights_error(&npz_path, "word table is not uint8"))?;
            for r in 0..rows {
                let id = r * CHUNKS + c;
                table[id * DIM..(id + 1) * DIM].copy_from_slice(&q[r * DIM..(r + 1) * DIM]);
            }
        }
        let per_branch = |prefix: &str| -> Result<Vec<Tensor>, EmbedError> {
            ORDERS
                .iter()
                .map(|(n, _)| tensor(&format!("{prefix}{n}")))
                .collect()
        };
        Ok(UseM3 {
            id: ModelId {
                name: "use-m3".into(),
                dim: DIM,
            },
            tokenizer,
            table,
            scale: f32s("scale")?.to_vec(),
            lo: f32s("lo")?.to_vec(),
            proj_w: cat(["proj2", "proj3", "proj5"], 1)?,
            proj_b: cat(["proj_b2", "proj_b3", "proj_b5"], 0)?,
            ln_g_all: cat(["ln_g2", "ln_g3", "ln_g5"], 0)?,
            ln_b_all: cat(["ln_b2", "ln_b3", "ln_b5"], 0)?,
            w1: per_branch("w1_")?,
            b1: per_branch("b1_")?,
            w2: per_branch("w2_")?,
            b2: per_branch("b2_")?,
            ln_g: tensor("ln_g")?,
            ln_b: tensor("ln_b")?,
            cnn_w: tensor("cnn_W")?,
            cnn_b: tensor("cnn_b")?,
            d0: tensor("d0")?,
            d1: tensor("d1")?,
            p1: tensor("p1")?,
            d2: tensor("d2")?,
            p3: tensor("p3")?,
            d3: tensor("d3")?,
            eps: f32s("eps")?.first().copied().unwrap_or(1e-6),
        })
    }

    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        encode(&self.tokenizer, text)
    }

    fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let ids = self.token_ids(text)?;
        let n = ids.len();
        let cpu = Device::Cpu;
        let mut emb = vec![0f32; n * DIM];
        let rows = self.table.len() / DIM;
        for (t, &id) in ids.iter().enumerate() {
            let id = (id as usize).min(rows - 1);
            let c = id % CHUNKS;
            let (s, l) = (self.scale[c], self.lo[c]);
            for (dst, &q) in emb[t * DIM..(t + 1) * DIM]
                .iter_mut()
                .zip(&self.table[id * DIM..(id + 1) * DIM])
            {
                *dst = f32::from(q) * s + l;
            }
        }
        let emb = Tensor::from_vec(emb, (n, DIM), &cpu)?;
        let x = emb.matmul(&self.proj_w)?.broadcast_add(&self.proj_b)?;
        let x = candle_nn::ops::layer_norm(&x, &self.ln_g_all, &self.ln_b_all, self.eps)?;
        let mut feats = vec![emb];
        for (i, &(order, left)) in ORDERS.iter().enumerate() {
            let xs = x.narrow(1, i * CNN, CNN)?;
            let h = (window(&xs, order, left)?
                .matmul(&self.w1[i])?
                .broadcast_add(&self.b1[i])?
                .relu()?
                + &xs)?;
            let c2 = (window(&h, order, left)?
                .matmul(&self.w2[i])?
                .broadcast_add(&self.b2[i])?
                .relu()?
                + &h)?;
            feats.push(c2);
        }
        let f = Tensor::cat(&feats, 1)?;
        let f = candle_nn::ops::layer_norm(&f, &self.ln_g, &self.ln_b, self.eps)?;
        let nf = n as f64;
        let mean = f.sum_keepdim(0)?.matmul(&self.cnn_w)?;
        let mean = ((mean + (&self.cnn_b * nf)?.unsqueeze(0)?)? / nf.sqrt())?;
        let y0 = mean.matmul(&self.d0)?.relu()?;
        let y1 = (mean.matmul(&self.p1)? + y0.matmul(&self.d1)?)?.relu()?;
        let y2 = y1.matmul(&self.d2)?.relu()?;
        let z = (y1.matmul(&self.p3)? + y2.matmul(&self.d3)?)?.tanh()?;
        let mut v = z.squeeze(0)?.to_vec1::<f32>()?;
        normalize(&mut v)?;
        Ok(v)
    }
}

/// Row `t` of the result is rows `t-left .. t-left+order` of `x`, side by
/// side, with zeros outside the sentence: the convolution's input.
fn window(x: &Tensor, order: usize, left: usize) -> Result<Tensor, candle_core::Error> {
    let n = x.dim(0)?;
    let padded = x.pad_with_zeros(0, left, order - 1 - left)?;
    let parts = (0..order)
        .map(|k| padded.narrow(0, k, n))
        .collect::<Result<Vec<_>, _>>()?;
    Tensor::cat(&parts, D::Minus1)
}

impl Embedder for UseM3 {
    fn id(&self) -> &ModelId {
        &self.id
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts.par_iter().map(|t| self.embed_one(t)).collect()
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed_one(text)
    }

    fn flops(&self, texts: &[&str]) -> Option<f64> {
        // Per text, the dense stack's one-row products on the pooled features.
        let stack: f64 = [
            &self.cnn_w,
            &self.d0,
            &self.d1,
            &self.p1,
            &self.d2,
            &self.p3,
            &self.d3,
        ]
        .iter()
        .map(|w| 2.0 * w.elem_count() as f64)
        .sum();
        let mut total = 0.0;
        for t in texts {
            let n = self.token_ids(t).ok()?.len();
            total += stack + self.products(n).iter().map(Product::flops).sum::<f64>();
        }
        Some(total)
    }

    /// The projection into the three branches, then two convolutions per
    /// branch over its n-gram windows.
    fn products(&self, tokens: usize) -> Vec<Product> {
        let mut out = vec![Product {
            m: tokens,
            k: DIM,
            n: ORDERS.len() * CNN,
            times: 1,
        }];
        out.extend(ORDERS.iter().map(|&(order, _)| Product {
            m: tokens,
            k: order * CNN,
            n: CNN,
            times: 2,
        }));
        out
    }
}
