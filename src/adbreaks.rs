//! Ad breaks: where a title can be interrupted cleanly, and what surrounds each break.
//!
//! **Candidates.** Every shot boundary (`shots`) and every scene start after the first is a
//! candidate, unless it lies inside speech or within [`SPEECH_MARGIN`] seconds of it (a break never
//! cuts a sentence). Each candidate gets a **score** in `[0, 1]`, how clean a break it is:
//!
//! `score = 0.4 * dark + 0.35 * quiet + 0.25 * scene`
//!
//! - `dark = clamp((0.25 - b) / 0.25, 0, 1)`, `b` the lowest `timelines.brightness` sample within
//!   1 s of the candidate: a cut through black frames (a fade) scores 1, a cut between lit shots 0;
//! - `quiet = clamp(g / 3, 0, 1)`, `g` the seconds to the nearest speech interval (no speech at all:
//!   1): three seconds of no dialogue on the nearer side is a full score;
//! - `scene = 1` when the candidate starts a scene (within 0.05 s), else 0: a change of scene is a
//!   natural pause.
//!
//! **Breaks by window** ([`adbreaks`]): from `skip_first` minutes after the start to `skip_last`
//! minutes before the end, the title is cut into consecutive windows of `window` minutes. Each
//! window with candidates gives one break: its candidates at least `separation` minutes after the
//! previous window's chosen break, best score first (ties to the earlier time), at most
//! [`MAX_CANDIDATES`]; the first is the chosen one. `rank` numbers the breaks from 1.
//!
//! **Contextual breaks** ([`contextual_adbreaks`]): one sequence of breaks through the title, from
//! `skip_first` minutes to `skip_last` minutes before the end: each next break is the best
//! candidate between `minimum_separation` and `maximum_separation` minutes after the previous one
//! (or after the start of the allowed span); when that stretch has none, the search moves on to the
//! next stretch. Each break reports what surrounds it: nudity and profanity within
//! [`CONTEXT_SECONDS`] seconds (`None` when the analysis did not measure them), and the keyword and
//! mood tags of the scene before it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::report;
use crate::signals::{Signals, TagKind};

/// Seconds of clearance a break keeps from speech.
pub const SPEECH_MARGIN: f64 = 0.5;
/// The most candidates listed per break.
pub const MAX_CANDIDATES: usize = 5;
/// Seconds on each side of a contextual break in which nudity and profanity count.
pub const CONTEXT_SECONDS: f64 = 30.0;

/// Parameters of [`adbreaks`], in minutes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdbreakOptions {
    /// The length of the windows in which one break is looked for; `>= 0.1`. Default 5.
    pub window: f64,
    /// The least time between two chosen breaks; `>= 0`. Default 1.
    pub separation: f64,
    /// No break in the first minutes; `>= 0`. Default 1.
    pub skip_first: f64,
    /// No break in the last minutes; `>= 0`. Default 1.
    pub skip_last: f64,
}

impl Default for AdbreakOptions {
    fn default() -> Self {
        AdbreakOptions { window: 5.0, separation: 1.0, skip_first: 1.0, skip_last: 1.0 }
    }
}

/// Parameters of [`contextual_adbreaks`], in minutes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextualOptions {
    /// The least time between two breaks; `>= 0`. Default 1.
    pub minimum_separation: f64,
    /// The most time between two breaks; `>= 0.1` and `> minimum_separation`. Default 5.
    pub maximum_separation: f64,
    /// No break in the first minutes; `>= 0`. Default 1.
    pub skip_first: f64,
    /// No break in the last minutes; `>= 0`. Default 1.
    pub skip_last: f64,
}

impl Default for ContextualOptions {
    fn default() -> Self {
        ContextualOptions { minimum_separation: 1.0, maximum_separation: 5.0, skip_first: 1.0, skip_last: 1.0 }
    }
}

/// A place a break could go.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Candidate {
    /// Seconds.
    pub time: f64,
    /// How clean a break it is, in `[0, 1]` (see the module documentation).
    pub score: f64,
}

