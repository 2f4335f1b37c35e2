//! Per-sample accumulators filled frame by frame: brightness, motion, the horizontal subject
//! centre (for 9:16), and the letterbox rows. Memory is one entry per timeline sample plus one
//! counter per analysis row; nothing grows with the number of frames.

use crate::frame::{Frame, luma_difference};

/// A frame whose mean luma differs from the previous one by more than this (0..=255) is treated as
/// a cut for motion purposes: its difference is not subject motion.
const CUT_LIKE_DIFFERENCE: f64 = 40.0;
/// Below this mean absolute luma change (0..=255) a frame has no usable motion; edges are used.
const MIN_MOTION: f64 = 0.5;

#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    frames: u32,
    luma: f64,
    chroma: f64,
    warm: f64,
    motion: f64,
    motion_weight: f64,
    motion_x: f64,
    edge_weight: f64,
    edge_x: f64,
}

/// Accumulates brightness, motion and the subject centre per timeline sample.
#[derive(Debug)]
pub struct Timelines {
    step: f64,
    samples: Vec<Sample>,
}

/// The finished per-sample values, each `samples` long.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineValues {
    /// Mean luma per sample, `[0, 1]`.
    pub brightness: Vec<f32>,
    /// Mean absolute luma change between consecutive frames, 0..=255, cuts excluded.
    pub motion: Vec<f64>,
    /// Mean chroma (the largest minus the smallest of R, G, B) per sample, `[0, 1]`.
    pub saturation: Vec<f32>,
    /// The share of the chroma in warm hues (red through yellow, and magenta-red), `[0, 1]`.
    pub warmth: Vec<f32>,
    /// Horizontal centre of motion (else of edges) per sample, smoothed, `[0, 1]`.
    pub x_center: Vec<f32>,
}

impl Timelines {
    /// Accumulators for `samples` samples of `step` seconds.
    pub fn new(step: f64, samples: usize) -> Timelines {
        Timelines { step, samples: vec![Sample::default(); samples.max(1)] }
    }

    /// Adds the frame shown at `time` seconds; `previous` is the frame before it, if any.
    pub fn push(&mut self, time: f64, frame: &Frame, previous: Option<&Frame>) {
        let last = self.samples.len() - 1;
        let i = ((time / self.step).floor().max(0.0) as usize).min(last);
        let s = &mut self.samples[i];
        s.frames += 1;
        s.luma += frame.mean_luma();
        let (chroma, warm) = colour(frame);
        s.chroma += chroma;
        s.warm += warm;
        let w = frame.width;
        if w == 0 {
            return;
        }
        let motion = previous.map(|p| luma_difference(frame, p));
        if let (Some(m), Some(p)) = (motion, previous)
            && m < CUT_LIKE_DIFFERENCE
        {
            s.motion += m;
            if m >= MIN_MOTION {
                let (mut weight, mut moment) = (0u64, 0u64);
                for (row, prev_row) in frame.luma.chunks_exact(w).zip(p.luma.chunks_exact(w)) {
                    for (x, (&a, &b)) in row.iter().zip(prev_row).enumerate() {
                        let d = u64::from(a.abs_diff(b));
                        weight += d;
                        moment += d * x as u64;
                    }
                }
                // Pixel x covers [x, x + 1): its centre is x + 0.5.
                s.motion_weight += weight as f64;
                s.motion_x += moment as f64 + 0.5 * weight as f64;
            }
        }
        let (mut weight, mut moment) = (0u64, 0u64);
        for row in frame.luma.chunks_exact(w) {
            for (x, pair) in row.windows(2).enumerate() {
                let e = u64::from(pair[0].abs_diff(pair[1]));
                weight += e;
                moment += e * (x as u64 + 1);
            }
        }
        s.edge_weight += weight as f64;
        s.edge_x += moment as f64;
    }

    /// Finishes the timelines; `width` is the analysis frame width. Samples no frame fell into
    /// (the very end) repeat the previous sample.
    pub fn finish(self, width: usize) -> TimelineValues {
        let width = width.max(1) as f64;
        let n = self.samples.len();
        let (mut brightness, mut motion, mut raw_x) =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut saturation, mut warmth) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut last_b, mut last_x, mut last_s, mut last_w) = (0.0, 0.5, 0.0, 0.0);
        for s in &self.samples {
            if s.frames > 0 {
                last_b = s.luma / f64::from(s.frames);
                last_s = s.chroma / f64::from(s.frames);
                last_w = s.warm / f64::from(s.frames);
                last_x = if s.motion_weight > 0.0 {
                    s.motion_x / s.motion_weight / width
                } else if s.edge_weight > 0.0 {
                    s.edge_x / s.edge_weight / width
                } else {
                    0.5
                };
                motion.push(s.motion / f64::from(s.frames));
            } else {
                motion.push(motion.last().copied().unwrap_or(0.0));
            }
            brightness.push(round4(last_b));
            saturation.push(round4(last_s));
            warmth.push(round4(last_w));
            raw_x.push(last_x);
        }
        let x_center = smooth(&raw_x, 2).into_iter().map(round4).collect();
        TimelineValues { brightness, motion, saturation, warmth, x_center }
    }
}

