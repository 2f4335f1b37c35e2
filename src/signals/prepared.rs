//! The prepared form of a signals document: built once per item, read by every query.
//!
//! Timeline values are held on a 24-bit fixed-point grid ([`to_fixed`]): window sums are exact
//! integers, so a window's mean is the same number whichever way it is computed (prefix sums here,
//! a plain rescan in the tests), and ties between candidates are real ties, not rounding noise.

use super::model::{Interval, SCENE_EMBEDDING_DIM, Signals, Tag, TagKind, TagSource};
use super::range_max::RangeMax;
use super::validate::sample_count;
use crate::clips::types::ClipType;
use crate::error::Result;

/// Fixed-point one: a timeline value `v` is held as `round(v * 2^24)`.
pub const FIXED_ONE: u32 = 1 << 24;

/// Slack, as a fraction of a step, when mapping times to sample indexes.
pub(crate) const INDEX_SLACK: f64 = 1e-6;

/// Converts a timeline value in `[0, 1]` to the fixed-point grid.
pub fn to_fixed(v: f32) -> u32 {
    (f64::from(v).clamp(0.0, 1.0) * f64::from(FIXED_ONE)).round() as u32
}

/// A mean-aggregated timeline: prefix sums of fixed-point values.
#[derive(Debug, Clone)]
pub(crate) struct Prefix(Vec<u64>);

impl Prefix {
    fn new(values: &[f32]) -> Prefix {
        let mut sums = Vec::with_capacity(values.len() + 1);
        let mut acc = 0u64;
        sums.push(0);
        for &v in values {
            acc += u64::from(to_fixed(v));
            sums.push(acc);
        }
        Prefix(sums)
    }

    /// Sum of samples `lo..hi`.
    #[inline]
    pub(crate) fn sum(&self, lo: usize, hi: usize) -> u64 {
        self.0[hi] - self.0[lo]
    }

    pub(crate) fn sums(&self) -> &[u64] {
        &self.0
    }
}

/// Aggregates are reported (and compared with thresholds) rounded to this many parts of one:
/// six decimals, far finer than any analyser's accuracy and coarser than the fixed-point grid,
/// so `0.02` in a timeline reads back as `0.02`, not `0.019999980926513672`.
/// The same rule as every other reported score ([`crate::report::score`]).
pub const REPORT_SCALE: f64 = crate::report::SCORE_SCALE;

#[inline]
fn report(v: f64) -> f64 {
    crate::report::score(v)
}

/// Mean of `count` fixed-point samples summing to `sum`, as reported: in `[0, 1]`, six decimals.
#[inline]
pub fn fixed_mean(sum: u64, count: usize) -> f64 {
    if count == 0 { 0.0 } else { report(sum as f64 / (count as f64 * f64::from(FIXED_ONE))) }
}

/// A fixed-point value as reported: in `[0, 1]`, six decimals.
#[inline]
pub fn fixed_value(v: u32) -> f64 {
    report(f64::from(v) / f64::from(FIXED_ONE))
}

/// Query-ready form of one item's signals: prefix sums for mean aggregates, range-maximum tables
/// for max aggregates, merged character coverage, tags by kind, unit-length scene embeddings.
#[derive(Debug, Clone)]
pub struct Prepared {
    signals: Signals,
    n: usize,
    pub(crate) relevance: Prefix,
    pub(crate) brightness: Prefix,
    pub(crate) nudity: RangeMax,
    pub(crate) blood_gore: RangeMax,
    pub(crate) profanity: RangeMax,
    /// Present clip-type timelines, in the interface's order.
    pub(crate) clip_types: Vec<(ClipType, Prefix)>,
    /// Characters by rank, with their spans.
    pub(crate) characters: Vec<(u32, Vec<Interval>)>,
    /// Union of every character's spans, merged where they touch or overlap.
    pub(crate) anyone_on_screen: Vec<Interval>,
    /// Tag indexes into [`Signals::all_tags`] (`tags`, then `visual.tags`; see [`Prepared::tag`]),
    /// by kind, each sorted by start.
    pub(crate) tags_by_kind: [Vec<usize>; 3],
    /// Scene embeddings normalised to unit length, flattened (`scenes x 1024`).
    pub(crate) scene_unit: Option<Vec<f32>>,
}

impl Prepared {
    /// Validates `signals` and builds the indexes. O(samples + spans + tags + scenes).
    pub fn new(signals: Signals) -> Result<Prepared> {
        signals.validate()?;
        Ok(Prepared::new_unchecked(signals))
    }

