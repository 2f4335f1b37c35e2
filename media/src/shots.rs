//! Shot boundaries from a stream of frames: a content detector with an adaptive threshold (after
//! PySceneDetect's `AdaptiveDetector`) made robust to one-frame flashes, and a fade detector.
//! Both are streaming: they keep a few frames and a few scores, whatever the video's length.

use std::collections::VecDeque;

use crate::frame::{Frame, content_difference};

/// Parameters of the content detector.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentParams {
    /// A frame's score must be at least this many times the mean score of its neighbours.
    pub adaptive_threshold: f64,
    /// ...and at least this absolute content difference (0..=255).
    pub min_content: f64,
    /// Neighbours on each side in the rolling mean.
    pub window: usize,
    /// Frames between two cuts, at least.
    pub min_shot_frames: usize,
}

impl Default for ContentParams {
    fn default() -> Self {
        ContentParams { adaptive_threshold: 3.0, min_content: 15.0, window: 2, min_shot_frames: 12 }
    }
}

/// Content (hard cut) detector.
///
/// Frame `k` starts a new shot when its *robust score* stands out from its neighbours'. The robust
/// score is `min(d(k, k-1), d(k, k-2), d(k+1, k-1))` with `d` the [`content_difference`]: the new
/// content must differ from the two frames before it and must persist into the next frame. A
/// one-frame flash at `k` fails the last test (`k+1` looks like `k-1`), and the frame after it
/// fails the second (`k+1` looks like `k-1` again), so a flash never makes a cut. A cut then needs
/// `robust(k) >= min_content` and `robust(k) >= adaptive_threshold * mean(robust of the `window`
/// frames on each side)`, and at least `min_shot_frames` since the previous cut (or the start).
#[derive(Debug)]
pub struct ContentDetector {
    params: ContentParams,
    /// The last three frames, newest last, with their indexes.
    frames: VecDeque<(usize, Frame)>,
    /// `(k, d(k, k-1), d(k, k-2))` of the newest frame, waiting for frame `k + 1`.
    pending: Option<(usize, f64, f64)>,
    /// Robust scores `(k, score)`: up to `window` decided ones (left neighbours), then undecided.
    scores: VecDeque<(usize, f64)>,
    /// Position in `scores` of the oldest undecided score.
    next: usize,
    last_cut: usize,
    cuts: Vec<usize>,
}

impl ContentDetector {
    /// A detector with `params`.
    pub fn new(params: ContentParams) -> ContentDetector {
        ContentDetector {
            params,
            frames: VecDeque::with_capacity(4),
            pending: None,
            scores: VecDeque::new(),
            next: 0,
            last_cut: 0,
            cuts: Vec::new(),
        }
    }

    /// Feeds frame number `index` (consecutive from 0).
    pub fn push(&mut self, index: usize, frame: Frame) {
        let n = self.frames.len();
        if n >= 1 {
            let prev = &self.frames[n - 1].1;
            let d1 = content_difference(&frame, prev);
            let d2 = if n >= 2 { content_difference(&frame, &self.frames[n - 2].1) } else { d1 };
            if let Some((k, pd1, pd2)) = self.pending.take() {
                self.add_score(k, pd1.min(pd2).min(d2));
            }
            self.pending = Some((index, d1, d2));
        }
        self.frames.push_back((index, frame));
        if self.frames.len() > 2 {
            self.frames.pop_front();
        }
    }

    fn add_score(&mut self, k: usize, score: f64) {
        self.scores.push_back((k, score));
        let w = self.params.window;
        while self.next + w < self.scores.len() {
            self.decide_next();
        }
    }

    /// Decides the oldest undecided score from the (up to) `window` scores on each side, then
    /// forgets scores no longer needed as left neighbours.
    fn decide_next(&mut self) {
        let w = self.params.window;
        let at = self.next;
        let (k, score) = self.scores[at];
        let hi = (at + w).min(self.scores.len() - 1);
        let lo = at.saturating_sub(w);
        let count = hi - lo;
        let sum: f64 = (lo..=hi).filter(|&i| i != at).map(|i| self.scores[i].1).sum();
        let mean = if count == 0 { 0.0 } else { sum / count as f64 };
        let p = &self.params;
        let stands_out = score >= p.adaptive_threshold * mean.max(1e-3);
        if score >= p.min_content && stands_out && k >= self.last_cut + p.min_shot_frames {
            self.cuts.push(k);
            self.last_cut = k;
        }
        self.next += 1;
        while self.next > w {
            self.scores.pop_front();
            self.next -= 1;
        }
    }

    /// Ends the stream; returns the frame numbers that start a new shot, increasing.
    pub fn finish(mut self) -> Vec<usize> {
        while self.next < self.scores.len() {
            self.decide_next();
        }
        self.cuts
    }
}

