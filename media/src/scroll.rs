//! Rolling credits in the analysis frames: stretches where the whole picture moves steadily up,
//! as lines of text scrolling up a screen do.
//!
//! Each analysis frame (shrunk to at most [`MAX_WIDTH`] columns by averaging square blocks) is
//! compared with the one shown [`LAG`] seconds before it: the earlier frame is shifted up or down
//! by up to [`search_rows`] rows, and the shift whose rows differ least (the sum of absolute luma
//! differences over the rows every shift covers) is the pair's motion. A pair *moves up* when that
//! shift is upward and its difference is more than [`SCROLL_GAIN`] below the unshifted one's (so
//! that a still frame, a flat frame or noise does not move). Each second of the video (from 0, a
//! pair counting in the second of its middle) in which at least [`SCROLL_SHARE`] of the pairs move
//! up scrolls; consecutive such seconds, at least [`SCROLL_MIN`] seconds of them, are a `scroll`
//! cue (whole seconds, the last one cut at the end of the video).
//!
//! Comparing whole frames, not their row means, is what makes the rule work on a real roll: the
//! many small lines of a name list are evenly spaced, so a row profile shifted by one line looks
//! like the next one (on Big Buck Bunny's roll the row profile gave the wrong direction), while
//! the lines' words do not line up column by column. Comparing frames [`LAG`] apart, not
//! neighbours, is what lets a slow roll be seen: a shift under half a row between neighbours loses
//! to no shift. The figures are in `docs/media.md` ("Technical cues", and "Credits in the picture,
//! and a mid-credits scene").

use std::collections::VecDeque;

use kino::signals::VisualCue;

use crate::frame::Frame;

/// A second scrolls when at least this share of its frame pairs move up.
pub const SCROLL_SHARE: f64 = 0.6;
/// Scrolling seconds fewer than this together are no cue.
pub const SCROLL_MIN: f64 = 3.0;
/// A pair moves only when its best shift's difference is more than this share below the unshifted
/// one's.
pub const SCROLL_GAIN: f64 = 0.01;
/// Seconds between the frames compared (at least one frame apart).
pub const LAG: f64 = 0.25;
/// The fastest roll followed, in frame heights per second (a roll faster than half a screen a
/// second cannot be read).
pub const MAX_SPEED: f64 = 0.5;
/// Frames are compared at most this wide: wider ones are shrunk by averaging square blocks, so
/// that the search costs the same at any analysis width.
pub const MAX_WIDTH: usize = 160;

/// The rows a pair of frames `height` rows high and `seconds` apart is searched over: as far as a
/// roll of [`MAX_SPEED`] moves, at least 1 row and at most a quarter of the height.
pub fn search_rows(height: usize, seconds: f64) -> usize {
    let rows = (MAX_SPEED * height as f64 * seconds.max(0.0)).ceil() as usize;
    rows.clamp(1, (height / 4).max(1))
}

/// Whether `now` shows `before`'s content moved up (both `width` x `height` luma, row order),
/// searching `rows` rows each way.
pub fn moves_up(before: &[u8], now: &[u8], width: usize, height: usize, rows: usize) -> bool {
    if width == 0 || height <= 2 * rows || before.len() < width * height || now.len() < width * height {
        return false;
    }
    // now[y] against before[y + shift], over the rows every shift covers.
    let difference = |shift: isize| -> u64 {
        (rows..height - rows)
            .map(|y| {
                let from = (y as isize + shift) as usize * width;
                let a = &before[from..from + width];
                let b = &now[y * width..(y + 1) * width];
                a.iter().zip(b).map(|(&p, &q)| u32::from(p.abs_diff(q))).sum::<u32>() as u64
            })
            .sum()
    };
    let still = difference(0);
    let rows = rows as isize;
    let (shift, least) = (-rows..=rows)
        .filter(|&s| s != 0)
        .map(|s| (s, difference(s)))
        .min_by_key(|&(s, d)| (d, s.unsigned_abs()))
        .unwrap_or((0, still));
    shift > 0 && (least as f64) < still as f64 * (1.0 - SCROLL_GAIN)
}

/// A frame's luma as compared: at most [`MAX_WIDTH`] wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Small {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Row order.
    pub luma: Vec<u8>,
}

