//! Matrix products on plain row-major `f32` buffers, through `gemm` (with
//! its AVX-512 kernels where the CPU has them). Both local encoders use
//! them; views let a product read a column block of a wider buffer without
//! copying it.

/// A row-major matrix view of a buffer: `rows × cols` starting at `offset`,
/// `stride` values from one row to the next.
#[derive(Clone, Copy)]
pub(crate) struct View {
    pub(crate) offset: usize,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) stride: usize,
}

impl View {
    pub(crate) fn rows(rows: usize, cols: usize) -> View {
        View {
            offset: 0,
            rows,
            cols,
            stride: cols,
        }
    }

    /// Columns `from..from + cols` of a row-major matrix with `stride`.
    pub(crate) fn cols(rows: usize, stride: usize, from: usize, cols: usize) -> View {
        View {
            offset: from,
            rows,
            cols,
            stride,
        }
    }

    fn fits(&self, len: usize) -> bool {
        self.rows == 0
            || self.cols == 0
            || self.offset + (self.rows - 1) * self.stride + self.cols <= len
    }
}

/// A matrix operand: a view of a buffer, read transposed when `t` (then
/// `view` is the stored `n × k` matrix of a `k × n` operand).
#[derive(Clone, Copy)]
pub(crate) struct Operand<'a> {
    data: &'a [f32],
    view: View,
    t: bool,
}

pub(crate) fn op(data: &[f32], view: View) -> Operand<'_> {
    Operand {
        data,
        view,
        t: false,
    }
}

pub(crate) fn op_t(data: &[f32], view: View) -> Operand<'_> {
    Operand {
        data,
        view,
        t: true,
    }
}

/// `dst (+)= a · b` (only `b` may be transposed). Single-threaded: windows
/// run in parallel instead.
pub(crate) fn matmul(dst: &mut [f32], d: View, accumulate: bool, a: Operand<'_>, b: Operand<'_>) {
    let (av, bv) = (a.view, b.view);
    let (m, k) = (av.rows, av.cols);
    let n = if b.t { bv.rows } else { bv.cols };
    let bk = if b.t { bv.cols } else { bv.rows };
    assert!(
        !a.t && d.rows == m
            && d.cols == n
            && bk == k
            && d.fits(dst.len())
            && av.fits(a.data.len())
            && bv.fits(b.data.len()),
        "matmul shapes"
    );
    // b's element (row kk, column j) in memory.
    let (b_rs, b_cs) = if b.t {
        (1, bv.stride as isize)
    } else {
        (bv.stride as isize, 1)
    };
    // SAFETY: every view was checked to lie inside its slice (`fits`), the
    // shapes agree, and `dst` is borrowed mutably, so it aliases nothing.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr().add(d.offset),
            1,
            d.stride as isize,
            accumulate,
            a.data.as_ptr().add(av.offset),
            1,
            av.stride as isize,
            b.data.as_ptr().add(bv.offset),
            b_cs,
            b_rs,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}
