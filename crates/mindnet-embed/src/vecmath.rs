//! The encoder's element-wise math (GELU, softmax) in plain arithmetic the
//! compiler vectorises: with the library's scalar `expf`, the exponentials
//! took a fifth of an embedding once the products ran on int8.
//!
//! Each function has one body, compiled twice: for AVX-512 (chosen at run
//! time) and for the baseline. The operations and their order are the same
//! in both, and Rust never fuses a multiply and an add on its own, so both
//! give the same bits.

/// `e^x` to about 2e-7 relative: `2^n · e^r` with `|r| ≤ ln 2 / 2` and a
/// degree-6 polynomial for `e^r`.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    // 1.5 · 2^23: adding and taking it off again rounds to an integer.
    const ROUND: f32 = 12_582_912.0;
    // ln 2 in two parts, so that `n · ln 2` loses nothing (Cephes).
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    p * f32::from_bits(((n as i32 + 127) << 23) as u32)
}

/// erf by Abramowitz & Stegun 7.1.26: an error below 1.5e-7, under f32's
/// own rounding of GELU.
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let y = 1.0 - poly * exp(-x * x);
    if x < 0.0 { -y } else { y }
}

#[inline(always)]
fn gelu_plain(x: &mut [f32]) {
    for v in x {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Lanes of the running sums and maxima: one 512-bit register's worth.
const LANES: usize = 16;

#[inline(always)]
fn softmax_rows_plain(x: &mut [f32], cols: usize) {
    for row in x.chunks_exact_mut(cols) {
        let whole = row.len() / LANES * LANES;
        let mut max = [f32::NEG_INFINITY; LANES];
        for chunk in row[..whole].chunks_exact(LANES) {
            for (m, v) in max.iter_mut().zip(chunk) {
                *m = m.max(*v);
            }
        }
        let max = row[whole..]
            .iter()
            .fold(max.into_iter().fold(f32::NEG_INFINITY, f32::max), |m, v| {
                m.max(*v)
            });
        let mut sum = [0f32; LANES];
        for chunk in row[..whole].chunks_exact_mut(LANES) {
            for (s, v) in sum.iter_mut().zip(chunk) {
                *v = exp(*v - max);
                *s += *v;
            }
        }
        for (s, v) in sum.iter_mut().zip(&mut row[whole..]) {
            *v = exp(*v - max);
            *s += *v;
        }
        let inv = 1.0 / sum.iter().sum::<f32>();
        row.iter_mut().for_each(|v| *v *= inv);
    }
}

fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// GELU (erf form) of every value.
pub(crate) fn gelu(x: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        #[target_feature(enable = "avx512f")]
        fn wide(x: &mut [f32]) {
            gelu_plain(x)
        }
        // SAFETY: the CPU has AVX-512F (just checked).
        return unsafe { wide(x) };
    }
    gelu_plain(x)
}

/// Softmax of each row of `cols` values.
pub(crate) fn softmax_rows(x: &mut [f32], cols: usize) {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        #[target_feature(enable = "avx512f")]
        fn wide(x: &mut [f32], cols: usize) {
            softmax_rows_plain(x, cols)
        }
        // SAFETY: the CPU has AVX-512F (just checked).
        return unsafe { wide(x, cols) };
    }
    softmax_rows_plain(x, cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_close_to_the_library() {
        let mut worst = 0f32;
        for i in -8700..=8800 {
            let x = i as f32 / 100.0;
            let (got, want) = (exp(x), x.exp());
            worst = worst.max(((got - want) / want).abs());
        }
        assert!(worst < 5e-7, "relative error {worst}");
        // Far outside, the ends: tiny and finite, never NaN or infinite.
        assert!((0.0..1e-37).contains(&exp(-1000.0)));
        assert!(exp(1000.0).is_finite());
    }

    #[test]
    fn erf_is_close() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-1.5, -0.966_105_1),
            (3.0, 0.999_977_9),
        ] {
            assert!((erf(x) - want).abs() < 3e-7, "erf({x}) = {}", erf(x));
        }
    }

    /// The wide and the plain bodies give the same bits; rows sum to one.
    #[test]
    fn wide_and_plain_agree() {
        let values: Vec<f32> = (0..37 * 23)
            .map(|i| ((i * 7919) % 1000) as f32 / 37.0 - 13.0)
            .collect();
        let (mut a, mut b) = (values.clone(), values.clone());
        softmax_rows(&mut a, 37);
        softmax_rows_plain(&mut b, 37);
        assert_eq!(a, b);
        for row in a.chunks_exact(37) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        let (mut a, mut b) = (values.clone(), values);
        gelu(&mut a);
        gelu_plain(&mut b);
        assert_eq!(a, b);
    }
}
