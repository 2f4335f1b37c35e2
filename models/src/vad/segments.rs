//! Speech probabilities per 32 ms chunk into speech segments: the state machine of Silero's
//! `get_speech_timestamps` (silero-vad 6.2.3, `utils_vad.get_speech_timestamps_from_probs`), with
//! its defaults and no maximum segment length, in integer samples so that it agrees with the
//! reference exactly.

use crate::error::{Error, Result};

/// Samples per chunk at 16 kHz.
pub const CHUNK: usize = 512;
/// The sample rate the model runs at.
pub const SAMPLE_RATE: u32 = 16_000;

/// Thresholds and hangover of the segmenter; the defaults are Silero's.
#[derive(Debug, Clone, PartialEq)]
pub struct VadParams {
    /// A chunk with probability at least this starts (or continues) speech. Default 0.5.
    pub threshold: f32,
    /// Inside speech, a chunk below this counts as silence; `None`: `max(threshold - 0.15, 0.01)`.
    pub neg_threshold: Option<f32>,
    /// Segments shorter than this are dropped (before padding), seconds. Default 0.25.
    pub min_speech: f64,
    /// Speech ends only after this much silence (the hangover), seconds. Default 0.1.
    pub min_silence: f64,
    /// Each segment is widened by this much on both sides (halving the gap between two segments
    /// closer than twice this), seconds. Default 0.03.
    pub speech_pad: f64,
}

impl Default for VadParams {
    fn default() -> Self {
        VadParams { threshold: 0.5, neg_threshold: None, min_speech: 0.25, min_silence: 0.1, speech_pad: 0.03 }
    }
}

impl VadParams {
    /// Checks the ranges: thresholds in [0, 1], durations finite and >= 0.
    pub fn validate(&self) -> Result<()> {
        let unit = |v: f32| (0.0..=1.0).contains(&v);
        if !unit(self.threshold) {
            return Err(Error::InvalidArgument { field: "threshold", rule: "must be in [0, 1]".into() });
        }
        if self.neg_threshold.is_some_and(|v| !unit(v)) {
            return Err(Error::InvalidArgument { field: "neg_threshold", rule: "must be in [0, 1]".into() });
        }
        for (field, v) in
            [("min_speech", self.min_speech), ("min_silence", self.min_silence), ("speech_pad", self.speech_pad)]
        {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::InvalidArgument { field, rule: "must be a finite number of seconds >= 0".into() });
            }
        }
        Ok(())
    }

    fn neg_threshold(&self) -> f32 {
        self.neg_threshold.unwrap_or((self.threshold - 0.15).max(0.01))
    }
}

fn samples(seconds: f64) -> i64 {
    (seconds * f64::from(SAMPLE_RATE)) as i64
}