/// A frame's mean chroma in `[0, 1]`, and the share of its chroma in warm hues: hue below 60
/// degrees (reds, oranges, yellows) or above 330 (magenta-reds), the warm half of the colour
/// wheel as lighting is described.
fn colour(frame: &Frame) -> (f64, f64) {
    let (mut chroma, mut warm) = (0u64, 0u64);
    for (&c, &h) in frame.chroma.iter().zip(&frame.hue) {
        chroma += u64::from(c);
        // Hue is in 256ths of the circle: 60 degrees is 42.7, 330 is 234.7.
        if !(43..235).contains(&h) {
            warm += u64::from(c);
        }
    }
    let pixels = frame.chroma.len().max(1) as f64;
    let share = if chroma > 0 { warm as f64 / chroma as f64 } else { 0.0 };
    (chroma as f64 / 255.0 / pixels, share)
}

/// Centred moving average with `radius` samples on each side (fewer at the ends).
pub fn smooth(values: &[f64], radius: usize) -> Vec<f64> {
    (0..values.len())
        .map(|i| {
            let lo = i.saturating_sub(radius);
            let hi = (i + radius + 1).min(values.len());
            values[lo..hi].iter().sum::<f64>() / (hi - lo) as f64
        })
        .collect()
}

fn round4(x: f64) -> f32 {
    ((x.clamp(0.0, 1.0) * 10_000.0).round() / 10_000.0) as f32
}

/// Letterbox detection: counts, per analysis row, the lit frames in which the row is black.
#[derive(Debug)]
pub struct BlackBars {
    dark_rows: Vec<u32>,
    lit_frames: u32,
}

impl BlackBars {
    /// A row is black when its mean luma is at most this and no pixel exceeds twice it (0..=255).
    const ROW_DARK: u32 = 20;
    /// Frames darker than this mean luma (0..=255) are skipped: everything is black in them.
    const LIT_FRAME: f64 = 0.08;
    /// A row belongs to a bar when it is black in at least this fraction of lit frames.
    const BAR_FRACTION: f64 = 0.98;

    /// An accumulator for frames of `height` rows.
    pub fn new(height: usize) -> BlackBars {
        BlackBars { dark_rows: vec![0; height], lit_frames: 0 }
    }

    /// Adds a frame.
    pub fn push(&mut self, frame: &Frame) {
        if frame.width == 0 || frame.mean_luma() < Self::LIT_FRAME {
            return;
        }
        self.lit_frames += 1;
        for (count, row) in self.dark_rows.iter_mut().zip(frame.luma.chunks_exact(frame.width)) {
            let sum: u32 = row.iter().map(|&v| u32::from(v)).sum();
            let max = row.iter().copied().max().unwrap_or(0);
            if sum <= Self::ROW_DARK * row.len() as u32 && u32::from(max) <= 2 * Self::ROW_DARK {
                *count += 1;
            }
        }
    }

    /// `[top, bottom]` bar rows scaled to a source of `source_height` rows (rounded down, so a bar
    /// is never overstated); `[0, 0]` when no lit frame was seen or bars would cover the picture.
    pub fn finish(&self, source_height: u32) -> [u32; 2] {
        let rows = self.dark_rows.len();
        if self.lit_frames == 0 || rows == 0 {
            return [0, 0];
        }
        let is_bar = |c: &u32| f64::from(*c) >= Self::BAR_FRACTION * f64::from(self.lit_frames);
        let top = self.dark_rows.iter().take_while(|c| is_bar(c)).count();
        let bottom = self.dark_rows.iter().rev().take_while(|c| is_bar(c)).count();
        if top + bottom >= rows {
            return [0, 0];
        }
        let scale = |r: usize| (r as u64 * u64::from(source_height) / rows as u64) as u32;
        [scale(top), scale(bottom)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letterboxed(w: usize, h: usize, bar: usize, x_bright: usize) -> Frame {
        let mut rgb = vec![0u8; w * h * 3];
        for y in bar..h - bar {
            for x in 0..w {
                let v = if x == x_bright { 250 } else { 90 };
                rgb[(y * w + x) * 3..][..3].copy_from_slice(&[v, v, v]);
            }
        }
        Frame::from_rgb24(w, h, &rgb)
    }

    #[test]
    fn letterbox_rows_scale_to_the_source() {
        let mut bars = BlackBars::new(90);
        for _ in 0..10 {
            bars.push(&letterboxed(160, 90, 11, 5));
        }
        bars.push(&Frame::solid(160, 90, [0, 0, 0]));
        assert_eq!(bars.finish(720), [88, 88]);
        assert_eq!(BlackBars::new(90).finish(720), [0, 0]);
    }

    #[test]
    fn x_center_follows_the_moving_subject() {
        let mut t = Timelines::new(1.0, 4);
        let mut previous: Option<Frame> = None;
        for k in 0..40 {
            let time = k as f64 / 10.0;
            let x = if time < 2.0 { 20 } else { 140 };
            // A bright column that jitters by a pixel: motion sits at x.
            let f = letterboxed(160, 90, 0, x + k % 2);
            t.push(time, &f, previous.as_ref());
            previous = Some(f);
        }
        let v = t.finish(160);
        assert_eq!(v.brightness.len(), 4);
        assert!(v.x_center[0] < 0.45 && v.x_center[3] > 0.55, "{:?}", v.x_center);
        assert!(v.brightness.iter().all(|&b| b > 0.3 && b < 0.4));
    }
}
