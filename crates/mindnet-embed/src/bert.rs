//! A BERT encoder (post-norm, GELU, absolute positions) run on plain `f32`
//! buffers, one sequence at a time, for e5-small.
//!
//! Why not candle's `BertModel`: at this model's size the matrix products
//! are only a third of candle's time; the rest went to a tensor per
//! operation (allocation and page faults), a scalar `erf` per GELU value,
//! and padding. Here:
//! - a sequence is never padded: each window is its own forward pass, and
//!   windows run in parallel, one per core, so every product is
//!   single-threaded and nothing waits on a barrier;
//! - the products are `gemm` calls (with its AVX-512 kernels where the CPU
//!   has them) straight into buffers that live for the whole pass;
//! - the word table stays in its q4_0 blocks (54 MB instead of 384 MB as
//!   f32); a token's row is dequantised when it is looked up, which gives
//!   exactly the values a full dequantisation would.

use crate::int8::{Kernel, QuantLinear};
use crate::matmul::{View, matmul, op, op_t};
use rayon::prelude::*;

/// `y = x · Wᵀ + b`: the file's f32 weights, or int8 (`int8.rs`).
pub enum Linear {
    F32 {
        /// `[out][inp]`, row-major, as the file stores it.
        w: Vec<f32>,
        b: Vec<f32>,
        out: usize,
        inp: usize,
    },
    Int8(QuantLinear),
}

impl Linear {
    pub fn out(&self) -> usize {
        match self {
            Linear::F32 { out, .. } => *out,
            Linear::Int8(q) => q.out(),
        }
    }

    /// The same layer in int8 (the f32 weights are dropped).
    fn quantized(self, kernel: Kernel) -> Linear {
        match self {
            Linear::F32 { w, b, out, inp } => {
                Linear::Int8(QuantLinear::new(&w, &b, out, inp, kernel))
            }
            q => q,
        }
    }
}

pub struct Norm {
    pub w: Vec<f32>,
    pub b: Vec<f32>,
}

pub struct Layer {
    /// Query, key and value in one: `[3 · hidden][hidden]`, so that the
    /// input is quantised once and the product is one wide call.
    pub qkv: Linear,
    pub ao: Linear,
    pub aln: Norm,
    pub fi: Linear,
    pub fo: Linear,
    pub oln: Norm,
}

/// The token table: in the file's q4_0 blocks of 32 values (an f16 scale
/// and 16 bytes of nibbles) along each row, or plain.
pub enum WordTable {
    Q4 { blocks: Vec<u8>, rows: usize },
    F32 { values: Vec<f32>, rows: usize },
}

pub struct Bert {
    pub hidden: usize,
    pub heads: usize,
    pub eps: f32,
    pub word: WordTable,
    /// `[max_pos][hidden]`.
    pub pos: Vec<f32>,
    /// Token type 0's row (the only type e5 uses).
    pub type0: Vec<f32>,
    pub eln: Norm,
    pub layers: Vec<Layer>,
}

const BLOCK: usize = 32;
const BLOCK_BYTES: usize = 18;

