//! The per-item `nudity` and `scene_tags` products, computed from a signals document.
//!
//! **Nudity** ([`nudity`]): the document's `timelines.nudity` (per sample, the nudity probability
//! measured on the frames inside it) as the product's timeline, plus **segments**: maximal runs of
//! samples at or above `threshold` (default 0.5), merged while the gap between two runs is under
//! `merge_gap` seconds (default 2), each scored with its maximum; and the title's maximum and
//! time-weighted mean. A document whose `analysis` lists `timelines.nudity` as absent has zeros
//! that measure nothing, so the product refuses it ([`Error::MissingSignal`]) rather than report
//! "no nudity".
//!
//! **Scene tags** ([`scene_tags`]): for every scene, the tags of each kind (keyword, mood,
//! environment) that overlap it by more than zero seconds, each with the highest score among its
//! overlapping spans, sorted by decreasing score, then name. Refused when `analysis` lists `tags`
//! as absent.
//!
//! ```
//! let signals = kino::synth::demo_signals("tt-visual", 600.0, 1.0, 3);
//! let n = kino::visual::nudity(&signals, &kino::visual::NudityOptions::default())?;
//! assert_eq!(n.timeline.len(), 600);
//! let scenes = kino::visual::scene_tags(&signals)?;
//! assert_eq!(scenes.len(), signals.scenes.len());
//! # Ok::<(), kino::Error>(())
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::report;
use crate::signals::{Signals, TagKind};

/// How nudity segments are found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NudityOptions {
    /// Samples at or above this are nudity; in `(0, 1]`. Default 0.5.
    pub threshold: f64,
    /// Runs closer than this many seconds merge; `>= 0`. Default 2.
    pub merge_gap: f64,
}

impl Default for NudityOptions {
    fn default() -> Self {
        NudityOptions { threshold: 0.5, merge_gap: 2.0 }
    }
}

/// A span with nudity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NuditySegment {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// The highest sample in it.
    pub score: f64,
}

/// The nudity product.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NudityResult {
    /// Seconds between timeline samples.
    pub step: f64,
    /// Per sample, the nudity probability (6 decimals).
    pub timeline: Vec<f64>,
    /// Spans at or above the threshold, in time order.
    pub segments: Vec<NuditySegment>,
    /// The threshold the segments used.
    pub threshold: f64,
    /// The highest sample.
    pub max: f64,
    /// The time-weighted mean over the title.
    pub mean: f64,
}

fn absent(signals: &Signals, channel: &str) -> bool {
    signals.analysis.as_ref().is_some_and(|a| a.absent.iter().any(|c| c == channel))
}

/// The nudity product of `signals` (see the module documentation).
pub fn nudity(signals: &Signals, options: &NudityOptions) -> Result<NudityResult> {
    if !(options.threshold > 0.0 && options.threshold <= 1.0) {
        return Err(Error::InvalidParameter {
            param: "threshold",
            rule: format!("must be in (0, 1] (got {})", options.threshold),
        });
    }
    if !(options.merge_gap.is_finite() && options.merge_gap >= 0.0) {
        return Err(Error::InvalidParameter {
            param: "merge_gap",
            rule: format!("must be a finite number >= 0 (got {})", options.merge_gap),
        });
    }
    if absent(signals, "timelines.nudity") {
        return Err(Error::MissingSignal { field: "timelines.nudity", needed_by: "the nudity product" });
    }
    let (step, d) = (signals.step, signals.duration);
    let values = &signals.timelines.nudity;
    let mut segments: Vec<NuditySegment> = Vec::new();
    let mut run: Option<(usize, f64)> = None;
    for (i, v) in values.iter().map(|&v| f64::from(v)).chain(std::iter::once(f64::NEG_INFINITY)).enumerate() {
        match (&mut run, v >= options.threshold) {
            (Some((_, max)), true) => *max = max.max(v),
            (None, true) => run = Some((i, v)),
            (Some((first, max)), false) => {
                let (start, end) = (*first as f64 * step, (i as f64 * step).min(d));
                match segments.last_mut() {
                    Some(last) if start - last.end < options.merge_gap => {
                        last.end = end;
                        last.score = last.score.max(*max);
                    }
                    _ => segments.push(NuditySegment { start, end, score: *max }),
                }
                run = None;
            }
            (None, false) => {}
        }
    }
    let weighted: f64 = values
        .iter()
        .enumerate()
        .map(|(i, &v)| f64::from(v) * (((i as f64 + 1.0) * step).min(d) - i as f64 * step).max(0.0))
        .sum();
    Ok(NudityResult {
        step,
        timeline: values.iter().map(|&v| report::score(f64::from(v))).collect(),
        segments: segments
            .into_iter()
            .map(|s| NuditySegment {
                start: report::time_within(s.start, d),
                end: report::time_within(s.end, d),
                score: report::score(s.score),
            })
            .collect(),
        threshold: options.threshold,
        max: report::score(values.iter().map(|&v| f64::from(v)).fold(0.0, f64::max)),
        mean: report::score(if d > 0.0 { weighted / d } else { 0.0 }),
    })
}

