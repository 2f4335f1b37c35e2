//! What the vision models see in the sampled frames ([`crate::vision`]): one [`Seen`] per frame,
//! gathered by the [`Sight`] sink, and turned into channels after the pass ([`nudity_timeline`],
//! [`on_screen_text`]).

use std::io;

use kino::signals::{OnScreenText, TextSpan, sample_count};
use std::sync::Arc;

use kino_models::image::PixelRect;
use kino_models::{
    Detection, ExpressionModel, FaceAnalyzer, ImageLabeler, NsfwClassifier, ObjectDetector, RgbFrame, TextReader,
};

use crate::faces::Face;

use crate::models::AnalysisModels;
use crate::vision::FrameSink;

/// Text is detected on every this-many sampled frames (with the default sampling of one frame
/// every 2 s, every 4 s: detection costs about 0.1 s of a core per 640x360 frame).
pub const TEXT_EVERY: usize = 2;

/// Lines read per frame at most: the largest boxes (reading costs about 45 ms a line).
pub const MAX_LINES: usize = 3;

/// What the vision models measured in one sampled frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    /// Seconds into the video.
    pub time: f64,
    /// open_nsfw's probability, when it ran.
    pub nsfw: Option<f32>,
    /// Fraction of the frame covered by detected text, when detection ran on this frame.
    pub text_area: Option<f32>,
    /// The lines read, with their confidence.
    pub lines: Vec<(String, f32)>,
    /// The faces found (box, detector score, descriptor), when the face model ran.
    pub faces: Option<Vec<Face>>,
    /// The probabilities of the facial expressions ([`kino_models::EXPRESSIONS`]) of each face in
    /// `faces`, in the same order, when the expression model ran (it runs where the face model
    /// does). [`kino_models::expression_label`] names the expression, or abstains.
    pub expressions: Option<Vec<[f32; 7]>>,
    /// The image classifier's five most probable classes (index, probability), when it ran.
    pub labels: Option<Vec<(u16, f32)>>,
    /// Its pooled image feature, one byte a value ([`quantise`]).
    pub feature: Option<Vec<u8>>,
    /// The objects the detector found (COCO's classes, boxes as fractions of the frame, most
    /// confident first), when it ran.
    pub objects: Option<Vec<Detection>>,
    /// What the image classifier saw in the detector's largest boxes ([`regions_to_label`]), when
    /// both ran.
    pub regions: Vec<RegionLabels>,
    /// How sharp it is: the variance of the Laplacian of its luma ([`sharpness`]).
    pub sharpness: f32,
    /// How bright it is: the mean of its luma, 0 to 255 ([`brightness`]).
    pub brightness: f32,
    /// Its width over its height in pixels (0 when unknown: read as 16:9), to tell a standing
    /// figure's box from a cut one.
    pub aspect: f32,
}

/// What the image classifier saw in one of the detector's boxes.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionLabels {
    /// The box.
    pub object: Detection,
    /// The classifier's most probable classes in the box's crop ([`region_rect`]), most probable
    /// first: (class index, probability).
    pub labels: Vec<(u16, f32)>,
}

/// The image classifier also reads the crops of the detector's boxes (a small dog in a wide shot
/// is a dog breed to it there, and only grass and sky in the whole frame): at most this many
/// boxes a frame, the largest...
pub const MAX_REGIONS: usize = 2;
/// ...each covering at least this share of the frame (a tenth of a 640x360 frame is about 150
/// pixels square; smaller crops are too few pixels for it)...
pub const REGION_MIN_AREA: f32 = 0.1;
/// ...and at most this share (a box that fills the frame shows what the whole frame shows)...
pub const REGION_MAX_AREA: f32 = 0.8;
/// ...of at least this confidence (the detector's tag rule, [`crate::objects::OBJECT_TAG_MIN`]),
/// and not a person: ImageNet has no class for people, and a person's crop is named by its
/// garment, which the whole frame's labels already give (and people, in most frames of most
/// films, would cost two more model runs a frame).
pub const REGION_MIN_CONFIDENCE: f32 = 0.5;
/// A box's crop reaches this share of its width and height beyond each of its edges: the
/// detector's boxes are tight, and ImageNet's photographs show their object with some of what is
/// around it.
pub const REGION_MARGIN: f32 = 0.1;

