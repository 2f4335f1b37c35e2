//! Binge markers of the episodes of one season: where the intro starts and ends, where a recap of
//! earlier episodes lies, and where the end credits start.
//!
//! **Intro**: the stretch of sound that recurs near the start of the season's episodes. Each
//! episode's search window is its first quarter, at most its first ten minutes (the bounds of
//! the open intro-detection tools). For each pair of episodes, their windows' audio fingerprints
//! ([`AudioFingerprint`]) are aligned as [`crate::fingerprint`] does (offsets voted by agreeing hashes
//! and hash halves, then hashes matched where the bit error rate of the 3.1 s around them is below 0.35),
//! and each alignment's matched hashes form runs (gaps under [`MAX_GAP`] seconds bridged). The
//! longest run of [`MIN_INTRO`] to [`MAX_INTRO`] seconds is that pair's intro candidate. An
//! episode's intro is the candidate that the most other episodes agree with (starts within
//! [`AGREE`] seconds), with the median of their starts and ends. Its edges then move to the
//! picture's cuts ([`to_cuts`]): sound cannot be matched where it is silent, so an intro that
//! opens on black in near silence was found late, and one whose last seconds are quiet early; an
//! edge moves to a cut (a shot boundary, or where black frames start or end) at most [`SNAP`]
//! seconds away when the sound between is mostly silent, or at most [`NEAR_CUT`] seconds away
//! whatever it is.
//!
//! **Recap**: sound in the episode's window, outside its intro, that matches an earlier episode
//! (a smaller `episode_number`) outside that episode's intro, in runs of at least [`MIN_RECAP_RUN`]
//! seconds: the recap spans the first to the last of those runs.
//!
//! **Credits**: where the end credits start, from the on-screen text channel
//! (`text.credits_start`) when it was measured; `None` otherwise. Text is read every few
//! seconds, so the start moves back to where black frames end when they end at most
//! [`CREDITS_BACK`] seconds before it (credits commonly follow a cut or fade to black).

use serde::Serialize;

use crate::fingerprint::{Positions, matched_at};
use crate::report;
use crate::signals::{AudioFingerprint, Signals};

/// Shortest intro, seconds.
pub const MIN_INTRO: f64 = 15.0;
/// Longest intro, seconds.
pub const MAX_INTRO: f64 = 120.0;
/// Longest search window, seconds (or the first quarter of the episode, when shorter).
pub const MAX_WINDOW: f64 = 600.0;
/// Gaps in a run of matched hashes bridged, seconds.
pub const MAX_GAP: f64 = 1.5;
/// Two intro candidates agree when their starts are this close, seconds.
pub const AGREE: f64 = 3.0;
/// Shortest run of matched sound counted as recap, seconds.
pub const MIN_RECAP_RUN: f64 = 3.0;
/// Farthest the credits' start moves back to the end of black frames, seconds.
pub const CREDITS_BACK: f64 = 8.0;
/// Farthest an intro edge moves to a cut across mostly silent sound, seconds.
pub const SNAP: f64 = 3.0;
/// Farthest an intro edge moves to a cut whatever the sound, seconds.
pub const NEAR_CUT: f64 = 0.6;
/// How long the sound beside a cut must be silent for an edge to move to it across silence, seconds.
const OPENS: f64 = 0.5;
/// Share of silent hashes (0) that makes a stretch "mostly silent".
const SILENT_SHARE: f64 = 0.75;
/// Bit errors under which a hash at the edge of a run agrees by itself (unrelated hashes differ
/// in 16 of 32 on average).
const EDGE_BITS: u32 = 8;
/// How many best-voted alignments of a pair are examined.
const ALIGNMENTS: usize = 6;

/// One episode of a season.
#[derive(Debug, Clone, Copy)]
pub struct Episode<'a> {
    /// Its number in the season, for recaps (earlier episodes have smaller numbers).
    pub number: Option<i64>,
    /// Its signals.
    pub signals: &'a Signals,
}

