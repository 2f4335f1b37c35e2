//! The few time predicates every part of clip selection agrees on. The fast selector and the
//! reference selector in the tests evaluate exactly these expressions, so they agree to the bit.

/// Start time of grid candidate `i`.
#[inline]
pub(crate) fn grid_time(i: usize, step: f64) -> f64 {
    i as f64 * step
}

/// Whether `[a, b]` and `[s, e]` overlap by more than zero seconds.
#[inline]
pub(crate) fn overlaps(a: f64, b: f64, s: f64, e: f64) -> bool {
    a < e && s < b
}

/// Distance between two intervals; 0 when they overlap or touch.
#[inline]
pub(crate) fn gap(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.0 - a.1).max(a.0 - b.1).max(0.0)
}

/// The first index in `lo..=hi` where a predicate that is false-then-true becomes true, starting
/// from an estimate; `hi + 1` when it never does. Costs O(distance from the estimate).
pub(crate) fn first_true(lo: usize, hi: usize, estimate: f64, pred: impl Fn(usize) -> bool) -> usize {
    if lo > hi {
        return lo;
    }
    let mut i = if estimate.is_nan() || estimate <= lo as f64 {
        lo
    } else if estimate >= hi as f64 {
        hi
    } else {
        estimate as usize
    };
    if pred(i) {
        while i > lo && pred(i - 1) {
            i -= 1;
        }
        i
    } else {
        while i <= hi && !pred(i) {
            i += 1;
        }
        i
    }
}