/// One break of [`adbreaks`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Adbreak {
    /// 1 for the first break, in time order.
    pub rank: usize,
    /// Its candidates, the chosen one first.
    pub candidates: Vec<Candidate>,
}

/// One break of [`contextual_adbreaks`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ContextualAdbreak {
    /// Seconds.
    pub timestamp: f64,
    /// The frame at that time (`round(timestamp * fps)`).
    pub frame_number: i64,
    /// 1 for the first break.
    pub rank: usize,
    /// How clean a break it is, in `[0, 1]`.
    pub score: f64,
    /// Whether nudity (a `timelines.nudity` sample >= 0.5) is within 30 s; `None` when not measured.
    pub contains_nudity: Option<bool>,
    /// Whether profanity (a `timelines.profanity` sample >= 0.5) is within 30 s; `None` when not
    /// measured.
    pub contains_profanity: Option<bool>,
    /// Keyword tags of the scene before the break, name to score.
    pub keyword: BTreeMap<String, f64>,
    /// Mood tags of the scene before the break, name to score.
    pub mood_tag: BTreeMap<String, f64>,
}

fn param(name: &'static str, value: f64, ok: bool, rule: &str) -> Result<()> {
    if value.is_finite() && ok {
        Ok(())
    } else {
        Err(Error::InvalidParameter { param: name, rule: format!("must be {rule} (got {value})") })
    }
}

/// Every candidate of `signals`, in time order.
pub fn candidates(signals: &Signals) -> Vec<Candidate> {
    let mut times: Vec<f64> = signals.shots.clone();
    times.extend(signals.scenes.iter().skip(1).map(|s| s.start));
    times.retain(|t| t.is_finite() && *t > 0.0 && *t < signals.duration);
    times.sort_by(f64::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() < 0.05);
    let step = signals.step;
    let brightness = &signals.timelines.brightness;
    times
        .into_iter()
        .filter_map(|t| {
            let gap = signals
                .speech
                .iter()
                .map(|&[a, b]| {
                    if t < a {
                        a - t
                    } else if t > b {
                        t - b
                    } else {
                        0.0
                    }
                })
                .fold(f64::INFINITY, f64::min);
            if gap < SPEECH_MARGIN {
                return None;
            }
            let (i0, i1) = (((t - 1.0).max(0.0) / step) as usize, ((t + 1.0) / step) as usize);
            let b = brightness
                .get(i0..=i1.min(brightness.len().saturating_sub(1)))
                .map_or(1.0, |s| s.iter().map(|&v| f64::from(v)).fold(1.0, f64::min));
            let dark = ((0.25 - b) / 0.25).clamp(0.0, 1.0);
            let quiet = if gap.is_infinite() { 1.0 } else { (gap / 3.0).clamp(0.0, 1.0) };
            let scene = if signals.scenes.iter().skip(1).any(|s| (s.start - t).abs() < 0.05) { 1.0 } else { 0.0 };
            Some(Candidate { time: t, score: report::score(0.4 * dark + 0.35 * quiet + 0.25 * scene) })
        })
        .collect()
}

fn best_first(mut c: Vec<Candidate>) -> Vec<Candidate> {
    c.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.time.total_cmp(&b.time)));
    c
}

