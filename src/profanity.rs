//! Profanity: the interface's classification (`data.profanity.label`) and segments
//! (`data.profanity.segments[]`), computed from a document's spoken profanity events.
//!
//! **Events.** The document's `profanity` events when it has that field (even empty); otherwise
//! events derived from `timelines.profanity`: every maximal run of samples whose value is at least
//! [`ProfanityOptions::min_score`] becomes one event over the run, scored with the run's maximum.
//! Events scored below `min_score` are not profanity and are dropped.
//!
//! **Segments.** Events sorted by start merge into one segment while the next one starts less than
//! [`ProfanityOptions::merge_gap`] seconds after the segment ends (overlapping events always
//! merge). A segment spans its events and scores their maximum. [`profanity()`] reports segments
//! rounded ([`crate::report`]: times to the millisecond, scores to six decimals); [`merge`]
//! returns them exact.
//!
//! **Label.** With `hours = duration / 3600`, `rate` the events per hour and `severe_rate` the
//! events scored at least [`ProfanityOptions::severe_score`] per hour (events, not segments: three
//! words in one sentence count three times):
//!
//! | label | rule (first that holds) |
//! |---|---|
//! | `None` | no event |
//! | `Strong` | `rate >= 12` or `severe_rate >= 4` |
//! | `Moderate` | `rate >= 3` or `severe_rate >= 1` |
//! | `Mild` | otherwise (at least one event) |
//!
//! ```
//! use kino::{ProfanityLabel, ProfanityOptions, profanity};
//!
//! let signals = kino::synth::demo_signals("tt-profanity", 5400.0, 1.0, 5);
//! let result = profanity(&signals, &ProfanityOptions::default())?;
//! assert_eq!(result.label == ProfanityLabel::None, result.segments.is_empty());
//! println!("{}", serde_json::to_string(&result).unwrap());
//! # Ok::<(), kino::Error>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::report;
use crate::signals::{ProfanityEvent, Signals};

/// Events per hour from which a title is at least `Moderate`.
pub const MODERATE_PER_HOUR: f64 = 3.0;
/// Events per hour from which a title is `Strong`.
pub const STRONG_PER_HOUR: f64 = 12.0;
/// Severe events per hour from which a title is at least `Moderate`.
pub const MODERATE_SEVERE_PER_HOUR: f64 = 1.0;
/// Severe events per hour from which a title is `Strong`.
pub const STRONG_SEVERE_PER_HOUR: f64 = 4.0;

/// How events are read, merged and judged (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfanityOptions {
    /// Events closer than this many seconds merge into one segment. Default 3.
    pub merge_gap: f64,
    /// Events (and timeline samples) scored below this are not profanity. Default 0.5.
    pub min_score: f64,
    /// Events scored at least this are severe. Default 0.8.
    pub severe_score: f64,
}

impl Default for ProfanityOptions {
    fn default() -> Self {
        ProfanityOptions { merge_gap: 3.0, min_score: 0.5, severe_score: 0.8 }
    }
}

impl ProfanityOptions {
    /// Checks the ranges: `merge_gap` finite and `>= 0`, scores in `[0, 1]`.
    pub fn validate(&self) -> Result<()> {
        if !(self.merge_gap.is_finite() && self.merge_gap >= 0.0) {
            return Err(Error::argument("merge_gap", format!("must be finite and >= 0 (got {})", self.merge_gap)));
        }
        for (name, v) in [("min_score", self.min_score), ("severe_score", self.severe_score)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::argument(name, format!("must be in [0, 1] (got {v})")));
            }
        }
        Ok(())
    }
}

/// The classification of a title's spoken profanity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ProfanityLabel {
    /// No profanity.
    None,
    /// Occasional profanity.
    Mild,
    /// Frequent profanity, or some severe.
    Moderate,
    /// Pervasive profanity, or frequent severe.
    Strong,
}

impl ProfanityLabel {
    /// The interface's value: `None`, `Mild`, `Moderate` or `Strong`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProfanityLabel::None => "None",
            ProfanityLabel::Mild => "Mild",
            ProfanityLabel::Moderate => "Moderate",
            ProfanityLabel::Strong => "Strong",
        }
    }
}

/// A span of speech containing profanity (`data.profanity.segments[]`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProfanitySegment {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// The highest score of the events merged into this segment.
    pub score: f64,
}