/// Parameters of the fade detector (mean luma in `[0, 1]`).
#[derive(Debug, Clone, PartialEq)]
pub struct FadeParams {
    /// A frame darker than this enters a dark run.
    pub dark_enter: f64,
    /// The run ends at the first frame brighter than this (hysteresis).
    pub dark_exit: f64,
}

impl Default for FadeParams {
    fn default() -> Self {
        FadeParams { dark_enter: 0.06, dark_exit: 0.10 }
    }
}

/// A run of dark frames between two lit frames: a fade to black and back, or a cut through black.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DarkRun {
    /// First dark frame.
    pub first: usize,
    /// Last dark frame.
    pub last: usize,
    /// The boundary: the middle of the darkest frames of the run.
    pub darkest: usize,
}

/// Fade detector: luma falling below `dark_enter` and rising back above `dark_exit`. Runs that
/// touch the start or the end of the video are not boundaries (a fade-in at the start, a
/// fade-out at the end).
#[derive(Debug)]
pub struct FadeDetector {
    params: FadeParams,
    lit_seen: bool,
    run: Option<(usize, usize, f64, usize, usize)>,
    runs: Vec<DarkRun>,
}

impl FadeDetector {
    /// A detector with `params`.
    pub fn new(params: FadeParams) -> FadeDetector {
        FadeDetector { params, lit_seen: false, run: None, runs: Vec::new() }
    }

    /// Feeds the mean luma of frame `index` (consecutive from 0).
    pub fn push(&mut self, index: usize, luma: f64) {
        const SAME_DARKNESS: f64 = 0.004;
        match &mut self.run {
            Some((_, last, min, min_first, min_last)) if luma <= self.params.dark_exit => {
                *last = index;
                if luma < *min - SAME_DARKNESS {
                    (*min, *min_first, *min_last) = (luma, index, index);
                } else if luma <= *min + SAME_DARKNESS {
                    *min_last = index;
                    *min = min.min(luma);
                }
            }
            Some((first, last, _, min_first, min_last)) => {
                if self.lit_seen {
                    self.runs.push(DarkRun {
                        first: *first,
                        last: *last,
                        darkest: (*min_first + *min_last).div_ceil(2),
                    });
                }
                self.run = None;
                self.lit_seen = true;
            }
            None if luma < self.params.dark_enter => self.run = Some((index, index, luma, index, index)),
            None => self.lit_seen |= luma > self.params.dark_exit,
        }
    }

    /// Ends the stream; returns the dark runs between lit frames.
    pub fn finish(self) -> Vec<DarkRun> {
        self.runs
    }
}