/// The breaks of `signals` by window (see the module documentation).
pub fn adbreaks(signals: &Signals, options: &AdbreakOptions) -> Result<Vec<Adbreak>> {
    param("window", options.window, options.window >= 0.1, "a number of minutes >= 0.1")?;
    param("separation", options.separation, options.separation >= 0.0, "a number of minutes >= 0")?;
    param("skip_first", options.skip_first, options.skip_first >= 0.0, "a number of minutes >= 0")?;
    param("skip_last", options.skip_last, options.skip_last >= 0.0, "a number of minutes >= 0")?;
    let all = candidates(signals);
    let (from, to) = (options.skip_first * 60.0, signals.duration - options.skip_last * 60.0);
    let w = options.window * 60.0;
    let mut out = Vec::new();
    let mut previous: Option<f64> = None;
    let mut start = from;
    while start < to {
        let end = (start + w).min(to);
        let eligible: Vec<Candidate> = all
            .iter()
            .copied()
            .filter(|c| c.time >= start && c.time < end)
            .filter(|c| previous.is_none_or(|p| c.time - p >= options.separation * 60.0))
            .collect();
        let mut ranked = best_first(eligible);
        ranked.truncate(MAX_CANDIDATES);
        if let Some(first) = ranked.first() {
            previous = Some(first.time);
            out.push(Adbreak {
                rank: out.len() + 1,
                candidates: ranked.iter().map(|c| Candidate { time: report::time(c.time), score: c.score }).collect(),
            });
        }
        start = end;
    }
    Ok(out)
}

fn absent(signals: &Signals, channel: &str) -> bool {
    signals.analysis.as_ref().is_some_and(|a| a.absent.iter().any(|c| c == channel))
}

