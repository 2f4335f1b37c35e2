//! YAMNet's front end, ported from the reference `features.py` (tensorflow/models,
//! `research/audioset/yamnet`): the magnitude STFT of 16 kHz audio (25 ms periodic Hann window,
//! 10 ms hop, 512-point FFT), 64 mel bands from 125 to 7500 Hz (`tf.signal.linear_to_mel_weight_matrix`:
//! HTK mel scale, triangles in the mel domain, the DC bin zeroed), `log(mel + 0.001)`, framed into
//! patches of 96 frames (0.96 s) every 48 frames (0.48 s). The waveform is padded with zeros as
//! `pad_waveform` does, so that every sample lies in a patch.
//!
//! Computed in f64 (the reference computes in f32); the patches reach the model quantised to
//! 8 bits in steps of 0.048, far coarser than the difference.

use std::f64::consts::PI;
use std::sync::Arc;

use rustfft::num_complex::Complex64;
use rustfft::{Fft, FftPlanner};

use crate::error::Result;

/// Samples per second the front end expects.
pub(crate) const SAMPLE_RATE: u32 = 16_000;
/// STFT window: 25 ms.
pub(crate) const STFT_WINDOW: usize = 400;
/// STFT hop: 10 ms.
pub(crate) const STFT_HOP: usize = 160;
/// The smallest power of two holding a window.
pub(crate) const FFT_LEN: usize = 512;
/// Non-redundant FFT bins.
pub(crate) const BINS: usize = FFT_LEN / 2 + 1;
/// Mel bands per frame.
pub(crate) const MEL_BANDS: usize = 64;
const MEL_MIN_HZ: f64 = 125.0;
const MEL_MAX_HZ: f64 = 7500.0;
/// Added before the logarithm (the reference's `log_offset`).
pub(crate) const LOG_OFFSET: f64 = 0.001;
/// Frames per patch: 0.96 s.
pub(crate) const PATCH_FRAMES: usize = 96;
/// Frames between patches: 0.48 s.
pub(crate) const PATCH_HOP_FRAMES: usize = 48;
/// Samples one patch spans (the reference's `min_num_samples`): 15,600.
pub(crate) const PATCH_SAMPLES: u64 = (STFT_WINDOW + (PATCH_FRAMES - 1) * STFT_HOP) as u64;
/// Samples between patches: 7,680.
pub(crate) const PATCH_HOP_SAMPLES: u64 = (PATCH_HOP_FRAMES * STFT_HOP) as u64;

/// The HTK mel scale, as TensorFlow defines it.
fn hz_to_mel(hz: f64) -> f64 {
    1127.0 * (1.0 + hz / 700.0).ln()
}

/// The weights of each mel band over the FFT bins, as `tf.signal.linear_to_mel_weight_matrix`
/// computes them: the bins' frequencies (0 to Nyquist, evenly spaced) on the mel scale, 66 band
/// edges evenly spaced in mel from 125 to 7500 Hz, triangles with a peak of 1 at each band's centre
/// and slopes linear in mel; bin 0 (DC) weighs nothing. Each band as its first bin and weights.
pub(crate) fn mel_bands() -> Vec<(usize, Vec<f64>)> {
    let nyquist = f64::from(SAMPLE_RATE) / 2.0;
    let bin_mel: Vec<f64> = (0..BINS).map(|k| hz_to_mel(nyquist * k as f64 / (BINS - 1) as f64)).collect();
    let (lo, hi) = (hz_to_mel(MEL_MIN_HZ), hz_to_mel(MEL_MAX_HZ));
    let edge = |i: usize| lo + (hi - lo) * i as f64 / (MEL_BANDS + 1) as f64;
    (0..MEL_BANDS)
        .map(|band| {
            let (lower, centre, upper) = (edge(band), edge(band + 1), edge(band + 2));
            let weight = |k: usize| {
                let m = bin_mel[k];
                ((m - lower) / (centre - lower)).min((upper - m) / (upper - centre)).max(0.0)
            };
            let bins: Vec<usize> = (1..BINS).filter(|&k| weight(k) > 0.0).collect();
            match (bins.first(), bins.last()) {
                (Some(&first), Some(&last)) => (first, (first..=last).map(weight).collect()),
                _ => (0, Vec::new()),
            }
        })
        .collect()
}