/// Merges content cuts and fades into shot-boundary frame numbers: a dark run that contains a cut
/// (from its first frame to the frame after its last) is represented by that cut; otherwise by its
/// darkest frame. Boundaries closer than `min_shot_frames` to the previous one are dropped, and
/// frame 0 is never a boundary.
pub fn merge_boundaries(cuts: &[usize], runs: &[DarkRun], min_shot_frames: usize) -> Vec<usize> {
    let mut all: Vec<usize> = cuts.to_vec();
    for run in runs {
        if !cuts.iter().any(|&c| c >= run.first && c <= run.last + 1) {
            all.push(run.darkest);
        }
    }
    all.sort_unstable();
    let mut out: Vec<usize> = Vec::with_capacity(all.len());
    for f in all {
        let previous = out.last().copied().unwrap_or(0);
        if f > 0 && f >= previous + min_shot_frames.max(1) {
            out.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_content(frames: &[[u8; 3]]) -> Vec<usize> {
        let mut d = ContentDetector::new(ContentParams::default());
        for (i, &rgb) in frames.iter().enumerate() {
            d.push(i, Frame::solid(8, 6, rgb));
        }
        d.finish()
    }

    /// Colour `rgb` for `n` frames, with a small flicker so neighbours' scores are not all zero.
    fn shot(rgb: [u8; 3], n: usize) -> Vec<[u8; 3]> {
        (0..n).map(|i| [rgb[0].saturating_add((i % 3) as u8), rgb[1], rgb[2]]).collect()
    }

    #[test]
    fn hard_cuts_are_found_on_their_first_frame() {
        let mut frames = shot([200, 30, 30], 40);
        frames.extend(shot([30, 200, 30], 30));
        frames.extend(shot([30, 30, 200], 50));
        assert_eq!(run_content(&frames), vec![40, 70]);
    }

    #[test]
    fn a_one_frame_flash_is_not_a_cut() {
        let mut frames = shot([90, 60, 40], 30);
        frames.push([255, 255, 255]);
        frames.extend(shot([90, 60, 40], 30));
        assert_eq!(run_content(&frames), Vec::<usize>::new());
        // A two-frame flash is not a cut either: min_shot_frames keeps it from splitting shots.
        let mut frames = shot([90, 60, 40], 30);
        frames.extend([[255, 255, 255], [255, 255, 255]]);
        frames.extend(shot([90, 60, 40], 30));
        assert!(run_content(&frames).len() <= 1);
    }

    #[test]
    fn cuts_closer_than_the_minimum_shot_are_dropped() {
        let mut frames = shot([200, 30, 30], 20);
        frames.extend(shot([30, 200, 30], 5));
        frames.extend(shot([30, 30, 200], 20));
        assert_eq!(run_content(&frames), vec![20]);
    }

    #[test]
    fn gradual_change_is_not_a_cut() {
        let frames: Vec<[u8; 3]> = (0..200).map(|i| [i as u8, 100, 255 - i as u8]).collect();
        assert_eq!(run_content(&frames), Vec::<usize>::new());
    }

    #[test]
    fn fade_boundary_sits_at_the_darkest_point() {
        let mut lumas: Vec<f64> = vec![0.5; 50];
        lumas.extend((1..=10).map(|i| 0.5 * (1.0 - i as f64 / 10.0)));
        lumas.extend((1..=10).map(|i| 0.5 * i as f64 / 10.0));
        lumas.extend(vec![0.5; 30]);
        let mut d = FadeDetector::new(FadeParams::default());
        for (i, &l) in lumas.iter().enumerate() {
            d.push(i, l);
        }
        let runs = d.finish();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].darkest, 59);
        assert_eq!(merge_boundaries(&[], &runs, 12), vec![59]);
        // A cut inside the dark run represents it.
        assert_eq!(merge_boundaries(&[61], &runs, 12), vec![61]);
    }

    #[test]
    fn fades_at_the_ends_are_not_boundaries() {
        let mut d = FadeDetector::new(FadeParams::default());
        let lumas = [0.0, 0.0, 0.02, 0.3, 0.5, 0.5, 0.5, 0.2, 0.01, 0.0];
        for (i, &l) in lumas.iter().enumerate() {
            d.push(i, l);
        }
        assert!(d.finish().is_empty());
    }

    /// The content rule computed the obvious way, over the whole sequence at once.
    fn reference(frames: &[Frame], p: &ContentParams) -> Vec<usize> {
        let n = frames.len();
        let d = |a: usize, b: usize| content_difference(&frames[a], &frames[b]);
        let scores: Vec<(usize, f64)> = (1..n.saturating_sub(1))
            .map(|k| (k, d(k, k - 1).min(if k >= 2 { d(k, k - 2) } else { d(k, k - 1) }).min(d(k + 1, k - 1))))
            .collect();
        let mut cuts = Vec::new();
        let mut last = 0;
        for (i, &(k, score)) in scores.iter().enumerate() {
            let lo = i.saturating_sub(p.window);
            let hi = (i + p.window).min(scores.len() - 1);
            let others: Vec<f64> = (lo..=hi).filter(|&j| j != i).map(|j| scores[j].1).collect();
            let mean = if others.is_empty() { 0.0 } else { others.iter().sum::<f64>() / others.len() as f64 };
            if score >= p.min_content && score >= p.adaptive_threshold * mean.max(1e-3) && k >= last + p.min_shot_frames
            {
                cuts.push(k);
                last = k;
            }
        }
        cuts
    }

    proptest::proptest! {
        #[test]
        fn streaming_detector_matches_the_reference(
            runs in proptest::collection::vec((0usize..6, 1usize..25), 0..12),
            flicker in proptest::collection::vec(0u8..12, 300),
            min_shot_frames in 1usize..15,
        ) {
            const PALETTE: [[u8; 3]; 6] = [[200, 30, 30], [30, 200, 30], [30, 30, 200], [250, 250, 250], [5, 5, 5], [120, 90, 60]];
            let mut frames = Vec::new();
            for (colour, len) in runs {
                for _ in 0..len {
                    let f = flicker[frames.len() % flicker.len()];
                    let [r, g, b] = PALETTE[colour];
                    frames.push(Frame::solid(4, 3, [r.saturating_add(f), g, b.saturating_sub(f)]));
                }
            }
            let params = ContentParams { min_shot_frames, ..ContentParams::default() };
            let mut d = ContentDetector::new(params.clone());
            for (i, f) in frames.iter().enumerate() {
                d.push(i, f.clone());
            }
            let cuts = d.finish();
            proptest::prop_assert_eq!(&cuts, &reference(&frames, &params));
            proptest::prop_assert!(cuts.windows(2).all(|w| w[1] >= w[0] + min_shot_frames));
        }

        #[test]
        fn fade_boundaries_are_increasing_and_inside(lumas in proptest::collection::vec(0.0f64..1.0, 0..200)) {
            let mut d = FadeDetector::new(FadeParams::default());
            for (i, &l) in lumas.iter().enumerate() {
                d.push(i, l);
            }
            let runs = d.finish();
            for r in &runs {
                proptest::prop_assert!(0 < r.first && r.first <= r.darkest && r.darkest <= r.last && r.last + 1 < lumas.len());
            }
            let merged = merge_boundaries(&[], &runs, 3);
            proptest::prop_assert!(merged.windows(2).all(|w| w[1] >= w[0] + 3));
        }
    }
}
