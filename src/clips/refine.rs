//! Refinement of an accepted clip (section 4 of `clip-selection.md`): snap to shot boundaries,
//! then move edges out of speech, each step applied only when the guard allows it.

/// The shot boundary nearest to `t` within `[t - bwd, t + fwd]` (the earlier on a tie), or `t`.
pub(crate) fn snap(t: f64, bwd: f64, fwd: f64, shots: &[f64]) -> f64 {
    let at = shots.partition_point(|&b| b < t);
    let before = at.checked_sub(1).map(|j| shots[j]).filter(|&b| b >= t - bwd);
    let after = shots.get(at).copied().filter(|&b| b <= t + fwd);
    nearest(t, before, after).unwrap_or(t)
}

/// The nearer of two optional times to `t` (`lo` on a tie, `lo <= t <= hi`).
fn nearest(t: f64, lo: Option<f64>, hi: Option<f64>) -> Option<f64> {
    match (lo, hi) {
        (Some(a), Some(b)) => Some(if t - a <= b - t { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// Speech zones for one edge: `t` is unsafe when it lies strictly inside
/// `(start - silence_after, end + silence_before)` of some speech interval.
pub(crate) struct SpeechZones<'a> {
    speech: &'a [[f64; 2]],
    before: f64,
    after: f64,
}

impl<'a> SpeechZones<'a> {
    pub(crate) fn new(speech: &'a [[f64; 2]], silence_before: f64, silence_after: f64) -> Self {
        SpeechZones { speech, before: silence_before, after: silence_after }
    }

    #[inline]
    fn zone(&self, j: usize) -> (f64, f64) {
        let [a, b] = self.speech[j];
        (a - self.after, b + self.before)
    }

    /// The safe time nearest to `t` within `[t - bwd, t + fwd]` (the earlier on a tie); `t`
    /// itself when it is safe; `None` when no safe time lies in the window.
    pub(crate) fn nearest_safe(&self, t: f64, bwd: f64, fwd: f64) -> Option<f64> {
        let count = self.speech.len();
        // Zones are sorted by both ends (speech is sorted and disjoint, the margins constant).
        let j = self.speech.partition_point(|iv| iv[0] - self.after < t);
        let mut hits = (0..j).rev().take_while(|&i| self.zone(i).1 > t);
        let Some(inside) = hits.next() else { return Some(t) };
        let (mut left, mut right) = self.zone(inside);
        let (mut lo, mut hi) = (inside, inside);
        while lo > 0 && self.zone(lo - 1).1 > left {
            lo -= 1;
            left = left.min(self.zone(lo).0);
        }
        while hi + 1 < count && self.zone(hi + 1).0 < right {
            hi += 1;
            right = right.max(self.zone(hi).1);
        }
        let left = Some(left).filter(|&x| x >= t - bwd);
        let right = Some(right).filter(|&x| x <= t + fwd);
        nearest(t, left, right)
    }
}