/// The boxes of `objects` whose crops the image classifier reads: [`MAX_REGIONS`] at most, the
/// largest first, see [`REGION_MIN_AREA`].
pub fn regions_to_label(objects: &[Detection]) -> Vec<Detection> {
    let mut boxes: Vec<Detection> = objects
        .iter()
        .filter(|d| {
            d.name != "person"
                && d.confidence >= REGION_MIN_CONFIDENCE
                && (REGION_MIN_AREA..=REGION_MAX_AREA).contains(&d.area())
        })
        .copied()
        .collect();
    boxes.sort_by(|a, b| b.area().total_cmp(&a.area()));
    boxes.truncate(MAX_REGIONS);
    boxes
}

/// The pixels of a `width x height` frame that the crop of box `d` (fractions of the frame)
/// takes: the box widened by [`REGION_MARGIN`] on each side, edges rounded to the nearest pixel,
/// cut to the frame, at least one pixel.
pub fn region_rect(d: &Detection, width: usize, height: usize) -> PixelRect {
    let edges = |start: f32, size: f32, n: usize| {
        let n_f = n as f32;
        let lo = ((start - REGION_MARGIN * size) * n_f).round().clamp(0.0, n_f - 1.0) as usize;
        let hi = ((start + size + REGION_MARGIN * size) * n_f).round().clamp(lo as f32 + 1.0, n_f) as usize;
        (lo, hi - lo)
    };
    let (x, w) = edges(d.x, d.w, width);
    let (y, h) = edges(d.y, d.h, height);
    [x, y, w, h]
}

/// The mean luma (0 to 255) of the frame.
pub fn brightness(frame: RgbFrame<'_>) -> f32 {
    let n = frame.width * frame.height;
    if n == 0 {
        return 0.0;
    }
    let sum: f64 = frame
        .data
        .chunks_exact(3)
        .map(|p| 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]))
        .sum();
    (sum / n as f64) as f32
}

/// The variance of the 4-neighbour Laplacian of the frame's luma (0 to 255) over its inner
/// pixels: near 0 for a blurred or flat frame, hundreds or more for a sharp detailed one.
pub fn sharpness(frame: RgbFrame<'_>) -> f32 {
    let (w, h) = (frame.width, frame.height);
    if w < 3 || h < 3 {
        return 0.0;
    }
    let luma: Vec<f32> = frame
        .data
        .chunks_exact(3)
        .map(|p| 0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2]))
        .collect();
    let (mut sum, mut sq, mut n) = (0f64, 0f64, 0f64);
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let c = luma[y * w + x];
            let l = 4.0 * c - luma[(y - 1) * w + x] - luma[(y + 1) * w + x] - luma[y * w + x - 1] - luma[y * w + x + 1];
            sum += f64::from(l);
            sq += f64::from(l) * f64::from(l);
            n += 1.0;
        }
    }
    let mean = sum / n;
    ((sq / n - mean * mean).max(0.0)) as f32
}

/// Classes kept per frame by the image classifier.
const TOP_LABELS: usize = 5;

/// The vision models of one analysis and what they saw, frame by frame.
pub(crate) struct Sight {
    nsfw: Option<NsfwClassifier>,
    ocr: Option<TextReader>,
    faces: Option<FaceAnalyzer>,
    expression: Option<Arc<ExpressionModel>>,
    labeler: Option<ImageLabeler>,
    detector: Option<ObjectDetector>,
    frames: usize,
    pub seen: Vec<Seen>,
    /// `id version` of the models that ran.
    pub labels: Labels,
}

impl Sight {
    /// The image classifier's class names, when it ran.
    pub(crate) fn label_names(&self) -> Option<&[String]> {
        self.labeler.as_ref().map(ImageLabeler::names)
    }
}