/// The interface's `data.profanity`: the label and the segments, in time order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProfanityResult {
    /// The classification.
    pub label: ProfanityLabel,
    /// The merged segments, sorted by start.
    pub segments: Vec<ProfanitySegment>,
}

/// Computes the profanity result of one document (see the module documentation for the rules).
pub fn profanity(signals: &Signals, options: &ProfanityOptions) -> Result<ProfanityResult> {
    options.validate()?;
    let mut events: Vec<ProfanityEvent> = match &signals.profanity {
        Some(events) => events.iter().filter(|e| e.score >= options.min_score).cloned().collect(),
        None => timeline_events(&signals.timelines.profanity, signals.step, signals.duration, options.min_score),
    };
    events.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.end.total_cmp(&b.end)));
    let label = classify(&events, signals.duration, options);
    let d = signals.duration;
    let segments = merge(&events, options.merge_gap)
        .into_iter()
        .map(|g| ProfanitySegment {
            start: report::time_within(g.start, d),
            end: report::time_within(g.end, d),
            score: report::score(g.score),
        })
        .collect();
    Ok(ProfanityResult { label, segments })
}

/// The label of a title of `duration` seconds with these (already filtered) events.
pub fn classify(events: &[ProfanityEvent], duration: f64, options: &ProfanityOptions) -> ProfanityLabel {
    if events.is_empty() {
        return ProfanityLabel::None;
    }
    let hours = duration / 3600.0;
    let rate = events.len() as f64 / hours;
    let severe_rate = events.iter().filter(|e| e.score >= options.severe_score).count() as f64 / hours;
    if rate >= STRONG_PER_HOUR || severe_rate >= STRONG_SEVERE_PER_HOUR {
        ProfanityLabel::Strong
    } else if rate >= MODERATE_PER_HOUR || severe_rate >= MODERATE_SEVERE_PER_HOUR {
        ProfanityLabel::Moderate
    } else {
        ProfanityLabel::Mild
    }
}

/// Merges events sorted by start into segments: the next event joins the current segment when it
/// starts less than `gap` seconds after the segment's end.
pub fn merge(sorted: &[ProfanityEvent], gap: f64) -> Vec<ProfanitySegment> {
    let mut out: Vec<ProfanitySegment> = Vec::new();
    for e in sorted {
        match out.last_mut() {
            Some(seg) if e.start - seg.end < gap || e.start <= seg.end => {
                seg.end = seg.end.max(e.end);
                seg.score = seg.score.max(e.score);
            }
            _ => out.push(ProfanitySegment { start: e.start, end: e.end, score: e.score }),
        }
    }
    out
}

