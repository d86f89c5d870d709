//! Universal Sentence Encoder multilingual v3 (512-d): a SentencePiece unigram
//! tokenizer, a 6-bit quantised word table, three CNN n-gram branches (n = 2,
//! 3, 5) and a small dense stack. Our own forward pass on plain buffers
//! (`matmul.rs`, `vecmath.rs`), following the numpy reference shipped in the
//! wheel.

use crate::matmul::{View, matmul, op};
use crate::vecmath;
use crate::{EmbedError, Embedder, ModelId, Product, normalize, npz, sentencepiece};
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
    /// The three branches' projections side by side: `[DIM][3 · CNN]`.
    proj: Matrix,
    proj_b: Vec<f32>,
    ln_g_all: Vec<f32>,
    ln_b_all: Vec<f32>,
    /// Per branch, the two convolutions over its n-gram windows.
    w1: Vec<Matrix>,
    b1: Vec<Vec<f32>>,
    w2: Vec<Matrix>,
    b2: Vec<Vec<f32>>,
    ln_g: Vec<f32>,
    ln_b: Vec<f32>,
    cnn_w: Matrix,
    cnn_b: Vec<f32>,
    d0: Matrix,
    d1: Matrix,
    p1: Matrix,
    d2: Matrix,
    p3: Matrix,
    d3: Matrix,
    eps: f32,
}

/// A weight matrix `[rows][cols]`, row-major, applied as `x · W` (the
/// wheel's numpy convention).
struct Matrix {
    values: Vec<f32>,
    rows: usize,
    cols: usize,
}

impl Matrix {
    /// `dst (+)= x · W` for `n` rows of `x`.
    fn apply(&self, x: &[f32], n: usize, dst: &mut [f32], accumulate: bool) {
        matmul(
            dst,
            View::rows(n, self.cols),
            accumulate,
            op(x, View::rows(n, self.rows)),
            op(&self.values, View::rows(self.rows, self.cols)),
        );
    }

    /// `x · W` for one row.
    fn row(&self, x: &[f32]) -> Vec<f32> {
        let mut out = vec![0f32; self.cols];
        self.apply(x, 1, &mut out, false);
        out
    }
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

/// The word table as stored: bytes, and each part's scale and offset.
struct QuantisedTable {
    table: Vec<u8>,
    scale: Vec<f32>,
    lo: Vec<f32>,
}

/// The arrays of `weights.npz`, read with their shapes checked: every
/// shape is checked at load, so that the products never see a mismatch at
/// run time.
struct Weights<'a> {
    arrays: std::collections::HashMap<String, npz::Array>,
    path: &'a Path,
}

impl Weights<'_> {
    fn bad(&self, message: String) -> EmbedError {
        weights_error(self.path, message)
    }

    fn get(&self, name: &str) -> Result<&npz::Array, EmbedError> {
        self.arrays
            .get(name)
            .ok_or_else(|| self.bad(format!("missing array {name}")))
    }

    fn f32s(&self, name: &str) -> Result<&[f32], EmbedError> {
        self.get(name)?
            .f32()
            .ok_or_else(|| self.bad(format!("{name} is not float")))
    }

    fn vector(&self, name: &str, len: usize) -> Result<Vec<f32>, EmbedError> {
        let v = self.f32s(name)?;
        if self.get(name)?.shape.as_slice() != [len] {
            return Err(self.bad(format!("{name} should hold {len} values")));
        }
        Ok(v.to_vec())
    }

    fn matrix(&self, name: &str, rows: usize, cols: Option<usize>) -> Result<Matrix, EmbedError> {
        let values = self.f32s(name)?.to_vec();
        match *self.get(name)?.shape.as_slice() {
            [r, c] if r == rows && cols.is_none_or(|want| want == c) => Ok(Matrix {
                values,
                rows: r,
                cols: c,
            }),
            ref shape => Err(self.bad(format!(
                "{name} has shape {shape:?}, expected {rows} rows{}",
                cols.map(|c| format!(" and {c} columns"))
                    .unwrap_or_default()
            ))),
        }
    }

    /// The quantised word table, its `CHUNKS` parts interleaved by word,
    /// with each part's scale and offset.
    fn word_table(&self) -> Result<QuantisedTable, EmbedError> {
        let rows = self.get("q1")?.shape.first().copied().unwrap_or(0);
        let mut table = vec![0u8; rows * CHUNKS * DIM];
        for c in 0..CHUNKS {
            let name = format!("q{}", c + 1);
            let q = self
                .get(&name)?
                .u8()
                .filter(|q| q.len() == rows * DIM)
                .ok_or_else(|| {
                    self.bad(format!("word table {name} is not {rows} × {DIM} uint8"))
                })?;
            for r in 0..rows {
                let id = r * CHUNKS + c;
                table[id * DIM..(id + 1) * DIM].copy_from_slice(&q[r * DIM..(r + 1) * DIM]);
            }
        }
        let (scale, lo) = (self.f32s("scale")?.to_vec(), self.f32s("lo")?.to_vec());
        if rows == 0 || scale.len() < CHUNKS || lo.len() < CHUNKS {
            return Err(self.bad("the word table's scales are missing".into()));
        }
        Ok(QuantisedTable { table, scale, lo })
    }

    /// The n-gram branches' projections side by side, a row of each in turn.
    fn projections(&self) -> Result<Matrix, EmbedError> {
        let parts = ORDERS
            .map(|(n, _)| format!("proj{n}"))
            .iter()
            .map(|n| self.matrix(n, DIM, Some(CNN)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Matrix {
            values: (0..DIM)
                .flat_map(|r| {
                    parts
                        .iter()
                        .flat_map(move |p| &p.values[r * CNN..(r + 1) * CNN])
                })
                .copied()
                .collect(),
            rows: DIM,
            cols: ORDERS.len() * CNN,
        })
    }
}

