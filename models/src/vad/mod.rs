//! Silero VAD (silero-vad 6.2.3, `silero_vad.onnx`): speech probabilities for each 32 ms chunk of
//! 16 kHz mono audio, turned into speech segments with Silero's thresholds and hangover.
//!
//! The model is streaming: each call takes one chunk of 512 samples preceded by the last 64
//! samples of the previous chunk (zeros before the first), `input` `[1, 576]`, the recurrent
//! state `state` `[2, 1, 128]` returned by the previous call (zeros at the start) and the sample
//! rate `sr` (int64 scalar, 16000); it returns the probability `output` `[1, 1]` and the next
//! state `stateN`. This is what the package's own `OnnxWrapper` does.

mod segments;

use ort::session::Session;
use ort::value::Tensor;

pub use self::segments::{CHUNK, SAMPLE_RATE, VadParams, speech_segments};
use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::SILERO_VAD;
use crate::runtime::{Runtime, expect_signature};

/// Samples of the previous chunk prepended to each chunk.
const CONTEXT: usize = 64;
const STATE_LEN: usize = 2 * 128;

/// What [`SileroVad::finish`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Speech {
    /// Speech segments `[start, end]` in seconds, sorted and disjoint.
    pub segments: Vec<[f64; 2]>,
    /// The speech probability of each chunk of [`CHUNK`] samples (32 ms).
    pub probabilities: Vec<f32>,
    /// Seconds of audio pushed.
    pub duration: f64,
}

/// A streaming voice activity detector: push 16 kHz mono samples in [-1, 1] in pieces of any
/// size, then [`finish`](SileroVad::finish). Memory is one float per 32 ms of audio.
pub struct SileroVad {
    session: Session,
    /// `[1, CONTEXT + CHUNK]`: the previous chunk's last 64 samples, then the chunk.
    input: Tensor<f32>,
    state: Tensor<f32>,
    rate: Tensor<i64>,
    pending: Vec<f32>,
    probabilities: Vec<f32>,
    samples: u64,
    params: VadParams,
    load_seconds: f64,
}

impl std::fmt::Debug for SileroVad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SileroVad").field("params", &self.params).field("samples", &self.samples).finish()
    }
}

impl SileroVad {
    /// Loads `silero_vad.onnx` from `dir` on one thread (the model is small and called per chunk;
    /// more threads only add synchronisation).
    pub fn load(runtime: &Runtime, dir: &ModelsDir, params: VadParams) -> Result<SileroVad> {
        params.validate()?;
        let path = dir.file(&SILERO_VAD, "silero_vad.onnx")?;
        let loaded = runtime.session(&SILERO_VAD, &path, 1)?;
        expect_signature(&SILERO_VAD, &loaded.session, &["input", "state", "sr"], &["output", "stateN"])?;
        let tensor_error = |e: ort::Error| Error::load(SILERO_VAD.id, e);
        Ok(SileroVad {
            session: loaded.session,
            input: Tensor::from_array(([1usize, CONTEXT + CHUNK], vec![0f32; CONTEXT + CHUNK]))
                .map_err(tensor_error)?,
            state: Tensor::from_array(([2usize, 1, 128], vec![0f32; STATE_LEN])).map_err(tensor_error)?,
            rate: Tensor::from_array((Vec::<i64>::new(), vec![i64::from(SAMPLE_RATE)])).map_err(tensor_error)?,
            pending: Vec::with_capacity(CHUNK),
            probabilities: Vec::new(),
            samples: 0,
            params,
            load_seconds: loaded.load_seconds,
        })
    }

    /// Seconds it took to load the model.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// Feeds samples (16 kHz mono, in [-1, 1]); runs the model on every complete chunk.
    pub fn push(&mut self, mut samples: &[f32]) -> Result<()> {
        self.samples += samples.len() as u64;
        if !self.pending.is_empty() {
            let take = (CHUNK - self.pending.len()).min(samples.len());
            self.pending.extend_from_slice(&samples[..take]);
            samples = &samples[take..];
            if self.pending.len() < CHUNK {
                return Ok(());
            }
            let chunk = std::mem::take(&mut self.pending);
            self.run_chunk(&chunk)?;
            self.pending = chunk;
            self.pending.clear();
        }
        let mut chunks = samples.chunks_exact(CHUNK);
        for chunk in &mut chunks {
            self.run_chunk(chunk)?;
        }
        self.pending.extend_from_slice(chunks.remainder());
        Ok(())
    }

    /// Ends the stream (a last partial chunk is padded with zeros, as the reference does) and
    /// returns the segments; the detector is then reset for another stream.
    pub fn finish(&mut self) -> Result<Speech> {
        if !self.pending.is_empty() {
            let mut chunk = std::mem::take(&mut self.pending);
            chunk.resize(CHUNK, 0.0);
            self.run_chunk(&chunk)?;
        }
        let probabilities = std::mem::take(&mut self.probabilities);
        let segments = speech_segments(&probabilities, self.samples, &self.params);
        let duration = self.samples as f64 / f64::from(SAMPLE_RATE);
        self.reset()?;
        Ok(Speech { segments, probabilities, duration })
    }

    /// Speech segments of a whole signal at once.
    pub fn detect(&mut self, audio: &[f32]) -> Result<Speech> {
        self.reset()?;
        self.push(audio)?;
        self.finish()
    }

    fn reset(&mut self) -> Result<()> {
        let fail = |e: ort::Error| Error::inference(SILERO_VAD.id, e);
        self.input.try_extract_tensor_mut::<f32>().map_err(fail)?.1.fill(0.0);
        self.state.try_extract_tensor_mut::<f32>().map_err(fail)?.1.fill(0.0);
        self.pending.clear();
        self.probabilities.clear();
        self.samples = 0;
        Ok(())
    }

    fn run_chunk(&mut self, chunk: &[f32]) -> Result<()> {
        debug_assert_eq!(chunk.len(), CHUNK);
        let fail = |e: ort::Error| Error::inference(SILERO_VAD.id, e);
        {
            let (_, input) = self.input.try_extract_tensor_mut::<f32>().map_err(fail)?;
            input.copy_within(CHUNK.., 0);
            input[CONTEXT..].copy_from_slice(chunk);
        }
        let outputs = self
            .session
            .run(ort::inputs!["input" => &self.input, "state" => &self.state, "sr" => &self.rate])
            .map_err(fail)?;
        let (_, probability) = outputs["output"].try_extract_tensor::<f32>().map_err(fail)?;
        let (_, next_state) = outputs["stateN"].try_extract_tensor::<f32>().map_err(fail)?;
        if probability.len() != 1 || next_state.len() != STATE_LEN {
            return Err(Error::inference(
                SILERO_VAD.id,
                format!(
                    "expected 1 probability and {STATE_LEN} state values, got {} and {}",
                    probability.len(),
                    next_state.len()
                ),
            ));
        }
        self.probabilities.push(probability[0]);
        self.state.try_extract_tensor_mut::<f32>().map_err(fail)?.1.copy_from_slice(next_state);
        Ok(())
    }
}
