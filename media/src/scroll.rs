//! Rolling credits in the analysis frames: stretches where the whole picture moves steadily up,
//! as lines of text scrolling up a screen do.
//!
//! Each analysis frame is compared with the one before it: the frame is shifted up or down by up
//! to [`search_rows`] rows, and the shift whose rows differ least from the earlier frame's (the sum
//! of absolute luma differences over the rows every shift covers) is the pair's motion. A pair
//! *moves up* when that shift is upward and its difference is at least [`SCROLL_GAIN`] below the
//! unshifted one's (so that a still frame, a flat frame or noise does not move). Each second of the
//! video (from 0) whose pairs move up at least [`SCROLL_SHARE`] of the time scrolls; consecutive
//! such seconds, at least [`SCROLL_MIN`] seconds of them, are a `scroll` cue.
//!
//! Comparing whole frames, not their row means, is what makes the rule work on a real roll: the
//! many small lines of a name list are evenly spaced, so a row profile shifted by one line looks
//! like the next one (on Big Buck Bunny's roll the row profile gave the wrong direction), while
//! the lines' words do not line up column by column. The figures are in `docs/media.md` ("Credits
//! in the picture, and a mid-credits scene").

use kino::signals::VisualCue;

use crate::frame::Frame;

/// A second scrolls when at least this share of its frame pairs move up.
pub const SCROLL_SHARE: f64 = 0.6;
/// Scrolling seconds shorter than this together are no cue (a tilt of the camera is brief).
pub const SCROLL_MIN: f64 = 3.0;
/// A pair moves only when its best shift's difference is this share below the unshifted one's.
pub const SCROLL_GAIN: f64 = 0.01;
/// The search reaches this share of the frame's height per 1/24 s between the frames compared,
/// so a roll crossing the screen in one second is still followed.
pub const SEARCH_SHARE: f64 = 0.05;

/// The rows a pair of frames `height` rows high, `1 / rate` seconds apart, is searched over:
/// [`SEARCH_SHARE`] of the height per 1/24 s, at least 1 and at most a quarter of the height.
pub fn search_rows(height: usize, rate: f64) -> usize {
    let rows = (SEARCH_SHARE * height as f64 * 24.0 / rate.max(1e-3)).ceil() as usize;
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

/// Finds `scroll` cues among the analysis frames as they stream by.
#[derive(Debug)]
pub(crate) struct ScrollDetector {
    rate: f64,
    previous: Option<Vec<u8>>,
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
        ScrollDetector { rate, previous: None, second: 0, pairs: 0, up: 0, open: None, cues: Vec::new() }
    }

    /// The analysis frame shown from `time`.
    pub(crate) fn push(&mut self, time: f64, frame: &Frame) {
        let (w, h) = (frame.width, frame.height);
        if let Some(before) = &self.previous {
            // The pair counts in the second its earlier frame is shown in.
            let second = ((time - 1.0 / self.rate.max(1e-3)).max(0.0) + 1e-9).floor() as i64;
            let up = moves_up(before, &frame.luma, w, h, search_rows(h, self.rate));
            self.advance(second);
            self.pairs += 1;
            self.up += usize::from(up);
        }
        match &mut self.previous {
            Some(v) => v.clone_from(&frame.luma),
            None => self.previous = Some(frame.luma.clone()),
        }
    }

    /// Closes the seconds before `second`.
    fn advance(&mut self, second: i64) {
        while self.second < second {
            let scrolls = self.pairs > 0 && self.up as f64 >= SCROLL_SHARE * self.pairs as f64;
            match (self.open, scrolls) {
                (None, true) => self.open = Some(self.second),
                (Some(from), false) => {
                    self.close(from, self.second);
                    self.open = None;
                }
                _ => {}
            }
            self.second += 1;
            self.pairs = 0;
            self.up = 0;
        }
    }

    fn close(&mut self, from: i64, to: i64) {
        let (start, end) = (from as f64, to as f64);
        if end - start >= SCROLL_MIN - 1e-9 {
            self.cues.push(VisualCue { kind: "scroll".to_string(), start, end });
        }
    }

    /// The cues found, in order, none past `duration`.
    pub(crate) fn finish(mut self, duration: f64) -> Vec<VisualCue> {
        self.advance(self.second + 1);
        if let Some(from) = self.open.take() {
            self.close(from, self.second);
        }
        for c in &mut self.cues {
            c.end = c.end.min(duration);
        }
        self.cues.retain(|c| c.end > c.start);
        self.cues
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of `lines` bright text-like dashes on dark, the content moved up by `offset` rows.
    fn roll(offset: usize) -> Frame {
        let (w, h) = (160, 90);
        let mut rgb = vec![12u8; w * h * 3];
        for y in 0..h {
            // Content row `y + offset`: a line every 4 rows, words of varying length.
            let row = y + offset;
            if !row.is_multiple_of(4) {
                continue;
            }
            let line = row / 4;
            for x in 0..w {
                let word = (x + line * 37) % 23 < 11 + (line * 7) % 9;
                if word && !(x * 13 + line * 5).is_multiple_of(3) {
                    rgb[(y * w + x) * 3..(y * w + x) * 3 + 3].fill(220);
                }
            }
        }
        Frame::from_rgb24(w, h, &rgb)
    }

    #[test]
    fn a_roll_moves_up_and_a_still_or_sinking_picture_does_not() {
        let (w, h) = (160, 90);
        let rows = search_rows(h, 24.0);
        assert_eq!(rows, 5);
        let (a, b) = (roll(10), roll(11));
        assert!(moves_up(&a.luma, &b.luma, w, h, rows), "content one row higher");
        assert!(!moves_up(&b.luma, &a.luma, w, h, rows), "content one row lower");
        assert!(!moves_up(&a.luma, &a.luma, w, h, rows), "still");
        let flat = Frame::solid(w, h, [40, 40, 40]);
        assert!(!moves_up(&flat.luma, &flat.luma, w, h, rows), "flat");
        assert!(!moves_up(&a.luma, &b.luma, w, 8, 5), "too short to search");
        assert!(!moves_up(&a.luma[..10], &b.luma, w, h, rows), "short buffer");
        assert_eq!(search_rows(90, 2.0), 22, "a quarter of the height at most");
    }

    #[test]
    fn steady_seconds_become_a_cue() {
        // 24 frames a second for 12 s: still for 2 s, rolling up for 6 s, still, a 2 s roll.
        let mut d = ScrollDetector::new(24.0);
        let mut offset = 0;
        for f in 0..24 * 12 {
            let t = f64::from(f) / 24.0;
            if (2.0..8.0).contains(&t) || (9.0..11.0).contains(&t) {
                offset += 1;
            }
            d.push(t, &roll(offset));
        }
        let cues = d.finish(12.0);
        let found: Vec<(&str, f64, f64)> = cues.iter().map(|c| (c.kind.as_str(), c.start, c.end)).collect();
        assert_eq!(found, [("scroll", 2.0, 8.0)], "the 2 s roll is under {SCROLL_MIN} s");
        let mut open = ScrollDetector::new(24.0);
        for f in 0..24 * 4 {
            open.push(f64::from(f) / 24.0, &roll(f as usize));
        }
        let cues = open.finish(3.5);
        assert_eq!((cues[0].start, cues[0].end), (0.0, 3.5), "a roll to the end closes there");
    }
}