impl std::fmt::Debug for Sight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sight").field("frames", &self.frames).field("labels", &self.labels).finish()
    }
}

/// Which vision models ran, as `id version`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Labels {
    pub nsfw: Option<String>,
    pub ocr: Option<String>,
    pub faces: Option<String>,
    pub expression: Option<String>,
    pub labeler: Option<String>,
    pub objects: Option<String>,
}

impl Sight {
    /// The sink for `models`, when at least one vision model is loaded (`None`: no sampled stream
    /// is decoded at all).
    pub(crate) fn new(models: &AnalysisModels) -> Result<Option<Sight>, kino_models::Error> {
        let nsfw = models.nsfw().transpose()?;
        let ocr = models.ocr().transpose()?;
        let faces = models.faces().transpose()?;
        let labeler = models.labeler().transpose()?;
        let detector = models.objects().transpose()?;
        if nsfw.is_none() && ocr.is_none() && faces.is_none() && labeler.is_none() && detector.is_none() {
            return Ok(None);
        }
        // Expressions are read from the faces found, so only where the face model runs.
        let expression = faces.as_ref().and(models.expression_model().cloned());
        let label = |id: &str| models.state(id).map(|s| s.label());
        let labels = Labels {
            nsfw: nsfw.as_ref().and_then(|_| label("open-nsfw")),
            ocr: ocr.as_ref().and_then(|_| label("ppocr")),
            faces: faces.as_ref().and_then(|_| label("dlib-faces")),
            expression: expression.as_ref().and_then(|_| label("fer-expression")),
            labeler: labeler.as_ref().and_then(|_| label("efficientnet-lite0")),
            objects: detector.as_ref().and_then(|_| label("yolov3-tiny")),
        };
        Ok(Some(Sight { nsfw, ocr, faces, expression, labeler, detector, frames: 0, seen: Vec::new(), labels }))
    }

    /// Gives the models back for another analysis (they keep nothing of the frames they saw).
    pub(crate) fn give_back(self, models: &AnalysisModels) {
        if let Some(model) = self.nsfw {
            models.give_back(model);
        }
        if let Some(model) = self.ocr {
            models.give_back(model);
        }
        if let Some(model) = self.faces {
            models.give_back(model);
        }
        if let Some(model) = self.labeler {
            models.give_back(model);
        }
        if let Some(model) = self.detector {
            models.give_back(model);
        }
    }

    /// A sink with no model, for tests of the stream itself.
    #[cfg(test)]
    pub(crate) fn empty() -> Sight {
        Sight {
            nsfw: None,
            ocr: None,
            faces: None,
            expression: None,
            labeler: None,
            detector: None,
            frames: 0,
            seen: Vec::new(),
            labels: Labels::default(),
        }
    }
}

