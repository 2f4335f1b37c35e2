//! Choosing the frame of a thumbnail inside a span (usually the best preview clip).
//!
//! The rule, applied to candidate frames inside `[start, stop)` (each judged by its timeline
//! sample):
//!
//! 1. **Safe**: nudity and blood/gore of the sample at most [`FrameRule::max_nudity`] and
//!    [`FrameRule::max_blood_gore`].
//! 2. **Well lit**: brightness within `[min_brightness, max_brightness]`.
//! 3. **Clear of cuts**: at least [`FrameRule::shot_margin`] seconds from every shot boundary, so
//!    the frame is not a transition or motion-blurred cut frame.
//! 4. **Main character**: when the document knows characters, the main character (rank 0) is on
//!    screen.
//!
//! Candidates lie every 0.25 s (or every timeline step, when smaller) inside the span. Among
//! those that pass, the one with the highest relevance wins (the earliest on a tie).
//! When none passes, the rules are relaxed from the last to the first (main character, then cuts,
//! then brightness; safety last), and the choice records which rules it had to relax, so an editor
//! can see why a thumbnail is what it is. The chosen time is the middle of its frame. Times and
//! scores of the choice are rounded as reported ([`crate::report`]).

use serde::Serialize;
use serde_json::json;

use crate::clips::{ClipQuery, ParameterKind, ParameterSpec};
use crate::error::{Error, IssueKind, QueryIssue, Result};
use crate::report;
use crate::signals::{Prepared, Signals};

/// The thresholds of the frame-choice rule.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameRule {
    /// Lowest acceptable brightness (0..1).
    pub min_brightness: f64,
    /// Highest acceptable brightness (0..1).
    pub max_brightness: f64,
    /// Highest acceptable nudity probability.
    pub max_nudity: f64,
    /// Highest acceptable blood/gore probability.
    pub max_blood_gore: f64,
    /// Seconds a frame keeps from every shot boundary.
    pub shot_margin: f64,
    /// Whether the main character must be on screen (when characters are known).
    pub main_character: bool,
}

impl Default for FrameRule {
    fn default() -> Self {
        FrameRule {
            min_brightness: 0.15,
            max_brightness: 0.85,
            max_nudity: 0.1,
            max_blood_gore: 0.1,
            shot_margin: 0.5,
            main_character: true,
        }
    }
}

/// The chosen frame and the scores that justified it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FrameChoice {
    /// Seconds.
    pub time: f64,
    /// Frame number at the document's fps.
    pub frame: i64,
    /// Relevance of the sample.
    pub relevance: f64,
    /// Brightness of the sample.
    pub brightness: f64,
    /// Nudity of the sample.
    pub nudity: f64,
    /// Blood/gore of the sample.
    pub blood_gore: f64,
    /// Whether the main character is on screen.
    pub main_character: bool,
    /// Seconds to the nearest shot boundary (`None` without boundaries).
    pub shot_distance: Option<f64>,
    /// The shot's editorial type, when the picture was analysed (`visual.shot_types`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shot_type: Option<String>,
    /// The nearest sampled frame's sharpness over the sharpest of the item's, in `[0, 1]`, when
    /// the picture was analysed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sharpness: Option<f64>,
    /// Rules that had to be relaxed to find a frame (`main_character`, `shot_margin`,
    /// `brightness`, `safety`), empty when the frame meets them all.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub relaxed: Vec<&'static str>,
}

impl FrameChoice {
    /// Rounds the times (to the millisecond: the middle of a frame stays inside its frame below
    /// 1000 fps) and the scores (to six decimals) as every result is reported ([`crate::report`]).
    fn round_for_report(&mut self, duration: f64) {
        self.time = report::time_within(self.time, duration);
        self.shot_distance = self.shot_distance.map(report::time);
        for v in [&mut self.relevance, &mut self.brightness, &mut self.nudity, &mut self.blood_gore] {
            *v = report::score(*v);
        }
        self.sharpness = self.sharpness.map(report::score);
    }
}

const RULES: [&str; 4] = ["main_character", "shot_margin", "brightness", "safety"];

