//! Candidates (section 2 of `clip-selection.md`) and greedy selection (section 3), in time linear
//! in the number of samples and independent of the clip length.

use super::geometry::{first_true, gap, grid_time, overlaps};
use super::query::ClipQuery;
use super::shots::ShotCoverage;
use super::types::{CharacterPreference, ClipType};
use crate::signals::{Interval, Prepared, fixed_mean, fixed_value};

/// Slack, in seconds, on the skip-window edges, so that `s = i * step` landing a rounding error
/// short of a window edge still counts as on it.
pub(crate) const WINDOW_SLACK: f64 = 1e-9;

/// Scene scores `(cos + 1) / 2` against one query, with O(1) range maxima.
#[derive(Debug)]
pub(crate) struct SceneScores {
    pub(crate) spans: Vec<(f64, f64)>,
    levels: Vec<Vec<f64>>,
}

impl SceneScores {
    pub(crate) fn new(spans: Vec<(f64, f64)>, scores: Vec<f64>) -> SceneScores {
        let mut levels = vec![scores];
        let mut width = 1;
        while 2 * width <= levels[0].len() {
            let prev = levels.last().expect("one level");
            let next = (0..prev.len() - width).map(|j| prev[j].max(prev[j + width])).collect();
            levels.push(next);
            width *= 2;
        }
        SceneScores { spans, levels }
    }

    /// Best score among scenes `lo..=hi`.
    fn max(&self, lo: usize, hi: usize) -> f64 {
        let len = hi - lo + 1;
        let level = (usize::BITS - 1 - len.leading_zeros()) as usize;
        let t = &self.levels[level];
        t[lo].max(t[hi + 1 - (1 << level)])
    }

    /// Best score among the scenes overlapping `[s, e]`; 0 when none does.
    pub(crate) fn best_over(&self, s: f64, e: f64) -> f64 {
        let first = self.spans.partition_point(|&(_, end)| end <= s);
        let last = self.spans.partition_point(|&(start, _)| start < e);
        if first < last && overlaps(self.spans[first].0, self.spans[first].1, s, e) {
            self.max(first, last - 1)
        } else {
            0.0
        }
    }
}