/// The markers of one episode, in seconds; `None` where nothing was found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Markers {
    /// Start of the intro.
    pub intro_start: Option<f64>,
    /// End of the intro.
    pub intro_end: Option<f64>,
    /// Start of the recap.
    pub recap_start: Option<f64>,
    /// End of the recap.
    pub recap_end: Option<f64>,
    /// Start of the end credits.
    pub credit_start: Option<f64>,
    /// How many other episodes of the season had a fingerprint to compare with.
    pub episodes_compared: usize,
}

/// A run of matched hashes: `[start, end)` positions in the first fingerprint, and the offset
/// (positions) to the second.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Run {
    start: usize,
    end: usize,
    offset: i64,
}

/// The search window of a fingerprint: its hashes in the first quarter, at most ten minutes.
fn window(fp: &AudioFingerprint, duration: f64) -> AudioFingerprint {
    let seconds = (duration / 4.0).min(MAX_WINDOW);
    let n = ((seconds / fp.hop).floor() as usize).min(fp.hashes.len());
    AudioFingerprint { hop: fp.hop, hashes: fp.hashes[..n].to_vec() }
}

/// Runs of matched hashes of `a` against `b` at the best-voted alignments, gaps under
/// [`MAX_GAP`] bridged; longest first.
fn runs(a: &AudioFingerprint, b: &AudioFingerprint) -> Vec<Run> {
    if a.hashes.is_empty() || b.hashes.is_empty() || (a.hop - b.hop).abs() > 1e-9 {
        return Vec::new();
    }
    let index = Positions::with_halves(b);
    let mut votes: Vec<(i64, usize)> = index.votes(a).into_iter().filter(|&(_, v)| v >= 2).collect();
    votes.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let gap = (MAX_GAP / a.hop).round() as usize;
    let mut out = Vec::new();
    for &(offset, _) in votes.iter().take(ALIGNMENTS) {
        let matched = matched_at(&a.hashes, &b.hashes, offset);
        // A run's edges are trimmed to hashes that agree themselves (the window around a hash
        // just outside a shared stretch still reads as matched).
        let close = |i: usize| matched[i].is_some_and(|e| e <= EDGE_BITS);
        let mut found: Vec<Run> = Vec::new();
        let mut current: Option<Run> = None;
        for (i, m) in matched.iter().enumerate() {
            if m.is_none() {
                continue;
            }
            match &mut current {
                Some(r) if i - r.end <= gap => r.end = i + 1,
                _ => {
                    found.extend(current.take());
                    current = Some(Run { start: i, end: i + 1, offset });
                }
            }
        }
        found.extend(current);
        for mut r in found {
            while r.start < r.end && !close(r.start) {
                r.start += 1;
            }
            while r.end > r.start && !close(r.end - 1) {
                r.end -= 1;
            }
            if r.end > r.start {
                out.push(r);
            }
        }
    }
    out.sort_by(|x, y| (y.end - y.start).cmp(&(x.end - x.start)).then(x.start.cmp(&y.start)));
    out
}