/// Log-mel frames of 400 samples each.
pub(crate) struct LogMel {
    /// The [`FFT_LEN`]-point forward FFT, planned once.
    fft: Arc<dyn Fft<f64>>,
    window: Vec<f64>,
    bands: Vec<(usize, Vec<f64>)>,
    /// The windowed frame, transformed in place.
    spectrum: Vec<Complex64>,
    scratch: Vec<Complex64>,
    magnitude: Vec<f64>,
}

impl LogMel {
    pub(crate) fn new() -> LogMel {
        let fft = FftPlanner::new().plan_fft_forward(FFT_LEN);
        LogMel {
            scratch: vec![Complex64::default(); fft.get_inplace_scratch_len()],
            fft,
            // Periodic Hann (`tf.signal.hann_window`'s default).
            window: (0..STFT_WINDOW).map(|i| 0.5 - 0.5 * (2.0 * PI * i as f64 / STFT_WINDOW as f64).cos()).collect(),
            bands: mel_bands(),
            spectrum: vec![Complex64::default(); FFT_LEN],
            magnitude: vec![0.0; BINS],
        }
    }

    /// The 64 log-mel values of one window of [`STFT_WINDOW`] samples, written to `out`.
    pub(crate) fn frame(&mut self, samples: &[f32], out: &mut [f32]) {
        debug_assert_eq!(samples.len(), STFT_WINDOW);
        debug_assert_eq!(out.len(), MEL_BANDS);
        for ((c, &x), &w) in self.spectrum.iter_mut().zip(samples).zip(&self.window) {
            *c = Complex64::new(f64::from(x) * w, 0.0);
        }
        // Zero padding at the end; where the reference puts it only changes the phase.
        self.spectrum[STFT_WINDOW..].fill(Complex64::default());
        self.fft.process_with_scratch(&mut self.spectrum, &mut self.scratch);
        for (m, c) in self.magnitude.iter_mut().zip(&self.spectrum) {
            *m = c.re.hypot(c.im);
        }
        for ((first, weights), out) in self.bands.iter().zip(out) {
            let mel: f64 = weights.iter().zip(&self.magnitude[*first..]).map(|(w, m)| w * m).sum();
            *out = (mel + LOG_OFFSET).ln() as f32;
        }
    }
}

/// Streaming framing of samples into log-mel patches. Holds at most one STFT window of samples
/// (plus the piece being pushed) and one patch of frames.
pub(crate) struct Patcher {
    log_mel: LogMel,
    /// Samples from the start of the next STFT frame.
    pending: Vec<f32>,
    /// Log-mel frames (`MEL_BANDS` values each) from the first frame of the next patch.
    frames: Vec<f32>,
    samples: u64,
}

/// Samples pushed through the framing at a time, so that a long slice is never copied whole.
const PIECE: usize = PATCH_HOP_SAMPLES as usize;

impl Patcher {
    pub(crate) fn new() -> Patcher {
        Patcher {
            log_mel: LogMel::new(),
            pending: Vec::with_capacity(STFT_WINDOW + PIECE),
            frames: Vec::with_capacity((PATCH_FRAMES + PATCH_HOP_FRAMES) * MEL_BANDS),
            samples: 0,
        }
    }

    /// Samples pushed since the last reset.
    pub(crate) fn samples(&self) -> u64 {
        self.samples
    }