/// f16 bits to f32, enough for the q4_0 block scales.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 => {
            if frac == 0.0 {
                sign * f32::INFINITY
            } else {
                f32::NAN
            }
        }
        e => sign * (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Appends the values of q4_0 blocks: element `j` of a block is
/// `(nibble − 8) · d`, the low nibbles first.
pub fn dequantize_into(blocks: &[u8], out: &mut Vec<f32>) {
    for block in blocks.chunks_exact(BLOCK_BYTES) {
        let d = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        let qs = &block[2..];
        out.extend(qs.iter().map(|q| (f32::from(q & 0x0f) - 8.0) * d));
        out.extend(qs.iter().map(|q| (f32::from(q >> 4) - 8.0) * d));
    }
}

impl WordTable {
    /// Adds token `id`'s row to `out` (an id past the table reads its last
    /// row; the tokenizer never makes one).
    fn add_row(&self, id: usize, hidden: usize, out: &mut [f32]) {
        let row = match self {
            WordTable::Q4 { blocks, rows } => {
                let bytes = hidden / BLOCK * BLOCK_BYTES;
                let id = id.min(rows.saturating_sub(1));
                let mut values = Vec::with_capacity(hidden);
                dequantize_into(&blocks[id * bytes..(id + 1) * bytes], &mut values);
                values
            }
            WordTable::F32 { values, rows } => {
                let id = id.min(rows.saturating_sub(1));
                values[id * hidden..(id + 1) * hidden].to_vec()
            }
        };
        out.iter_mut().zip(row).for_each(|(o, v)| *o += v);
    }
}

/// `y = x · Wᵀ + b` for `rows` rows of `x`.
fn linear(l: &Linear, x: &[f32], rows: usize, y: &mut Vec<f32>, q8: &mut crate::int8::Scratch) {
    let (w, b, out, inp) = match l {
        Linear::F32 { w, b, out, inp } => (w, b, *out, *inp),
        Linear::Int8(q) => return q.forward(x, rows, y, q8),
    };
    y.clear();
    for _ in 0..rows {
        y.extend_from_slice(b);
    }
    matmul(
        y,
        View::rows(rows, out),
        true,
        op(x, View::rows(rows, inp)),
        op_t(w, View::rows(out, inp)),
    );
}

fn layer_norm(x: &mut [f32], n: &Norm, eps: f32) {
    crate::vecmath::layer_norm(x, &n.w, &n.b, eps);
}

use crate::vecmath::{gelu, softmax_rows};

/// The buffers of one forward pass.
#[derive(Default)]
struct Scratch {
    /// A row per token: its query, key and value.
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    scores: Vec<f32>,
    tmp: Vec<f32>,
    ffn: Vec<f32>,
    q8: crate::int8::Scratch,
}

/// Sustained GFLOP/s of single-threaded `m × k · k × n` products, one per
/// thread on `threads` threads at once, for about `seconds`: the limit the
/// encoder's products can reach on this machine with this library.
pub fn gemm_gflops(m: usize, n: usize, k: usize, threads: usize, seconds: f64) -> f64 {
    let start = std::time::Instant::now();
    let flops: f64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|t| {
                scope.spawn(move || {
                    let a: Vec<f32> = (0..m * k).map(|i| ((i + t) % 7) as f32 * 0.1).collect();
                    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.1).collect();
                    let mut d = vec![0f32; m * n];
                    let mut done = 0.0;
                    while start.elapsed().as_secs_f64() < seconds {
                        matmul(
                            &mut d,
                            View::rows(m, n),
                            false,
                            op(&a, View::rows(m, k)),
                            op(&b, View::rows(k, n)),
                        );
                        done += 2.0 * (m * n * k) as f64;
                    }
                    done
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0.0)).sum()
    });
    flops / start.elapsed().as_secs_f64() / 1e9
}

impl Bert {
    /// Floating-point operations of one forward pass over `len` tokens:
    /// the products (two per multiply-add) of the projections, the
    /// feed-forward layers and the attention.
    pub fn flops(&self, len: usize) -> f64 {
        let (l, h) = (len as f64, self.hidden as f64);
        let per_layer: f64 = self.layers.first().map_or(0.0, |x| {
            let ffn = x.fi.out() as f64;
            2.0 * l * (4.0 * h * h + 2.0 * h * ffn) + 2.0 * 2.0 * l * l * h
        });
        per_layer * self.layers.len() as f64
    }

    /// The products of one forward pass over `len` tokens but attention's
    /// (small per-head products, under a tenth of the operations).
    pub fn products(&self, len: usize) -> Vec<crate::Product> {
        let (h, layers) = (self.hidden, self.layers.len());
        let ffn = self.layers.first().map_or(0, |x| x.fi.out());
        let p = |k, n, times| crate::Product {
            m: len,
            k,
            n,
            times,
        };
        vec![
            p(h, 3 * h, layers),
            p(h, h, layers),
            p(h, ffn, layers),
            p(ffn, h, layers),
        ]
    }

    /// The same model with int8 linear layers on `kernel`.
    pub fn quantized(self, kernel: Kernel) -> Bert {
        let layers = self
            .layers
            .into_iter()
            .map(|l| Layer {
                qkv: l.qkv.quantized(kernel),
                ao: l.ao.quantized(kernel),
                aln: l.aln,
                fi: l.fi.quantized(kernel),
                fo: l.fo.quantized(kernel),
                oln: l.oln,
            })
            .collect();
        Bert { layers, ..self }
    }