/// Candidate frames lie this far apart (or one timeline step, when smaller).
const CANDIDATE_SPACING: f64 = 0.25;
/// At most this many candidates (longer spans are sampled more coarsely).
const MAX_CANDIDATES: usize = 20_000;

/// Chooses the thumbnail frame of `[start, stop)`; `None` when the span is empty or not finite.
///
/// Candidates lie every 0.25 s (or every timeline step, when smaller) inside the span, on the
/// frame grid; each is judged by the timeline sample it falls in and by its own distance to the
/// nearest shot boundary. Documents that skipped validation (timelines of unequal length) never
/// panic: a missing value reads as 0.
pub fn choose_frame(signals: &Signals, start: f64, stop: f64, rule: &FrameRule) -> Option<FrameChoice> {
    let step = signals.step;
    if step.is_nan() || step <= 0.0 || !start.is_finite() || !stop.is_finite() || signals.timelines.relevance.is_empty()
    {
        return None;
    }
    let (start, stop) = (start.max(0.0), stop.min(signals.duration));
    if stop <= start {
        return None;
    }
    let spacing = CANDIDATE_SPACING.min(step).max((stop - start) / MAX_CANDIDATES as f64);
    let count = (((stop - start) / spacing).floor() as usize).max(1);
    let candidates: Vec<Candidate> = (0..count)
        .map(|k| start + (k as f64 + 0.5) * spacing)
        .filter(|&t| t < stop)
        .map(|t| candidate(signals, t, rule))
        .collect();
    for relaxed in 0..=RULES.len() {
        let best = candidates.iter().filter(|c| c.passes.iter().skip(relaxed).all(|p| *p)).fold(
            None::<&Candidate>,
            |best, c| match best {
                Some(b) if b.score >= c.score => Some(b),
                _ => Some(c),
            },
        );
        if let Some(best) = best {
            let mut choice = best.choice.clone();
            choice.relaxed = RULES[..relaxed].iter().zip(&best.passes).filter(|(_, p)| !**p).map(|(r, _)| *r).collect();
            choice.round_for_report(signals.duration);
            return Some(choice);
        }
    }
    None
}

struct Candidate {
    choice: FrameChoice,
    /// What the choice maximises among the frames that pass: the relevance, plus, when the
    /// picture was analysed, [`CLOSE_UP_BONUS`] for a close-up (half of it for a medium shot) and
    /// [`SHARPNESS_BONUS`] times the relative sharpness.
    score: f64,
    /// Whether it passes each of [`RULES`], in that order.
    passes: [bool; 4],
}

/// What a close-up (or an extreme close-up) of the frame's shot adds to its relevance when the
/// thumbnail is chosen: a face that fills the frame reads at thumbnail size.
pub const CLOSE_UP_BONUS: f64 = 0.1;
/// What the sharpest frame of the item adds (a frame half as sharp, half of it): a blurred frame
/// makes a poor thumbnail.
pub const SHARPNESS_BONUS: f64 = 0.1;

/// The shot type at `t` and the relative sharpness of the sampled frame nearest `t`.
fn picture_at(s: &Signals, t: f64) -> (Option<String>, Option<f64>) {
    let Some(v) = &s.visual else { return (None, None) };
    let shot = v.shot_types.iter().find(|x| x.start <= t && t < x.end).map(|x| x.kind.clone());
    let sharpest = v.frames.iter().map(|f| f.sharpness).fold(0.0, f64::max);
    let nearest = v.frames.iter().min_by(|a, b| (a.time - t).abs().total_cmp(&(b.time - t).abs()));
    let sharpness = nearest.filter(|_| sharpest > 0.0).map(|f| (f.sharpness / sharpest).clamp(0.0, 1.0));
    (shot, sharpness)
}

