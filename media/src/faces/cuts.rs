//! The shots that a face's span and the subject track stay within: cut times sorted, and the
//! shot around a time. A leaf that both the characters (`mod.rs`) and the subject track
//! (`subject.rs`) use.

/// Finite cut times, sorted.
pub(crate) fn sorted_cuts(shots: &[f64]) -> Vec<f64> {
    let mut cuts: Vec<f64> = shots.iter().copied().filter(|t| t.is_finite()).collect();
    cuts.sort_by(f64::total_cmp);
    cuts
}

/// The shot holding `t`: `[last cut <= t, first cut > t)`, unbounded ends as infinities.
pub(crate) fn shot_bounds(cuts: &[f64], t: f64) -> (f64, f64) {
    let i = cuts.partition_point(|&c| c <= t);
    let start = if i == 0 { f64::NEG_INFINITY } else { cuts[i - 1] };
    let end = cuts.get(i).copied().unwrap_or(f64::INFINITY);
    (start, end)
}
