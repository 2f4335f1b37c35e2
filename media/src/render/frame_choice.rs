//! The thumbnail frame-choice rule.

use kino::Signals;

/// Acceptable mean brightness of the chosen frame's sample.
pub const BRIGHTNESS_BAND: (f32, f32) = (0.15, 0.85);
/// Highest acceptable nudity and blood/gore probability.
pub const SAFETY_MAX: f32 = 0.2;
/// Seconds a chosen frame keeps from any shot boundary (transitions, half-changed frames).
pub const SHOT_MARGIN: f64 = 0.5;
/// Candidate frames are this far apart (or one timeline step, when smaller).
const CANDIDATE_SPACING: f64 = 0.25;
/// At most this many candidates (longer spans are sampled more coarsely).
const MAX_CANDIDATES: usize = 20_000;

/// Chooses the time of the best thumbnail frame inside `[start, stop]`.
///
/// Candidates lie every 0.25 s (or every timeline step when smaller) inside the span. A candidate
/// passes when its timeline sample has (1) nudity and blood/gore at most [`SAFETY_MAX`],
/// (2) brightness inside [`BRIGHTNESS_BAND`], (3) no shot boundary within [`SHOT_MARGIN`] s, and
/// (4) the main character (rank 0) on screen, when the document knows characters. Among passing
/// candidates the one with the highest relevance wins (the earliest on ties). When none passes,
/// the tests are dropped one at a time, last first (character, shot margin, brightness, safety),
/// until some candidate passes. An empty or invalid span gives `start` clamped to the video.
pub fn best_frame(signals: &Signals, start: f64, stop: f64) -> f64 {
    let duration = signals.duration;
    let start = if start.is_finite() { start.clamp(0.0, duration) } else { 0.0 };
    let stop = if stop.is_finite() { stop.clamp(0.0, duration) } else { duration };
    if stop <= start {
        return start;
    }
    let spacing = CANDIDATE_SPACING.min(signals.step).max((stop - start) / MAX_CANDIDATES as f64);
    let count = (((stop - start) / spacing).floor() as usize).max(1);
    let candidates: Vec<f64> = (0..count).map(|k| start + (k as f64 + 0.5) * spacing).filter(|&t| t < stop).collect();
    let t = &signals.timelines;
    let n = t.relevance.len();
    if n == 0 || candidates.is_empty() {
        return (start + stop) / 2.0;
    }
    let sample = |time: f64| ((time / signals.step).floor().max(0.0) as usize).min(n - 1);
    // Reads of a document that skipped validation (timelines of unequal length) never panic.
    let at = |values: &[f32], i: usize| values.get(i).copied().unwrap_or(0.0);
    let main = signals.characters.iter().find(|c| c.rank == 0);
    let tests: [&dyn Fn(f64) -> bool; 4] = [
        &|time| {
            let i = sample(time);
            at(&t.nudity, i) <= SAFETY_MAX && at(&t.blood_gore, i) <= SAFETY_MAX
        },
        &|time| {
            let b = at(&t.brightness, sample(time));
            (BRIGHTNESS_BAND.0..=BRIGHTNESS_BAND.1).contains(&b)
        },
        &|time| {
            let i = signals.shots.partition_point(|&s| s < time - SHOT_MARGIN);
            signals.shots.get(i).is_none_or(|&s| s > time + SHOT_MARGIN)
        },
        &|time| main.is_none_or(|c| c.spans.iter().any(|&[a, b]| a <= time && time < b)),
    ];
    for kept in (0..=tests.len()).rev() {
        let best = candidates.iter().copied().filter(|&time| tests[..kept].iter().all(|test| test(time))).fold(
            None,
            |best: Option<(f64, f32)>, time| {
                let r = at(&t.relevance, sample(time));
                match best {
                    Some((_, br)) if br >= r => best,
                    _ => Some((time, r)),
                }
            },
        );
        if let Some((time, _)) = best {
            return time;
        }
    }
    candidates[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Signals {
        let mut s = kino::synth::demo_signals("thumb", 60.0, 1.0, 1);
        let t = &mut s.timelines;
        t.relevance = (0..60).map(|i| i as f32 / 60.0).collect();
        t.brightness = vec![0.5; 60];
        t.nudity = vec![0.0; 60];
        t.blood_gore = vec![0.0; 60];
        s.characters.clear();
        s.shots.clear();
        s
    }

    #[test]
    fn highest_relevance_wins_inside_the_span() {
        let s = doc();
        let t = best_frame(&s, 10.0, 20.0);
        assert!((19.0..20.0).contains(&t), "{t}");
    }

    #[test]
    fn unsafe_dark_and_near_cut_frames_are_avoided() {
        let mut s = doc();
        s.timelines.nudity[19] = 0.9;
        s.timelines.brightness[18] = 0.02;
        s.shots = vec![17.6];
        let t = best_frame(&s, 10.0, 20.0);
        assert!((16.0..17.1).contains(&t), "{t}");
    }

    #[test]
    fn when_nothing_passes_the_safety_test_still_holds_longest() {
        let mut s = doc();
        s.timelines.brightness = vec![0.01; 60];
        s.timelines.nudity[15..20].fill(0.9);
        let t = best_frame(&s, 10.0, 20.0);
        assert!((14.0..15.0).contains(&t), "{t}");
        assert_eq!(best_frame(&s, 30.0, 30.0), 30.0);
        assert_eq!(best_frame(&s, f64::NAN, -1.0), 0.0);
        s.timelines.nudity.clear();
        assert!(best_frame(&s, 10.0, 20.0) >= 10.0, "an unvalidated document does not panic");
    }
}
