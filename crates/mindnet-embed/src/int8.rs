//! int8 products for the encoder's linear layers.
//!
//! Why: the f32 products cannot go past the FMA units' limit, and AVX-512
//! VNNI's `vpdpbusd` does four times the multiply-adds per instruction on
//! bytes. The weights are quantised once at load, per output channel, to
//! -127..=127; the activations per row, when the layer runs, to 0..=255
//! between the row's least and greatest value (`x ≈ low + step · q`), as
//! VNNI multiplies unsigned by signed bytes. A row that is mostly positive
//! (after GELU) keeps twice the resolution a symmetric scale would give it,
//! and `low · Σw` of each channel is added back after the sum.
//!
//! Two kernels compute the same integer sums: VNNI (chosen at run time
//! where the CPU has it) and plain loops, which are slow and exist so that
//! the VNNI kernel has something exact to be checked against on any CPU.
//! The encoder keeps its f32 products where the CPU has no VNNI.

/// Which loops compute the integer sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512 VNNI.
    Vnni,
    /// Plain loops: the reference, on any CPU.
    Portable,
}

impl Kernel {
    /// VNNI if this CPU has it.
    pub fn detect() -> Option<Kernel> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni")
            {
                return Some(Kernel::Vnni);
            }
        }
        None
    }
}

/// The kernel the local encoders use: VNNI where the CPU has it, else
/// none (the f32 products); `Off` keeps f32 anywhere, `Portable` runs the
/// reference loops (slow; for checking).
pub fn chosen(choice: crate::Int8) -> Option<Kernel> {
    match choice {
        crate::Int8::Off => None,
        crate::Int8::Portable => Some(Kernel::Portable),
        crate::Int8::Detect => Kernel::detect(),
    }
}

/// Output channels per packed block: one 512-bit register of `i32` sums.
const LANES: usize = 16;
/// Inputs per lane and instruction.
const GROUP: usize = 4;

/// A linear layer `y = x · Wᵀ + b` with `W` in int8.
pub struct QuantLinear {
    kernel: Kernel,
    out: usize,
    inp: usize,
    /// `inp` rounded up to a whole group.
    kp: usize,
    /// For each block of 16 outputs, for each group of 4 inputs: the 16
    /// channels' 4 weights, channel after channel (the order `vpdpbusd`
    /// reads). Padding (outputs past `out`, inputs past `inp`) is zero.
    packed: Vec<i8>,
    /// Per output channel: a weight's value is `scale · q`.
    scale: Vec<f32>,
    /// Per output channel: `Σ q` (exact in f32), for the activations' `low`.
    sum: Vec<f32>,
    bias: Vec<f32>,
}

/// The buffers one forward pass reuses.
#[derive(Default)]
pub struct Scratch {
    x: Vec<u8>,
    /// Per row: `low` and `step` of `x ≈ low + step · q`.
    x_range: Vec<Range>,
    sums: Vec<i32>,
}

impl QuantLinear {
    /// `w` is `[out][inp]`, row-major.
    pub fn new(w: &[f32], b: &[f32], out: usize, inp: usize, kernel: Kernel) -> QuantLinear {
        assert!(w.len() == out * inp && b.len() == out, "linear shapes");
        let kp = inp.div_ceil(GROUP) * GROUP;
        let blocks = out.div_ceil(LANES);
        let mut packed = vec![0i8; blocks * LANES * kp];
        let mut scale = vec![0f32; out];
        let mut sum = vec![0f32; out];
        for (n, row) in w.chunks_exact(inp).enumerate() {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            scale[n] = max / 127.0;
            let inv = if max > 0.0 { 127.0 / max } else { 0.0 };
            let (block, lane) = (n / LANES, n % LANES);
            for (k, v) in row.iter().enumerate() {
                let q = (v * inv).round_ties_even().clamp(-127.0, 127.0) as i8;
                let at =
                    block * LANES * kp + (k / GROUP) * LANES * GROUP + lane * GROUP + k % GROUP;
                packed[at] = q;
                sum[n] += f32::from(q);
            }
        }
        QuantLinear {
            kernel,
            out,
            inp,
            kp,
            packed,
            scale,
            sum,
            bias: b.to_vec(),
        }
    }

