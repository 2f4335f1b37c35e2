//! The audio fingerprint of a title: sub-band energy hashes after Haitsma and Kalker ("A highly
//! robust audio fingerprinting system", ISMIR 2002), computed on the 16 kHz mono stream the
//! analysis already decodes.
//!
//! Frames of [`FRAME`] samples (512 ms, Hann window) every [`HOP`] samples (100 ms); in each, the
//! energy of 33 bands spaced logarithmically from 300 to 2000 Hz. Hash `k` compares frames `k`
//! and `k + 1`: bit `m` (0 to 31) is 1 when `(E(k+1, m) - E(k+1, m+1)) - (E(k, m) - E(k, m+1)) > 0`,
//! the sign of the change over time of the energy difference between neighbouring bands. Such
//! signs survive re-encoding, resampling, volume changes and equalisation, and the picture (size,
//! crop) does not enter at all. Where both frames are silent (below -60 dBFS), the hash is 0 and
//! matching ignores it. Matching lives in the core (`kino::fingerprint`).
//!
//! The long frame against the hop (80% overlap) is what keeps a copy that starts off the hop
//! grid close: with 256 ms frames, a copy trimmed 30 ms off the grid differed in 19% of its bits
//! and one cut 50 ms off it in 30%; with 512 ms frames, 12% (`scripts/fingerprint-accuracy.py`).

use kino::signals::AudioFingerprint;
use rustfft::num_complex::Complex;

use crate::speech::{Fft, SAMPLE_RATE};

/// Samples per frame (512 ms at 16 kHz).
pub const FRAME: usize = 8192;
/// Samples between frames (100 ms at 16 kHz): the hashes' spacing.
pub const HOP: usize = 1600;
/// Band edges, Hz.
const LOW_HZ: f64 = 300.0;
const HIGH_HZ: f64 = 2000.0;
const BANDS: usize = 33;
/// Mean square of a silent frame (-60 dBFS).
const SILENCE: f64 = 1e-6;

/// Computes the fingerprint of a stream pushed in chunks of any size.
#[derive(Debug)]
pub struct AudioHasher {
    fft: Fft,
    window: Vec<f64>,
    /// FFT bin ranges of the bands.
    bands: Vec<(usize, usize)>,
    /// Samples not yet consumed by a frame.
    pending: Vec<f32>,
    previous: Option<([f64; BANDS], bool)>,
    hashes: Vec<u32>,
}

impl Default for AudioHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl AudioHasher {
    /// A hasher for 16 kHz mono samples in `[-1, 1]`.
    pub fn new() -> AudioHasher {
        let bin_hz = f64::from(SAMPLE_RATE) / FRAME as f64;
        let edge = |k: usize| LOW_HZ * (HIGH_HZ / LOW_HZ).powf(k as f64 / BANDS as f64);
        let bands = (0..BANDS)
            .map(|k| {
                let a = (edge(k) / bin_hz).round() as usize;
                let b = ((edge(k + 1) / bin_hz).round() as usize).max(a + 1);
                (a, b)
            })
            .collect();
        let window =
            (0..FRAME).map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / FRAME as f64).cos()).collect();
        AudioHasher { fft: Fft::new(FRAME), window, bands, pending: Vec::new(), previous: None, hashes: Vec::new() }
    }

    /// Consumes samples.
    pub fn push(&mut self, samples: &[f32]) {
        self.pending.extend_from_slice(samples);
        let mut start = 0;
        while self.pending.len() - start >= FRAME {
            let frame = self.energies(start);
            if let Some((before, quiet_before)) = self.previous {
                let (now, quiet_now) = frame;
                let hash = if quiet_before && quiet_now { 0 } else { hash(&before, &now) };
                self.hashes.push(hash);
            }
            self.previous = Some(frame);
            start += HOP;
        }
        self.pending.drain(..start);
    }

    /// The fingerprint of everything pushed.
    pub fn finish(self) -> AudioFingerprint {
        AudioFingerprint { hop: HOP as f64 / f64::from(SAMPLE_RATE), hashes: self.hashes }
    }

    fn energies(&self, start: usize) -> ([f64; BANDS], bool) {
        let mut spectrum: Vec<Complex<f64>> = self.pending[start..start + FRAME]
            .iter()
            .zip(&self.window)
            .map(|(&x, w)| Complex::new(f64::from(x) * w, 0.0))
            .collect();
        let power = spectrum.iter().map(|x| x.re * x.re).sum::<f64>() / FRAME as f64;
        self.fft.run(&mut spectrum);
        let mut e = [0.0; BANDS];
        for (k, &(a, b)) in self.bands.iter().enumerate() {
            e[k] = (a..b).map(|i| spectrum[i].norm_sqr()).sum();
        }
        (e, power < SILENCE)
    }
}

fn hash(before: &[f64; BANDS], now: &[f64; BANDS]) -> u32 {
    let mut h = 0u32;
    for m in 0..BANDS - 1 {
        let d = (now[m] - now[m + 1]) - (before[m] - before[m + 1]);
        if d > 0.0 {
            h |= 1 << m;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone_sweep(seconds: f64, shift: usize) -> Vec<f32> {
        let n = (seconds * f64::from(SAMPLE_RATE)) as usize;
        (shift..n + shift)
            .map(|i| {
                let t = i as f64 / f64::from(SAMPLE_RATE);
                let f = 400.0 + 300.0 * (0.7 * t).sin() + 200.0 * (2.3 * t).cos();
                (0.3 * (2.0 * std::f64::consts::PI * f * t).sin() + 0.1 * (7.0 * t).sin()) as f32
            })
            .collect()
    }

    #[test]
    fn hashes_every_hop_and_chunking_does_not_matter() {
        let x = tone_sweep(10.0, 0);
        let mut whole = AudioHasher::new();
        whole.push(&x);
        let whole = whole.finish();
        assert_eq!(whole.hop, 0.1);
        assert_eq!(whole.hashes.len(), (x.len() - FRAME) / HOP);
        let mut chunked = AudioHasher::new();
        for c in x.chunks(777) {
            chunked.push(c);
        }
        assert_eq!(chunked.finish(), whole);
        let mut quiet = AudioHasher::new();
        quiet.push(&vec![0.0; 5 * SAMPLE_RATE as usize]);
        assert!(quiet.finish().hashes.iter().all(|&h| h == 0), "silence hashes to 0");
    }

    #[test]
    fn quieter_copies_hash_alike() {
        let x = tone_sweep(20.0, 0);
        let quieter: Vec<f32> = x.iter().map(|v| v * 0.4).collect();
        let (mut a, mut b) = (AudioHasher::new(), AudioHasher::new());
        a.push(&x);
        b.push(&quieter);
        let (a, b) = (a.finish(), b.finish());
        let errors: u32 = a.hashes.iter().zip(&b.hashes).map(|(x, y)| (x ^ y).count_ones()).sum();
        // Bands that hold almost nothing flip on rounding; the rest keep their signs.
        assert!(f64::from(errors) / (32.0 * a.hashes.len() as f64) < 0.05, "{errors}");
    }
}
