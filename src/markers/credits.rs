//! The end credits of one video: where they start and end, and a scene after them, from its
//! on-screen text and black frames, or from the stretch at its end that its season shares (see
//! the module above for the rules).

use super::{CREDITS_BACK, CREDITS_GAP, FINAL_BLACK, MIN_POST_CREDITS};
use crate::signals::{OnScreenText, Signals, TextSpan, VisualCue};

/// The end credits of one video (the rules of [`super::season_markers`], which needs no other episode for
/// them), in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Credits {
    /// Where they start.
    pub start: f64,
    /// Where they end; `None` when no line was read in them.
    pub end: Option<f64>,
    /// A scene after them, `(start, end)`.
    pub post_credits: Option<(f64, f64)>,
}

/// The end credits of `s`, from its on-screen text and black frames; `None` when the text channel
/// found none (or was not measured).
pub fn credits(s: &Signals) -> Option<Credits> {
    let text = s.text.as_ref()?;
    let read = text.credits_start?;
    let (end, post_credits) = credits_end(s, text, read).map_or((None, None), |(e, p)| (Some(e), p));
    Some(Credits { start: after_black(s, read), end, post_credits })
}

/// Where the end credits read from `start` end, and the scene after them: the credits run through
/// the text lines read from `start` on, each beginning at most [`CREDITS_GAP`] seconds after the
/// ones before it end, to where the last line ends ([`closing`] then looks for black frames after
/// them and a scene after those). `None` without lines read in the credits.
fn credits_end(s: &Signals, text: &OnScreenText, start: f64) -> Option<(f64, Option<(f64, f64)>)> {
    let mut lines: Vec<&TextSpan> = text.lines.iter().filter(|l| l.end > start).collect();
    lines.sort_by(|a, b| a.start.total_cmp(&b.start));
    let mut end: Option<f64> = None;
    for l in lines {
        match end {
            Some(e) if l.start > e + CREDITS_GAP => break,
            _ => end = Some(end.map_or(l.end, |e| e.max(l.end))),
        }
    }
    let end = end?;
    // Lines end one reading step after they were last read.
    let last_seen = (end - text.step).max(start);
    Some(closing(s, Some(text), last_seen, end))
}

/// The end credits of `s` found as the stretch at its end, `(start, end)`, that other episodes of
/// its season share in sound or picture (for a video whose text channel found none): they start
/// where the shared stretch does, or after black frames that start within [`SEASON_REACH`] of it
/// (the sound matches from the cut, the picture once the black is over), and end where it does,
/// or where black frames around its end start.
pub(super) fn from_season(s: &Signals, (start, end): (f64, f64)) -> Credits {
    let start = s
        .visual
        .iter()
        .flat_map(|v| v.cues.iter())
        .filter(|c| c.kind == "black" && c.end > start && (c.start - start).abs() <= SEASON_REACH)
        .map(|c| c.end)
        .min_by(f64::total_cmp)
        .unwrap_or(start);
    let (end, post_credits) = closing(s, s.text.as_ref(), end - SEASON_REACH, end);
    Credits { start, end: Some(end), post_credits }
}

/// How far around the end of a shared end stretch black frames may start and still close the
/// credits, seconds (that end is found to a hop or two).
const SEASON_REACH: f64 = 1.0;

/// How the credits close: they were last seen at `last_seen` and are surely over at `over`. They
/// end where black frames start after `last_seen` and before `over` (or as long after it again),
/// else at `over`. A
/// post-credits scene follows those black frames: at least [`MIN_POST_CREDITS`] seconds of
/// picture without text first read in it, to the black frames that end the video or to its end.
fn closing(s: &Signals, text: Option<&OnScreenText>, last_seen: f64, over: f64) -> (f64, Option<(f64, f64)>) {
    let mut black: Vec<&VisualCue> =
        s.visual.iter().flat_map(|v| v.cues.iter()).filter(|c| c.kind == "black" && c.start >= last_seen).collect();
    black.sort_by(|a, b| a.start.total_cmp(&b.start));
    let reach = over - last_seen;
    let Some(after) = black.first().filter(|c| c.start <= over + reach) else { return (over, None) };
    let credits_end = after.start;
    let scene_start = after.end;
    let scene_end = black
        .iter()
        .find(|c| c.start > scene_start && c.end >= s.duration - FINAL_BLACK)
        .map_or(s.duration, |c| c.start);
    // Lines end one reading step after they were last read, so the credits' last line may reach
    // into the scene: what counts is text first read in it.
    let texted = text.is_some_and(|t| t.lines.iter().any(|l| l.start >= scene_start && l.start < scene_end));
    let scene = (scene_end - scene_start >= MIN_POST_CREDITS && !texted).then_some((scene_start, scene_end));
    (credits_end, scene)
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