/// Speech segments `[start, end]` in seconds, sorted and disjoint, from the probabilities of
/// consecutive chunks of `CHUNK` samples of a signal `total_samples` long.
pub fn speech_segments(probs: &[f32], total_samples: u64, params: &VadParams) -> Vec<[f64; 2]> {
    let total = total_samples as i64;
    let (threshold, neg_threshold) = (params.threshold, params.neg_threshold());
    let (min_speech, min_silence, pad) =
        (samples(params.min_speech), samples(params.min_silence), samples(params.speech_pad));

    let mut speeches: Vec<[i64; 2]> = Vec::new();
    let mut start: Option<i64> = None;
    let mut silence_from: Option<i64> = None;
    for (i, &p) in probs.iter().enumerate() {
        let at = (i * CHUNK) as i64;
        if p >= threshold {
            silence_from = None;
            if start.is_none() {
                start = Some(at);
                continue;
            }
        }
        if let Some(s) = start
            && p < neg_threshold
        {
            let from = *silence_from.get_or_insert(at);
            if at - from < min_silence {
                continue;
            }
            if from - s > min_speech {
                speeches.push([s, from]);
            }
            start = None;
            silence_from = None;
        }
    }
    if let Some(s) = start
        && total - s > min_speech
    {
        speeches.push([s, total]);
    }

    let n = speeches.len();
    for i in 0..n {
        if i == 0 {
            speeches[0][0] = (speeches[0][0] - pad).max(0);
        }
        if i + 1 < n {
            let gap = speeches[i + 1][0] - speeches[i][1];
            if gap < 2 * pad {
                speeches[i][1] += gap / 2;
                speeches[i + 1][0] = (speeches[i + 1][0] - gap / 2).max(0);
            } else {
                speeches[i][1] = (speeches[i][1] + pad).min(total);
                speeches[i + 1][0] = (speeches[i + 1][0] - pad).max(0);
            }
        } else {
            speeches[i][1] = (speeches[i][1] + pad).min(total);
        }
    }
    let rate = f64::from(SAMPLE_RATE);
    speeches.into_iter().map(|[a, b]| [a as f64 / rate, b as f64 / rate]).collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const T: f64 = CHUNK as f64 / SAMPLE_RATE as f64; // 0.032 s

    fn run(probs: &[f32]) -> Vec<[f64; 2]> {
        speech_segments(probs, (probs.len() * CHUNK) as u64, &VadParams::default())
    }

    fn close(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x[0] - y[0]).abs() < 1e-9 && (x[1] - y[1]).abs() < 1e-9)
    }

    #[test]
    fn silence_has_no_speech() {
        assert!(run(&[0.0; 100]).is_empty());
    }

    #[test]
    fn one_utterance_is_padded_by_30_ms() {
        // Chunks 10..30 speech: starts at chunk 10, silence from chunk 30, confirmed after 0.1 s.
        let mut p = vec![0.0f32; 60];
        p[10..30].fill(0.9);
        let got = run(&p);
        assert!(close(&got, &[[10.0 * T - 0.03, 30.0 * T + 0.03]]), "{got:?}");
    }

    #[test]
    fn short_bursts_are_dropped_and_short_gaps_bridged() {
        // 7 chunks = 0.224 s < 0.25 s: dropped.
        let mut p = vec![0.0f32; 60];
        p[10..17].fill(0.9);
        assert!(run(&p).is_empty());
        // Two runs 3 chunks (0.096 s < 0.1 s) apart: one segment.
        let mut p = vec![0.0f32; 80];
        p[10..25].fill(0.9);
        p[28..45].fill(0.9);
        let got = run(&p);
        assert!(close(&got, &[[10.0 * T - 0.03, 45.0 * T + 0.03]]), "{got:?}");
    }

    #[test]
    fn hysteresis_keeps_speech_between_the_two_thresholds() {
        // 0.4 is below the threshold (0.5) but above the exit threshold (0.35): speech goes on.
        let mut p = vec![0.0f32; 80];
        p[10..20].fill(0.9);
        p[20..50].fill(0.4);
        let got = run(&p);
        assert!(close(&got, &[[10.0 * T - 0.03, 50.0 * T + 0.03]]), "{got:?}");
        // ...but 0.4 does not start speech.
        assert!(run(&[0.4; 50]).is_empty());
    }

    #[test]
    fn close_segments_share_the_gap_and_speech_runs_to_the_end() {
        // Silence must last 0.1 s to end speech: measured from the first silent chunk, so 4 silent
        // chunks (0.096 s at the last one) bridge and 5 separate.
        let mut p = vec![0.0f32; 60];
        p[5..20].fill(0.9);
        p[25..60].fill(0.9);
        let got = run(&p);
        assert!(close(&got, &[[5.0 * T - 0.03, 20.0 * T + 0.03], [25.0 * T - 0.03, 60.0 * T]]), "{got:?}");
        // A padding of more than half the gap (0.16 s) splits the gap in two.
        let params = VadParams { speech_pad: 0.1, ..VadParams::default() };
        let got = speech_segments(&p, 60 * CHUNK as u64, &params);
        let mid = 22.5 * T;
        assert!(close(&got, &[[5.0 * T - 0.1, mid], [mid, 60.0 * T]]), "{got:?}");
        p[20..24].fill(0.0);
        p[24] = 0.9;
        assert_eq!(run(&p).len(), 1, "4 silent chunks are bridged");
    }

    #[test]
    fn params_are_validated() {
        assert!(VadParams::default().validate().is_ok());
        let e = VadParams { threshold: 1.5, ..VadParams::default() }.validate().unwrap_err().to_string();
        assert!(e.contains("threshold"), "{e}");
        let e = VadParams { min_silence: f64::NAN, ..VadParams::default() }.validate().unwrap_err().to_string();
        assert!(e.contains("min_silence"), "{e}");
    }

    proptest! {
        #[test]
        fn segments_are_sorted_disjoint_and_inside_the_signal(
            probs in prop::collection::vec(0.0f32..1.0, 0..400),
            tail in 0usize..CHUNK,
        ) {
            let total = (probs.len() * CHUNK).saturating_sub(tail) as u64;
            let got = speech_segments(&probs, total, &VadParams::default());
            let end = total as f64 / f64::from(SAMPLE_RATE);
            for s in &got {
                prop_assert!(0.0 <= s[0] && s[0] < s[1] && s[1] <= end + 1e-12, "{s:?} in [0, {end}]");
            }
            for w in got.windows(2) {
                prop_assert!(w[0][1] <= w[1][0], "{w:?}");
            }
            // Nothing is speech when no chunk reaches the threshold.
            if probs.iter().all(|&p| p < 0.5) {
                prop_assert!(got.is_empty());
            }
        }
    }
}
