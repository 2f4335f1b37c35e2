//! DB text detection around the model: the input tensor (resize, normalise) and the boxes from the
//! probability map (threshold, dilation, connected components, box score, unclip), ported from
//! rapidocr 3.10.0's `ch_ppocr_det/utils.py` (`DetPreProcess`, `DBPostProcess`) with axis-aligned
//! rectangles in place of rotated ones.

use crate::image::{RgbFrame, resize_bilinear};

/// A detected text region: an axis-aligned rectangle in fractions of the frame's width (`x`, `w`)
/// and height (`y`, `h`), and the detector's mean text probability inside it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextBox {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    /// Mean probability of the detector's map inside the (not yet expanded) region, in [0, 1].
    pub score: f32,
}

/// The longer side of the detection input is at most this many pixels (rapidocr's `limit_type:
/// max` with PaddleOCR's usual 960; rapidocr's own default instead scales the *shorter* side up to
/// 736, four times the work on a 640x360 frame for the same boxes, see `docs/models.md`).
pub const DETECTION_MAX_SIDE: usize = 960;
/// A map pixel above this probability is text (`thresh`).
pub const PIXEL_THRESHOLD: f32 = 0.3;
/// A box whose mean probability is below this is dropped (`box_thresh`).
pub const BOX_THRESHOLD: f32 = 0.5;
/// Boxes grow by `area * UNCLIP_RATIO / perimeter` on every side (`unclip_ratio`): DB predicts
/// shrunk text regions.
pub const UNCLIP_RATIO: f32 = 1.6;
/// Components whose shorter side is below this many map pixels are dropped (`min_size`).
const MIN_SIZE: f32 = 3.0;
/// At most this many components are scored (`max_candidates`).
const MAX_CANDIDATES: usize = 1000;
/// Boxes whose tops are closer than this many frame pixels are one line when sorting.
const SAME_LINE_PIXELS: f32 = 10.0;

/// The detection input size for a `width x height` frame: the longer side at most
/// [`DETECTION_MAX_SIDE`], each side rounded to a multiple of 32 (at least 32).
pub fn input_size(width: usize, height: usize) -> (usize, usize) {
    let longer = width.max(height);
    let ratio = if longer > DETECTION_MAX_SIDE { DETECTION_MAX_SIDE as f64 / longer as f64 } else { 1.0 };
    // rapidocr: `int(h * ratio)`, then `round(h / 32) * 32` (Python rounds halves to even; a
    // side of 16 + 32k pixels is the only case, and both neighbours are valid sizes).
    let side = |n: usize| ((((n as f64 * ratio).floor() / 32.0).round() as usize) * 32).max(32);
    (side(width), side(height))
}

/// The `[1, 3, h, w]` input tensor's data: the frame resized to `(w, h)`, channels in BGR order
/// (the PaddleOCR models were trained on OpenCV's BGR images), each value `(v / 255 - 0.5) / 0.5`.
pub fn input_tensor(frame: RgbFrame<'_>, (w, h): (usize, usize)) -> Vec<f32> {
    let resized = resize_bilinear(frame, [0.0, 0.0, frame.width as f64, frame.height as f64], w, h);
    planar_bgr(&resized.data, w * h)
}

/// Packed RGB bytes to planar B, G, R floats in [-1, 1].
pub(super) fn planar_bgr(rgb: &[u8], pixels: usize) -> Vec<f32> {
    let mut out = vec![0f32; 3 * pixels];
    for (i, px) in rgb.chunks_exact(3).enumerate() {
        for (plane, channel) in [2, 1, 0].into_iter().enumerate() {
            out[plane * pixels + i] = f32::from(px[channel]) / 127.5 - 1.0;
        }
    }
    out
}