impl FrameSink for Sight {
    fn frame(&mut self, time: f64, frame: RgbFrame<'_>) -> io::Result<()> {
        let aspect = frame.width as f32 / frame.height.max(1) as f32;
        let mut seen =
            Seen { time, sharpness: sharpness(frame), brightness: brightness(frame), aspect, ..Seen::default() };
        if let Some(model) = &mut self.nsfw {
            seen.nsfw = model.classify(&[frame]).map_err(io::Error::other)?.first().copied();
        }
        if let Some(reader) = &mut self.ocr
            && self.frames.is_multiple_of(TEXT_EVERY)
        {
            let mut boxes = reader.detect(frame).map_err(io::Error::other)?;
            let area: f32 = boxes.iter().map(|b| b.w * b.h).sum();
            seen.text_area = Some(area.clamp(0.0, 1.0));
            boxes.sort_by(|a, b| (b.w * b.h).total_cmp(&(a.w * a.h)));
            boxes.truncate(MAX_LINES);
            // Reading order: top to bottom.
            boxes.sort_by(|a, b| a.y.total_cmp(&b.y));
            if !boxes.is_empty() {
                let lines = reader.recognize(frame, &boxes).map_err(io::Error::other)?;
                seen.lines = lines.into_iter().map(|l| (l.text, l.score)).collect();
            }
        }
        if let Some(model) = &mut self.faces {
            let faces = model.faces(frame).map_err(io::Error::other)?;
            if let Some(expression) = &self.expression {
                seen.expressions = Some(expression.expressions(frame, &faces).map_err(io::Error::other)?);
            }
            seen.faces = Some(faces);
        }
        if let Some(model) = &mut self.detector {
            seen.objects = model.detect(&[frame]).map_err(io::Error::other)?.pop();
        }
        if let Some(model) = &mut self.labeler {
            let boxes = seen.objects.as_deref().map(regions_to_label).unwrap_or_default();
            let rects: Vec<PixelRect> = boxes.iter().map(|d| region_rect(d, frame.width, frame.height)).collect();
            let mut found = model.label_with_regions(frame, &rects, TOP_LABELS).map_err(io::Error::other)?.into_iter();
            if let Some(f) = found.next() {
                seen.feature = Some(quantise(&f.feature));
                seen.labels = Some(f.top);
            }
            seen.regions =
                boxes.into_iter().zip(found).map(|(object, f)| RegionLabels { object, labels: f.top }).collect();
        }
        self.frames += 1;
        self.seen.push(seen);
        Ok(())
    }
}

/// Without a person in view, open_nsfw's score counts at most this much...
pub const NO_PERSON_CAP: f32 = 0.4;
/// ...unless it reaches this: the level open_nsfw's authors read as likely NSFW, which no frame of
/// the real footage without nudity measured here reached (docs/models.md, "Nudity").
pub const STRONG_NUDITY: f32 = 0.8;

/// A garment or person class of the image classifier counts as a person in view from this
/// probability on (a swimsuit, a bra or a wedding suit is worn by someone).
pub const PERSON_LABEL_MIN: f32 = 0.2;

/// Whether a person is in view in each sampled frame, when the face model ran: a face found in
/// the frame, or a garment or person label of the image classifier ([`PERSON_LABEL_MIN`]), in the
/// frame or in the sampled frame before or after it (a person who turns away for a moment is
/// still there). `None` without the face model: no frame can be judged.
pub fn person_in_view(seen: &[Seen]) -> Option<Vec<bool>> {
    if seen.iter().all(|s| s.faces.is_none()) {
        return None;
    }
    let face = |i: usize| {
        seen.get(i).is_some_and(|s| {
            s.faces.as_ref().is_some_and(|f| !f.is_empty())
                || s.labels.iter().flatten().any(|&(c, p)| p >= PERSON_LABEL_MIN && is_person_cue(c))
        })
    };
    Some((0..seen.len()).map(|i| face(i) || (i > 0 && face(i - 1)) || face(i + 1)).collect())
}

/// open_nsfw's score of each frame under the person rule: open_nsfw scores skin-coloured surfaces
/// (a pale cartoon rabbit, 0.73), so without a person in view ([`person_in_view`]) a score below
/// [`STRONG_NUDITY`] counts at most [`NO_PERSON_CAP`]. Without the face model the scores count as
/// they are.
pub fn nudity_scores(seen: &[Seen]) -> Vec<Option<f32>> {
    let person = person_in_view(seen);
    seen.iter()
        .enumerate()
        .map(|(i, s)| {
            let p = s.nsfw?;
            let alone = person.as_ref().is_some_and(|v| !v[i]);
            Some(if alone && p < STRONG_NUDITY { p.min(NO_PERSON_CAP) } else { p })
        })
        .collect()
}