/// `frame`'s luma at most [`MAX_WIDTH`] wide: blocks of `k` x `k` pixels averaged, `k` the
/// smallest factor that fits (1: the luma as it is).
pub fn shrink(frame: &Frame) -> Small {
    let (w, h) = (frame.width, frame.height);
    let k = w.div_ceil(MAX_WIDTH).max(1);
    if k == 1 || frame.luma.len() < w * h {
        return Small { width: w, height: h, luma: frame.luma.clone() };
    }
    let (sw, sh) = (w / k, h / k);
    let mut out = Vec::with_capacity(sw * sh);
    for by in 0..sh {
        for bx in 0..sw {
            let sum: u32 = (0..k)
                .flat_map(|dy| {
                    let row = (by * k + dy) * w + bx * k;
                    frame.luma[row..row + k].iter()
                })
                .map(|&v| u32::from(v))
                .sum();
            out.push((sum / (k * k) as u32) as u8);
        }
    }
    Small { width: sw, height: sh, luma: out }
}

/// Finds `scroll` cues among the analysis frames as they stream by.
#[derive(Debug)]
pub(crate) struct ScrollDetector {
    /// Frames between the two of a pair.
    lag: usize,
    /// Seconds between the two of a pair.
    lag_seconds: f64,
    /// The last `lag` frames: their time and shrunk luma.
    recent: VecDeque<(f64, Small)>,
    /// The second being counted, its pairs and those moving up.
    second: i64,
    pairs: usize,
    up: usize,
    /// The first second of the scrolling seconds running to the one before `second`.
    open: Option<i64>,
    cues: Vec<VisualCue>,
}

impl ScrollDetector {
    /// A detector for frames `1 / rate` seconds apart.
    pub(crate) fn new(rate: f64) -> ScrollDetector {
        let rate = if rate.is_finite() && rate > 0.0 { rate } else { 1.0 };
        let lag = ((LAG * rate).round() as usize).max(1);
        ScrollDetector {
            lag,
            lag_seconds: lag as f64 / rate,
            recent: VecDeque::with_capacity(lag + 1),
            second: 0,
            pairs: 0,
            up: 0,
            open: None,
            cues: Vec::new(),
        }
    }

    /// The analysis frame shown from `time`.
    pub(crate) fn push(&mut self, time: f64, frame: &Frame) {
        let now = shrink(frame);
        if self.recent.len() == self.lag
            && let Some((then, before)) = self.recent.pop_front()
        {
            let (w, h) = (now.width, now.height);
            let up = (before.width, before.height) == (w, h)
                && moves_up(&before.luma, &now.luma, w, h, search_rows(h, self.lag_seconds));
            self.count((((then + time) / 2.0).max(0.0) + 1e-9).floor() as i64, up);
        }
        self.recent.push_back((time, now));
    }

    /// One pair in `second`, moving up or not.
    fn count(&mut self, second: i64, up: bool) {
        self.advance(second);
        self.pairs += 1;
        self.up += usize::from(up);
    }

    /// Closes the seconds before `second`.
    fn advance(&mut self, second: i64) {
        while self.second < second {
            let scrolls = self.pairs > 0 && self.up as f64 >= SCROLL_SHARE * self.pairs as f64;
            match (self.open, scrolls) {
                (None, true) => self.open = Some(self.second),
                (Some(from), false) => {
                    self.close(from, self.second as f64);
                    self.open = None;
                }
                _ => {}
            }
            self.second += 1;
            self.pairs = 0;
            self.up = 0;
        }
    }

    /// Keeps a run of scrolling seconds; [`ScrollDetector::finish`] drops the short ones.
    fn close(&mut self, from: i64, end: f64) {
        self.cues.push(VisualCue { kind: "scroll".to_string(), start: from as f64, end });
    }

