//! The 9:16 subject track: the horizontal centre a vertical crop follows. Within a shot it follows
//! the face chosen per sample (the best-ranked character in frame), held between samples, and the
//! saliency centre where no face is seen; a dead zone ignores small moves of the target, and the
//! crop moves towards a larger one exponentially. At a cut the track jumps to the new target.

use super::cuts::{shot_bounds, sorted_cuts};

/// Target moves within this fraction of the frame width leave the crop where it is.
pub const DEAD_ZONE: f32 = 0.06;
/// Time constant, seconds, of the crop's approach to a target outside the dead zone.
pub const SMOOTHING_SECONDS: f64 = 0.6;
/// A face sample stands for the timeline steps at most this many seconds from it (within its
/// shot); further away the saliency centre is used.
pub const FACE_HOLD: f64 = 1.5;

/// The subject's horizontal centre per timeline step (`fallback.len()` values in `[0, 1]`).
///
/// `per_sample_x`: `(time, face centre x)` for each sampled frame, `None` where it had no face;
/// `fallback`: the saliency centre per step of `step` seconds (step `i` is centred on
/// `(i + 0.5) * step`); `shots`: cut times. A step takes the face of the nearest sample in its
/// shot within [`FACE_HOLD`], else its saliency value; the targets are then smoothed within each
/// shot (dead zone [`DEAD_ZONE`], time constant [`SMOOTHING_SECONDS`]) and never across a cut.
pub fn follow_subject(per_sample_x: &[(f64, Option<f32>)], fallback: &[f32], step: f64, shots: &[f64]) -> Vec<f32> {
    let step = if step.is_finite() && step > 0.0 { step } else { 1.0 };
    let cuts = sorted_cuts(shots);
    let mut faces: Vec<(f64, Option<f32>)> = per_sample_x
        .iter()
        .filter(|(t, _)| t.is_finite())
        .map(|&(t, x)| (t, x.filter(|x| x.is_finite()).map(|x| x.clamp(0.0, 1.0))))
        .collect();
    faces.sort_by(|a, b| a.0.total_cmp(&b.0));

    let alpha = (1.0 - (-step / SMOOTHING_SECONDS).exp()) as f32;
    let mut out = Vec::with_capacity(fallback.len());
    let mut current: Option<(f32, (f64, f64))> = None;
    for (i, &saliency) in fallback.iter().enumerate() {
        let t = (i as f64 + 0.5) * step;
        let shot = shot_bounds(&cuts, t);
        let saliency = if saliency.is_finite() { saliency.clamp(0.0, 1.0) } else { 0.5 };
        let target = face_at(&faces, t, shot).unwrap_or(saliency);
        let x = match current {
            Some((x, s)) if s == shot => {
                let err = target - x;
                if err.abs() > DEAD_ZONE { x + alpha * (err - DEAD_ZONE * err.signum()) } else { x }
            }
            _ => target,
        };
        current = Some((x, shot));
        out.push(x.clamp(0.0, 1.0));
    }
    out
}

/// The face x of the sample nearest `t` within its shot and [`FACE_HOLD`]; `None` when that
/// sample had no face or there is none.
fn face_at(faces: &[(f64, Option<f32>)], t: f64, (start, end): (f64, f64)) -> Option<f32> {
    let i = faces.partition_point(|(s, _)| *s < t);
    let candidates = [i.checked_sub(1), Some(i)];
    candidates
        .into_iter()
        .flatten()
        .filter_map(|j| faces.get(j))
        .filter(|(s, _)| *s >= start && *s < end && (s - t).abs() <= FACE_HOLD)
        .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
        .and_then(|(_, x)| *x)
}
