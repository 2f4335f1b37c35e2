//! Whisper's input features: an 80-band log-mel spectrogram of 16 kHz audio, 25 ms Hann windows
//! every 10 ms, as OpenAI's `log_mel_spectrogram` computes it (centred frames with reflection
//! padding, power spectrum, Slaney-style mel filters as librosa makes them, log10 floored at
//! 1e-10, clamped to 8 below the maximum, scaled to about [-1, 1]).

use std::sync::Arc;

use rustfft::num_complex::Complex32;
use rustfft::{Fft, FftPlanner};

/// Samples per second.
pub const SAMPLE_RATE: usize = 16_000;
/// FFT size (25 ms).
pub const N_FFT: usize = 400;
/// Hop (10 ms).
pub const HOP: usize = 160;
/// Mel bands.
pub const N_MELS: usize = 80;
/// Samples in one 30 s window.
pub const WINDOW_SAMPLES: usize = 30 * SAMPLE_RATE;
/// Frames in one window.
pub const WINDOW_FRAMES: usize = WINDOW_SAMPLES / HOP;

/// A reusable spectrogram maker.
pub(crate) struct Mel {
    fft: Arc<dyn Fft<f32>>,
    hann: Vec<f32>,
    /// [N_MELS][N_FFT / 2 + 1]
    filters: Vec<Vec<f32>>,
}

impl std::fmt::Debug for Mel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mel").finish_non_exhaustive()
    }
}

fn hz_to_mel(f: f64) -> f64 {
    let (f_sp, min_log_hz) = (200.0 / 3.0, 1000.0);
    let min_log_mel = min_log_hz / f_sp;
    let logstep = (6.4f64).ln() / 27.0;
    if f >= min_log_hz { min_log_mel + (f / min_log_hz).ln() / logstep } else { f / f_sp }
}

fn mel_to_hz(m: f64) -> f64 {
    let (f_sp, min_log_hz) = (200.0 / 3.0, 1000.0);
    let min_log_mel = min_log_hz / f_sp;
    let logstep = (6.4f64).ln() / 27.0;
    if m >= min_log_mel { min_log_hz * (logstep * (m - min_log_mel)).exp() } else { f_sp * m }
}

/// librosa.filters.mel(sr=16000, n_fft=400, n_mels=80) with Slaney normalisation.
fn filters() -> Vec<Vec<f32>> {
    let bins = N_FFT / 2 + 1;
    let fft_freqs: Vec<f64> = (0..bins).map(|k| k as f64 * SAMPLE_RATE as f64 / N_FFT as f64).collect();
    let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(SAMPLE_RATE as f64 / 2.0));
    let points: Vec<f64> =
        (0..N_MELS + 2).map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (N_MELS + 1) as f64)).collect();
    (0..N_MELS)
        .map(|m| {
            let (a, b, c) = (points[m], points[m + 1], points[m + 2]);
            let norm = 2.0 / (c - a);
            fft_freqs
                .iter()
                .map(|&f| {
                    let lower = (f - a) / (b - a);
                    let upper = (c - f) / (c - b);
                    (lower.min(upper).max(0.0) * norm) as f32
                })
                .collect()
        })
        .collect()
}

impl Mel {
    pub(crate) fn new() -> Mel {
        let fft = FftPlanner::new().plan_fft_forward(N_FFT);
        // torch.hann_window(400) is periodic.
        let hann = (0..N_FFT)
            .map(|i| (0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / N_FFT as f64).cos()) as f32)
            .collect();
        Mel { fft, hann, filters: filters() }
    }

    /// The features of `audio` (at most 30 s; padded with silence to 30 s), [N_MELS * WINDOW_FRAMES]
    /// in mel-major order.
    pub(crate) fn window(&self, audio: &[f32]) -> Vec<f32> {
        let mut padded = vec![0f32; WINDOW_SAMPLES];
        let n = audio.len().min(WINDOW_SAMPLES);
        padded[..n].copy_from_slice(&audio[..n]);
        // Centred frames: reflect-pad N_FFT / 2 on each side.
        let half = N_FFT / 2;
        let len = padded.len();
        let at = |i: isize| -> f32 {
            let j = if i < 0 {
                (-i) as usize
            } else if i as usize >= len {
                2 * (len - 1) - i as usize
            } else {
                i as usize
            };
            padded[j]
        };
        let bins = N_FFT / 2 + 1;
        let mut out = vec![0f32; N_MELS * WINDOW_FRAMES];
        let mut buf = vec![Complex32::new(0.0, 0.0); N_FFT];
        let mut scratch = vec![Complex32::new(0.0, 0.0); self.fft.get_inplace_scratch_len()];
        let mut power = vec![0f32; bins];
        // torch.stft gives WINDOW_FRAMES + 1 frames; Whisper drops the last.
        for frame in 0..WINDOW_FRAMES {
            let start = (frame * HOP) as isize - half as isize;
            for (i, b) in buf.iter_mut().enumerate() {
                *b = Complex32::new(at(start + i as isize) * self.hann[i], 0.0);
            }
            self.fft.process_with_scratch(&mut buf, &mut scratch);
            for (p, b) in power.iter_mut().zip(&buf[..bins]) {
                *p = b.norm_sqr();
            }
            for (m, f) in self.filters.iter().enumerate() {
                let e: f32 = f.iter().zip(&power).map(|(w, p)| w * p).sum();
                out[m * WINDOW_FRAMES + frame] = e.max(1e-10).log10();
            }
        }
        let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        for v in &mut out {
            *v = ((*v).max(max - 8.0) + 4.0) / 4.0;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_match_librosa() {
        let f = filters();
        // librosa.filters.mel(sr=16000, n_fft=400, n_mels=80): first band peaks at bin 1, the
        // sum of every band's weights is the Slaney normalisation (area 1 in Hz).
        assert_eq!(f.len(), 80);
        assert_eq!(f[0].len(), 201);
        let peak = f[0].iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
        assert_eq!(peak, 1);
        for band in &f[10..] {
            let area: f32 = band.iter().sum::<f32>() * 40.0;
            assert!((0.5..1.5).contains(&area), "area {area}");
        }
    }

    #[test]
    fn a_tone_lights_its_band() {
        let mel = Mel::new();
        let tone: Vec<f32> =
            (0..SAMPLE_RATE).map(|i| (2.0 * std::f32::consts::PI * 440.0 * i as f32 / 16_000.0).sin() * 0.5).collect();
        let m = mel.window(&tone);
        // Frame 50 (0.5 s): the band holding 440 Hz is the loudest.
        let col: Vec<f32> = (0..N_MELS).map(|b| m[b * WINDOW_FRAMES + 50]).collect();
        let loudest = col.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
        let centre = mel_to_hz(hz_to_mel(0.0) + (hz_to_mel(8000.0) - hz_to_mel(0.0)) * (loudest + 1) as f64 / 81.0);
        assert!((centre - 440.0).abs() < 60.0, "band {loudest} centred at {centre} Hz");
        // Silence after the tone sits at the floor.
        assert!(m[10 * WINDOW_FRAMES + 2000] < m[10 * WINDOW_FRAMES + 50]);
    }
}