impl UseM3 {
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let npz_path = dir.join("weights.npz");
        let tokenizer = tokenizer(&dir.join("sp.model"))?;
        let w = Weights {
            arrays: npz::read(&npz_path).map_err(|e| weights_error(&npz_path, e))?,
            path: &npz_path,
        };
        let QuantisedTable { table, scale, lo } = w.word_table()?;
        let branches = |prefix: &str| ORDERS.map(|(n, _)| format!("{prefix}{n}"));
        let joined = |prefix: &str| -> Result<Vec<f32>, EmbedError> {
            Ok(branches(prefix)
                .iter()
                .map(|n| w.vector(n, CNN))
                .collect::<Result<Vec<_>, _>>()?
                .concat())
        };
        let convs = |prefix: &str| -> Result<Vec<Matrix>, EmbedError> {
            ORDERS
                .iter()
                .map(|(n, _)| w.matrix(&format!("{prefix}{n}"), n * CNN, Some(CNN)))
                .collect()
        };
        let biases = |prefix: &str| -> Result<Vec<Vec<f32>>, EmbedError> {
            branches(prefix).iter().map(|n| w.vector(n, CNN)).collect()
        };
        let features = DIM + ORDERS.len() * CNN;
        let cnn_w = w.matrix("cnn_W", features, None)?;
        let d0 = w.matrix("d0", cnn_w.cols, None)?;
        let p1 = w.matrix("p1", cnn_w.cols, None)?;
        let d1 = w.matrix("d1", d0.cols, Some(p1.cols))?;
        let d2 = w.matrix("d2", p1.cols, None)?;
        let p3 = w.matrix("p3", p1.cols, Some(DIM))?;
        let d3 = w.matrix("d3", d2.cols, Some(DIM))?;
        Ok(UseM3 {
            id: ModelId {
                name: "use-m3".into(),
                dim: DIM,
            },
            tokenizer,
            table,
            scale,
            lo,
            proj: w.projections()?,
            proj_b: joined("proj_b")?,
            ln_g_all: joined("ln_g")?,
            ln_b_all: joined("ln_b")?,
            w1: convs("w1_")?,
            b1: biases("b1_")?,
            w2: convs("w2_")?,
            b2: biases("b2_")?,
            ln_g: w.vector("ln_g", features)?,
            ln_b: w.vector("ln_b", features)?,
            cnn_b: w.vector("cnn_b", cnn_w.cols)?,
            cnn_w,
            d0,
            d1,
            p1,
            d2,
            p3,
            d3,
            eps: w.f32s("eps")?.first().copied().unwrap_or(1e-6),
        })
    }

    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        encode(&self.tokenizer, text)
    }

    fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let ids = self.token_ids(text)?;
        let n = ids.len();
        let width = ORDERS.len() * CNN;
        let features = DIM + width;
        // A row per token: its word vector, then the three branches' outputs.
        let mut f = vec![0f32; n * features];
        let rows = self.table.len() / DIM;
        for (t, &id) in ids.iter().enumerate() {
            let id = (id as usize).min(rows - 1);
            let c = id % CHUNKS;
            let (s, l) = (self.scale[c], self.lo[c]);
            for (dst, &q) in f[t * features..t * features + DIM]
                .iter_mut()
                .zip(&self.table[id * DIM..(id + 1) * DIM])
            {
                *dst = f32::from(q) * s + l;
            }
        }
        let emb = View::cols(n, features, 0, DIM);
        let mut x = self.proj_b.repeat(n);
        matmul(
            &mut x,
            View::rows(n, width),
            true,
            op(&f, emb),
            op(&self.proj.values, View::rows(DIM, width)),
        );
        vecmath::layer_norm(&mut x, &self.ln_g_all, &self.ln_b_all, self.eps);
        let mut windows = Vec::new();
        for (i, &(order, left)) in ORDERS.iter().enumerate() {
            let xs = View::cols(n, width, i * CNN, CNN);
            let h = convolve(&x, xs, &self.w1[i], &self.b1[i], order, left, &mut windows);
            let c2 = convolve(
                &h,
                View::rows(n, CNN),
                &self.w2[i],
                &self.b2[i],
                order,
                left,
                &mut windows,
            );
            for (t, row) in c2.chunks_exact(CNN).enumerate() {
                let at = t * features + DIM + i * CNN;
                f[at..at + CNN].copy_from_slice(row);
            }
        }
        vecmath::layer_norm(&mut f, &self.ln_g, &self.ln_b, self.eps);
        let mut sum = vec![0f32; features];
        for row in f.chunks_exact(features) {
            sum.iter_mut().zip(row).for_each(|(s, v)| *s += v);
        }
        let nf = n as f32;
        let mut mean = self.cnn_w.row(&sum);
        mean.iter_mut()
            .zip(&self.cnn_b)
            .for_each(|(m, b)| *m = (*m + b * nf) / nf.sqrt());
        let y0 = relu(self.d0.row(&mean));
        let mut y1 = self.p1.row(&mean);
        self.d1.apply(&y0, 1, &mut y1, true);
        let y1 = relu(y1);
        let y2 = relu(self.d2.row(&y1));
        let mut z = self.p3.row(&y1);
        self.d3.apply(&y2, 1, &mut z, true);
        z.iter_mut().for_each(|v| *v = v.tanh());
        normalize(&mut z)?;
        Ok(z)
    }
}

