//! The relevance heuristic and scenes grouped from shots.

use kino::signals::Scene;

/// Weights of the relevance heuristic (they sum to 1).
const LOUDNESS_WEIGHT: f64 = 0.4;
const MOTION_WEIGHT: f64 = 0.4;
const SHOT_RATE_WEIGHT: f64 = 0.2;
/// Shots are counted within this many seconds on each side of a sample.
const SHOT_RATE_RADIUS: f64 = 5.0;

/// Relevance per sample: `0.4 * loudness + 0.4 * motion + 0.2 * shot rate`, each input first
/// mapped to `[0, 1]` between its 5th and 95th percentile over the title (so one loud moment does
/// not flatten the rest), then the sum smoothed over 3 samples and stretched to span `[0, 1]`.
/// `loudness_db` is the audio level per sample (dBFS; very low when silent or absent), `motion`
/// the mean luma change, `shots` the boundary times. A title where nothing varies gets 0.5
/// everywhere.
pub fn relevance(loudness_db: &[f64], motion: &[f64], shots: &[f64], step: f64) -> Vec<f32> {
    let n = motion.len();
    let rate: Vec<f64> = (0..n)
        .map(|i| {
            let t = (i as f64 + 0.5) * step;
            let lo = shots.partition_point(|&s| s < t - SHOT_RATE_RADIUS);
            let hi = shots.partition_point(|&s| s <= t + SHOT_RATE_RADIUS);
            (hi - lo) as f64
        })
        .collect();
    let (loud, moving, cutting) = (robust_unit(loudness_db), robust_unit(motion), robust_unit(&rate));
    let raw: Vec<f64> = (0..n)
        .map(|i| {
            LOUDNESS_WEIGHT * loud.get(i).copied().unwrap_or(0.0)
                + MOTION_WEIGHT * moving[i]
                + SHOT_RATE_WEIGHT * cutting[i]
        })
        .collect();
    crate::affect::best::stretch(&crate::timeline::smooth(&raw, 1))
}

/// Maps values to `[0, 1]` between their 5th and 95th percentile (all 0 when those are equal).
fn robust_unit(values: &[f64]) -> Vec<f64> {
    if values.is_empty() {
        return Vec::new();
    }
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return vec![0.0; values.len()];
    }
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    let (lo, hi) = (at(0.05), at(0.95));
    values
        .iter()
        .map(|&v| if hi - lo > 1e-12 && v.is_finite() { ((v - lo) / (hi - lo)).clamp(0.0, 1.0) } else { 0.0 })
        .collect()
}

/// Scenes from shots: consecutive shots are grouped until the scene lasts at least
/// `min_scene` seconds; a new scene always starts at a fade (`hard` boundaries). A last scene
/// shorter than `min_scene / 4` joins the one before it. The scenes cover `[0, duration]`.
pub fn scenes(shots: &[f64], hard: &[f64], duration: f64, min_scene: f64) -> Vec<Scene> {
    let mut out: Vec<Scene> = Vec::new();
    let mut start = 0.0;
    for &t in shots {
        let is_hard = hard.iter().any(|&h| (h - t).abs() < 1e-9);
        if t > start && t < duration && (is_hard || t - start >= min_scene) {
            out.push(Scene { start, end: t });
            start = t;
        }
    }
    match out.last_mut() {
        Some(last) if duration - start < min_scene / 4.0 => last.end = duration,
        _ => out.push(Scene { start, end: duration }),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_group_shots_and_cover_the_video() {
        let s = scenes(&[2.0, 4.0, 9.0, 12.0, 30.0, 59.5], &[12.0], 60.0, 8.0);
        let spans: Vec<(f64, f64)> = s.iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(spans, vec![(0.0, 9.0), (9.0, 12.0), (12.0, 30.0), (30.0, 60.0)]);
        assert_eq!(scenes(&[], &[], 5.0, 8.0), vec![Scene { start: 0.0, end: 5.0 }]);
    }

    #[test]
    fn relevance_is_a_unit_timeline_that_rises_with_activity() {
        let n = 60;
        let loud: Vec<f64> = (0..n).map(|i| if (20..30).contains(&i) { -10.0 } else { -40.0 }).collect();
        let motion: Vec<f64> = (0..n).map(|i| if (20..30).contains(&i) { 8.0 } else { 1.0 }).collect();
        let r = relevance(&loud, &motion, &[22.0, 24.0, 26.0], 1.0);
        assert_eq!(r.len(), n);
        assert!(r.iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(r[25] > 0.9 && r[5] < 0.1, "{r:?}");
        let flat = relevance(&[-30.0; 10], &[1.0; 10], &[], 1.0);
        assert!(flat.iter().all(|&v| v == 0.5));
    }
}