/// The markers of each of a season's `episodes`, in order.
pub fn season_markers(episodes: &[Episode<'_>]) -> Vec<Markers> {
    let windows: Vec<Option<AudioFingerprint>> =
        episodes.iter().map(|e| e.signals.audio_fingerprint.as_ref().map(|f| window(f, e.signals.duration))).collect();
    // Intro candidates of each episode from each other episode: (start, end) in seconds.
    let mut intros: Vec<Option<(f64, f64)>> = Vec::with_capacity(episodes.len());
    let mut compared = Vec::with_capacity(episodes.len());
    for (i, wa) in windows.iter().enumerate() {
        let mut candidates: Vec<(f64, f64)> = Vec::new();
        let mut others = 0;
        if let Some(a) = wa {
            for (j, wb) in windows.iter().enumerate() {
                let Some(b) = wb.as_ref().filter(|_| j != i) else { continue };
                others += 1;
                let best = runs(a, b).into_iter().find(|r| {
                    let seconds = (r.end - r.start) as f64 * a.hop;
                    (MIN_INTRO..=MAX_INTRO).contains(&seconds)
                });
                if let Some(r) = best {
                    candidates.push((r.start as f64 * a.hop, r.end as f64 * a.hop));
                }
            }
        }
        compared.push(others);
        intros.push(consensus(&candidates));
    }
    episodes
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let duration = e.signals.duration;
            let clamp = |t: f64| report::time(t.clamp(0.0, duration));
            let mut m = Markers { episodes_compared: compared[i], ..Markers::default() };
            if let Some(found) = intros[i] {
                let (a, b) = to_cuts(e.signals, found);
                m.intro_start = Some(clamp(a));
                m.intro_end = Some(clamp(b));
            }
            if let (Some(a), Some(n)) = (&windows[i], e.number) {
                let mut spans: Vec<(f64, f64)> = Vec::new();
                for (j, other) in episodes.iter().enumerate() {
                    let earlier = other.number.is_some_and(|k| k < n);
                    let Some(full) = other.signals.audio_fingerprint.as_ref().filter(|_| earlier && j != i) else {
                        continue;
                    };
                    for r in runs(a, full) {
                        let (start, end) = (r.start as f64 * a.hop, r.end as f64 * a.hop);
                        let (other_start, other_end) = (start + r.offset as f64 * a.hop, end + r.offset as f64 * a.hop);
                        let outside =
                            |intro: Option<(f64, f64)>, s: f64, t: f64| intro.is_none_or(|(x, y)| t <= x || s >= y);
                        if end - start >= MIN_RECAP_RUN
                            && outside(intros[i], start, end)
                            && outside(intros[j], other_start, other_end)
                        {
                            spans.push((start, end));
                        }
                    }
                }
                if let (Some(first), Some(last)) =
                    (spans.iter().map(|s| s.0).min_by(f64::total_cmp), spans.iter().map(|s| s.1).max_by(f64::total_cmp))
                {
                    m.recap_start = Some(clamp(first));
                    m.recap_end = Some(clamp(last));
                }
            }
            m.credit_start =
                e.signals.text.as_ref().and_then(|t| t.credits_start).map(|t| after_black(e.signals, t)).map(clamp);
            m
        })
        .collect()
}

/// Moves an intro found in the sound, `(start, end)`, to the picture's cuts: the start to the
/// earliest cut at most [`SNAP`] seconds before it with mostly silent sound between that opens
/// onto silence (or any cut at most [`NEAR_CUT`] seconds before it), the end to the earliest cut
/// at most [`SNAP`] seconds after it on the same terms. Cuts are the shot boundaries and where black frames start (for the
/// start) or end (for the end). An edge without such a cut stays where the sound put it.
fn to_cuts(s: &Signals, (start, end): (f64, f64)) -> (f64, f64) {
    let black = s.visual.iter().flat_map(|v| v.cues.iter()).filter(|c| c.kind == "black");
    let starts: Vec<f64> = s.shots.iter().copied().chain(black.clone().map(|c| c.start)).collect();
    let ends: Vec<f64> = s.shots.iter().copied().chain(black.map(|c| c.end)).collect();
    let silent = |from: f64, to: f64| {
        let Some(fp) = &s.audio_fingerprint else { return false };
        let (i, j) = ((from / fp.hop).floor().max(0.0) as usize, ((to / fp.hop).ceil() as usize).min(fp.hashes.len()));
        j > i && fp.hashes[i..j].iter().filter(|&&h| h == 0).count() as f64 >= SILENT_SHARE * (j - i) as f64
    };
    let new_start = starts
        .iter()
        .copied()
        // Across silence only from a cut that opens onto it (not one inside the sound before).
        .filter(|&c| {
            c <= start
                && start - c <= SNAP
                && (start - c <= NEAR_CUT || (silent(c, start) && silent(c, (c + OPENS).min(start))))
        })
        .min_by(f64::total_cmp)
        .unwrap_or(start);
    let new_end = ends
        .iter()
        .copied()
        .filter(|&c| {
            c >= end && c - end <= SNAP && (c - end <= NEAR_CUT || (silent(end, c) && silent((c - OPENS).max(end), c)))
        })
        .min_by(f64::total_cmp)
        .unwrap_or(end);
    if new_end - new_start >= MIN_INTRO { (new_start, new_end) } else { (start, end) }
}

