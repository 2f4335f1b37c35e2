//! Voice activity from 16 kHz mono samples: a spectral detector (speech-band energy against an
//! adaptive noise floor, and spectral flatness), then frame decisions turned into intervals with
//! an onset requirement, hangover (gap bridging) and a minimum duration.

use std::f64::consts::PI;
use std::sync::Arc;

use rustfft::num_complex::Complex;

/// Sample rate the detector expects.
pub const SAMPLE_RATE: u32 = 16_000;
const FFT_LEN: usize = 512;
const WINDOW: usize = 480; // 30 ms
const HOP: usize = 160; // 10 ms

/// Parameters of the speech detector.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeechParams {
    /// Lowest frequency of the speech band, Hz.
    pub band_low: f64,
    /// Highest frequency of the speech band, Hz.
    pub band_high: f64,
    /// A frame is voiced when its band energy exceeds the noise floor by this many dB...
    pub snr_db: f64,
    /// ...and an absolute level (dB relative to a full-scale sine's band power)...
    pub min_level_db: f64,
    /// ...and its spectral flatness in the band (geometric / arithmetic mean of power) is below
    /// this (white noise is about 0.56, voiced speech well under 0.3).
    pub max_flatness: f64,
    /// How fast the noise floor may rise, dB per second (it falls at once).
    pub floor_rise_db_per_s: f64,
    /// Voiced frames in a row needed to start speech, each 10 ms.
    pub onset_frames: usize,
    /// Gaps shorter than this (seconds) inside speech are bridged.
    pub hangover: f64,
    /// Intervals shorter than this (seconds) are dropped.
    pub min_duration: f64,
}

impl Default for SpeechParams {
    fn default() -> Self {
        SpeechParams {
            band_low: 300.0,
            band_high: 3400.0,
            snr_db: 9.0,
            min_level_db: -55.0,
            max_flatness: 0.4,
            floor_rise_db_per_s: 1.5,
            onset_frames: 3,
            hangover: 0.45,
            min_duration: 0.2,
        }
    }
}

/// Streaming voice activity detector: feed samples with [`SpeechDetector::push`], collect the
/// intervals with [`SpeechDetector::finish`]. Keeps one window of samples and the open interval.
#[derive(Debug)]
pub struct SpeechDetector {
    params: SpeechParams,
    fft: Fft,
    hann: Vec<f64>,
    buffer: Vec<f64>,
    frame: usize,
    floor_db: Option<f64>,
    run: usize,
    /// The interval being built, in frame numbers `[first, last]` voiced.
    open: Option<(usize, usize)>,
    intervals: Vec<[f64; 2]>,
}

impl SpeechDetector {
    /// A detector with `params`.
    pub fn new(params: SpeechParams) -> SpeechDetector {
        let hann = (0..WINDOW).map(|i| 0.5 - 0.5 * (2.0 * PI * i as f64 / WINDOW as f64).cos()).collect();
        SpeechDetector {
            params,
            fft: Fft::new(FFT_LEN),
            hann,
            buffer: Vec::with_capacity(2 * WINDOW),
            frame: 0,
            floor_db: None,
            run: 0,
            open: None,
            intervals: Vec::new(),
        }
    }

    /// Feeds samples in `[-1, 1]`.
    pub fn push(&mut self, samples: &[f64]) {
        for &s in samples {
            self.buffer.push(s);
            if self.buffer.len() == WINDOW {
                let voiced = self.classify();
                self.decide(voiced);
                self.buffer.drain(..HOP);
                self.frame += 1;
            }
        }
    }

    /// Band energy (dB) and flatness of the current window, then the frame's raw decision.
    fn classify(&mut self) -> bool {
        let p = &self.params;
        let mut spectrum = vec![Complex::new(0.0, 0.0); FFT_LEN];
        for (bin, (&x, &w)) in spectrum.iter_mut().zip(self.buffer.iter().zip(&self.hann)) {
            bin.re = x * w;
        }
        self.fft.run(&mut spectrum);
        let bin_hz = f64::from(SAMPLE_RATE) / FFT_LEN as f64;
        let lo = (p.band_low / bin_hz).ceil() as usize;
        let hi = ((p.band_high / bin_hz).floor() as usize).min(FFT_LEN / 2);
        let (mut sum, mut log_sum) = (0.0, 0.0);
        for bin in &spectrum[lo..=hi] {
            let power = bin.norm_sqr() + 1e-20;
            sum += power;
            log_sum += power.ln();
        }
        let bins = (hi + 1 - lo) as f64;
        let flatness = (log_sum / bins).exp() / (sum / bins);
        // Relative to a full-scale sine in the band: |X|^2 = (A * sum(w) / 2)^2 at its bin.
        let reference = (self.hann.iter().sum::<f64>() / 2.0).powi(2);
        let level_db = 10.0 * (sum / reference).max(1e-12).log10();
        let rise = p.floor_rise_db_per_s * HOP as f64 / f64::from(SAMPLE_RATE);
        let floor = match self.floor_db {
            Some(f) if level_db < f => level_db,
            Some(f) => f + rise,
            None => level_db,
        };
        self.floor_db = Some(floor);
        level_db > floor + p.snr_db && level_db > p.min_level_db && flatness < p.max_flatness
    }