fn candidate(s: &Signals, t: f64, rule: &FrameRule) -> Candidate {
    let timelines = &s.timelines;
    let i = ((t / s.step).floor().max(0.0) as usize).min(timelines.relevance.len().saturating_sub(1));
    let at = |v: &Vec<f32>| v.get(i).copied().unwrap_or(0.0) as f64;
    let frame = if s.fps > 0.0 && s.fps.is_finite() { (t * s.fps).floor() as i64 } else { 0 };
    let time = if s.fps > 0.0 && s.fps.is_finite() { (frame as f64 + 0.5) / s.fps } else { t };
    let shot_distance = nearest(&s.shots, time);
    let main = s.characters.iter().find(|c| c.rank == 0);
    let main_character = main.is_some_and(|c| c.spans.iter().any(|[a, b]| *a <= time && time < *b));
    let (relevance, brightness, nudity, blood_gore) =
        (at(&timelines.relevance), at(&timelines.brightness), at(&timelines.nudity), at(&timelines.blood_gore));
    let passes = [
        !rule.main_character || main.is_none() || main_character,
        shot_distance.is_none_or(|d| d >= rule.shot_margin),
        (rule.min_brightness..=rule.max_brightness).contains(&brightness),
        nudity <= rule.max_nudity && blood_gore <= rule.max_blood_gore,
    ];
    let (shot_type, sharpness) = picture_at(s, time);
    let close = match shot_type.as_deref() {
        Some("close_up" | "extreme_close_up") => CLOSE_UP_BONUS,
        Some("medium") => CLOSE_UP_BONUS / 2.0,
        _ => 0.0,
    };
    let score = relevance + close + SHARPNESS_BONUS * sharpness.unwrap_or(0.0);
    Candidate {
        choice: FrameChoice {
            time,
            frame,
            relevance,
            brightness,
            nudity,
            blood_gore,
            main_character,
            shot_distance,
            shot_type,
            sharpness,
            relaxed: Vec::new(),
        },
        score,
        passes,
    }
}