/// Events from a profanity timeline: maximal runs of samples `>= min_score`, scored by their max.
fn timeline_events(values: &[f32], step: f64, duration: f64, min_score: f64) -> Vec<ProfanityEvent> {
    let mut out = Vec::new();
    let mut run: Option<(usize, f64)> = None;
    for (i, &v) in values.iter().chain(std::iter::once(&f32::NEG_INFINITY)).enumerate() {
        let v = f64::from(v);
        match (&mut run, v >= min_score) {
            (Some((_, max)), true) => *max = max.max(v),
            (None, true) => run = Some((i, v)),
            (Some((first, max)), false) => {
                let (start, end) = (*first as f64 * step, (i as f64 * step).min(duration));
                out.push(ProfanityEvent { start, end, score: *max, word: None });
                run = None;
            }
            (None, false) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn event(start: f64, end: f64, score: f64) -> ProfanityEvent {
        ProfanityEvent { start, end, score, word: None }
    }

    fn doc(duration: f64, events: Option<Vec<ProfanityEvent>>) -> Signals {
        let mut s = crate::synth::demo_signals("prof", duration, 1.0, 9);
        s.profanity = events;
        s
    }

    #[test]
    fn close_events_merge_with_the_maximum_score() {
        let events =
            vec![event(10.0, 11.0, 0.6), event(12.5, 13.0, 0.9), event(20.0, 21.0, 0.7), event(20.5, 20.8, 0.5)];
        let segs = merge(&events, 3.0);
        assert_eq!(
            segs,
            vec![
                ProfanitySegment { start: 10.0, end: 13.0, score: 0.9 },
                ProfanitySegment { start: 20.0, end: 21.0, score: 0.7 },
            ]
        );
        assert_eq!(merge(&events, 0.0).len(), 3, "with no gap only overlapping events merge");
    }

    #[test]
    fn label_follows_the_documented_rule() {
        let o = ProfanityOptions::default();
        let at = |n: usize, score: f64| {
            (0..n).map(|i| event(i as f64 * 60.0, i as f64 * 60.0 + 1.0, score)).collect::<Vec<_>>()
        };
        let hour = 3600.0;
        assert_eq!(classify(&[], hour, &o), ProfanityLabel::None);
        assert_eq!(classify(&at(2, 0.6), hour, &o), ProfanityLabel::Mild);
        assert_eq!(classify(&at(3, 0.6), hour, &o), ProfanityLabel::Moderate);
        assert_eq!(classify(&at(1, 0.85), hour, &o), ProfanityLabel::Moderate);
        assert_eq!(classify(&at(12, 0.6), hour, &o), ProfanityLabel::Strong);
        assert_eq!(classify(&at(4, 0.9), hour, &o), ProfanityLabel::Strong);
        assert_eq!(classify(&at(4, 0.9), 2.0 * hour, &o), ProfanityLabel::Moderate, "rates are per hour");
    }

    #[test]
    fn low_scores_are_not_profanity() {
        let s = doc(3600.0, Some(vec![event(5.0, 6.0, 0.2), event(100.0, 101.0, 0.4)]));
        let r = profanity(&s, &ProfanityOptions::default()).unwrap();
        assert_eq!((r.label, r.segments.len()), (ProfanityLabel::None, 0));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json, serde_json::json!({"label": "None", "segments": []}));
    }

    #[test]
    fn without_events_the_timeline_speaks() {
        let mut s = doc(10.0, None);
        s.timelines.profanity = vec![0.0, 0.7, 0.9, 0.1, 0.0, 0.0, 0.0, 0.0, 0.6, 0.55];
        let r = profanity(&s, &ProfanityOptions::default()).unwrap();
        assert_eq!(
            r.segments,
            vec![
                ProfanitySegment { start: 1.0, end: 3.0, score: 0.9 },
                ProfanitySegment { start: 8.0, end: 10.0, score: 0.6 }
            ]
        );
        assert_eq!(r.label, ProfanityLabel::Strong, "2 events in 10 s is a high rate");
    }

    #[test]
    fn bad_options_name_the_field() {
        let s = doc(60.0, Some(vec![]));
        let err = profanity(&s, &ProfanityOptions { merge_gap: -1.0, ..Default::default() }).unwrap_err();
        assert!(err.to_string().contains("merge_gap"), "{err}");
        let err = profanity(&s, &ProfanityOptions { min_score: 2.0, ..Default::default() }).unwrap_err();
        assert!(err.to_string().contains("min_score"), "{err}");
    }

    proptest! {
        #[test]
        fn segments_are_sorted_disjoint_and_cover_every_event(
            raw in prop::collection::vec((0.0f64..500.0, 0.1f64..20.0, 0.0f64..=1.0), 0..40),
            gap in 0.0f64..30.0,
        ) {
            let events: Vec<_> = raw.iter().map(|&(s, len, score)| event(s, (s + len).min(600.0), score)).collect();
            let s = doc(600.0, Some(events.clone()));
            let o = ProfanityOptions { merge_gap: gap, ..Default::default() };
            let r = profanity(&s, &o).unwrap();
            let mut kept: Vec<_> = events.iter().filter(|e| e.score >= o.min_score).cloned().collect();
            kept.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.end.total_cmp(&b.end)));
            let exact = merge(&kept, gap);
            for pair in exact.windows(2) {
                prop_assert!(pair[1].start - pair[0].end >= gap && pair[1].start > pair[0].end);
            }
            for e in &kept {
                let seg = exact.iter().find(|g| g.start <= e.start && e.end <= g.end);
                prop_assert!(seg.is_some_and(|g| g.score >= e.score));
            }
            for g in &exact {
                let best = kept.iter().filter(|e| g.start <= e.start && e.end <= g.end).map(|e| e.score).fold(f64::NAN, f64::max);
                prop_assert_eq!(g.score, best);
            }
            prop_assert_eq!(r.label == ProfanityLabel::None, kept.is_empty());
            // Reported: the exact segments rounded, each number its own rounding.
            let rounded: Vec<_> = exact.iter().map(|g| (report::time(g.start), report::time(g.end), report::score(g.score))).collect();
            prop_assert_eq!(r.segments.iter().map(|g| (g.start, g.end, g.score)).collect::<Vec<_>>(), rounded);
        }
    }
}