    /// The cues found, in order, none past `duration`.
    pub(crate) fn finish(mut self, duration: f64) -> Vec<VisualCue> {
        self.advance(self.second + 1);
        if let Some(from) = self.open.take() {
            self.close(from, self.second as f64);
        }
        // Cut at the end of the video, and still at least SCROLL_MIN long.
        for c in &mut self.cues {
            c.end = c.end.min(duration);
        }
        self.cues.retain(|c| c.end - c.start >= SCROLL_MIN - 1e-9);
        self.cues
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame 160 x 90 of text-like dashes on dark, its content moved up by `offset / fine` rows:
    /// drawn `fine` times taller, then each `fine` rows averaged.
    fn roll(offset: usize, fine: usize) -> Frame {
        let (w, h) = (160, 90);
        let mut tall = vec![12u32; w * h * fine];
        for y in 0..h * fine {
            // Content row `y + offset` (in fine rows): a line 2 rows high every 4 rows.
            let row = y + offset;
            if (row / fine) % 4 > 1 {
                continue;
            }
            let line = row / (4 * fine);
            for x in 0..w {
                let word = (x + line * 37) % 23 < 11 + (line * 7) % 9;
                if word && !(x * 13 + line * 5).is_multiple_of(3) {
                    tall[y * w + x] = 220;
                }
            }
        }
        let mut rgb = Vec::with_capacity(w * h * 3);
        for y in 0..h {
            for x in 0..w {
                let v = (0..fine).map(|f| tall[(y * fine + f) * w + x]).sum::<u32>() / fine as u32;
                rgb.extend_from_slice(&[v as u8; 3]);
            }
        }
        Frame::from_rgb24(w, h, &rgb)
    }

    /// The cues of `seconds` of frames at 24 a second, the content moving up `speed(t)` fine rows
    /// (of `fine` a row) from each frame to the next.
    fn detect(seconds: f64, fine: usize, speed: impl Fn(f64) -> usize) -> Vec<(f64, f64)> {
        let mut d = ScrollDetector::new(24.0);
        let mut offset = 0;
        for f in 0..(seconds * 24.0) as usize {
            let t = f as f64 / 24.0;
            offset += speed(t);
            d.push(t, &roll(offset, fine));
        }
        d.finish(seconds).iter().map(|c| (c.start, c.end)).collect()
    }

    #[test]
    fn a_roll_moves_up_and_a_still_or_sinking_picture_does_not() {
        let (w, h) = (160, 90);
        let rows = search_rows(h, 0.25);
        assert_eq!(rows, 12);
        let (a, b) = (roll(10, 1), roll(13, 1));
        assert!(moves_up(&a.luma, &b.luma, w, h, rows), "content three rows higher");
        assert!(!moves_up(&b.luma, &a.luma, w, h, rows), "content three rows lower");
        assert!(!moves_up(&a.luma, &a.luma, w, h, rows), "still");
        let flat = Frame::solid(w, h, [40, 40, 40]);
        assert!(!moves_up(&flat.luma, &flat.luma, w, h, rows), "flat");
        assert!(!moves_up(&a.luma, &b.luma, w, 3, 5), "too short to search");
        assert!(!moves_up(&a.luma[..10], &b.luma, w, h, rows), "short buffer");
        assert_eq!(search_rows(90, 2.0), 22, "a quarter of the height at most");
        assert_eq!(search_rows(90, 0.0), 1, "a row at least");
    }

    #[test]
    fn steady_seconds_become_a_cue() {
        // Still for 2 s, rolling up a row a frame for 6 s, still, a 2 s roll, still.
        let found = detect(14.0, 1, |t| usize::from((2.0..8.0).contains(&t) || (10.0..12.0).contains(&t)));
        assert_eq!(found, [(2.0, 8.0)], "the 2 s roll is under {SCROLL_MIN} s");
        assert_eq!(detect(8.0, 1, |t| usize::from((2.0..5.0).contains(&t))), [(2.0, 5.0)], "3 s is enough");
        assert_eq!(detect(3.5, 1, |_| 1), [(0.0, 3.5)], "a roll to the end closes there");
        assert_eq!(detect(3.5, 1, |t| usize::from(t >= 1.0)), [], "under 3 s once cut at the end");
    }

    #[test]
    fn slow_rolls_are_seen_and_a_crawl_is_not() {
        // A quarter of a row a frame: the screen crossed in 15 s.
        assert_eq!(detect(10.0, 4, |t| usize::from(t >= 2.0)), [(2.0, 10.0)]);
        // A twentieth of a row a frame (75 s to cross) is under what a pair a quarter second
        // apart can see.
        assert_eq!(detect(10.0, 20, |_| 1), []);
    }

    #[test]
    fn a_second_scrolls_from_three_in_five_of_its_pairs() {
        let pairs = |up: usize| {
            let mut d = ScrollDetector::new(24.0);
            for second in 0..3 {
                (0..24).for_each(|k| d.count(second, k < up));
            }
            d.finish(3.0).len()
        };
        assert_eq!(pairs(15), 1, "15 of 24 is over 60 %");
        assert_eq!(pairs(14), 0, "14 of 24 is under");
    }

    #[test]
    fn wide_frames_are_shrunk_before_the_search() {
        let wide = |offset: usize| {
            let small = roll(offset, 1);
            let mut rgb = Vec::with_capacity(640 * 360 * 3);
            for y in 0..360 {
                for x in 0..640 {
                    rgb.extend_from_slice(&[small.luma[(y / 4) * 160 + x / 4]; 3]);
                }
            }
            Frame::from_rgb24(640, 360, &rgb)
        };
        let small = shrink(&wide(0));
        assert_eq!((small.width, small.height), (160, 90));
        assert_eq!(small.luma, roll(0, 1).luma);
        let mut d = ScrollDetector::new(24.0);
        (0..96).for_each(|f| d.push(f as f64 / 24.0, &wide(4 * f)));
        let found: Vec<(f64, f64)> = d.finish(4.0).iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(found, [(0.0, 4.0)]);
    }
}