    fn decide(&mut self, voiced: bool) {
        let f = self.frame;
        if !voiced {
            self.run = 0;
            if let Some((_, last)) = self.open
                && self.seconds(f - last) > self.params.hangover
            {
                self.close();
            }
            return;
        }
        self.run += 1;
        match &mut self.open {
            Some((_, last)) => *last = f,
            None if self.run >= self.params.onset_frames => self.open = Some((f + 1 - self.run, f)),
            None => {}
        }
    }

    fn seconds(&self, frames: usize) -> f64 {
        frames as f64 * HOP as f64 / f64::from(SAMPLE_RATE)
    }

    fn close(&mut self) {
        if let Some((first, last)) = self.open.take() {
            // A frame stands for the 10 ms around its window's centre.
            let centre = (WINDOW as f64 / 2.0 - HOP as f64 / 2.0) / f64::from(SAMPLE_RATE);
            let start = self.seconds(first) + centre;
            let end = self.seconds(last + 1) + centre;
            if end - start >= self.params.min_duration {
                self.intervals.push([start, end]);
            }
        }
    }

    /// Ends the stream; returns sorted, disjoint speech intervals in seconds.
    pub fn finish(mut self) -> Vec<[f64; 2]> {
        self.close();
        self.intervals
    }
}

/// A forward complex FFT of one length (unnormalised, as its definition): rustfft's, the FFT
/// kino-models uses too.
#[derive(Clone)]
pub(crate) struct Fft {
    n: usize,
    plan: Arc<dyn rustfft::Fft<f64>>,
}

impl std::fmt::Debug for Fft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fft").field("n", &self.n).finish()
    }
}

impl Fft {
    pub(crate) fn new(n: usize) -> Fft {
        Fft { n, plan: rustfft::FftPlanner::new().plan_fft_forward(n) }
    }

    /// Transforms `buf` (of the FFT's length) in place.
    pub(crate) fn run(&self, buf: &mut [Complex<f64>]) {
        self.plan.process(buf);
    }
}

/// The signals' transcript from the recogniser's: times on the report grid, inside the video,
/// every segment and word at least a millisecond long; empty segments dropped.
pub fn transcript(t: &kino_models::Transcript, duration: f64) -> kino::signals::Transcript {
    use kino::report;
    use kino::signals::{TranscriptSegment, TranscriptWord};
    let span = |a: f64, b: f64| -> Option<(f64, f64)> {
        let a = report::time(a.max(0.0)).min(duration);
        let b = report::time(b).min(duration).max(a);
        let b = if b > a { b } else { report::time((a + 0.001).min(duration)) };
        let a = if b > a { a } else { report::time((b - 0.001).max(0.0)) };
        (a < b).then_some((a, b))
    };
    let mut segments: Vec<TranscriptSegment> = t
        .segments
        .iter()
        .filter(|s| !s.text.trim().is_empty())
        .filter_map(|s| {
            let (start, end) = span(s.start, s.end)?;
            let mut words: Vec<TranscriptWord> = s
                .words
                .iter()
                .filter(|w| !w.text.trim().is_empty())
                .filter_map(|w| {
                    let (ws, we) = span(w.start, w.end)?;
                    Some(TranscriptWord {
                        start: ws,
                        end: we,
                        word: w.text.trim().to_string(),
                        probability: report::score(f64::from(w.probability).clamp(0.0, 1.0)),
                    })
                })
                .collect();
            words.sort_by(|a, b| a.start.total_cmp(&b.start));
            Some(TranscriptSegment { start, end, text: s.text.trim().to_string(), words })
        })
        .collect();
    segments.sort_by(|a, b| a.start.total_cmp(&b.start));
    kino::signals::Transcript { language: t.language.clone(), segments }
}