/// How candidates are ranked.
pub(crate) enum Ranking<'a> {
    Relevance,
    ClipType(Option<&'a [u64]>),
    Query(&'a SceneScores),
}

/// The accepted grid candidates (start sample indexes), best first.
pub(crate) fn select_starts(p: &Prepared, q: &ClipQuery, shots: &ShotCoverage, ranking: &Ranking<'_>) -> Vec<usize> {
    let n = p.samples();
    let step = p.step();
    let d = p.duration();
    let len = q.clip_length;
    if len <= 0.0 || n == 0 {
        return Vec::new();
    }
    let k = ((len / step - crate::signals::INDEX_SLACK).ceil().max(1.0) as usize).min(n + 1);
    if k > n {
        return Vec::new();
    }
    let w0 = d * q.skip_start / 100.0;
    let w1 = d - d * q.skip_end / 100.0;
    let i_min = first_true(0, n, w0 / step, |i| grid_time(i, step) >= w0 - WINDOW_SLACK);
    let past = first_true(0, n, (w1 - len) / step, |i| grid_time(i, step) + len > w1 + WINDOW_SLACK);
    if past == 0 || i_min > past - 1 {
        return Vec::new();
    }
    let i_max = (past - 1).min(n - k);
    if i_min > i_max {
        return Vec::new();
    }
    let allowed = allowed_ranges(p, q, i_min, i_max, len);
    let mut ranked = Ranked::new(i_min, i_max - i_min + 1);
    let filters = Filters::new(p, q, shots, k, n - k + 1);
    let rel = p.relevance.sums();
    let mut scene_cursor = (0usize, 0usize);
    for (lo, hi) in allowed {
        for i in lo..=hi {
            if !filters.pass(i) {
                continue;
            }
            let rel_sum = rel[i + k] - rel[i];
            let primary = match ranking {
                Ranking::Relevance => rel_sum,
                Ranking::ClipType(Some(sums)) => sums[i + k] - sums[i],
                Ranking::ClipType(None) => 0,
                Ranking::Query(scenes) => {
                    let s = grid_time(i, step);
                    query_score(scenes, s, s + len, &mut scene_cursor).to_bits()
                }
            };
            ranked.set(i, (u128::from(primary) << 64 | u128::from(rel_sum)) + 1);
        }
    }
    ranked.finish_blocks();
    let mut accepted = Vec::new();
    while accepted.len() < q.number_of_top_candidates {
        let Some(best) = ranked.best() else { break };
        accepted.push(best);
        let s = grid_time(best, step);
        let chosen = (s, s + len);
        let too_close = |j: usize| {
            let t = grid_time(j, step);
            gap(chosen, (t, t + len)) < q.minimum_clip_separation
        };
        let radius = (q.minimum_clip_separation + len) / step;
        let lo = first_true(i_min, best, best as f64 - radius, too_close).min(best);
        let hi = first_true(best, i_max, best as f64 + radius, |j| j > best && !too_close(j)) - 1;
        ranked.clear(lo, hi.max(best));
    }
    accepted
}

/// Query score of `[s, e]`, advancing a two-pointer cursor over the (sorted) scenes.
fn query_score(scenes: &SceneScores, s: f64, e: f64, cursor: &mut (usize, usize)) -> f64 {
    let spans = &scenes.spans;
    let (first, last) = cursor;
    while *first < spans.len() && spans[*first].1 <= s {
        *first += 1;
    }
    if *last < *first {
        *last = *first;
    }
    while *last < spans.len() && spans[*last].0 < e {
        *last += 1;
    }
    if *first < *last && overlaps(spans[*first].0, spans[*first].1, s, e) { scenes.max(*first, *last - 1) } else { 0.0 }
}

/// Threshold filters that differ from their defaults, and the `shot_type` filter when it is set,
/// folded into one pass-mask over candidates.
///
/// Each bound is turned once into an integer cut-off on the fixed-point grid (the largest value
/// whose reported form is within the bound), so the per-candidate test is an integer comparison
/// that agrees exactly with comparing reported aggregates.
struct Filters {
    mask: Option<Vec<bool>>,
}

/// The smallest `x` in `0..=max` with `pred(x)`, for a predicate that is false-then-true;
/// `max + 1` when none.
fn lowest(max: u64, pred: impl Fn(u64) -> bool) -> u64 {
    let (mut lo, mut hi) = (0u64, max + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

impl Filters {
    fn new(p: &Prepared, q: &ClipQuery, shots: &ShotCoverage, k: usize, candidates: usize) -> Filters {
        let mut mask: Option<Vec<bool>> = None;
        let one = u64::from(crate::signals::FIXED_ONE);
        for (table, lo, hi) in [
            (&p.nudity, q.min_nudity, q.max_nudity),
            (&p.blood_gore, q.min_blood_gore, q.max_blood_gore),
            (&p.profanity, q.min_profanity, q.max_profanity),
        ] {
            if lo <= 0.0 && hi >= 1.0 {
                continue;
            }
            // Samples at or above `good` reach the lower bound; samples at or above `bad` break
            // the upper one.
            let good = lowest(one, |v| fixed_value(v as u32) >= lo);
            let bad = lowest(one, |v| fixed_value(v as u32) > hi);
            let m = mask.get_or_insert_with(|| vec![true; candidates]);
            let values = table.values();
            let (mut next_good, mut next_bad) = (usize::MAX, usize::MAX);
            for j in (0..values.len()).rev() {
                let v = u64::from(values[j]);
                if v >= good {
                    next_good = j;
                }
                if v >= bad {
                    next_bad = j;
                }
                if j < candidates {
                    let end = j + k;
                    m[j] &= next_good < end && next_bad >= end;
                }
            }
        }
        if q.min_brightness > 0.0 || q.max_brightness < 1.0 {
            let (lo, hi) = (q.min_brightness, q.max_brightness);
            let most = one * k as u64;
            let low_sum = lowest(most, |s| fixed_mean(s, k) >= lo);
            let high_sum = lowest(most, |s| fixed_mean(s, k) > hi);
            let sums = p.brightness.sums();
            let m = mask.get_or_insert_with(|| vec![true; candidates]);
            for (i, ok) in m.iter_mut().enumerate() {
                let s = sums[i + k] - sums[i];
                *ok &= s >= low_sum && s < high_sum;
            }
        }
        if !q.shot_type.is_empty() {
            let m = mask.get_or_insert_with(|| vec![true; candidates]);
            for (i, ok) in m.iter_mut().enumerate().filter(|(_, ok)| **ok) {
                let s = grid_time(i, p.step());
                *ok = shots.passes(&q.shot_type, s, s + q.clip_length);
            }
        }
        Filters { mask }
    }

    #[inline]
    fn pass(&self, i: usize) -> bool {
        self.mask.as_ref().is_none_or(|m| m[i])
    }
}

/// Candidate index ranges (inclusive, sorted, disjoint, inside `i_min..=i_max`) that satisfy the
/// character preference.
fn allowed_ranges(p: &Prepared, q: &ClipQuery, i_min: usize, i_max: usize, len: f64) -> Vec<(usize, usize)> {
    let step = p.step();
    let reach = |spans: &[Interval]| -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for &[a, b] in spans {
            let lo = first_true(i_min, i_max, (a - len) / step, |i| a < grid_time(i, step) + len);
            let hi = first_true(i_min, i_max, b / step, |i| grid_time(i, step) >= b);
            if lo < hi {
                push_merged(&mut out, (lo, hi - 1));
            }
        }
        out
    };
    let spans_of = |rank: u32| p.characters.iter().find(|c| c.0 == rank).map(|c| c.1.as_slice()).unwrap_or(&[]);
    match q.character_preference {
        CharacterPreference::NoPreference => vec![(i_min, i_max)],
        CharacterPreference::Any => reach(&p.anyone_on_screen),
        CharacterPreference::Avoid => complement(&reach(&p.anyone_on_screen), i_min, i_max),
        CharacterPreference::AnyOf => {
            let mut spans: Vec<Interval> = q.character_list.iter().flat_map(|&r| spans_of(r).iter().copied()).collect();
            spans.sort_by(|a, b| a[0].total_cmp(&b[0]));
            reach(&spans)
        }
        CharacterPreference::AllOf => {
            let mut acc = vec![(i_min, i_max)];
            for &rank in &q.character_list {
                acc = intersect(&acc, &reach(spans_of(rank)));
            }
            acc
        }
    }
}

fn push_merged(out: &mut Vec<(usize, usize)>, (lo, hi): (usize, usize)) {
    match out.last_mut() {
        Some(last) if lo <= last.1 + 1 => last.1 = last.1.max(hi),
        _ => out.push((lo, hi)),
    }
}

fn complement(ranges: &[(usize, usize)], lo: usize, hi: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut next = lo;
    for &(a, b) in ranges {
        if a > next {
            out.push((next, a - 1));
        }
        next = next.max(b + 1);
    }
    if next <= hi {
        out.push((next, hi));
    }
    out
}

fn intersect(x: &[(usize, usize)], y: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < x.len() && j < y.len() {
        let lo = x[i].0.max(y[j].0);
        let hi = x[i].1.min(y[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if x[i].1 < y[j].1 { i += 1 } else { j += 1 }
    }
    out
}

/// Ranking keys (0 = not available) with per-block maxima for fast repeated arg-max.
struct Ranked {
    base: usize,
    keys: Vec<u128>,
    blocks: Vec<u128>,
}

const RANK_BLOCK: usize = 64;

impl Ranked {
    fn new(base: usize, len: usize) -> Ranked {
        Ranked { base, keys: vec![0; len], blocks: Vec::new() }
    }

    #[inline]
    fn set(&mut self, i: usize, key: u128) {
        self.keys[i - self.base] = key;
    }

    fn finish_blocks(&mut self) {
        self.blocks = self.keys.chunks(RANK_BLOCK).map(|c| c.iter().copied().max().unwrap_or(0)).collect();
    }

    /// The best available candidate; the earliest among equals.
    fn best(&self) -> Option<usize> {
        let (mut block, mut top) = (0, 0u128);
        for (b, &m) in self.blocks.iter().enumerate() {
            if m > top {
                top = m;
                block = b;
            }
        }
        if top == 0 {
            return None;
        }
        let start = block * RANK_BLOCK;
        let offset = self.keys[start..].iter().position(|&k| k == top).expect("block maximum is in its block");
        Some(self.base + start + offset)
    }

    /// Makes candidates `lo..=hi` unavailable.
    fn clear(&mut self, lo: usize, hi: usize) {
        let (lo, hi) = (lo - self.base, (hi - self.base).min(self.keys.len() - 1));
        self.keys[lo..=hi].fill(0);
        for b in lo / RANK_BLOCK..=hi / RANK_BLOCK {
            let end = ((b + 1) * RANK_BLOCK).min(self.keys.len());
            self.blocks[b] = self.keys[b * RANK_BLOCK..end].iter().copied().max().unwrap_or(0);
        }
    }
}

/// The ranking for a query: clip type, search query or relevance.
pub(crate) fn ranking_for<'a>(p: &'a Prepared, q: &ClipQuery, scenes: Option<&'a SceneScores>) -> Ranking<'a> {
    if let Some(scenes) = scenes {
        Ranking::Query(scenes)
    } else if q.clip_type != ClipType::Any {
        Ranking::ClipType(p.clip_type_prefix(q.clip_type).map(|prefix| prefix.sums()))
    } else {
        Ranking::Relevance
    }
}
