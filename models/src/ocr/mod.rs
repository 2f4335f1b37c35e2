//! On-screen text: PP-OCRv6 small text detection (DB) and recognition (CTC) from the `rapidocr`
//! wheel, with rapidocr 3.10.0's preprocessing and decoding ported (`detect`, `recognize`).
//!
//! Boxes are axis-aligned rectangles (film text is horizontal), and rapidocr's text-direction
//! classifier is not run (frames are upright; it only flips text turned by 180 degrees).

mod detect;
mod recognize;

use ort::session::Session;
use ort::value::Tensor;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::image::{RgbFrame, RgbImage};
use crate::manifest::PPOCR;
use crate::runtime::{Runtime, expect_signature};

pub use detect::{BOX_THRESHOLD, DETECTION_MAX_SIDE, PIXEL_THRESHOLD, TextBox, UNCLIP_RATIO};
pub use recognize::{LINE_HEIGHT, MAX_LINE_WIDTH};

/// Lines whose mean character probability is below this are dropped (rapidocr's `text_score`).
pub const MIN_TEXT_SCORE: f32 = 0.5;

/// A recognised line of text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextLine {
    /// The characters read, as the model's dictionary spells them (letters, digits, punctuation,
    /// spaces, and CJK characters).
    pub text: String,
    /// Mean probability of the characters read, in [0, 1].
    pub score: f32,
    /// The box it was read from.
    pub bbox: TextBox,
}

/// Finds and reads text in frames with PP-OCRv6 small (`kino models fetch`, model `ppocr`).
pub struct TextReader {
    detector: Session,
    recognizer: Session,
    /// Class `k` of the recogniser is `characters[k - 1]`; class 0 is the CTC blank.
    characters: Vec<String>,
    load_seconds: f64,
}

impl std::fmt::Debug for TextReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextReader").field("characters", &self.characters.len()).finish()
    }
}

const INPUT: &str = "x";
const OUTPUT: &str = "fetch_name_0";

impl TextReader {
    /// Loads both models from `dir`, each running on `threads` intra-op threads. The recogniser's
    /// dictionary is read from its metadata (`character`, one entry per line; rapidocr appends a
    /// space to it and puts the CTC blank first).
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<TextReader> {
        let started = std::time::Instant::now();
        let detector = runtime.session(&PPOCR, &dir.file(&PPOCR, "det.onnx")?, threads)?.session;
        expect_signature(&PPOCR, &detector, &[INPUT], &[OUTPUT])?;
        let recognizer = runtime.session(&PPOCR, &dir.file(&PPOCR, "rec.onnx")?, threads)?.session;
        expect_signature(&PPOCR, &recognizer, &[INPUT], &[OUTPUT])?;
        let dictionary = recognizer
            .metadata()
            .map_err(|e| Error::load(PPOCR.id, e))?
            .custom("character")
            .ok_or_else(|| Error::load(PPOCR.id, "rec.onnx has no `character` metadata (the dictionary)"))?;
        let mut characters: Vec<String> = dictionary.lines().map(str::to_string).collect();
        characters.push(" ".to_string());
        Ok(TextReader { detector, recognizer, characters, load_seconds: started.elapsed().as_secs_f64() })
    }

    /// Seconds it took to load both models.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// Text regions of `frame`, top to bottom and left to right within a line. The frame is
    /// resized so its longer side is at most [`DETECTION_MAX_SIDE`] and both sides are multiples
    /// of 32; a frame without text gives no boxes.
    pub fn detect(&mut self, frame: RgbFrame<'_>) -> Result<Vec<TextBox>> {
        let (w, h) = detect::input_size(frame.width, frame.height);
        let input = detect::input_tensor(frame, (w, h));
        let fail = |e: &dyn std::fmt::Display| Error::inference(PPOCR.id, format!("detection: {e}"));
        let tensor = Tensor::from_array(([1, 3, h, w], input)).map_err(|e| fail(&e))?;
        let outputs = self.detector.run(ort::inputs![INPUT => tensor]).map_err(|e| fail(&e))?;
        let (shape, prob) = outputs[OUTPUT].try_extract_tensor::<f32>().map_err(|e| fail(&e))?;
        if prob.len() != w * h {
            return Err(fail(&format!("expected a [1, 1, {h}, {w}] map, got {shape:?}")));
        }
        Ok(detect::boxes(prob, w, h, (frame.width, frame.height)))
    }

    /// Reads the text in each of `boxes` of `frame` (crops at height 48, in batches of similar
    /// width). Lines read as nothing but spaces, or with a score below [`MIN_TEXT_SCORE`], are
    /// dropped; the others keep the order of `boxes`.
    pub fn recognize(&mut self, frame: RgbFrame<'_>, boxes: &[TextBox]) -> Result<Vec<TextLine>> {
        let lines: Vec<RgbImage> = boxes.iter().map(|b| recognize::line_image(frame, b)).collect();
        let mut read: Vec<Option<(String, f32)>> = vec![None; boxes.len()];
        let fail = |e: &dyn std::fmt::Display| Error::inference(PPOCR.id, format!("recognition: {e}"));
        for batch in recognize::batches(&lines) {
            let members: Vec<&RgbImage> = batch.iter().map(|&i| &lines[i]).collect();
            let (input, width) = recognize::batch_tensor(&members);
            let tensor = Tensor::from_array(([batch.len(), 3, LINE_HEIGHT, width], input)).map_err(|e| fail(&e))?;
            let outputs = self.recognizer.run(ort::inputs![INPUT => tensor]).map_err(|e| fail(&e))?;
            let (shape, probs) = outputs[OUTPUT].try_extract_tensor::<f32>().map_err(|e| fail(&e))?;
            let classes = self.characters.len() + 1;
            if shape.len() != 3 || shape[0] as usize != batch.len() || shape[2] as usize != classes {
                return Err(fail(&format!(
                    "expected [{}, steps, {classes}] probabilities, got {shape:?}",
                    batch.len()
                )));
            }
            let per_line = probs.len() / batch.len();
            for (k, &i) in batch.iter().enumerate() {
                read[i] = Some(recognize::ctc_greedy(&probs[k * per_line..][..per_line], classes, &self.characters));
            }
        }
        Ok(boxes
            .iter()
            .zip(read)
            .filter_map(|(bbox, r)| {
                let (text, score) = r?;
                (!text.trim().is_empty() && score >= MIN_TEXT_SCORE).then_some(TextLine { text, score, bbox: *bbox })
            })
            .collect())
    }
}