/// The start of the credits read at `t`, moved back to where black frames end when they end at
/// most [`CREDITS_BACK`] seconds before it (the latest such end).
fn after_black(s: &Signals, t: f64) -> f64 {
    s.visual
        .iter()
        .flat_map(|v| v.cues.iter())
        .filter(|c| c.kind == "black" && c.end <= t && t - c.end <= CREDITS_BACK)
        .map(|c| c.end)
        .max_by(f64::total_cmp)
        .unwrap_or(t)
}

/// The candidate the most others agree with (starts within [`AGREE`] seconds), as the median of
/// the agreeing starts and ends; `None` without candidates.
fn consensus(candidates: &[(f64, f64)]) -> Option<(f64, f64)> {
    let support = |c: &(f64, f64)| candidates.iter().filter(|o| (o.0 - c.0).abs() <= AGREE).count();
    let best = candidates.iter().max_by(|x, y| support(x).cmp(&support(y)).then(y.0.total_cmp(&x.0)))?;
    let agreeing: Vec<&(f64, f64)> = candidates.iter().filter(|o| (o.0 - best.0).abs() <= AGREE).collect();
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Some((median(agreeing.iter().map(|c| c.0).collect()), median(agreeing.iter().map(|c| c.1).collect())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An episode of `seconds` with `intro` (hashes) inserted at `at` seconds after `prefix`.
    fn episode(seconds: f64, seed: u64, prefix: &[u32], intro: &[u32], at: f64) -> Signals {
        let mut s = crate::synth::demo_signals("e", seconds, 1.0, seed);
        let mut h = prefix.to_vec();
        let own = crate::synth::fingerprint_hashes((seconds * 10.0) as usize, seed);
        let start = (at * 10.0) as usize;
        h.extend_from_slice(&own[..start]);
        h.extend_from_slice(intro);
        h.extend_from_slice(&own[start..]);
        h.truncate((seconds * 10.0) as usize);
        s.audio_fingerprint = Some(AudioFingerprint { hop: 0.1, hashes: h });
        s.text = None;
        s
    }

    #[test]
    fn the_shared_intro_is_found_at_each_offset_and_the_recap_too() {
        let intro = crate::synth::fingerprint_hashes(400, 99); // 40 s
        let e1 = episode(1200.0, 1, &[], &intro, 30.0);
        let e2 = episode(1300.0, 2, &[], &intro, 95.5);
        // Episode 3 opens with 20 s of episode 2's content (after its intro): a recap.
        let recap = e2.audio_fingerprint.as_ref().unwrap().hashes[2000..2200].to_vec();
        let e3 = episode(1250.0, 3, &recap, &intro, 10.0);
        let eps: Vec<Episode<'_>> = [&e1, &e2, &e3]
            .iter()
            .enumerate()
            .map(|(i, s)| Episode { number: Some(i as i64 + 1), signals: s })
            .collect();
        let m = season_markers(&eps);
        let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 1.0);
        assert!(near(m[0].intro_start, 30.0) && near(m[0].intro_end, 70.0), "{:?}", m[0]);
        assert!(near(m[1].intro_start, 95.5) && near(m[1].intro_end, 135.5), "{:?}", m[1]);
        assert!(near(m[2].intro_start, 30.0) && near(m[2].intro_end, 70.0), "{:?}", m[2]);
        assert!(near(m[2].recap_start, 0.0) && near(m[2].recap_end, 20.0), "{:?}", m[2]);
        assert_eq!((m[0].recap_start, m[1].recap_start), (None, None));
        assert_eq!(m[0].episodes_compared, 2);
    }

    #[test]
    fn no_intro_without_a_shared_stretch_or_a_second_episode() {
        let a = episode(900.0, 5, &[], &crate::synth::fingerprint_hashes(100, 7), 20.0); // 10 s: too short for an intro
        let b = episode(900.0, 6, &[], &crate::synth::fingerprint_hashes(100, 7), 50.0);
        let m = season_markers(&[Episode { number: Some(1), signals: &a }, Episode { number: Some(2), signals: &b }]);
        assert_eq!((m[0].intro_start, m[1].intro_start), (None, None));
        let alone = season_markers(&[Episode { number: Some(1), signals: &a }]);
        assert_eq!((alone[0].intro_start, alone[0].episodes_compared), (None, 0));
    }

    #[test]
    fn intro_edges_move_to_the_cuts_across_silence() {
        let intro = crate::synth::fingerprint_hashes(400, 99); // 40 s
        let mut eps = [episode(1200.0, 1, &[], &intro, 30.0), episode(1300.0, 2, &[], &intro, 95.5)];
        for (s, at) in eps.iter_mut().zip([30.0, 95.5]) {
            // The intro opens on 2 s of silence (black, fading in) after a cut, and the episode's
            // own content starts at a cut 0.5 s after the intro's sound ends; a cut 2.5 s before
            // the intro's sound lies inside the sound before the silence.
            let fp = s.audio_fingerprint.as_mut().unwrap();
            for k in ((at - 2.0) * 10.0) as usize..(at * 10.0) as usize {
                fp.hashes[k] = 0;
            }
            s.shots = vec![at - 2.5, at - 2.0, at + 40.5, at + 300.0];
        }
        let eps: Vec<Episode<'_>> =
            eps.iter().enumerate().map(|(i, s)| Episode { number: Some(i as i64 + 1), signals: s }).collect();
        let m = season_markers(&eps);
        let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 0.15);
        assert!(near(m[0].intro_start, 28.0) && near(m[0].intro_end, 70.5), "{:?}", m[0]);
        assert!(near(m[1].intro_start, 93.5) && near(m[1].intro_end, 136.0), "{:?}", m[1]);
        // Without the silence, a cut 2 s away is too far: the edge stays on the sound.
        let moved = to_cuts(eps[0].signals, (30.0, 70.0));
        let mut loud = eps[0].signals.clone();
        loud.audio_fingerprint = Some(AudioFingerprint { hop: 0.1, hashes: vec![7; 12_000] });
        let kept = to_cuts(&loud, (30.0, 70.0));
        assert_eq!((moved.0, kept.0), (28.0, 30.0));
        assert_eq!(kept.1, 70.5, "a cut within NEAR_CUT is taken whatever the sound");
    }

    #[test]
    fn the_credits_start_where_black_frames_before_their_text_end() {
        let mut s = crate::synth::demo_signals("e", 300.0, 1.0, 4);
        s.text = Some(crate::signals::OnScreenText {
            step: 2.0,
            density: vec![0.0; 150],
            lines: Vec::new(),
            credits_start: Some(228.0),
        });
        let black = |start: f64, end: f64| crate::signals::VisualCue { kind: "black".into(), start, end };
        let mut visual = crate::signals::Visual {
            interval: 1.0,
            frames: Vec::new(),
            shot_types: Vec::new(),
            scene_features: None,
            item_feature: None,
            cues: Vec::new(),
            tags: Vec::new(),
        };
        visual.cues = vec![black(100.0, 101.0), black(220.8, 221.3)];
        s.visual = Some(visual.clone());
        let credits = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].credit_start;
        assert_eq!(credits(&s), Some(221.3), "the black frames 6.7 s before the text");
        visual.cues = vec![black(100.0, 101.0), black(218.0, 219.5)];
        s.visual = Some(visual);
        assert_eq!(credits(&s), Some(228.0), "black frames 8.5 s before are too far");
    }
}
