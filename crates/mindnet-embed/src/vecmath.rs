//! The encoder's element-wise math (GELU, softmax, layer norm) in plain
//! arithmetic the compiler vectorises: with the library's scalar `expf`,
//! the exponentials took a fifth of an embedding once the products ran on
//! int8, and a layer norm summing one value after the other a twentieth.
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
    let t = x * std::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    // `n` as an integer from `t`'s bits: in `t`'s binade one unit is one
    // step of the mantissa. (`n as i32` saturates and checks for NaN, which
    // the compiler does one lane at a time.)
    let n_int = t.to_bits().wrapping_sub(ROUND.to_bits()) as i32;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    p * f32::from_bits(((n_int + 127) << 23) as u32)
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

/// `Σ f(v)` over `row`, in 16 running sums (a single sum is a chain of
/// dependent additions, which the compiler must keep in order).
#[inline(always)]
fn lane_sum(row: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let whole = row.len() / LANES * LANES;
    let mut acc = [0f32; LANES];
    for chunk in row[..whole].chunks_exact(LANES) {
        for (a, v) in acc.iter_mut().zip(chunk) {
            *a += f(*v);
        }
    }
    let rest: f32 = row[whole..].iter().map(|v| f(*v)).sum();
    acc.iter().sum::<f32>() + rest
}

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
        row.iter_mut().for_each(|v| *v = exp(*v - max));
        let inv = 1.0 / lane_sum(row, |v| v);
        row.iter_mut().for_each(|v| *v *= inv);
    }
}

#[inline(always)]
fn layer_norm_plain(x: &mut [f32], w: &[f32], b: &[f32], eps: f32) {
    let h = w.len();
    for row in x.chunks_exact_mut(h) {
        let mean = lane_sum(row, |v| v) / h as f32;
        let var = lane_sum(row, |v| (v - mean) * (v - mean)) / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, w), b) in row.iter_mut().zip(w).zip(b) {
            *v = (*v - mean) * inv * w + b;
        }
    }
}

pub(crate) fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Calls `plain(args…)` compiled for AVX-512 where the CPU has it, else as
/// compiled for the baseline: one body, the same operations in both.
macro_rules! wide_or_plain {
    ($plain:ident($($arg:ident: $ty:ty),*)) => {{
        #[cfg(target_arch = "x86_64")]
        if $crate::vecmath::avx512() {
            #[target_feature(enable = "avx512f")]
            fn wide($($arg: $ty),*) {
                $plain($($arg),*)
            }
            // SAFETY: the CPU has AVX-512F (just checked).
            return unsafe { wide($($arg),*) };
        }
        $plain($($arg),*)
    }};
}
pub(crate) use wide_or_plain;

/// GELU (erf form) of every value.
pub(crate) fn gelu(x: &mut [f32]) {
    wide_or_plain!(gelu_plain(x: &mut [f32]))
}

/// Softmax of each row of `cols` values.
pub(crate) fn softmax_rows(x: &mut [f32], cols: usize) {
    wide_or_plain!(softmax_rows_plain(x: &mut [f32], cols: usize))
}

/// Layer norm of each row of `w.len()` values, scaled by `w`, shifted by
/// `b`.
pub(crate) fn layer_norm(x: &mut [f32], w: &[f32], b: &[f32], eps: f32) {
    wide_or_plain!(layer_norm_plain(x: &mut [f32], w: &[f32], b: &[f32], eps: f32))
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
        let (mut a, mut b) = (values.clone(), values.clone());
        gelu(&mut a);
        gelu_plain(&mut b);
        assert_eq!(a, b);
        let w: Vec<f32> = (0..23).map(|i| 1.0 + i as f32 / 10.0).collect();
        let shift: Vec<f32> = (0..23).map(|i| i as f32 / 7.0).collect();
        let (mut a, mut b) = (values.clone(), values);
        layer_norm(&mut a, &w, &shift, 1e-12);
        layer_norm_plain(&mut b, &w, &shift, 1e-12);
        assert_eq!(a, b);
    }

    #[test]
    fn layer_norm_centres_and_scales() {
        let mut x: Vec<f32> = (0..40).map(|i| (i * i % 17) as f32).collect();
        let (w, b) = (vec![1.0; 20], vec![0.0; 20]);
        layer_norm(&mut x, &w, &b, 1e-12);
        for row in x.chunks_exact(20) {
            let mean = row.iter().sum::<f32>() / 20.0;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / 20.0;
            assert!(
                mean.abs() < 1e-5 && (var - 1.0).abs() < 1e-4,
                "{mean} {var}"
            );
        }
    }
}