    pub fn out(&self) -> usize {
        self.out
    }

    /// `y = x · Wᵀ + b` for `rows` rows of `x` (`[rows][inp]`).
    pub fn forward(&self, x: &[f32], rows: usize, y: &mut Vec<f32>, s: &mut Scratch) {
        assert!(x.len() >= rows * self.inp, "linear input");
        let x = &x[..rows * self.inp];
        match self.kernel {
            Kernel::Vnni => vnni::quantize_rows(x, self.inp, self.kp, s),
            Kernel::Portable => quantize_rows(x, self.inp, self.kp, s),
        }
        let width = self.packed.len() / self.kp;
        // Every sum is stored by the kernels: the old values need no zeroing.
        s.sums.resize(rows * width, 0);
        match self.kernel {
            Kernel::Vnni => vnni::sums(&s.x, rows, self.kp, &self.packed, &mut s.sums),
            Kernel::Portable => portable_sums(&s.x, rows, self.kp, &self.packed, &mut s.sums),
        }
        y.resize(rows * self.out, 0.0);
        let channels = Channels {
            sum: &self.sum,
            scale: &self.scale,
            bias: &self.bias,
        };
        to_f32(&s.sums, width, &s.x_range, channels, y);
    }
}

/// Per output channel, what turns an integer sum back into `f32`.
#[derive(Clone, Copy)]
struct Channels<'a> {
    sum: &'a [f32],
    scale: &'a [f32],
    bias: &'a [f32],
}

/// `y = (dot · step + low · Σw) · scale + bias`, row by row (`sums` has
/// `width` values a row, `y` the channels' count).
fn to_f32(sums: &[i32], width: usize, ranges: &[Range], c: Channels<'_>, y: &mut [f32]) {
    #[inline(always)]
    fn plain(sums: &[i32], width: usize, ranges: &[Range], c: Channels<'_>, y: &mut [f32]) {
        let out = c.bias.len();
        for ((y, dots), x) in y
            .chunks_exact_mut(out)
            .zip(sums.chunks_exact(width))
            .zip(ranges)
        {
            let channels = c.sum.iter().zip(c.scale).zip(c.bias);
            for ((y, dot), ((sum, scale), bias)) in y.iter_mut().zip(&dots[..out]).zip(channels) {
                *y = (*dot as f32 * x.step + x.low * sum) * scale + bias;
            }
        }
    }
    crate::vecmath::wide_or_plain!(plain(
        sums: &[i32],
        width: usize,
        ranges: &[Range],
        c: Channels<'_>,
        y: &mut [f32]
    ))
}

/// Sustained int8 GOP/s (two per multiply-add) of `m × k · k × n` layers,
/// one per thread on `threads` threads at once, for about `seconds`, as the
/// encoder runs them (activations quantised, sums back to f32); `None`
/// without VNNI.
pub fn gops(m: usize, n: usize, k: usize, threads: usize, seconds: f64) -> Option<f64> {
    let kernel = Kernel::detect()?;
    let w: Vec<f32> = (0..n * k).map(|i| (i % 7) as f32 * 0.1 - 0.3).collect();
    let layer = QuantLinear::new(&w, &vec![0.0; n], n, k, kernel);
    let start = std::time::Instant::now();
    let ops: f64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|t| {
                let layer = &layer;
                scope.spawn(move || {
                    let x: Vec<f32> = (0..m * k).map(|i| ((i + t) % 5) as f32 * 0.2).collect();
                    let (mut y, mut s) = (Vec::new(), Scratch::default());
                    let mut done = 0.0;
                    while start.elapsed().as_secs_f64() < seconds {
                        layer.forward(&x, m, &mut y, &mut s);
                        done += 2.0 * (m * n * k) as f64;
                    }
                    done
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0.0)).sum()
    });
    Some(ops / start.elapsed().as_secs_f64() / 1e9)
}

/// `x ≈ low + step · q` for one row's bytes.
#[derive(Debug, Clone, Copy)]
struct Range {
    low: f32,
    step: f32,
}