/// Text boxes from the `map_w x map_h` probability map, in fractions of the frame, sorted top to
/// bottom and, within a line, left to right. `frame` is the frame's size in pixels.
pub fn boxes(prob: &[f32], map_w: usize, map_h: usize, frame: (usize, usize)) -> Vec<TextBox> {
    let mask = dilate(&threshold(prob), map_w, map_h);
    let (frame_w, frame_h) = (frame.0 as f32, frame.1 as f32);
    let mut out = Vec::new();
    for [x0, y0, x1, y1] in components(&mask, map_w, map_h).into_iter().take(MAX_CANDIDATES) {
        // The component's pixel centres span x0..=x1: OpenCV's minimum-area rectangle of its
        // contour is (x1 - x0) x (y1 - y0).
        let (w, h) = ((x1 - x0) as f32, (y1 - y0) as f32);
        if w.min(h) < MIN_SIZE {
            continue;
        }
        let score = mean(prob, map_w, [x0, y0, x1, y1]);
        if score < BOX_THRESHOLD {
            continue;
        }
        // pyclipper's round-joined offset of a rectangle by d has the rectangle grown by d on
        // every side as its minimum-area rectangle.
        let d = w * h * UNCLIP_RATIO / (2.0 * (w + h));
        if w.min(h) + 2.0 * d < MIN_SIZE + 2.0 {
            continue;
        }
        // Map to frame pixels as rapidocr does: scale, round, clip to the frame, then to the last
        // pixel (`clip_det_res`), and drop boxes of 3 pixels or fewer on a side.
        let to_x = |x: f32| (x / map_w as f32 * frame_w).round().clamp(0.0, frame_w - 1.0);
        let to_y = |y: f32| (y / map_h as f32 * frame_h).round().clamp(0.0, frame_h - 1.0);
        let (bx0, bx1) = (to_x(x0 as f32 - d), to_x(x1 as f32 + d));
        let (by0, by1) = (to_y(y0 as f32 - d), to_y(y1 as f32 + d));
        if bx1 - bx0 <= 3.0 || by1 - by0 <= 3.0 {
            continue;
        }
        out.push(TextBox {
            x: bx0 / frame_w,
            y: by0 / frame_h,
            w: (bx1 - bx0) / frame_w,
            h: (by1 - by0) / frame_h,
            score,
        });
    }
    sort_reading_order(&mut out, frame_h);
    out
}

fn threshold(prob: &[f32]) -> Vec<bool> {
    prob.iter().map(|&p| p > PIXEL_THRESHOLD).collect()
}

/// OpenCV's `dilate` with a 2x2 kernel of ones (anchor at its centre, (1, 1)): a pixel is set
/// when it or its left, upper or upper-left neighbour is.
fn dilate(mask: &[bool], w: usize, h: usize) -> Vec<bool> {
    let mut out = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let at = |xx: usize, yy: usize| mask[yy * w + xx];
            out[y * w + x] =
                at(x, y) || (x > 0 && at(x - 1, y)) || (y > 0 && at(x, y - 1)) || (x > 0 && y > 0 && at(x - 1, y - 1));
        }
    }
    out
}