/// The tags of one scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SceneTags {
    /// Scene start in seconds.
    pub start: f64,
    /// Scene end in seconds.
    pub end: f64,
    /// Keyword tags: name and score, best first.
    pub keywords: Vec<TagScore>,
    /// Mood tags: name and score, best first.
    pub moods: Vec<TagScore>,
    /// Environment tags: name and score, best first.
    pub environments: Vec<TagScore>,
}

/// A tag's name and score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TagScore {
    /// The tag.
    pub name: String,
    /// Its highest score in the scene, in `[0, 1]`.
    pub score: f64,
    /// Where that tag came from: `picture` (what is seen) or `tags` (the document's tags: sound
    /// events, a sidecar, the customer's analysers).
    pub source: String,
}

/// The scene tags product of `signals` (see the module documentation).
pub fn scene_tags(signals: &Signals) -> Result<Vec<SceneTags>> {
    if absent(signals, "tags") && signals.visual.as_ref().is_none_or(|v| v.tags.is_empty()) {
        return Err(Error::MissingSignal { field: "tags", needed_by: "the scene_tags product" });
    }
    let d = signals.duration;
    Ok(signals
        .scenes
        .iter()
        .map(|scene| {
            let mut by_kind: [BTreeMap<&str, (f64, &'static str)>; 3] = Default::default();
            for (t, source) in signals.all_tags().filter(|(t, _)| t.start.max(scene.start) < t.end.min(scene.end)) {
                let k = match t.kind {
                    TagKind::Keyword => 0,
                    TagKind::Mood => 1,
                    TagKind::Environment => 2,
                };
                let e = by_kind[k].entry(t.name.as_str()).or_insert((t.score, source.as_str()));
                if t.score > e.0 {
                    *e = (t.score, source.as_str());
                }
            }
            let list = |m: &BTreeMap<&str, (f64, &'static str)>| {
                let mut v: Vec<TagScore> = m
                    .iter()
                    .map(|(n, (s, source))| TagScore {
                        name: n.to_string(),
                        score: report::score(*s),
                        source: source.to_string(),
                    })
                    .collect();
                v.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
                v
            };
            SceneTags {
                start: report::time_within(scene.start, d),
                end: report::time_within(scene.end, d),
                keywords: list(&by_kind[0]),
                moods: list(&by_kind[1]),
                environments: list(&by_kind[2]),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::{Analysis, Scene, Tag};
    use crate::synth::demo_signals;

    #[test]
    fn nudity_runs_merge_and_carry_their_maximum() {
        let mut s = demo_signals("n", 20.0, 1.0, 1);
        s.timelines.nudity = vec![0.0; 20];
        for (i, v) in [(3, 0.6), (4, 0.9), (6, 0.7), (15, 0.55)] {
            s.timelines.nudity[i] = v;
        }
        let r = nudity(&s, &NudityOptions::default()).unwrap();
        assert_eq!(r.segments.len(), 2, "{r:?}");
        assert_eq!((r.segments[0].start, r.segments[0].end, r.segments[0].score), (3.0, 7.0, 0.9));
        assert_eq!((r.segments[1].start, r.segments[1].end), (15.0, 16.0));
        assert!((r.max - 0.9).abs() < 1e-6);
        assert!((r.mean - (0.6 + 0.9 + 0.7 + 0.55) / 20.0).abs() < 1e-5, "{}", r.mean);
        let strict = nudity(&s, &NudityOptions { threshold: 0.8, merge_gap: 0.0 }).unwrap();
        assert_eq!(strict.segments.len(), 1);
        assert!(nudity(&s, &NudityOptions { threshold: 0.0, merge_gap: 1.0 }).is_err());
        s.analysis = Some(Analysis {
            analyzer: "t".into(),
            measured: vec![],
            absent: vec!["timelines.nudity".into()],
            models: Default::default(),
            reasons: Default::default(),
        });
        assert!(matches!(nudity(&s, &NudityOptions::default()), Err(Error::MissingSignal { .. })));
    }

    #[test]
    fn scene_tags_take_the_overlapping_tags_by_kind() {
        let mut s = demo_signals("t", 20.0, 1.0, 1);
        s.scenes = vec![Scene { start: 0.0, end: 10.0 }, Scene { start: 10.0, end: 20.0 }];
        let tag = |kind, name: &str, start, end, score| Tag { kind, name: name.into(), start, end, score };
        s.tags = vec![
            tag(TagKind::Keyword, "car", 2.0, 4.0, 0.5),
            tag(TagKind::Keyword, "car", 5.0, 12.0, 0.8),
            tag(TagKind::Mood, "tense", 0.0, 10.0, 0.6),
            tag(TagKind::Environment, "city", 10.0, 20.0, 0.9),
        ];
        let scenes = scene_tags(&s).unwrap();
        assert_eq!(scenes[0].keywords, vec![TagScore { name: "car".into(), score: 0.8, source: "tags".into() }]);
        assert_eq!(scenes[0].moods.len(), 1);
        assert!(scenes[0].environments.is_empty(), "touching at 10 s is not overlapping");
        assert_eq!(scenes[1].keywords[0].name, "car");
        assert!(scenes[1].moods.is_empty());
        assert_eq!(scenes[1].environments[0].name, "city");
    }
}