/// The contextual breaks of `signals` (see the module documentation).
pub fn contextual_adbreaks(signals: &Signals, options: &ContextualOptions) -> Result<Vec<ContextualAdbreak>> {
    let o = options;
    param("minimum_separation", o.minimum_separation, o.minimum_separation >= 0.0, "a number of minutes >= 0")?;
    param(
        "maximum_separation",
        o.maximum_separation,
        o.maximum_separation > o.minimum_separation && o.maximum_separation >= 0.1,
        "a number of minutes >= 0.1 and > minimum_separation",
    )?;
    param("skip_first", o.skip_first, o.skip_first >= 0.0, "a number of minutes >= 0")?;
    param("skip_last", o.skip_last, o.skip_last >= 0.0, "a number of minutes >= 0")?;
    let all = candidates(signals);
    let (from, to) = (o.skip_first * 60.0, signals.duration - o.skip_last * 60.0);
    let (min_gap, max_gap) = (o.minimum_separation * 60.0, o.maximum_separation * 60.0);
    let mut chosen: Vec<Candidate> = Vec::new();
    let mut anchor = from;
    let mut first = true;
    while anchor < to {
        let (lo, hi) =
            if first { (from, (from + max_gap).min(to)) } else { (anchor + min_gap, (anchor + max_gap).min(to)) };
        if lo >= to {
            break;
        }
        // After a break, strictly later candidates only (a zero minimum never picks it again).
        let best = best_first(
            all.iter().copied().filter(|c| c.time >= lo && c.time <= hi && (first || c.time > anchor)).collect(),
        )
        .into_iter()
        .next();
        match best {
            Some(c) => {
                chosen.push(c);
                anchor = c.time;
                first = false;
            }
            None => {
                // Nothing in this stretch: look in the next one.
                anchor = hi;
                first = true;
                if hi >= to {
                    break;
                }
                continue;
            }
        }
    }
    let step = signals.step;
    let near = |values: &[f32], t: f64| {
        let (a, b) = (((t - CONTEXT_SECONDS).max(0.0) / step) as usize, ((t + CONTEXT_SECONDS) / step).ceil() as usize);
        values.get(a.min(values.len())..b.min(values.len())).is_some_and(|s| s.iter().any(|&v| v >= 0.5))
    };
    let nudity_measured = !absent(signals, "timelines.nudity");
    let profanity_measured = !absent(signals, "timelines.profanity");
    Ok(chosen
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let scene = signals.scenes.iter().rev().find(|s| s.start < c.time).copied();
            let tags = |kind: TagKind| {
                let mut m: BTreeMap<String, f64> = BTreeMap::new();
                if let Some(s) = scene {
                    for t in signals.tags.iter().filter(|t| t.kind == kind && t.start.max(s.start) < t.end.min(s.end)) {
                        let e = m.entry(t.name.clone()).or_insert(0.0);
                        *e = e.max(report::score(t.score));
                    }
                }
                m
            };
            ContextualAdbreak {
                timestamp: report::time(c.time),
                frame_number: (c.time * signals.fps).round() as i64,
                rank: i + 1,
                score: c.score,
                contains_nudity: nudity_measured.then(|| near(&signals.timelines.nudity, c.time)),
                contains_profanity: profanity_measured.then(|| near(&signals.timelines.profanity, c.time)),
                keyword: tags(TagKind::Keyword),
                mood_tag: tags(TagKind::Mood),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::Scene;
    use crate::synth::demo_signals;

    /// 20 minutes: cuts every minute; a fade to black at 5:00 and 12:00 (scene starts); speech
    /// around 8:00.
    fn title() -> Signals {
        let mut s = demo_signals("ads", 1200.0, 1.0, 1);
        s.shots = (1..20).map(|m| m as f64 * 60.0).collect();
        s.scenes = vec![
            Scene { start: 0.0, end: 300.0 },
            Scene { start: 300.0, end: 720.0 },
            Scene { start: 720.0, end: 1200.0 },
        ];
        s.timelines.brightness = vec![0.6; 1200];
        for t in [299, 300, 301, 719, 720, 721] {
            s.timelines.brightness[t] = 0.0;
        }
        s.speech = vec![[470.0, 490.0]];
        s.tags.clear();
        s
    }

    #[test]
    fn fades_away_from_speech_score_highest_and_speech_is_never_cut() {
        let s = title();
        let c = candidates(&s);
        assert!(c.iter().all(|c| c.time != 480.0), "inside speech");
        let at = |t: f64| c.iter().find(|c| c.time == t).unwrap().score;
        assert!((at(300.0) - 1.0).abs() < 1e-9, "a fade between scenes, far from speech");
        assert!(at(300.0) > at(240.0) && at(240.0) > at(540.0) - 1.0);
        assert!((at(240.0) - 0.35).abs() < 1e-9, "a lit cut with no speech near");
    }

    #[test]
    fn one_break_per_window_honouring_separation_and_skips() {
        let s = title();
        let breaks = adbreaks(&s, &AdbreakOptions::default()).unwrap();
        // Windows 1-6, 6-11, 11-16, 16-19 minutes.
        assert_eq!(breaks.len(), 4, "{breaks:?}");
        assert_eq!(breaks[0].candidates[0].time, 300.0);
        assert_eq!(breaks[2].candidates[0].time, 720.0);
        assert!(breaks.iter().all(|b| b.candidates.len() <= MAX_CANDIDATES));
        assert!(breaks.iter().flat_map(|b| &b.candidates).all(|c| c.time >= 60.0 && c.time < 1140.0));
        let chosen: Vec<f64> = breaks.iter().map(|b| b.candidates[0].time).collect();
        assert!(chosen.windows(2).all(|w| w[1] - w[0] >= 60.0), "{chosen:?}");
        assert!(adbreaks(&s, &AdbreakOptions { window: 0.0, ..Default::default() }).is_err());
    }

    #[test]
    fn contextual_breaks_keep_their_separation_and_say_what_surrounds_them() {
        let mut s = title();
        s.timelines.nudity = vec![0.0; 1200];
        s.timelines.nudity[310] = 0.9;
        let breaks = contextual_adbreaks(&s, &ContextualOptions::default()).unwrap();
        assert!(!breaks.is_empty());
        let times: Vec<f64> = breaks.iter().map(|b| b.timestamp).collect();
        assert!(times.windows(2).all(|w| (60.0..=300.0).contains(&(w[1] - w[0]))), "{times:?}");
        let at300 = breaks.iter().find(|b| b.timestamp == 300.0).expect("the fade at 5:00");
        assert_eq!(at300.contains_nudity, Some(true));
        assert_eq!(at300.frame_number, (300.0 * s.fps).round() as i64);
        assert!(contextual_adbreaks(&s, &ContextualOptions { maximum_separation: 0.5, ..Default::default() }).is_err());
    }
}
