//! The end credits of one video: where they start and end, and a scene after them, from its
//! on-screen text and black frames, from pictures its image classifier takes for text or that
//! roll up as credits do, or from the stretch at its end that its season shares (see the module
//! above for the rules).

use super::{CREDITS_BACK, CREDITS_GAP, END_SHARE, FINAL_BLACK, MIN_POST_CREDITS, MIN_SHARED_END, black_frames};
use crate::signals::{Interval, OnScreenText, Signals, TextSpan, VisualCue, VisualFrame};

/// The image classifier's classes (ImageNet's) of pictures of printed text or of screens showing
/// it. On the evaluation season and film (docs/media.md) 178 of the 201 frames sampled in their end
/// credits had one of them as their most probable label (`menu` 88, `website` 70, `ring binder` 9,
/// the screens 11), and 2 of their 764 other frames (`menu`).
pub const TEXT_PICTURES: &[&str] = &[
    "website",
    "menu",
    "crossword",
    "comic book",
    "dust jacket",
    "scoreboard",
    "ring binder",
    "CRT monitor",
    "monitor",
    "television",
    "notebook computer",
    "automated teller machine",
];
/// Fewest frames that look like text in a run of credits found in the picture (a single frame is
/// no run, whatever the sampling interval).
pub const MIN_PICTURES: usize = 3;
/// Least share of the frames sampled through end credits found in the picture that must look like
/// text ([`TEXT_PICTURES`]); the rest are cards the classifier names otherwise.
pub const PICTURE_CREDITS_SHARE: f64 = 0.6;
/// End credits found in the picture reach to within this many seconds of the end (the on-screen
/// text channel's rule).
pub const CREDITS_TAIL: f64 = 60.0;
/// Shortest `scroll` cue (the picture moving steadily up) taken for rolling credits: a camera
/// tilting over a landscape moves the picture up for some seconds, a roll of names for longer.
/// On the evaluation footage the cues outside the credits are the opening shot's tilt, 8 to 9 s
/// (docs/media.md), and the credits' own 11 to 64 s: this lies between.
pub const MIN_ROLL: f64 = 10.0;
/// Largest share of a video end credits found in the picture may take (the on-screen text
/// channel's rule: text all through a title is not credits).
pub const CREDITS_MAX_SHARE: f64 = 0.3;

/// Which cue found a video's end credits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreditsCue {
    /// The on-screen text channel read them (`text.credits_start`).
    Text,
    /// The pictures at the end look like text ([`TEXT_PICTURES`]) or roll up as credits do.
    Picture,
    /// The other episodes of the season share the stretch at the end, in sound or picture.
    Season,
}

impl CreditsCue {
    /// `text`, `picture` or `season`, as the markers result names it.
    pub fn as_str(self) -> &'static str {
        match self {
            CreditsCue::Text => "text",
            CreditsCue::Picture => "picture",
            CreditsCue::Season => "season",
        }
    }
}

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
    /// A scene between two parts of them, `(start, end)` ([`with_mid_credits`]).
    pub mid_credits: Option<(f64, f64)>,
    /// Which cue found them.
    pub cue: CreditsCue,
}

/// The end credits of `s` by itself: from its on-screen text and black frames, else from
/// pictures its image classifier takes for text or that roll up ([`from_picture`]); `None` when neither finds
/// any (or neither was measured).
pub fn credits(s: &Signals) -> Option<Credits> {
    from_text(s).or_else(|| from_picture(s))
}

/// The end credits the on-screen text channel read, with their black frames, and an earlier part
/// of them across a mid-credits scene.
fn from_text(s: &Signals) -> Option<Credits> {
    let text = s.text.as_ref()?;
    let read = text.credits_start?;
    let (end, post_credits) = credits_end(s, text, read).map_or((None, None), |(e, p)| (Some(e), p));
    // Never after their end (which is at or after their first reading).
    let start = after_black(s, read, text.step).min(end.unwrap_or(f64::INFINITY));
    let found = Credits { start, end, post_credits, mid_credits: None, cue: CreditsCue::Text };
    // The runs of words read where nobody speaks or shows a face (subtitles are no credits):
    // readings at most CREDITS_GAP apart (the text channel's rule), as (first reading, last
    // reading).
    let faces = faces(s);
    let mut readings: Vec<(f64, f64)> = text
        .lines
        .iter()
        .filter(|l| wordy(&l.text) && !covers(&s.speech, l.start) && !covers(&faces, l.start))
        .map(|l| (l.start, (l.end - text.step).max(l.start)))
        .collect();
    readings.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut runs: Vec<Part> = Vec::new();
    for (first, last) in readings {
        match runs.last_mut() {
            Some(run) if first - run.last_seen <= CREDITS_GAP => run.last_seen = run.last_seen.max(last),
            _ => runs.push(Part { first_seen: first, last_seen: last, start: first }),
        }
    }
    let earlier = runs
        .into_iter()
        .rev()
        .filter(|r| r.last_seen < read)
        .map(|r| Part { start: after_black(s, r.first_seen, text.step).min(r.last_seen), ..r });
    Some(with_mid_credits(s, found, earlier, text.step))
}