    /// Feeds samples; `patch` receives each complete patch (`PATCH_FRAMES * MEL_BANDS` values,
    /// frame-major) in order.
    pub(crate) fn push(&mut self, samples: &[f32], patch: &mut impl FnMut(&[f32]) -> Result<()>) -> Result<()> {
        self.samples += samples.len() as u64;
        for piece in samples.chunks(PIECE) {
            self.pending.extend_from_slice(piece);
            let mut at = 0;
            while self.pending.len() - at >= STFT_WINDOW {
                let start = self.frames.len();
                self.frames.resize(start + MEL_BANDS, 0.0);
                self.log_mel.frame(&self.pending[at..at + STFT_WINDOW], &mut self.frames[start..]);
                at += STFT_HOP;
                if self.frames.len() == PATCH_FRAMES * MEL_BANDS {
                    patch(&self.frames)?;
                    self.frames.drain(..PATCH_HOP_FRAMES * MEL_BANDS);
                }
            }
            self.pending.drain(..at);
        }
        Ok(())
    }

    /// Pads the stream with zeros as the reference's `pad_waveform` does (to one whole patch, then
    /// to a whole number of patch hops), emits the last patches and resets. An empty stream gives
    /// no patch (the reference would give one patch of silence).
    pub(crate) fn finish(&mut self, patch: &mut impl FnMut(&[f32]) -> Result<()>) -> Result<()> {
        let n = self.samples;
        if n > 0 {
            let padding = padded_len(n) - n;
            let zeros = vec![0.0; (padding as usize).min(PIECE)];
            let mut left = padding;
            while left > 0 {
                let take = left.min(zeros.len() as u64) as usize;
                self.push(&zeros[..take], patch)?;
                left -= take as u64;
            }
            debug_assert!(self.frames.len() == PATCH_HOP_FRAMES * MEL_BANDS);
        }
        self.reset();
        Ok(())
    }

    pub(crate) fn reset(&mut self) {
        self.pending.clear();
        self.frames.clear();
        self.samples = 0;
    }
}

/// The length the reference pads `n > 0` samples to: at least one patch, then whole hops.
pub(crate) fn padded_len(n: u64) -> u64 {
    if n <= PATCH_SAMPLES {
        PATCH_SAMPLES
    } else {
        PATCH_SAMPLES + (n - PATCH_SAMPLES).div_ceil(PATCH_HOP_SAMPLES) * PATCH_HOP_SAMPLES
    }
}