/// The transcript's segments that start in `[start, end)`, cut to `max_words` words in all.
pub fn said_in(t: &kino::signals::Transcript, start: f64, end: f64, max_words: usize) -> Vec<String> {
    let mut left = max_words;
    let mut out = Vec::new();
    for s in t.segments.iter().filter(|s| s.start >= start && s.start < end) {
        if left == 0 {
            break;
        }
        let words: Vec<&str> = s.text.split_whitespace().take(left).collect();
        left -= words.len();
        out.push(words.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(samples: &[f64]) -> Vec<[f64; 2]> {
        let mut d = SpeechDetector::new(SpeechParams::default());
        for chunk in samples.chunks(777) {
            d.push(chunk);
        }
        d.finish()
    }

    /// A crude voiced sound: harmonics of a 140 Hz pitch with a formant-like envelope.
    fn vowel(t: f64) -> f64 {
        (1..20).map(|h| (2.0 * PI * 140.0 * h as f64 * t).sin() * (-(h as f64 - 5.0).powi(2) / 20.0).exp()).sum::<f64>()
            * 0.08
    }

    fn noise(seed: &mut u64) -> f64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }

    #[test]
    fn fft_finds_a_pure_tone() {
        let fft = Fft::new(64);
        let mut x: Vec<Complex<f64>> =
            (0..64).map(|i| Complex::new((2.0 * PI * 5.0 * i as f64 / 64.0).cos(), 0.0)).collect();
        fft.run(&mut x);
        assert!((x[5].re - 32.0).abs() < 1e-9 && x[6].re.abs() < 1e-9 && x[0].re.abs() < 1e-9);
    }

    #[test]
    fn voiced_sound_over_silence_and_over_noise_is_found() {
        let rate = f64::from(SAMPLE_RATE);
        for noise_level in [0.0, 0.02] {
            let mut seed = 0x1234_5678_9abc_def1;
            let samples: Vec<f64> = (0..(6.0 * rate) as usize)
                .map(|i| {
                    let t = i as f64 / rate;
                    let speech = if (2.0..4.0).contains(&t) { vowel(t) } else { 0.0 };
                    speech + noise_level * noise(&mut seed)
                })
                .collect();
            let found = detect(&samples);
            assert_eq!(found.len(), 1, "noise {noise_level}: {found:?}");
            assert!((found[0][0] - 2.0).abs() < 0.05 && (found[0][1] - 4.0).abs() < 0.05, "{found:?}");
        }
    }

    #[test]
    fn noise_and_silence_alone_are_not_speech() {
        let mut seed = 99;
        let noisy: Vec<f64> = (0..48_000).map(|_| 0.05 * noise(&mut seed)).collect();
        assert!(detect(&noisy).is_empty());
        assert!(detect(&[0.0; 48_000]).is_empty());
        assert!(detect(&[]).is_empty());
    }

    #[test]
    fn short_gaps_are_bridged_and_blips_dropped() {
        let rate = f64::from(SAMPLE_RATE);
        let samples: Vec<f64> = (0..(5.0 * rate) as usize)
            .map(|i| {
                let t = i as f64 / rate;
                let on = (1.0..2.0).contains(&t) || (2.2..3.0).contains(&t) || (4.0..4.1).contains(&t);
                if on { vowel(t) } else { 0.0 }
            })
            .collect();
        let found = detect(&samples);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!((found[0][0] - 1.0).abs() < 0.05 && (found[0][1] - 3.0).abs() < 0.05, "{found:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        #[test]
        fn intervals_are_sorted_disjoint_and_long_enough(samples in proptest::collection::vec(-1.0f64..1.0, 0..20_000), bursts in 0usize..4) {
            // Random noise with a few loud voiced bursts mixed in.
            let rate = f64::from(SAMPLE_RATE);
            let mixed: Vec<f64> = samples
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let t = i as f64 / rate;
                    let on = bursts > 0 && ((t * bursts as f64 * 2.0) as usize) % 2 == 1;
                    0.01 * x + if on { vowel(t) } else { 0.0 }
                })
                .collect();
            let found = detect(&mixed);
            let min = SpeechParams::default().min_duration;
            for w in found.windows(2) {
                proptest::prop_assert!(w[0][1] < w[1][0]);
            }
            for &[a, b] in &found {
                proptest::prop_assert!(a >= 0.0 && b - a >= min - 1e-9);
            }
        }
    }
}