/// Whether one of `spans` covers `t`.
fn covers(spans: &[Interval], t: f64) -> bool {
    spans.iter().any(|&[a, b]| a <= t && t < b)
}

/// Where faces are seen: every character's spans.
fn faces(s: &Signals) -> Vec<Interval> {
    s.characters.iter().flat_map(|c| c.spans.iter().copied()).collect()
}

/// Whether a line read is words, not marks: at least two words of at least two letters (the
/// text channel's rule for the end credits).
pub fn wordy(line: &str) -> bool {
    line.split_whitespace().filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2).count() >= 2
}

/// A run of credits evidence (words read, or pictures of text), seconds: where it was first and
/// last seen, and where it would start the credits.
#[derive(Debug, Clone, Copy)]
struct Part {
    first_seen: f64,
    last_seen: f64,
    start: f64,
}

/// Longest scene between two parts of the end credits taken for a mid-credits scene, seconds.
pub const MAX_MID_CREDITS: f64 = 300.0;

/// `found` credits with the latest of `earlier` (the runs of the same cue's evidence before them,
/// latest first) that lies in the last [`END_SHARE`] of the video, lasts at least
/// [`MIN_SHARED_END`] seconds and ends at most [`MAX_MID_CREDITS`] seconds before them, as their
/// first part, when the two parts together (without what lies between) last at most
/// [`CREDITS_MAX_SHARE`] of the video. What lies between is a mid-credits scene when it lasts
/// more than [`CREDITS_GAP`] seconds, else more credits (cards the cue did not read). It starts
/// where black frames after the first part's last sighting end (those starting within two sampling steps of it), else at the first cut within a
/// step after that sighting, else a step after it; it ends where the later part starts, or, when
/// no black frames moved that start, at the last cut within a step before it.
fn with_mid_credits(s: &Signals, found: Credits, earlier: impl Iterator<Item = Part>, step: f64) -> Credits {
    let from = s.duration * (1.0 - END_SHARE);
    let mut earlier =
        earlier.take_while(|p| p.first_seen >= from && found.start - (p.last_seen + step) <= MAX_MID_CREDITS);
    let Some(part) = earlier.find(|p| p.last_seen + step - p.first_seen >= MIN_SHARED_END) else { return found };
    let over = part.last_seen + step;
    let black: Vec<&VisualCue> = black_frames(s).collect();
    let cuts_in = |a: f64, b: f64| s.shots.iter().copied().filter(move |&t| t > a && t <= b);
    let scene_start = black
        .iter()
        .filter(|c| c.start >= part.last_seen && c.start <= part.last_seen + 2.0 * step)
        .min_by(|a, b| a.start.total_cmp(&b.start))
        .map(|c| c.end)
        .or_else(|| cuts_in(part.last_seen, over).min_by(f64::total_cmp))
        .unwrap_or(over);
    let opened = black.iter().any(|c| c.end == found.start);
    let scene_end = if opened {
        found.start
    } else {
        cuts_in(found.start - step, found.start).max_by(f64::total_cmp).unwrap_or(found.start)
    };
    let scene = (scene_end - scene_start).max(0.0);
    if found.end.unwrap_or(s.duration) - part.start - scene > CREDITS_MAX_SHARE * s.duration {
        return found;
    }
    // A short stretch without evidence (cards the cue does not read) is more credits.
    let mid_credits = (scene > CREDITS_GAP).then_some((scene_start, scene_end));
    Credits { start: part.start, mid_credits, ..found }
}