/// Patches the reference gives for `n` samples (none for an empty stream, see [`Patcher::finish`]).
pub(crate) fn patch_count(n: u64) -> usize {
    if n == 0 { 0 } else { (1 + (padded_len(n) - PATCH_SAMPLES) / PATCH_HOP_SAMPLES) as usize }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(parts: &[(f64, f64)], seconds: f64) -> Vec<f32> {
        let n = (seconds * f64::from(SAMPLE_RATE)) as usize;
        (0..n)
            .map(|i| {
                let t = i as f64 / f64::from(SAMPLE_RATE);
                parts.iter().map(|(hz, a)| a * (2.0 * PI * hz * t).sin()).sum::<f64>() as f32
            })
            .collect()
    }

    fn frames(samples: &[f32]) -> Vec<Vec<f32>> {
        let mut log_mel = LogMel::new();
        samples
            .windows(STFT_WINDOW)
            .step_by(STFT_HOP)
            .map(|w| {
                let mut out = vec![0.0; MEL_BANDS];
                log_mel.frame(w, &mut out);
                out
            })
            .collect()
    }

    /// Bin 32 is 1000 Hz; the reference matrix (a numpy port of `linear_to_mel_weight_matrix`)
    /// shares it between bands 19 (0.5363) and 20 (0.4637). Bands 0, 31 and 63 span bins 5–5,
    /// 57–62 and 223–239 there.
    #[test]
    fn mel_bands_match_tensorflows_matrix() {
        let bands = mel_bands();
        let weight = |band: usize, bin: usize| {
            let (first, w) = &bands[band];
            if bin < *first { 0.0 } else { w.get(bin - first).copied().unwrap_or(0.0) }
        };
        assert!((weight(19, 32) - 0.536_300_631_9).abs() < 1e-9);
        assert!((weight(20, 32) - 0.463_699_368_1).abs() < 1e-9);
        assert_eq!((0..MEL_BANDS).filter(|&b| weight(b, 32) > 0.0).count(), 2);
        let span = |b: usize| (bands[b].0, bands[b].0 + bands[b].1.len() - 1);
        assert_eq!([span(0), span(31), span(63)], [(5, 5), (57, 62), (223, 239)]);
        assert!((weight(0, 5) - 0.947_690_464_8).abs() < 1e-9);
        assert!((weight(63, 239) - 0.108_071_403_7).abs() < 1e-9);
    }

    #[test]
    fn a_1khz_sine_puts_its_energy_in_the_bands_around_1khz() {
        for frame in frames(&tone(&[(1000.0, 0.5)], 0.5)) {
            let mut order: Vec<usize> = (0..MEL_BANDS).collect();
            order.sort_by(|&a, &b| frame[b].total_cmp(&frame[a]));
            assert_eq!(&order[..2], &[19, 20], "{frame:?}");
            // The window's magnitude at the peak is about 0.5 * 200 = 100, so log ≈ 4.1; far from
            // the tone the bands hold only the window's leakage.
            assert!((frame[19] - 4.118).abs() < 0.01, "{}", frame[19]);
            assert!(frame[63] < -5.0);
        }
    }

    /// Values of a numpy port of `features.py` (float64) for 0.5·sin(440 Hz) + 0.25·sin(3 kHz),
    /// frames 0 and 7, bands 0, 10, 20, 33, 50, 63.
    #[test]
    fn log_mel_matches_the_reference_port() {
        let all = frames(&tone(&[(440.0, 0.5), (3000.0, 0.25)], 1.0));
        let want = [
            (0, [-4.209602, 1.790606, -5.14497, -6.288046, -6.286922, -6.851286]),
            (7, [-4.384396, 1.79101, -5.030236, -6.099456, -6.295398, -6.855084]),
        ];
        for (frame, values) in want {
            for (band, value) in [0, 10, 20, 33, 50, 63].into_iter().zip(values) {
                let got = f64::from(all[frame][band]);
                assert!((got - value).abs() < 2e-5, "frame {frame} band {band}: {got} vs {value}");
            }
        }
    }

    #[test]
    fn silence_is_the_log_offset() {
        for frame in frames(&[0.0; 1000]) {
            assert!(frame.iter().all(|&v| (f64::from(v) - LOG_OFFSET.ln()).abs() < 1e-6));
        }
    }

    #[test]
    fn padding_follows_pad_waveform() {
        assert_eq!((PATCH_SAMPLES, PATCH_HOP_SAMPLES), (15_600, 7_680));
        for (n, patches) in [(0, 0), (1, 1), (15_600, 1), (15_601, 2), (15_600 + 7_680, 2), (15_600 + 7_681, 3)] {
            assert_eq!(patch_count(n), patches, "{n} samples");
        }
    }

    fn patches(samples: &[f32], pieces: usize) -> Vec<Vec<f32>> {
        let mut patcher = Patcher::new();
        let mut out = Vec::new();
        let mut keep = |p: &[f32]| {
            out.push(p.to_vec());
            Ok(())
        };
        for piece in samples.chunks(pieces.max(1)) {
            patcher.push(piece, &mut keep).unwrap();
        }
        patcher.finish(&mut keep).unwrap();
        assert_eq!(patcher.samples(), 0);
        out
    }

    #[test]
    fn streaming_in_any_pieces_gives_the_same_patches() {
        let samples = tone(&[(300.0, 0.3), (2500.0, 0.2)], 2.3);
        let whole = patches(&samples, samples.len());
        assert_eq!(whole.len(), patch_count(samples.len() as u64));
        for pieces in [1, 7, 399, 401, 7_680, 10_000] {
            assert_eq!(patches(&samples, pieces), whole, "pieces of {pieces}");
        }
        // Patch 1 starts 48 frames into the stream.
        let direct = frames(&samples);
        assert_eq!(&whole[1][..MEL_BANDS], &direct[PATCH_HOP_FRAMES][..]);
    }
}
