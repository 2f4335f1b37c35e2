//! The picture fingerprint of a title: one 32-bit perceptual hash of the frame shown every
//! [`HOP`] seconds, computed on the small analysis frames the pass already decodes.
//!
//! The frame's luma is averaged over a grid of 8 columns and 4 rows of cells; bit `i` (cells in
//! row order, from the top left) is 1 when cell `i` is brighter than the median of the 32 cells by
//! more than [`MARGIN`] (so that a flat background, many cells at the median, does not flip with
//! noise). Such a hash is an "average hash" with a median threshold: every hash has about half
//! its bits set, and it survives re-encoding, scaling, brightness and contrast changes and small
//! motion, while unrelated pictures differ in about 16 of the 32 bits. A blank frame (black, or
//! one flat colour: its brightest and darkest cells less than [`BLANK_CONTRAST`] luma levels
//! apart) hashes to 0, which matching ignores, as it ignores silence in the audio fingerprint.
//! Matching lives in the core (`kino::markers` aligns these hashes across a season's episodes).

use kino::signals::PictureFingerprint;

use crate::frame::Frame;

/// Seconds between hashes (the audio fingerprint's spacing, so both align the same way).
pub const HOP: f64 = 0.1;
/// Columns of the hash grid.
const COLUMNS: usize = 8;
/// Rows of the hash grid.
const ROWS: usize = 4;
/// Luma levels by which a cell must exceed the median to set its bit.
pub const MARGIN: f64 = 1.0;
/// Luma levels (of 255) between the brightest and darkest cell under which a frame is blank.
pub const BLANK_CONTRAST: f64 = 10.0;

/// The hash of one frame (0 for a blank one).
pub fn picture_hash(frame: &Frame) -> u32 {
    let (w, h) = (frame.width, frame.height);
    if w < COLUMNS || h < ROWS || frame.luma.len() < w * h {
        return 0;
    }
    let mut cells = [0.0f64; COLUMNS * ROWS];
    for (r, row_cells) in cells.chunks_exact_mut(COLUMNS).enumerate() {
        let (y0, y1) = (r * h / ROWS, (r + 1) * h / ROWS);
        for (c, cell) in row_cells.iter_mut().enumerate() {
            let (x0, x1) = (c * w / COLUMNS, (c + 1) * w / COLUMNS);
            let sum: u64 =
                (y0..y1).flat_map(|y| frame.luma[y * w + x0..y * w + x1].iter()).map(|&v| u64::from(v)).sum();
            *cell = sum as f64 / ((y1 - y0) * (x1 - x0)) as f64;
        }
    }
    let mut sorted = cells;
    sorted.sort_by(f64::total_cmp);
    if sorted[COLUMNS * ROWS - 1] - sorted[0] < BLANK_CONTRAST {
        return 0;
    }
    let median = (sorted[COLUMNS * ROWS / 2 - 1] + sorted[COLUMNS * ROWS / 2]) / 2.0;
    cells.iter().enumerate().filter(|&(_, &v)| v > median + MARGIN).fold(0u32, |hash, (i, _)| hash | (1 << i))
}

/// Computes the fingerprint of the analysis frames, pushed in order.
#[derive(Debug)]
pub struct PictureHasher {
    /// Seconds a frame is shown.
    frame_seconds: f64,
    hashes: Vec<u32>,
}

impl PictureHasher {
    /// A hasher for frames `1 / rate` seconds apart.
    pub fn new(rate: f64) -> PictureHasher {
        PictureHasher { frame_seconds: 1.0 / rate.max(1e-3), hashes: Vec::new() }
    }

    /// The frame shown from `time`: it gives the hash of every hop instant it covers.
    pub fn push(&mut self, time: f64, frame: &Frame) {
        let until = time + self.frame_seconds;
        let mut hash = None;
        while (self.hashes.len() as f64) * HOP < until - 1e-9 {
            let h = *hash.get_or_insert_with(|| picture_hash(frame));
            self.hashes.push(h);
        }
    }

    /// The fingerprint of a video of `duration` seconds (at most one hash per hop, plus one).
    pub fn finish(mut self, duration: f64) -> PictureFingerprint {
        self.hashes.truncate((duration.max(0.0) / HOP).floor() as usize + 1);
        PictureFingerprint { hop: HOP, hashes: self.hashes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame with a bright rectangle over `x` columns and `y` rows (fractions) on `base`.
    fn scene(base: u8, x: (f64, f64), y: (f64, f64), noise: u64) -> Frame {
        let (w, h) = (64, 36);
        let mut rgb = Vec::with_capacity(w * h * 3);
        let mut state = noise.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for r in 0..h {
            for c in 0..w {
                let inside = (x.0..x.1).contains(&(c as f64 / w as f64)) && (y.0..y.1).contains(&(r as f64 / h as f64));
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let jitter = if noise == 0 { 0 } else { (state % 7) as i32 - 3 };
                let v = (if inside { 200 } else { i32::from(base) } + jitter).clamp(0, 255) as u8;
                rgb.extend_from_slice(&[v, v, v]);
            }
        }
        Frame::from_rgb24(w, h, &rgb)
    }

    #[test]
    fn the_same_picture_hashes_alike_and_another_unlike() {
        let a = picture_hash(&scene(40, (0.1, 0.5), (0.0, 0.6), 0));
        let noisy = picture_hash(&scene(44, (0.1, 0.5), (0.0, 0.6), 3));
        let other = picture_hash(&scene(40, (0.55, 0.95), (0.4, 1.0), 0));
        assert_ne!(a, 0);
        assert!((a ^ noisy).count_ones() <= 2, "{a:032b} {noisy:032b}");
        assert!((a ^ other).count_ones() >= 10, "{a:032b} {other:032b}");
    }

    #[test]
    fn blank_frames_hash_to_zero() {
        assert_eq!(picture_hash(&Frame::solid(64, 36, [0, 0, 0])), 0);
        assert_eq!(picture_hash(&Frame::solid(64, 36, [30, 90, 200])), 0);
        assert_eq!(picture_hash(&Frame::solid(4, 2, [255, 255, 255])), 0, "too small to grid");
    }

    #[test]
    fn one_hash_per_hop_from_the_frame_shown_then() {
        // 24 frames a second for 1 s: a black first half, then a picture.
        let mut hasher = PictureHasher::new(24.0);
        let picture = scene(40, (0.1, 0.5), (0.0, 0.6), 0);
        let black = Frame::solid(64, 36, [0, 0, 0]);
        for f in 0..24 {
            let t = f as f64 / 24.0;
            hasher.push(t, if t < 0.5 { &black } else { &picture });
        }
        let fp = hasher.finish(1.0);
        assert_eq!(fp.hop, HOP);
        assert_eq!(fp.hashes.len(), 10, "instants 0.0 to 0.9 (the frame covering 1.0 was never pushed)");
        assert!(fp.hashes[..5].iter().all(|&h| h == 0));
        assert!(fp.hashes[5..].iter().all(|&h| h == picture_hash(&picture)));
        let short = {
            let mut h = PictureHasher::new(24.0);
            (0..48).for_each(|f| h.push(f as f64 / 24.0, &picture));
            h.finish(1.0)
        };
        assert_eq!(short.hashes.len(), 11, "at most one hash per hop of the duration, plus one");
    }
}