/// The end credits of `s` found in its picture, for a video whose text channel found none (the
/// on-screen text model missing, or text it cannot read). A sampled frame in the last
/// [`END_SHARE`] of the video looks like credits when its most probable label is one of
/// [`TEXT_PICTURES`] or the picture is rolling up then (a `scroll` cue of `visual.cues` of at least
/// [`MIN_ROLL`] seconds), and nobody speaks or shows a face at it. Such frames at most [`CREDITS_GAP`]
/// seconds apart form a run; the credits are the last run that lasts at least [`MIN_SHARED_END`]
/// seconds and at most [`CREDITS_MAX_SHARE`] of the video, reaches to within [`CREDITS_TAIL`]
/// seconds of its end, and of whose sampled frames at least [`PICTURE_CREDITS_SHARE`] look like
/// credits. They start where black frames between the run's first frame and the frame sampled
/// before it end, else at the last cut between the two, else at the first frame; they close as
/// credits read in the text do ([`closing`]). The run before theirs is their first part when a
/// mid-credits scene lies between the two ([`with_mid_credits`]).
pub fn from_picture(s: &Signals) -> Option<Credits> {
    let visual = s.visual.as_ref()?;
    let interval = visual.interval;
    let from = s.duration * (1.0 - END_SHARE);
    let frames: Vec<&VisualFrame> = visual.frames.iter().filter(|f| f.time >= from && f.time < s.duration).collect();
    let faces = faces(s);
    let rolling: Vec<Interval> = visual
        .cues
        .iter()
        .filter(|c| c.kind == "scroll" && c.end - c.start >= MIN_ROLL)
        .map(|c| [c.start, c.end])
        .collect();
    let textual: Vec<bool> = frames
        .iter()
        .map(|f| {
            (f.labels.first().is_some_and(|l| TEXT_PICTURES.contains(&l.name.as_str())) || covers(&rolling, f.time))
                && !covers(&s.speech, f.time)
                && !covers(&faces, f.time)
        })
        .collect();
    // Runs of frames that look like credits, as (first, last) indexes into `frames`, of which at
    // least PICTURE_CREDITS_SHARE of the frames sampled do, and at least MIN_PICTURES.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in (0..frames.len()).filter(|&i| textual[i]) {
        match runs.last_mut() {
            Some((_, last)) if frames[i].time - frames[*last].time <= CREDITS_GAP => *last = i,
            _ => runs.push((i, i)),
        }
    }
    runs.retain(|&(first, last)| {
        let seen = textual[first..=last].iter().filter(|&&t| t).count();
        seen >= MIN_PICTURES && seen as f64 / (last - first + 1) as f64 >= PICTURE_CREDITS_SHARE
    });
    let at = runs.iter().rposition(|&(first, last)| {
        let (start, end) = (frames[first].time, frames[last].time + interval);
        end - start >= MIN_SHARED_END
            && end - start <= CREDITS_MAX_SHARE * s.duration
            && end >= s.duration - CREDITS_TAIL
    })?;
    // A run starts where black frames between its first frame and the frame sampled before it end,
    // else at the last cut between the two, else at its first frame.
    let part = |(first, last): (usize, usize)| {
        let seen = frames[first].time;
        let before = first.checked_sub(1).map_or(seen - interval, |i| frames[i].time);
        let opening = black_frames(s)
            .filter(|c| c.end > before && c.start <= seen && c.end - seen <= interval)
            .map(|c| c.end)
            .max_by(f64::total_cmp);
        let cut = s.shots.iter().copied().filter(|&t| t > before && t <= seen).max_by(f64::total_cmp);
        let last_seen = frames[last].time;
        Part { first_seen: seen, last_seen, start: opening.or(cut).unwrap_or(seen).min(last_seen) }
    };
    let credits = part(runs[at]);
    let last_seen = credits.last_seen;
    let (end, post_credits) = closing(s, s.text.as_ref(), last_seen, (last_seen + interval).min(s.duration));
    let found =
        Credits { start: credits.start, end: Some(end), post_credits, mid_credits: None, cue: CreditsCue::Picture };
    let earlier = runs[..at].iter().rev().map(|&run| part(run));
    Some(with_mid_credits(s, found, earlier, interval))
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
    let start = black_frames(s)
        .filter(|c| c.end > start && (c.start - start).abs() <= SEASON_REACH)
        .map(|c| c.end)
        .min_by(f64::total_cmp)
        .unwrap_or(start);
    let (end, post_credits) = closing(s, s.text.as_ref(), end - SEASON_REACH, end);
    Credits { start, end: Some(end), post_credits, mid_credits: None, cue: CreditsCue::Season }
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
    let mut black: Vec<&VisualCue> = black_frames(s).filter(|c| c.start >= last_seen).collect();
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
/// most [`CREDITS_BACK`] seconds before it (the latest such end), or on to where they end when it
/// was read inside them (faint text fading in from black) and they end within `step` (a reading
/// step) after it: sparse white text on black can itself count as black frames.
fn after_black(s: &Signals, t: f64, step: f64) -> f64 {
    black_frames(s)
        .filter(|c| c.start <= t && t - c.end <= CREDITS_BACK && c.end - t <= step)
        .map(|c| c.end)
        .max_by(f64::total_cmp)
        .unwrap_or(t)
}