/// The nudity timeline on the document's grid (`step`, `duration`) from the frames' scores under
/// the person rule ([`nudity_scores`]): each sample takes the largest score of the sampled frames
/// inside it, and a sample holding none takes the frame before it (the frames are `interval`
/// apart; each stands for the time until the next).
pub fn nudity_timeline(seen: &[Seen], interval: f64, duration: f64, step: f64) -> Option<Vec<f32>> {
    let points: Vec<(f64, f32)> =
        seen.iter().zip(nudity_scores(seen)).filter_map(|(s, p)| p.map(|p| (s.time, p))).collect();
    if points.is_empty() {
        return None;
    }
    let n = sample_count(duration, step);
    let mut out = vec![f32::NAN; n];
    for &(t, p) in &points {
        // The frame at t stands for [t, t + interval).
        let first = ((t / step).floor() as usize).min(n - 1);
        let last = (((t + interval) / step).ceil() as usize).clamp(first + 1, n);
        for v in &mut out[first..last] {
            *v = if v.is_nan() { p } else { v.max(p) };
        }
    }
    let mut held = points[0].1;
    for v in &mut out {
        if v.is_nan() {
            *v = held;
        } else {
            held = *v;
        }
    }
    Some(out.into_iter().map(|v| v.clamp(0.0, 1.0)).collect())
}

/// End credits: a run of wordy text at the end of the video. A frame counts when a line read in
/// it has at least two words of two letters or more (names and roles; not a clock or a page
/// number). The run is built backwards from the last such frame, across gaps of at most
/// [`CREDITS_GAP`] seconds; it counts when it reaches to within [`CREDITS_TAIL`] seconds of the
/// end, lasts at least [`CREDITS_MIN`] seconds and at most [`CREDITS_MAX_SHARE`] of the video
/// (text all through a film, such as burnt-in subtitles, is not credits).
pub const CREDITS_GAP: f64 = 10.0;
/// See [`CREDITS_GAP`].
pub const CREDITS_MAX_SHARE: f64 = 0.3;
/// See [`CREDITS_GAP`].
pub const CREDITS_TAIL: f64 = 60.0;
/// See [`CREDITS_GAP`].
pub const CREDITS_MIN: f64 = 20.0;

/// The on-screen text channel: density per detection, the lines read (consecutive sightings of
/// the same text merged into one span), and where the end credits start.
pub fn on_screen_text(seen: &[Seen], interval: f64, duration: f64) -> Option<OnScreenText> {
    let detected: Vec<&Seen> = seen.iter().filter(|s| s.text_area.is_some()).collect();
    if detected.is_empty() {
        return None;
    }
    let step = interval * TEXT_EVERY as f64;
    let limit = sample_count(duration, step);
    let density: Vec<f32> = detected.iter().take(limit).map(|s| s.text_area.unwrap_or(0.0)).collect();
    let mut lines: Vec<TextSpan> = Vec::new();
    let mut open: Vec<(String, f64, f64, f64)> = Vec::new(); // text, start, end, best score
    for s in &detected {
        let end = (s.time + step).min(duration);
        let mut still = Vec::new();
        for (text, score) in &s.lines {
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            match open.iter().position(|(t, ..)| t == text) {
                Some(i) => {
                    let mut line = open.remove(i);
                    line.2 = end;
                    line.3 = line.3.max(f64::from(*score));
                    still.push(line);
                }
                None => still.push((text.to_string(), s.time.min(duration), end, f64::from(*score))),
            }
        }
        for (text, start, end, score) in open.drain(..) {
            lines.push(TextSpan { start, end, text, score: score.clamp(0.0, 1.0) });
        }
        open = still;
    }
    for (text, start, end, score) in open {
        lines.push(TextSpan { start, end, text, score: score.clamp(0.0, 1.0) });
    }
    lines.retain(|l| l.start < l.end);
    lines.sort_by(|a, b| a.start.total_cmp(&b.start));
    let with_text: Vec<f64> =
        detected.iter().filter(|s| s.lines.iter().any(|(l, _)| wordy(l))).map(|s| s.time).collect();
    let credits_start = with_text.last().and_then(|&last| {
        if last + step < duration - CREDITS_TAIL {
            return None;
        }
        let mut start = last;
        for &t in with_text.iter().rev().skip(1) {
            if start - t > CREDITS_GAP {
                break;
            }
            start = t;
        }
        let length = last + step - start;
        (length >= CREDITS_MIN && length <= CREDITS_MAX_SHARE * duration).then_some(start)
    });
    Some(OnScreenText { step, density, lines, credits_start })
}

