//! The thumbnail frame: the core's rule ([`kino::thumbnail::choose_frame`]) with its defaults, the
//! same rule the service uses for generated thumbnails and creative assets.

use kino::Signals;
use kino::thumbnail::{FrameRule, choose_frame};

/// The time of the best thumbnail frame inside `[start, stop]` by the core's frame rule (safe,
/// well lit, clear of cuts, main character on screen; relaxed in that reverse order when nothing
/// passes). An empty or invalid span gives `start` clamped to the video.
pub fn best_frame(signals: &Signals, start: f64, stop: f64) -> f64 {
    let clamped = if start.is_finite() { start.clamp(0.0, signals.duration) } else { 0.0 };
    choose_frame(signals, start, stop, &FrameRule::default()).map_or(clamped, |c| c.time)
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
