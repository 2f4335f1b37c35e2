//! CTC text recognition around the model: line crops at the model's height, batches of similar
//! width, and greedy CTC decoding, ported from rapidocr 3.10.0's `ch_ppocr_rec` (`TextRecognizer`,
//! `resize_norm_img`, `CTCLabelDecode`).

use crate::image::{RgbFrame, RgbImage, resize_bilinear};

use super::detect::{TextBox, planar_bgr};

/// The model's input height in pixels.
pub const LINE_HEIGHT: usize = 48;
/// A batch is at least this wide (rapidocr's `rec_img_shape` `[3, 48, 320]`): narrower crops are
/// padded to it.
pub const MIN_LINE_WIDTH: usize = 320;
/// Crops wider than this (aspect above 40) are squeezed to it, which bounds the cost of one line
/// (rapidocr has no cap; a full-width line of a 1080p frame is about 1,500 pixels at height 48).
pub const MAX_LINE_WIDTH: usize = 1920;
/// At most this many lines per model call (`rec_batch_num`).
pub const BATCH: usize = 6;

/// A crop of the box from `frame`, resized to [`LINE_HEIGHT`] keeping its aspect (width rounded
/// up, at most [`MAX_LINE_WIDTH`]). A crop at least 1.5 times taller than wide is turned a quarter
/// counter-clockwise first (vertical text, as rapidocr's `get_rotate_crop_image`).
pub fn line_image(frame: RgbFrame<'_>, b: &TextBox) -> RgbImage {
    let (fw, fh) = (frame.width as f64, frame.height as f64);
    let region = [f64::from(b.x) * fw, f64::from(b.y) * fh, f64::from(b.w) * fw, f64::from(b.h) * fh];
    // rapidocr truncates the crop's size to whole pixels.
    let (cw, ch) = (region[2].floor().max(1.0), region[3].floor().max(1.0));
    if ch / cw >= 1.5 {
        let crop = resize_bilinear(frame, region, cw as usize, ch as usize);
        let turned = rotate_counter_clockwise(&crop);
        let whole = [0.0, 0.0, turned.width as f64, turned.height as f64];
        return resize_bilinear(turned.frame(), whole, scaled_width(turned.width, turned.height), LINE_HEIGHT);
    }
    resize_bilinear(frame, region, scaled_width(cw as usize, ch as usize), LINE_HEIGHT)
}

/// `ceil(48 * w / h)`, capped.
fn scaled_width(w: usize, h: usize) -> usize {
    ((LINE_HEIGHT as f64 * w as f64 / h as f64).ceil() as usize).clamp(1, MAX_LINE_WIDTH)
}

/// numpy's `rot90`: the right column becomes the top row.
fn rotate_counter_clockwise(img: &RgbImage) -> RgbImage {
    let (w, h) = (img.width, img.height);
    let mut data = vec![0u8; w * h * 3];
    for y in 0..w {
        for x in 0..h {
            let src = (x * w + (w - 1 - y)) * 3;
            data[(y * h + x) * 3..][..3].copy_from_slice(&img.data[src..src + 3]);
        }
    }
    RgbImage { width: h, height: w, data }
}

/// Indices of `lines` grouped into model calls: sorted by width (so each batch pads little), then
/// [`BATCH`] at a time.
pub fn batches(lines: &[RgbImage]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| lines[i].width);
    order.chunks(BATCH).map(<[usize]>::to_vec).collect()
}

/// The `[n, 3, 48, width]` input of one batch and its width: each line normalised like the
/// detector's input (BGR, `(v / 255 - 0.5) / 0.5`), left-aligned, and padded with zeros (rapidocr
/// pads after normalising, so the padding is mid-grey) to the widest line, at least
/// [`MIN_LINE_WIDTH`].
pub fn batch_tensor(lines: &[&RgbImage]) -> (Vec<f32>, usize) {
    let width = lines.iter().map(|l| l.width).max().unwrap_or(0).max(MIN_LINE_WIDTH);
    let plane = LINE_HEIGHT * width;
    let mut data = vec![0f32; lines.len() * 3 * plane];
    for (n, line) in lines.iter().enumerate() {
        let planar = planar_bgr(&line.data, line.width * LINE_HEIGHT);
        for c in 0..3 {
            for y in 0..LINE_HEIGHT {
                let src = &planar[c * line.width * LINE_HEIGHT + y * line.width..][..line.width];
                data[n * 3 * plane + c * plane + y * width..][..line.width].copy_from_slice(src);
            }
        }
    }
    (data, width)
}