/// Whether a line read is words, not marks: at least two words of at least two letters (the
/// core's rule, which the binge markers read the credits' text with).
pub use kino::markers::wordy;

/// The distinct lines read inside `[start, end)`, longest first, at most `n`.
pub fn lines_in(text: &OnScreenText, start: f64, end: f64, n: usize) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for l in text.lines.iter().filter(|l| l.start < end && l.end > start) {
        if !found.iter().any(|f| f.eq_ignore_ascii_case(&l.text)) {
            found.push(l.text.clone());
        }
    }
    found.sort_by_key(|t| std::cmp::Reverse(t.len()));
    found.truncate(n);
    found
}

// The ImageNet classes that show a person, the stored image features and the frames of a span:
// read by the picture's channels (`crate::picture`) and the objects' (`crate::objects`) alike.

/// Whether class `index` shows that a person is there (a garment being worn, or a person class).
pub fn is_person_cue(index: u16) -> bool {
    CLOTHING.contains(&index) || PEOPLE.contains(&index)
}

pub(crate) const CLOTHING: &[u16] = &[
    399, 400, 411, 433, 439, 445, 451, 452, 457, 459, 465, 474, 501, 502, 514, 515, 518, 529, 552, 560, 568, 578, 601,
    608, 610, 614, 617, 630, 638, 639, 652, 655, 667, 689, 697, 715, 735, 770, 774, 775, 796, 806, 808, 824, 834, 836,
    837, 841, 842, 869, 887, 903, 906,
];
/// Classes that are people: baseball player, bridegroom, scuba diver.
pub(crate) const PEOPLE: &[u16] = &[981, 982, 983];

/// Dequantises a stored feature (see [`quantise`]).
pub(crate) fn dequantise(q: &[u8]) -> impl Iterator<Item = f32> + '_ {
    q.iter().map(|&v| f32::from(v) * FEATURE_SCALE)
}

/// The image features are means of ReLU6 outputs, so in [0, 6]: stored as one byte each
/// (a step of 6/255), which keeps a 4-hour title's features at 9 MB instead of 37.
const FEATURE_SCALE: f32 = 6.0 / 255.0;

/// A feature as bytes.
pub(crate) fn quantise(feature: &[f32]) -> Vec<u8> {
    feature.iter().map(|&v| (v / FEATURE_SCALE).round().clamp(0.0, 255.0) as u8).collect()
}