impl Range {
    fn of(low: f32, high: f32) -> Range {
        Range {
            low,
            step: (high - low) / 255.0,
        }
    }

    /// The multiplier from `x - low` to `q`.
    fn inverse(self) -> f32 {
        if self.step > 0.0 {
            1.0 / self.step
        } else {
            0.0
        }
    }

    fn byte(self, inv: f32, v: f32) -> u8 {
        ((v - self.low) * inv).round_ties_even().clamp(0.0, 255.0) as u8
    }
}

/// Each row to bytes `q` between its least and greatest value; the padding
/// is 0 (it meets zero weights). (`vnni::quantize_rows` gives the same
/// bytes.)
fn quantize_rows(x: &[f32], inp: usize, kp: usize, s: &mut Scratch) {
    let rows = x.len() / inp.max(1);
    bytes_for(s, rows, inp, kp);
    for (row, q) in x.chunks_exact(inp).zip(s.x.chunks_exact_mut(kp)) {
        let low = row.iter().fold(f32::INFINITY, |m, v| m.min(*v));
        let high = row.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v));
        let range = Range::of(low, high);
        let inv = range.inverse();
        for (q, v) in q.iter_mut().zip(row) {
            *q = range.byte(inv, *v);
        }
        s.x_range.push(range);
    }
}

/// Room for `rows` rows of `kp` bytes: every byte but the padding (past
/// `inp`) is written by the quantisation, so only the padding is zeroed.
fn bytes_for(s: &mut Scratch, rows: usize, inp: usize, kp: usize) {
    if kp != inp {
        s.x.clear();
    }
    s.x.resize(rows * kp, 0);
    s.x_range.clear();
}