/// Greedy CTC decoding of one line's `[steps, classes]` probabilities: the most likely class at
/// each step, repeats collapsed, the blank (class 0) dropped; class `k` is `characters[k - 1]`.
/// The score is the mean probability of the kept steps (0 when none is kept).
pub fn ctc_greedy(probs: &[f32], classes: usize, characters: &[String]) -> (String, f32) {
    let mut text = String::new();
    let (mut sum, mut kept) = (0f64, 0usize);
    let mut previous = usize::MAX;
    for step in probs.chunks_exact(classes) {
        let (best, p) =
            step.iter().enumerate().fold((0, f32::MIN), |acc, (k, &p)| if p > acc.1 { (k, p) } else { acc });
        if best != 0
            && best != previous
            && let Some(c) = characters.get(best - 1)
        {
            text.push_str(c);
            sum += f64::from(p);
            kept += 1;
        }
        previous = best;
    }
    (text, if kept == 0 { 0.0 } else { (sum / kept as f64) as f32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<String> {
        s.chars().map(String::from).collect()
    }

    /// One-hot rows over 4 classes (blank, a, b, space) with probability 0.9.
    fn steps(classes: &[usize]) -> Vec<f32> {
        classes.iter().flat_map(|&k| (0..4).map(move |j| if j == k { 0.9 } else { 0.1 / 3.0 })).collect()
    }

    #[test]
    fn ctc_collapses_repeats_and_drops_blanks() {
        let dict = chars("ab ");
        assert_eq!(ctc_greedy(&steps(&[1, 1, 0, 1, 2, 2, 3, 0, 2]), 4, &dict).0, "aab b");
        let (text, score) = ctc_greedy(&steps(&[0, 0, 0]), 4, &dict);
        assert_eq!((text.as_str(), score), ("", 0.0));
        assert!((ctc_greedy(&steps(&[1, 0, 2]), 4, &dict).1 - 0.9).abs() < 1e-6);
    }

    #[test]
    fn lines_keep_their_aspect_at_height_48() {
        let frame_data = vec![128u8; 200 * 100 * 3];
        let frame = RgbFrame::new(200, 100, &frame_data).unwrap();
        // 100 x 25 pixels.
        let b = TextBox { x: 0.1, y: 0.1, w: 0.5, h: 0.25, score: 1.0 };
        let line = line_image(frame, &b);
        assert_eq!((line.width, line.height), (192, 48));
        // Tall boxes are turned: 10 wide, 40 high becomes 40 wide, 10 high.
        let tall = TextBox { x: 0.0, y: 0.0, w: 0.05, h: 0.4, score: 1.0 };
        assert_eq!(line_image(frame, &tall).width, 192);
        // Very long boxes are capped.
        let long_data = vec![0u8; 4000 * 20 * 3];
        let long = RgbFrame::new(4000, 20, &long_data).unwrap();
        let all = TextBox { x: 0.0, y: 0.0, w: 1.0, h: 1.0, score: 1.0 };
        assert_eq!(line_image(long, &all).width, MAX_LINE_WIDTH);
    }

    #[test]
    fn rotation_turns_the_right_column_to_the_top_row() {
        // 2 x 1: red, green. Turned: 1 x 2, green above red.
        let img = RgbImage { width: 2, height: 1, data: vec![255, 0, 0, 0, 255, 0] };
        let r = rotate_counter_clockwise(&img);
        assert_eq!((r.width, r.height, r.data), (1, 2, vec![0, 255, 0, 255, 0, 0]));
    }

    #[test]
    fn batches_group_similar_widths_and_pad_with_zeros() {
        let line = |w: usize| RgbImage { width: w, height: LINE_HEIGHT, data: vec![255; w * LINE_HEIGHT * 3] };
        let lines: Vec<RgbImage> = [500, 10, 400, 20, 30, 40, 50, 60].into_iter().map(line).collect();
        assert_eq!(batches(&lines), vec![vec![1, 3, 4, 5, 6, 7], vec![2, 0]]);
        let (data, width) = batch_tensor(&[&lines[1], &lines[0]]);
        assert_eq!(width, 500);
        assert_eq!(data.len(), 2 * 3 * LINE_HEIGHT * 500);
        // Line 0 (10 wide): white then padding on each row of each plane.
        assert_eq!(&data[..11], &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]);
        assert!(data[3 * LINE_HEIGHT * 500..].iter().all(|&v| v == 1.0));
        assert_eq!(batch_tensor(&[&lines[1]]).1, MIN_LINE_WIDTH);
    }
}