/// The sampled frames inside `[start, end)`, or the one nearest its middle when none is.
pub(crate) fn frames_in(seen: &[Seen], start: f64, end: f64) -> Vec<&Seen> {
    let inside: Vec<&Seen> = seen.iter().filter(|s| s.time >= start && s.time < end).collect();
    if !inside.is_empty() {
        return inside;
    }
    let middle = (start + end) / 2.0;
    seen.iter().min_by(|a, b| (a.time - middle).abs().total_cmp(&(b.time - middle).abs())).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(time: f64, nsfw: Option<f32>, text: Option<&[&str]>) -> Seen {
        Seen {
            time,
            nsfw,
            text_area: text.map(|t| if t.is_empty() { 0.0 } else { 0.1 }),
            lines: text.unwrap_or(&[]).iter().map(|t| (t.to_string(), 0.9)).collect(),
            ..Seen::default()
        }
    }

    fn with_faces(time: f64, nsfw: f32, faces: usize) -> Seen {
        let face = Face { x: 0.4, y: 0.3, w: 0.2, h: 0.3, score: 1.0, embedding: vec![0.0; 128] };
        Seen { time, nsfw: Some(nsfw), faces: Some(vec![face; faces]), ..Seen::default() }
    }

    /// Hardening II, item 10: skin-coloured surfaces without a person (a cartoon rabbit scored
    /// 0.73) are capped below the common 0.5 filter; a person in view, or a strong score, counts.
    #[test]
    fn nudity_needs_a_person_in_view_unless_it_is_strong() {
        let s = [
            with_faces(0.0, 0.73, 0),
            with_faces(2.0, 0.6, 0),
            with_faces(4.0, 0.6, 0),
            with_faces(6.0, 0.7, 1),
            with_faces(8.0, 0.65, 0),
            with_faces(10.0, 0.95, 0),
            with_faces(12.0, 0.1, 0),
        ];
        let scores = nudity_scores(&s);
        assert_eq!(scores, [Some(0.4), Some(0.4), Some(0.6), Some(0.7), Some(0.65), Some(0.95), Some(0.1)]);
        // Without the face model nothing can be judged: the scores stand.
        let unjudged: Vec<Seen> = s.iter().map(|x| Seen { faces: None, ..x.clone() }).collect();
        assert_eq!(nudity_scores(&unjudged)[0], Some(0.73));
        assert_eq!(nudity_timeline(&s, 2.0, 14.0, 2.0).unwrap()[0], 0.4);
    }

    #[test]
    fn sharp_frames_measure_sharper_than_blurred_ones() {
        let (w, h) = (64, 48);
        let checker: Vec<u8> =
            (0..w * h).flat_map(|i| [if (i % w / 4 + i / w / 4) % 2 == 0 { 0 } else { 255 }; 3]).collect();
        let flat = vec![128u8; w * h * 3];
        let gradient: Vec<u8> = (0..w * h).flat_map(|i| [((i % w) * 4) as u8; 3]).collect();
        let s = |d: &[u8]| sharpness(RgbFrame::new(w, h, d).unwrap());
        assert_eq!(s(&flat), 0.0);
        assert!(s(&gradient) < 1.0, "a smooth ramp has no edges: {}", s(&gradient));
        assert!(s(&checker) > 1000.0, "{}", s(&checker));
        assert_eq!(sharpness(RgbFrame::new(2, 2, &[0; 12]).unwrap()), 0.0);
    }

    #[test]
    fn the_nudity_timeline_holds_and_takes_the_largest() {
        let s = [seen(0.0, Some(0.1), None), seen(1.0, Some(0.9), None), seen(2.0, Some(0.2), None)];
        assert_eq!(nudity_timeline(&s, 1.0, 3.0, 1.0).unwrap(), vec![0.1, 0.9, 0.2]);
        // Half-second steps: each frame covers two samples.
        assert_eq!(nudity_timeline(&s, 1.0, 3.0, 0.5).unwrap(), vec![0.1, 0.1, 0.9, 0.9, 0.2, 0.2]);
        // Two-second steps: the largest of the frames inside.
        assert_eq!(nudity_timeline(&s, 1.0, 3.0, 2.0).unwrap(), vec![0.9, 0.2]);
        assert!(nudity_timeline(&[seen(0.0, None, None)], 1.0, 3.0, 1.0).is_none());
    }

    #[test]
    fn text_lines_merge_and_end_credits_are_found() {
        let mut s = Vec::new();
        for i in 0..100 {
            let t = f64::from(i);
            let text: Option<Vec<&str>> = if i % 2 != 0 {
                None // text runs on every other frame
            } else if (4..10).contains(&i) {
                Some(vec!["NEW YORK, 1999"])
            } else if i >= 76 {
                Some(vec!["Directed by Ada Stone"])
            } else {
                Some(vec![])
            };
            s.push(seen(t, None, text.as_deref()));
        }
        let text = on_screen_text(&s, 1.0, 100.0).unwrap();
        assert_eq!(text.step, 2.0);
        assert_eq!(text.density.len(), 50);
        assert_eq!(text.lines[0].text, "NEW YORK, 1999");
        assert_eq!((text.lines[0].start, text.lines[0].end), (4.0, 10.0));
        assert_eq!(text.lines[1].text, "Directed by Ada Stone");
        assert_eq!(text.credits_start, Some(76.0));
        assert_eq!(lines_in(&text, 0.0, 20.0, 3), vec!["NEW YORK, 1999".to_string()]);
        // A title card alone at the start is no end credits.
        let early: Vec<Seen> = s.iter().filter(|x| x.time < 20.0).cloned().collect();
        assert_eq!(on_screen_text(&early, 1.0, 100.0).unwrap().credits_start, None);
        // Text all through (subtitles) is not credits.
        let all: Vec<Seen> = (0..50).map(|i| seen(f64::from(2 * i), None, Some(&["I never said that"]))).collect();
        assert_eq!(on_screen_text(&all, 1.0, 100.0).unwrap().credits_start, None);
    }

    fn object(name: &'static str, confidence: f32, x: f32, y: f32, w: f32, h: f32) -> Detection {
        let class = kino_models::COCO_CLASSES.iter().position(|c| *c == name).unwrap() as u16;
        Detection { class, name, confidence, x, y, w, h }
    }

    #[test]
    fn the_largest_sure_boxes_other_than_people_are_read() {
        let boxes = [
            object("dog", 0.9, 0.1, 0.5, 0.2, 0.4),    // 0.08 of the frame: too small
            object("dog", 0.8, 0.5, 0.5, 0.4, 0.4),    // 0.16
            object("person", 0.9, 0.0, 0.0, 0.5, 0.9), // a person
            object("horse", 0.4, 0.0, 0.0, 0.5, 0.5),  // unsure
            object("car", 0.6, 0.0, 0.0, 0.5, 0.5),    // 0.25
            object("bus", 0.9, 0.0, 0.0, 0.95, 0.95),  // the whole frame
            object("cat", 0.7, 0.6, 0.1, 0.4, 0.3),    // 0.12
        ];
        let names: Vec<&str> = regions_to_label(&boxes).iter().map(|d| d.name).collect();
        assert_eq!(names, ["car", "dog"]);
        assert!(regions_to_label(&[]).is_empty());
    }

    #[test]
    fn crops_take_the_box_and_a_margin_inside_the_frame() {
        // A box from (160, 180) to (480, 270) of a 640x360 frame: 32 and 9 pixels of margin.
        let d = object("dog", 0.9, 0.25, 0.5, 0.5, 0.25);
        assert_eq!(region_rect(&d, 640, 360), [128, 171, 384, 108]);
        // At the frame's edges the margin is cut off.
        let corner = object("dog", 0.9, 0.0, 0.8, 0.3, 0.2);
        assert_eq!(region_rect(&corner, 640, 360), [0, 281, 211, 79]);
        let tiny = object("dog", 0.9, 1.0, 1.0, 0.0, 0.0);
        assert_eq!(region_rect(&tiny, 640, 360), [639, 359, 1, 1]);
        // The crop holds the box's pixels: a white box on black, a margin of black around it.
        let (w, h) = (64usize, 36usize);
        let mut data = vec![0u8; w * h * 3];
        for y in 9..27 {
            for x in 16..48 {
                data[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&[255; 3]);
            }
        }
        let frame = RgbFrame::new(w, h, &data).unwrap();
        let r = region_rect(&object("dog", 0.9, 0.25, 0.25, 0.5, 0.5), w, h);
        assert_eq!(r, [13, 7, 38, 22]);
        let crop = kino_models::image::crop(frame, r);
        let white = |x: usize, y: usize| crop.frame().pixel(x, y) == [255; 3];
        assert!(white(3, 2) && white(34, 19) && !white(2, 2) && !white(3, 1) && !white(35, 19) && !white(34, 20));
    }

    #[test]
    fn brightness_is_the_mean_luma() {
        let black = vec![0u8; 8 * 4 * 3];
        assert_eq!(brightness(RgbFrame::new(8, 4, &black).unwrap()), 0.0);
        let mut half = vec![0u8; 8 * 4 * 3];
        half[..8 * 2 * 3].fill(200);
        assert!((brightness(RgbFrame::new(8, 4, &half).unwrap()) - 100.0).abs() < 1e-3);
    }
}