/// `relu(window(x) · W + b) + x` for the column block `xs` of `x`: one
/// convolution of a branch, with its residual.
fn convolve(
    x: &[f32],
    xs: View,
    w: &Matrix,
    b: &[f32],
    order: usize,
    left: usize,
    windows: &mut Vec<f32>,
) -> Vec<f32> {
    let n = xs.rows;
    window(x, xs, order, left, windows);
    // The bias in every row, then the product added to it.
    let mut h = b.repeat(n);
    w.apply(windows, n, &mut h, true);
    for (t, row) in h.chunks_exact_mut(CNN).enumerate() {
        let at = xs.offset + t * xs.stride;
        for (v, r) in row.iter_mut().zip(&x[at..at + CNN]) {
            *v = v.max(0.0) + r;
        }
    }
    h
}

fn relu(mut v: Vec<f32>) -> Vec<f32> {
    v.iter_mut().for_each(|x| *x = x.max(0.0));
    v
}

/// Row `t` of `out` is rows `t-left .. t-left+order` of the block `xs` of
/// `x`, side by side, with zeros outside the sentence: the convolution's
/// input.
fn window(x: &[f32], xs: View, order: usize, left: usize, out: &mut Vec<f32>) {
    let (n, cols) = (xs.rows, xs.cols);
    out.clear();
    out.resize(n * order * cols, 0.0);
    for t in 0..n {
        for k in 0..order {
            let Some(src) = (t + k).checked_sub(left).filter(|&s| s < n) else {
                continue;
            };
            let at = xs.offset + src * xs.stride;
            let dst = (t * order + k) * cols;
            out[dst..dst + cols].copy_from_slice(&x[at..at + cols]);
        }
    }
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
        .map(|w| 2.0 * w.values.len() as f64)
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