/// The integer sums by plain loops: `sums[r][n] = Σ_k x[r][k] · w[n][k]`.
fn portable_sums(x: &[u8], rows: usize, kp: usize, packed: &[i8], sums: &mut [i32]) {
    let blocks = packed.len() / (LANES * kp);
    let width = blocks * LANES;
    for r in 0..rows {
        let xr = &x[r * kp..(r + 1) * kp];
        for b in 0..blocks {
            let wb = &packed[b * LANES * kp..(b + 1) * LANES * kp];
            let out = &mut sums[r * width + b * LANES..r * width + (b + 1) * LANES];
            out.fill(0);
            for (g, xg) in xr.chunks_exact(GROUP).enumerate() {
                let wg = &wb[g * LANES * GROUP..(g + 1) * LANES * GROUP];
                for (lane, w) in out.iter_mut().zip(wg.chunks_exact(GROUP)) {
                    *lane += xg
                        .iter()
                        .zip(w)
                        .map(|(&a, &b)| i32::from(a) * i32::from(b))
                        .sum::<i32>();
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use super::{GROUP, LANES};
    use std::arch::x86_64::*;

    /// Row tiles of 4 and column tiles of 4 blocks (64 outputs): 16 sums in
    /// registers, 4 weight loads and 4 broadcasts per 16 `vpdpbusd`.
    const ROWS: usize = 4;
    const BLOCKS: usize = 4;

    pub(super) fn sums(x: &[u8], rows: usize, kp: usize, packed: &[i8], sums: &mut [i32]) {
        let blocks = packed.len() / (LANES * kp);
        assert!(
            kp.is_multiple_of(GROUP)
                && x.len() >= rows * kp
                && packed.len() == blocks * LANES * kp
                && sums.len() >= rows * blocks * LANES
                && super::Kernel::detect() == Some(super::Kernel::Vnni),
            "VNNI product: shapes or CPU"
        );
        let mut r = 0;
        while r < rows {
            let tile_rows = (rows - r).min(ROWS);
            let mut b = 0;
            while b < blocks {
                let tile_blocks = (blocks - b).min(BLOCKS);
                // SAFETY: the CPU has the features (asserted above), and
                // the tile lies inside the buffers (shapes asserted above,
                // tile sizes clipped to them).
                unsafe {
                    match (tile_rows, tile_blocks) {
                        (ROWS, BLOCKS) => tile::<ROWS, BLOCKS>(x, r, kp, packed, b, sums),
                        (ROWS, _) => {
                            for bb in b..b + tile_blocks {
                                tile::<ROWS, 1>(x, r, kp, packed, bb, sums);
                            }
                        }
                        (_, BLOCKS) => {
                            for rr in r..r + tile_rows {
                                tile::<1, BLOCKS>(x, rr, kp, packed, b, sums);
                            }
                        }
                        _ => {
                            for rr in r..r + tile_rows {
                                for bb in b..b + tile_blocks {
                                    tile::<1, 1>(x, rr, kp, packed, bb, sums);
                                }
                            }
                        }
                    }
                }
                b += tile_blocks;
            }
            r += tile_rows;
        }
    }

    /// `super::quantize_rows` with 16 values per instruction: the same
    /// bytes (conversion rounds to the nearest even, as `round_ties_even`).
    pub(super) fn quantize_rows(x: &[f32], inp: usize, kp: usize, s: &mut super::Scratch) {
        assert!(
            super::Kernel::detect() == Some(super::Kernel::Vnni),
            "VNNI quantisation on a CPU without it"
        );
        let rows = x.len() / inp.max(1);
        super::bytes_for(s, rows, inp, kp);
        for (row, q) in x.chunks_exact(inp).zip(s.x.chunks_exact_mut(kp)) {
            // SAFETY: the CPU has AVX-512 (asserted above).
            let range = unsafe { quantize_row(row, &mut q[..inp]) };
            s.x_range.push(range);
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn quantize_row(row: &[f32], out: &mut [u8]) -> super::Range {
        const W: usize = 16;
        let whole = row.len() / W * W;
        let mut vmin = _mm512_set1_ps(f32::INFINITY);
        let mut vmax = _mm512_set1_ps(f32::NEG_INFINITY);
        for chunk in row[..whole].chunks_exact(W) {
            // SAFETY: 16 values inside `row`.
            let v = unsafe { _mm512_loadu_ps(chunk.as_ptr()) };
            vmin = _mm512_min_ps(vmin, v);
            vmax = _mm512_max_ps(vmax, v);
        }
        let rest = &row[whole..];
        let low = rest
            .iter()
            .fold(_mm512_reduce_min_ps(vmin), |m, v| m.min(*v));
        let high = rest
            .iter()
            .fold(_mm512_reduce_max_ps(vmax), |m, v| m.max(*v));
        let range = super::Range::of(low, high);
        let inv = range.inverse();
        let (vlow, vinv) = (_mm512_set1_ps(low), _mm512_set1_ps(inv));
        for (chunk, q) in row[..whole].chunks_exact(W).zip(out.chunks_exact_mut(W)) {
            // SAFETY: 16 values inside `row`, 16 bytes inside `out`.
            unsafe {
                let v = _mm512_sub_ps(_mm512_loadu_ps(chunk.as_ptr()), vlow);
                let q32 = _mm512_cvtps_epi32(_mm512_mul_ps(v, vinv));
                _mm_storeu_si128(q.as_mut_ptr().cast(), _mm512_cvtusepi32_epi8(q32));
            }
        }
        for (q, v) in out[whole..].iter_mut().zip(rest) {
            *q = range.byte(inv, *v);
        }
        range
    }

    /// Rows `r..r + R` times blocks `b..b + C`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile<const R: usize, const C: usize>(
        x: &[u8],
        r: usize,
        kp: usize,
        packed: &[i8],
        b: usize,
        sums: &mut [i32],
    ) {
        let width = packed.len() / kp;
        let mut acc = [[_mm512_setzero_si512(); C]; R];
        let xp = x.as_ptr();
        let wp = packed.as_ptr();
        for g in 0..kp / GROUP {
            let mut w = [_mm512_setzero_si512(); C];
            for (c, w) in w.iter_mut().enumerate() {
                let at = (b + c) * LANES * kp + g * LANES * GROUP;
                // SAFETY: inside `packed` (the caller's shapes).
                *w = unsafe { _mm512_loadu_si512(wp.add(at).cast()) };
            }
            for (i, acc) in acc.iter_mut().enumerate() {
                // SAFETY: 4 bytes inside row `r + i` of `x`.
                let four = unsafe {
                    xp.add((r + i) * kp + g * GROUP)
                        .cast::<i32>()
                        .read_unaligned()
                };
                let xv = _mm512_set1_epi32(four);
                for (acc, w) in acc.iter_mut().zip(&w) {
                    *acc = _mm512_dpbusd_epi32(*acc, xv, *w);
                }
            }
        }
        let sp = sums.as_mut_ptr();
        for (i, acc) in acc.iter().enumerate() {
            for (c, acc) in acc.iter().enumerate() {
                let at = (r + i) * width + (b + c) * LANES;
                // SAFETY: 16 sums inside row `r + i` of `sums`.
                unsafe { _mm512_storeu_si512(sp.add(at).cast(), *acc) };
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod vnni {
    pub(super) fn sums(_: &[u8], _: usize, _: usize, _: &[i8], _: &mut [i32]) {
        unreachable!("Kernel::detect never picks VNNI off x86_64")
    }

    pub(super) fn quantize_rows(_: &[f32], _: usize, _: usize, _: &mut super::Scratch) {
        unreachable!("Kernel::detect never picks VNNI off x86_64")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random(n: usize, seed: u64, spread: f32) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * spread
            })
            .collect()
    }

    fn f32_linear(
        w: &[f32],
        b: &[f32],
        x: &[f32],
        rows: usize,
        out: usize,
        inp: usize,
    ) -> Vec<f32> {
        let mut y = Vec::with_capacity(rows * out);
        for r in 0..rows {
            for n in 0..out {
                let dot: f32 = (0..inp).map(|k| x[r * inp + k] * w[n * inp + k]).sum();
                y.push(dot + b[n]);
            }
        }
        y
    }

    /// The int8 product is close to the f32 one, on the encoder's shapes
    /// and on ragged ones (rows not a whole tile, outputs not a whole
    /// block, inputs not a whole group); VNNI's sums equal the loops' sums
    /// exactly.
    #[test]
    fn int8_products_match_f32_and_each_other() {
        for (rows, out, inp) in [
            (7, 384, 384),
            (33, 1536, 384),
            (5, 384, 1536),
            (3, 20, 13),
            (1, 1, 1),
            (9, 70, 130),
        ] {
            let w = random(out * inp, 1 + out as u64, 0.2);
            let b = random(out, 2, 0.1);
            let x = random(rows * inp, 3 + rows as u64, 4.0);
            let q = QuantLinear::new(&w, &b, out, inp, Kernel::Portable);
            let want = f32_linear(&w, &b, &x, rows, out, inp);
            let mut s = Scratch::default();
            let mut got = Vec::new();
            q.forward(&x, rows, &mut got, &mut s);
            assert_eq!(got.len(), want.len());
            // Relative to the row's size: the error of two 8-bit roundings.
            for r in 0..rows {
                let (g, t) = (&got[r * out..(r + 1) * out], &want[r * out..(r + 1) * out]);
                let norm = t.iter().map(|v| v * v).sum::<f32>().sqrt();
                let err = g
                    .iter()
                    .zip(t)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f32>()
                    .sqrt();
                assert!(
                    err <= 0.02 * norm + 1e-4,
                    "{rows}×{out}×{inp} row {r}: error {err} of {norm}"
                );
            }
            if Kernel::detect() == Some(Kernel::Vnni) {
                let q = QuantLinear::new(&w, &b, out, inp, Kernel::Vnni);
                let mut fast = Vec::new();
                q.forward(&x, rows, &mut fast, &mut s);
                assert_eq!(fast, got, "{rows}×{out}×{inp}");
            }
        }
    }

    #[test]
    fn zeros_stay_zeros() {
        let q = QuantLinear::new(&[0.0; 8], &[1.0, 2.0], 2, 4, Kernel::Portable);
        let mut y = Vec::new();
        q.forward(&[0.0; 4], 1, &mut y, &mut Scratch::default());
        assert_eq!(y, [1.0, 2.0]);
    }
}