    /// The mean of the last hidden states of one sequence (its token ids,
    /// `<s>` and `</s>` included), not normalised.
    pub fn mean_pooled(&self, ids: &[u32]) -> Vec<f32> {
        let (h, len) = (self.hidden, ids.len());
        let max_pos = self.pos.len() / h;
        let mut x = vec![0f32; len * h];
        for (i, (&id, row)) in ids.iter().zip(x.chunks_exact_mut(h)).enumerate() {
            // Positions count from 0: the file's table is laid out so (the
            // reference test holds it).
            let p = i.min(max_pos - 1);
            row.copy_from_slice(&self.pos[p * h..(p + 1) * h]);
            row.iter_mut().zip(&self.type0).for_each(|(o, t)| *o += t);
            self.word.add_row(id as usize, h, row);
        }
        layer_norm(&mut x, &self.eln, self.eps);
        let mut s = Scratch::default();
        for l in &self.layers {
            self.layer(l, &mut x, len, &mut s);
        }
        let mut mean = vec![0f32; h];
        for row in x.chunks_exact(h) {
            mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
        }
        mean.iter_mut().for_each(|m| *m /= len.max(1) as f32);
        mean
    }

    /// Many sequences, one per core at a time.
    pub fn mean_pooled_all(&self, sequences: &[&[u32]]) -> Vec<Vec<f32>> {
        sequences
            .par_iter()
            .with_max_len(1)
            .map(|ids| self.mean_pooled(ids))
            .collect()
    }

    fn layer(&self, l: &Layer, x: &mut Vec<f32>, len: usize, s: &mut Scratch) {
        let h = self.hidden;
        let dh = h / self.heads;
        linear(&l.qkv, x, len, &mut s.qkv, &mut s.q8);
        let scale = 1.0 / (dh as f32).sqrt();
        for row in s.qkv.chunks_exact_mut(3 * h) {
            row[..h].iter_mut().for_each(|v| *v *= scale);
        }
        // Both are overwritten by the products: old values need no zeroing.
        s.ctx.resize(len * h, 0.0);
        s.scores.resize(len * len, 0.0);
        for head in 0..self.heads {
            let part = |at: usize| View::cols(len, 3 * h, at * h + head * dh, dh);
            // scores = q_h · k_hᵀ
            matmul(
                &mut s.scores,
                View::rows(len, len),
                false,
                op(&s.qkv, part(0)),
                op_t(&s.qkv, part(1)),
            );
            softmax_rows(&mut s.scores, len);
            // ctx_h = softmax · v_h
            matmul(
                &mut s.ctx,
                View::cols(len, h, head * dh, dh),
                false,
                op(&s.scores, View::rows(len, len)),
                op(&s.qkv, part(2)),
            );
        }
        linear(&l.ao, &s.ctx, len, &mut s.tmp, &mut s.q8);
        s.tmp.iter_mut().zip(x.iter()).for_each(|(a, r)| *a += r);
        layer_norm(&mut s.tmp, &l.aln, self.eps);
        linear(&l.fi, &s.tmp, len, &mut s.ffn, &mut s.q8);
        gelu(&mut s.ffn);
        linear(&l.fo, &s.ffn, len, x, &mut s.q8);
        x.iter_mut().zip(&s.tmp).for_each(|(o, a)| *o += a);
        layer_norm(x, &l.oln, self.eps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_of_views() {
        // [1 2; 3 4] · [5 6; 7 8] = [19 22; 43 50]; and with b read transposed.
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [5.0, 6.0, 7.0, 8.0];
        let mut d = vec![0.0; 4];
        matmul(
            &mut d,
            View::rows(2, 2),
            false,
            op(&a, View::rows(2, 2)),
            op(&b, View::rows(2, 2)),
        );
        assert_eq!(d, [19.0, 22.0, 43.0, 50.0]);
        matmul(
            &mut d,
            View::rows(2, 2),
            false,
            op(&a, View::rows(2, 2)),
            op_t(&b, View::rows(2, 2)),
        );
        assert_eq!(d, [17.0, 23.0, 39.0, 53.0]);
        // The second column of a 2×3 matrix times a 1×1.
        let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut d = vec![0.0; 2];
        matmul(
            &mut d,
            View::rows(2, 1),
            false,
            op(&m, View::cols(2, 3, 1, 1)),
            op(&[10.0], View::rows(1, 1)),
        );
        assert_eq!(d, [20.0, 50.0]);
    }
}