fn nearest(sorted: &[f64], t: f64) -> Option<f64> {
    let i = sorted.partition_point(|&x| x < t);
    let after = sorted.get(i).map(|x| x - t);
    let before = i.checked_sub(1).map(|j| t - sorted[j]);
    match (before, after) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The parameters of a just-in-time thumbnails request: the clip search's ([`ClipQuery`]: the
/// best clips, with every filter, the character preference and 9:16) and the frame rule's own,
/// `shot_margin` and `main_character`. Each thumbnail is the frame the rule chooses inside one of
/// the selected clips. The rule's brightness and safety thresholds are the defaults of
/// [`FrameRule`], narrowed by the query's `min_brightness`/`max_brightness` and
/// `max_nudity`/`max_blood_gore` when those are stricter.
#[derive(Debug, Clone, PartialEq)]
pub struct ThumbnailQuery {
    /// Which clips to choose frames in.
    pub clips: ClipQuery,
    /// The frame rule.
    pub rule: FrameRule,
}

/// Largest accepted `shot_margin`, seconds.
pub const MAX_SHOT_MARGIN: f64 = 10.0;

impl ThumbnailQuery {
    /// The parameters a thumbnails request adds to [`ClipQuery::PARAMETERS`], with their meaning.
    pub const PARAMETERS: [(&'static str, &'static str); 2] = [
        ("shot_margin", "Seconds a frame keeps from every cut (default 0.5; 0 to 10)."),
        (
            "main_character",
            "Whether the main character must be on screen when the item knows its characters (default true).",
        ),
    ];

    /// Every parameter with its type, range, default and meaning: the clip search's
    /// ([`ClipQuery::parameter_specs`]), then the frame rule's.
    pub fn parameter_specs() -> Vec<ParameterSpec> {
        let mut specs = ClipQuery::parameter_specs();
        let rule = FrameRule::default();
        let [(margin, margin_meaning), (main, main_meaning)] = Self::PARAMETERS;
        specs.push(ParameterSpec {
            name: margin,
            description: margin_meaning.to_string(),
            kind: ParameterKind::Number { minimum: 0.0, maximum: Some(MAX_SHOT_MARGIN) },
            default: Some(json!(rule.shot_margin)),
            since_version: None,
            deprecated: false,
        });
        specs.push(ParameterSpec {
            name: main,
            description: main_meaning.to_string(),
            kind: ParameterKind::Boolean,
            default: Some(json!(rule.main_character)),
            since_version: None,
            deprecated: false,
        });
        specs
    }

    /// Parses query-string pairs as [`ClipQuery::from_pairs`] does (unknown keys ignored, the last
    /// of a repeated key wins, every problem reported at once).
    pub fn from_pairs<I, K, V>(pairs: I) -> Result<ThumbnailQuery>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let pairs: Vec<(String, String)> =
            pairs.into_iter().map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string())).collect();
        let mut issues = Vec::new();
        let clips = match ClipQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
            Ok(q) => Some(q),
            Err(Error::InvalidQuery { issues: found }) => {
                issues.extend(found);
                None
            }
            Err(e) => return Err(e),
        };
        let last = |name: &str| pairs.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        let mut rule = FrameRule::default();
        if let Some(v) = last("shot_margin") {
            match v.trim().parse::<f64>() {
                Ok(m) if (0.0..=MAX_SHOT_MARGIN).contains(&m) => rule.shot_margin = m,
                Ok(m) if m.is_finite() => issues.push(QueryIssue {
                    param: "shot_margin".into(),
                    kind: if m < 0.0 { IssueKind::GreaterThanEqual } else { IssueKind::LessThanEqual },
                    message: if m < 0.0 {
                        "Input should be greater than or equal to 0".into()
                    } else {
                        format!("Input should be less than or equal to {MAX_SHOT_MARGIN}")
                    },
                    input: Some(v.into()),
                    ctx: if m < 0.0 { json!({"ge": 0.0}) } else { json!({"le": MAX_SHOT_MARGIN}) },
                }),
                _ => issues.push(QueryIssue {
                    param: "shot_margin".into(),
                    kind: IssueKind::FloatParsing,
                    message: "Input should be a valid finite number".into(),
                    input: Some(v.into()),
                    ctx: serde_json::Value::Null,
                }),
            }
        }
        if let Some(v) = last("main_character") {
            match v.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" | "t" | "y" => rule.main_character = true,
                "false" | "0" | "no" | "off" | "f" | "n" => rule.main_character = false,
                _ => issues.push(QueryIssue {
                    param: "main_character".into(),
                    kind: IssueKind::BoolParsing,
                    message: "Input should be a valid boolean, unable to interpret input".into(),
                    input: Some(v.into()),
                    ctx: serde_json::Value::Null,
                }),
            }
        }
        match clips {
            Some(clips) if issues.is_empty() => Ok(ThumbnailQuery::new(clips, rule)),
            _ => Err(Error::InvalidQuery { issues }),
        }
    }

    /// A query from a clip query and a frame rule, the rule narrowed by the clip query's stricter
    /// brightness and safety bounds.
    pub fn new(clips: ClipQuery, mut rule: FrameRule) -> ThumbnailQuery {
        rule.min_brightness = rule.min_brightness.max(clips.min_brightness);
        rule.max_brightness = rule.max_brightness.min(clips.max_brightness);
        rule.max_nudity = rule.max_nudity.min(clips.max_nudity);
        rule.max_blood_gore = rule.max_blood_gore.min(clips.max_blood_gore);
        ThumbnailQuery { clips, rule }
    }
}

/// One just-in-time thumbnail: the frame chosen inside one of the best clips.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JitThumbnail {
    /// Rank of the clip it was chosen in, from 0 (the clip search's `clip_index`).
    pub clip_index: usize,
    /// Start of that clip, seconds.
    pub clip_start_time: f64,
    /// End of that clip, seconds.
    pub clip_stop_time: f64,
    /// The frame and the scores that justified it.
    #[serde(flatten)]
    pub frame: FrameChoice,
}