/// Bounding boxes `[x0, y0, x1, y1]` (inclusive pixel indices) of the 8-connected components of
/// `mask` (the connectivity of OpenCV's contours), in raster order of their first pixel.
fn components(mask: &[bool], w: usize, h: usize) -> Vec<[usize; 4]> {
    let mut seen = vec![false; w * h];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    for start in 0..w * h {
        if !mask[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut bounds = [start % w, start / w, start % w, start / w];
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            bounds = [bounds[0].min(x), bounds[1].min(y), bounds[2].max(x), bounds[3].max(y)];
            for ny in y.saturating_sub(1)..=(y + 1).min(h - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(w - 1) {
                    let j = ny * w + nx;
                    if mask[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        out.push(bounds);
    }
    out
}

/// Mean of `prob` over the inclusive rectangle (rapidocr's `box_score_fast` on an axis-aligned box).
fn mean(prob: &[f32], w: usize, [x0, y0, x1, y1]: [usize; 4]) -> f32 {
    let mut sum = 0f64;
    for y in y0..=y1 {
        sum += prob[y * w + x0..=y * w + x1].iter().map(|&p| f64::from(p)).sum::<f64>();
    }
    (sum / ((x1 - x0 + 1) * (y1 - y0 + 1)) as f64) as f32
}

/// rapidocr's `sorted_boxes`: by top edge, then boxes whose tops differ by less than 10 pixels
/// from the previous one in that order form a line, read left to right.
fn sort_reading_order(boxes: &mut [TextBox], frame_h: f32) {
    boxes.sort_by(|a, b| a.y.total_cmp(&b.y));
    let mut line = 0usize;
    let mut keyed: Vec<(usize, TextBox)> = Vec::with_capacity(boxes.len());
    for (i, b) in boxes.iter().enumerate() {
        if i > 0 && (b.y - boxes[i - 1].y) * frame_h >= SAME_LINE_PIXELS {
            line += 1;
        }
        keyed.push((line, *b));
    }
    keyed.sort_by(|(la, a), (lb, b)| la.cmp(lb).then(a.x.total_cmp(&b.x)));
    for (slot, (_, b)) in boxes.iter_mut().zip(keyed) {
        *slot = b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_sizes_are_multiples_of_32_within_the_limit() {
        assert_eq!(input_size(640, 360), (640, 352));
        assert_eq!(input_size(1920, 1080), (960, 544));
        assert_eq!(input_size(1280, 720), (960, 544));
        assert_eq!(input_size(10, 10), (32, 32));
        assert_eq!(input_size(720, 1280), (544, 960));
    }

    #[test]
    fn normalisation_is_planar_bgr_in_minus_one_to_one() {
        let px = [255u8, 0, 51, 0, 255, 255];
        let t = planar_bgr(&px, 2);
        // B plane, G plane, R plane.
        assert_eq!(t, vec![-0.6, 1.0, -1.0, 1.0, 1.0, -1.0]);
    }

    #[test]
    fn dilation_extends_right_and_down() {
        let mut m = vec![false; 9];
        m[4] = true;
        let d = dilate(&m, 3, 3);
        let set: Vec<usize> = (0..9).filter(|&i| d[i]).collect();
        assert_eq!(set, vec![4, 5, 7, 8]);
    }

    #[test]
    fn components_are_eight_connected() {
        // Two diagonal pixels are one component; a pixel two columns away is another.
        #[rustfmt::skip]
        let m = [
            true, false, false, true,
            false, true, false, false,
        ];
        assert_eq!(components(&m, 4, 2), vec![[0, 0, 1, 1], [3, 0, 3, 0]]);
    }

    /// A map with one block of probability 0.9 at map pixels [20, 40) x [10, 18) on a 100 x 50
    /// map, for a 200 x 100 frame.
    fn block_map() -> Vec<f32> {
        let mut prob = vec![0.05f32; 100 * 50];
        for y in 10..18 {
            for x in 20..40 {
                prob[y * 100 + x] = 0.9;
            }
        }
        prob
    }

    #[test]
    fn a_block_becomes_one_unclipped_box() {
        let found = boxes(&block_map(), 100, 50, (200, 100));
        assert_eq!(found.len(), 1);
        let b = found[0];
        // Dilated: pixels 20..=40 x 10..=18, so the rectangle is 20 x 8 map pixels; the score
        // mixes the block (160 pixels at 0.9) with the dilated rim (29 pixels at 0.05).
        let score = (160.0 * 0.9 + 29.0 * 0.05) / 189.0;
        assert!((b.score - score).abs() < 1e-5, "{}", b.score);
        let d = 20.0 * 8.0 * 1.6 / 56.0;
        let px = |v: f32| (v * 2.0).round();
        assert_eq!([b.x * 200.0, b.w * 200.0], [px(20.0 - d), px(40.0 + d) - px(20.0 - d)]);
        assert_eq!([b.y * 100.0, b.h * 100.0], [px(10.0 - d), px(18.0 + d) - px(10.0 - d)]);
    }

    #[test]
    fn weak_and_thin_regions_give_no_box() {
        let mut prob = vec![0.05f32; 100 * 50];
        // Above the pixel threshold but below the box threshold.
        for y in 10..18 {
            for x in 20..40 {
                prob[y * 100 + x] = 0.4;
            }
        }
        // Strong but one pixel high (two after dilation).
        for x in 50..90 {
            prob[30 * 100 + x] = 0.95;
        }
        assert!(boxes(&prob, 100, 50, (200, 100)).is_empty());
        assert!(boxes(&[0.0; 64 * 32], 64, 32, (64, 32)).is_empty());
    }

    #[test]
    fn boxes_read_in_lines_left_to_right() {
        let b = |x: f32, y: f32| TextBox { x, y, w: 0.1, h: 0.05, score: 1.0 };
        let mut v = vec![b(0.5, 0.52), b(0.6, 0.1), b(0.1, 0.11), b(0.1, 0.5)];
        sort_reading_order(&mut v, 100.0);
        let order: Vec<(f32, f32)> = v.iter().map(|t| (t.x, t.y)).collect();
        assert_eq!(order, vec![(0.1, 0.11), (0.6, 0.1), (0.1, 0.5), (0.5, 0.52)]);
    }
}