    fn new_unchecked(signals: Signals) -> Prepared {
        let n = sample_count(signals.duration, signals.step);
        let t = &signals.timelines;
        let fixed = |v: &[f32]| RangeMax::new(v.iter().map(|&x| to_fixed(x)).collect());
        let clip_types = ClipType::ALL
            .iter()
            .filter_map(|&ct| t.clip_types.get(ct.as_str()).map(|v| (ct, Prefix::new(v))))
            .collect();
        let mut characters: Vec<(u32, Vec<Interval>)> =
            signals.characters.iter().map(|c| (c.rank, c.spans.clone())).collect();
        characters.sort_by_key(|c| c.0);
        let mut all_spans: Vec<Interval> = characters.iter().flat_map(|c| c.1.iter().copied()).collect();
        all_spans.sort_by(|a, b| a[0].total_cmp(&b[0]));
        let anyone_on_screen = merge_touching(&all_spans);
        let mut tags_by_kind: [Vec<usize>; 3] = Default::default();
        let starts: Vec<f64> = signals.all_tags().map(|(t, _)| t.start).collect();
        for (i, (tag, _)) in signals.all_tags().enumerate() {
            tags_by_kind[kind_slot(tag.kind)].push(i);
        }
        for slot in &mut tags_by_kind {
            slot.sort_by(|&a, &b| starts[a].total_cmp(&starts[b]));
        }
        let scene_unit = signals.scene_embeddings.as_ref().map(|vs| {
            let mut flat = Vec::with_capacity(vs.len() * SCENE_EMBEDDING_DIM);
            for v in vs {
                flat.extend(unit_vector(v));
            }
            flat
        });
        Prepared {
            n,
            relevance: Prefix::new(&t.relevance),
            brightness: Prefix::new(&t.brightness),
            nudity: fixed(&t.nudity),
            blood_gore: fixed(&t.blood_gore),
            profanity: fixed(&t.profanity),
            clip_types,
            characters,
            anyone_on_screen,
            tags_by_kind,
            scene_unit,
            signals,
        }
    }

    /// Tag `i` of [`Signals::all_tags`] with its source.
    pub(crate) fn tag(&self, i: usize) -> (&Tag, TagSource) {
        let own = self.signals.tags.len();
        match self.signals.visual.as_ref().filter(|_| i >= own) {
            Some(v) => (&v.tags[i - own], TagSource::Picture),
            None => (&self.signals.tags[i], TagSource::Tags),
        }
    }

    /// The document this was built from.
    pub fn signals(&self) -> &Signals {
        &self.signals
    }

    /// Gives the document back.
    pub fn into_signals(self) -> Signals {
        self.signals
    }

    /// Samples per timeline.
    pub fn samples(&self) -> usize {
        self.n
    }

    /// Duration in seconds.
    pub fn duration(&self) -> f64 {
        self.signals.duration
    }

    /// Timeline step in seconds.
    pub fn step(&self) -> f64 {
        self.signals.step
    }

    /// Indexes `lo..hi` of the samples whose span overlaps `[start, stop)`; at least one sample
    /// when the item has any.
    pub fn sample_range(&self, start: f64, stop: f64) -> (usize, usize) {
        let step = self.signals.step;
        let n = self.n;
        let lo = ((start / step + INDEX_SLACK).floor().max(0.0) as usize).min(n.saturating_sub(1));
        let hi = ((stop / step - INDEX_SLACK).ceil().max(0.0) as usize).min(n);
        (lo, hi.max(lo + 1).min(n))
    }

    /// The prefix sums of a clip type's timeline, when the document has one.
    pub(crate) fn clip_type_prefix(&self, ct: ClipType) -> Option<&Prefix> {
        self.clip_types.iter().find(|(c, _)| *c == ct).map(|(_, p)| p)
    }
}

pub(crate) fn kind_slot(kind: TagKind) -> usize {
    match kind {
        TagKind::Keyword => 0,
        TagKind::Mood => 1,
        TagKind::Environment => 2,
    }
}

/// Merges sorted intervals that overlap or touch.
pub(crate) fn merge_touching(sorted: &[Interval]) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::with_capacity(sorted.len());
    for &[a, b] in sorted {
        match out.last_mut() {
            Some(last) if a <= last[1] => last[1] = last[1].max(b),
            _ => out.push([a, b]),
        }
    }
    out
}

/// `v / |v|`, or zeros for a zero vector.
pub(crate) fn unit_vector(v: &[f32]) -> impl Iterator<Item = f32> + '_ {
    let norm = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
    let scale = if norm > 0.0 { (1.0 / norm) as f32 } else { 0.0 };
    v.iter().map(move |&x| x * scale)
}