/// Just-in-time thumbnails of one item: the best clips by `query.clips`
/// ([`crate::select`]), then in each the frame [`choose_frame`] picks by `query.rule`. A clip in
/// which no frame can be chosen (an empty span) gives none. `query_embedding` is the text
/// embedding of `search_query`, as for [`crate::select`].
pub fn jit_thumbnails(
    p: &Prepared,
    query: &ThumbnailQuery,
    query_embedding: Option<&[f32]>,
) -> Result<Vec<JitThumbnail>> {
    let clips = crate::select(p, &query.clips, query_embedding)?;
    Ok(clips
        .iter()
        .filter_map(|c| {
            let frame = choose_frame(p.signals(), c.start_time, c.stop_time, &query.rule)?;
            Some(JitThumbnail {
                clip_index: c.clip_index,
                clip_start_time: c.start_time,
                clip_stop_time: c.stop_time,
                frame,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::Character;

    fn doc() -> Signals {
        let mut s = crate::synth::demo_signals("t", 100.0, 1.0, 3);
        let n = s.timelines.relevance.len();
        s.timelines.relevance = (0..n).map(|i| (i % 10) as f32 / 10.0).collect();
        s.timelines.brightness = vec![0.5; n];
        s.timelines.nudity = vec![0.0; n];
        s.timelines.blood_gore = vec![0.0; n];
        s.shots = vec![];
        s.characters = vec![];
        s
    }

    #[test]
    fn picks_the_most_relevant_safe_lit_frame() {
        let mut s = doc();
        let c = choose_frame(&s, 20.0, 30.0, &FrameRule::default()).unwrap();
        assert!((29.0..29.3).contains(&c.time) && c.relaxed.is_empty(), "{c:?}");
        assert_eq!(c.relevance, 0.9, "reported rounded, not 0.8999999761581421");
        assert_eq!(c.frame, (c.time * s.fps).floor() as i64, "the time is the middle of its frame");
        s.timelines.nudity[29] = 0.9;
        s.timelines.brightness[28] = 0.99;
        s.shots = vec![27.2];
        let c = choose_frame(&s, 20.0, 30.0, &FrameRule::default()).unwrap();
        assert!((27.7..28.0).contains(&c.time), "29 unsafe, 28 too bright, 27.x within 0.5 s of the cut: {c:?}");
        assert!(c.shot_distance.unwrap() >= 0.5);
    }

    #[test]
    fn prefers_the_main_character_and_relaxes_in_order() {
        let mut s = doc();
        s.characters = vec![Character { rank: 0, spans: vec![[21.0, 23.0]] }];
        let c = choose_frame(&s, 20.0, 30.0, &FrameRule::default()).unwrap();
        assert!((22.0..23.0).contains(&c.time) && c.main_character, "{c:?}");
        s.timelines.brightness = vec![0.0; s.timelines.brightness.len()];
        let c = choose_frame(&s, 20.0, 30.0, &FrameRule::default()).unwrap();
        assert_eq!(c.relaxed, ["main_character", "brightness"], "rules before brightness relax first");
        assert!((29.0..30.0).contains(&c.time));
        assert!(choose_frame(&s, 50.0, 50.0, &FrameRule::default()).is_none());
        assert!(choose_frame(&s, f64::NAN, 50.0, &FrameRule::default()).is_none());
        s.timelines.nudity.clear();
        assert!(choose_frame(&s, 20.0, 30.0, &FrameRule::default()).is_some(), "unvalidated documents never panic");
    }

    /// With the picture analysed, a close-up and a sharp frame win over a slightly more relevant
    /// wide, blurred one; without it the choice is the relevance's alone.
    #[test]
    fn prefers_close_ups_and_sharp_frames_when_the_picture_was_analysed() {
        use crate::signals::{ShotType, Visual, VisualFrame};
        let mut s = doc();
        s.shots = vec![25.0];
        let shot =
            |start: f64, end: f64, kind: &str| ShotType { start, end, kind: kind.into(), people: 1, setting: None };
        let frame = |time: f64, sharpness: f64| VisualFrame { time, labels: Vec::new(), sharpness };
        s.visual = Some(Visual {
            interval: 2.0,
            frames: (0..50).map(|i| frame(f64::from(i) * 2.0, if i == 11 { 400.0 } else { 100.0 })).collect(),
            shot_types: vec![shot(0.0, 25.0, "close_up"), shot(25.0, 100.0, "wide")],
            scene_features: None,
            item_feature: None,
            cues: Vec::new(),
            tags: Vec::new(),
        });
        s.validate().unwrap();
        // 29.x is the most relevant (0.9) but wide and blurred; 22.x (0.2 + close-up + the
        // sharpest frame at 22 s) is not enough; 24.x (0.4 + close-up + sharpness 0.25) neither...
        let c = choose_frame(&s, 20.0, 30.0, &FrameRule::default()).unwrap();
        assert!((29.0..30.0).contains(&c.time), "{c:?}");
        // ...but with 24.x raised to 0.75 (0.75 + 0.1 + 0.025) it beats 29.x lowered to 0.75
        // (0.775) and 28.x (0.8 + 0.025).
        s.timelines.relevance[24] = 0.75;
        s.timelines.relevance[29] = 0.75;
        let c = choose_frame(&s, 20.0, 30.0, &FrameRule::default()).unwrap();
        assert!((24.0..25.0).contains(&c.time), "{c:?}");
        assert_eq!(c.shot_type.as_deref(), Some("close_up"));
        assert!(c.sharpness.is_some_and(|x| x > 0.0 && x <= 1.0), "{c:?}");
        // Without the picture: the most relevant frame, 28.x (0.8).
        s.visual = None;
        let c = choose_frame(&s, 20.0, 30.0, &FrameRule::default()).unwrap();
        assert!((28.0..29.0).contains(&c.time) && c.shot_type.is_none(), "{c:?}");
    }
    #[test]
    fn jit_thumbnails_choose_a_frame_inside_each_selected_clip() {
        let p = Prepared::new(crate::synth::demo_signals("t", 1800.0, 1.0, 7)).unwrap();
        let q = ThumbnailQuery::from_pairs([
            ("number_of_top_candidates", "4"),
            ("clip_length", "20"),
            ("shot_margin", "0.25"),
        ])
        .unwrap();
        assert_eq!(q.rule.shot_margin, 0.25);
        let clips = crate::select(&p, &q.clips, None).unwrap();
        let thumbs = jit_thumbnails(&p, &q, None).unwrap();
        assert_eq!(thumbs.len(), clips.len());
        for (t, c) in thumbs.iter().zip(&clips) {
            assert_eq!((t.clip_index, t.clip_start_time, t.clip_stop_time), (c.clip_index, c.start_time, c.stop_time));
            assert!(c.start_time <= t.frame.time && t.frame.time < c.stop_time, "{t:?} inside {c:?}");
            assert_eq!(Some(&t.frame), choose_frame(p.signals(), c.start_time, c.stop_time, &q.rule).as_ref());
        }
        // The clip query's stricter bounds narrow the frame rule; looser ones do not widen it.
        let strict = ThumbnailQuery::from_pairs([("max_brightness", "0.6"), ("min_brightness", "0.05")]).unwrap();
        assert_eq!((strict.rule.min_brightness, strict.rule.max_brightness), (0.15, 0.6));
    }

    #[test]
    fn thumbnail_parameters_are_validated_by_name() {
        let issues = match ThumbnailQuery::from_pairs([
            ("shot_margin", "11"),
            ("main_character", "perhaps"),
            ("clip_length", "x"),
        ]) {
            Err(Error::InvalidQuery { issues }) => issues,
            other => panic!("{other:?}"),
        };
        let params: Vec<&str> = issues.iter().map(|i| i.param.as_str()).collect();
        assert_eq!(params, ["clip_length", "shot_margin", "main_character"]);
        assert_eq!(issues[1].kind, IssueKind::LessThanEqual);
        for bad in ["-1", "nan", "inf", ""] {
            assert!(ThumbnailQuery::from_pairs([("shot_margin", bad)]).is_err(), "{bad}");
        }
        let q = ThumbnailQuery::from_pairs([("main_character", "false"), ("shot_margin", "0")]).unwrap();
        assert!(!q.rule.main_character && q.rule.shot_margin == 0.0);
    }
}
