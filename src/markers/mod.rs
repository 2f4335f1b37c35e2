//! Binge markers of the episodes of one season: where the intro starts and ends, where a recap of
//! earlier episodes lies, where the end credits start and end, and a scene after them.
//! The rule for each is stated here; docs/media.md has the figures measured on real footage.
//!
//! **Intro**: the stretch of sound and picture that recurs near the start of the season's
//! episodes. Each episode's search window is its first quarter, at most its first ten minutes
//! (the bounds of the open intro-detection tools). For each pair of episodes, their windows'
//! audio fingerprints ([`crate::signals::AudioFingerprint`]) are aligned as
//! [`crate::fingerprint`] does (offsets voted by agreeing hashes and hash halves, then hashes
//! matched where the bit error rate of the 3.1 s around them is below 0.35), and each alignment's
//! matched hashes form runs (gaps under [`MAX_GAP`] seconds bridged). Their picture fingerprints
//! ([`crate::signals::PictureFingerprint`]) are aligned the same way, a picture hash matching only
//! within [`PICTURE_BITS`] bit errors. The longest run
//! of [`MIN_INTRO`] to [`MAX_INTRO`] seconds of each kind is that pair's candidate; when both
//! kinds have one and they overlap, the candidate is their union (the picture carries a quiet
//! stretch the sound cannot match, the sound a stretch whose picture changed), else the longer.
//! An episode's intro is the candidate that the most other episodes agree with (starts within
//! [`AGREE`] seconds), with the median of their starts and ends. Its edges then move to the
//! picture's cuts: an edge moves to a cut (a shot boundary, or where black frames
//! start or end) at most [`SNAP`] seconds away when the sound between is mostly silent, or at
//! most [`NEAR_CUT`] seconds away whatever it is.
//!
//! **Recap**: sound (runs of at least [`MIN_RECAP_RUN`] seconds) or picture (at least
//! [`MIN_RECAP_PICTURE`]) in the episode's window, outside its intro, that matches an earlier
//! episode (a smaller `episode_number`) outside that episode's intro. Runs less than [`RECAP_GAP`]
//! apart form a group; the recap is the group with the most matched seconds, at least
//! [`MIN_RECAP`] (a lone shot that looks like an earlier one is no recap), its edges moved to cuts
//! as the intro's are.
//!
//! **Credits**: where the end credits start, from the on-screen text channel
//! (`text.credits_start`) when it was measured and found them. Text is read every few seconds, so
//! the start moves back to where black frames end when they end at most [`CREDITS_BACK`] seconds
//! before it (credits commonly follow a cut or fade to black), or on to where they end when it was
//! read inside them (text fading in from black). They end with their last line
//! read, or where black frames after it start, and a scene of at least [`MIN_POST_CREDITS`]
//! seconds without text after those black frames is a post-credits scene ([`credits`]). When the
//! text channel found no credits (not measured, or text it cannot read), the credits are the last
//! stretch of at least 20 s near the end whose sampled frames the image classifier mostly takes for
//! pictures of text (a menu, a website) or that roll up as credits do, where nobody speaks or
//! shows a face ([`credits`]). Where either cue saw an earlier part of the credits across a scene of more than
//! [`CREDITS_GAP`] seconds, the credits start with that part and the scene is a mid-credits scene.
//! Failing both, the episode's credits are
//! the stretch at its end that the other episodes of the season share in sound or picture (the
//! same end-credit music and roll): each pair's longest shared run of at least [`MIN_SHARED_END`]
//! seconds in the last [`END_SHARE`] of each episode (at most ten minutes), agreed on as the
//! intros are; the start moves past black frames that open it, and the end to black frames that
//! close it.

use serde::{Deserialize, Serialize};

use crate::fingerprint::{Positions, matched_at};
use crate::report;
use crate::signals::Signals;

mod credits;
mod reduced;

pub use credits::{Credits, CreditsCue, MAX_MID_CREDITS, credits, wordy};
pub use reduced::read_by_markers;

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
/// Gap bridged between the matched stretches of one recap, seconds.
pub const RECAP_GAP: f64 = 5.0;
/// Fewest matched seconds of a recap (its stretches together).
pub const MIN_RECAP: f64 = 5.0;
/// Shortest run of matched picture counted as recap, seconds (a recap is often cut from shots of
/// two or three seconds).
pub const MIN_RECAP_PICTURE: f64 = 2.0;
/// Farthest the credits' start moves back to the end of black frames, seconds.
pub const CREDITS_BACK: f64 = 8.0;
/// Longest gap between the text lines of the end credits, seconds (the media analysis's rule).
pub const CREDITS_GAP: f64 = 10.0;
/// Shortest stretch at the end of an episode shared with others that is taken for end credits,
/// seconds (the text channel's shortest credits).
pub const MIN_SHARED_END: f64 = 20.0;
/// Share of an episode at its end searched for a stretch the season shares (the text channel
/// takes end credits of up to 30 % of a video).
pub const END_SHARE: f64 = 0.4;
/// Shortest scene after the end credits reported, seconds.
pub const MIN_POST_CREDITS: f64 = 5.0;
/// Black frames that end this close to the end of the video end it, seconds.
const FINAL_BLACK: f64 = 0.5;
/// Farthest an intro edge moves to a cut across mostly silent sound, seconds.
pub const SNAP: f64 = 3.0;
/// Farthest an intro edge moves to a cut whatever the sound, seconds.
pub const NEAR_CUT: f64 = 0.6;
/// The fingerprints' hop, seconds: an end found by them lies up to this far after the last
/// matched instant.
const LAST_HOP: f64 = 0.1;
/// How long the sound beside a cut must be silent for an edge to move to it across silence, seconds.
const OPENS: f64 = 0.5;
/// Share of silent hashes (0) that makes a stretch "mostly silent".
const SILENT_SHARE: f64 = 0.75;
/// Bit errors under which a hash at the edge of a run agrees by itself (unrelated hashes differ
/// in 16 of 32 on average).
const EDGE_BITS: u32 = 8;
/// Bit errors (of 32) over which a picture hash does not match. On the evaluation season
/// (docs/media.md) the same frame in two episodes differed in 0 bits 92 % of the time and never in
/// more than 4, while frames of one film drawn at random differ in 15 on average, but in 2 or
/// fewer about one time in 55 (pictures of one film are alike): a run of a second or
/// more at one offset is what sets a match apart.
pub const PICTURE_BITS: u32 = 2;
/// Bits by which a run of picture must change to count: some hash differs from its first in at
/// least this many (a still picture has look-alikes all through a title).
pub const PICTURE_CHANGE: u32 = 4;
/// How many best-voted alignments of a pair's pictures are examined (a recap cut from several
/// short shots has an alignment per shot, and still pictures vote for many look-alikes).
const PICTURE_ALIGNMENTS: usize = 24;
/// How many best-voted alignments of a pair's sound are examined.
const ALIGNMENTS: usize = 6;

/// One episode of a season.
#[derive(Debug, Clone, Copy)]
pub struct Episode<'a> {
    /// Its number in the season, for recaps (earlier episodes have smaller numbers).
    pub number: Option<i64>,
    /// Its signals.
    pub signals: &'a Signals,
}

/// The markers of one episode, in seconds; `None` where nothing was found. Read back with every
/// field optional (what a missing field means: nothing found).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
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
    /// End of the end credits: where their last text goes (or black frames after it start).
    pub credit_end: Option<f64>,
    /// Start of a scene after the end credits (a post-credits scene), when one follows them after
    /// black frames.
    pub post_credits_start: Option<f64>,
    /// End of that scene.
    pub post_credits_end: Option<f64>,
    /// Start of a scene between two parts of the end credits (a mid-credits scene).
    pub mid_credits_start: Option<f64>,
    /// End of that scene.
    pub mid_credits_end: Option<f64>,
    /// Which cue found the end credits: `text` (the on-screen text channel), `picture` (frames
    /// the image classifier takes for text, or a picture rolling up as credits do) or `season`
    /// (the end the season's episodes share).
    pub credits_cue: Option<String>,
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

/// The hashes of one fingerprint of an episode, sound or picture, one every `hop` seconds (both
/// have the same shape, 0 where silent or blank).
#[derive(Debug, Clone, Copy)]
struct Track<'a> {
    hop: f64,
    hashes: &'a [u32],
    /// Position of `hashes[0]` in the whole fingerprint (the tail of a video starts late).
    first: usize,
    /// The most bit errors of a matched hash by itself: [`PICTURE_BITS`] for the picture (its
    /// hashes hold still through a shot, so the windowed error rate of [`matched_at`] amounts to
    /// one comparison a shot); none for the sound.
    most_bits: Option<u32>,
}

impl<'a> Track<'a> {
    /// The sound of `s`, and its picture.
    fn of(s: &'a Signals) -> [Option<Track<'a>>; 2] {
        [
            s.audio_fingerprint.as_ref().map(|f| Track { hop: f.hop, hashes: &f.hashes, first: 0, most_bits: None }),
            s.picture_fingerprint.as_ref().map(|f| Track {
                hop: f.hop,
                hashes: &f.hashes,
                first: 0,
                most_bits: Some(PICTURE_BITS),
            }),
        ]
    }

    /// The search window: the hashes of the first quarter of a video of `duration` seconds, at
    /// most [`MAX_WINDOW`] seconds.
    fn window(self, duration: f64) -> Track<'a> {
        let seconds = (duration / 4.0).min(MAX_WINDOW);
        let n = ((seconds / self.hop).floor() as usize).min(self.hashes.len());
        Track { hashes: &self.hashes[..n], ..self }
    }

    /// The end window: the hashes of the last [`END_SHARE`] of the video, at most [`MAX_WINDOW`]
    /// seconds.
    fn tail(self, duration: f64) -> Track<'a> {
        let seconds = (duration * END_SHARE).min(MAX_WINDOW);
        let n = ((seconds / self.hop).floor() as usize).min(self.hashes.len());
        let first = self.hashes.len() - n;
        Track { hashes: &self.hashes[first..], first, ..self }
    }

    /// `[start, end)` of a run in seconds of this track's video.
    fn seconds(self, r: &Run) -> (f64, f64) {
        ((self.first + r.start) as f64 * self.hop, (self.first + r.end) as f64 * self.hop)
    }
}

/// Runs of matched hashes of `a` against `b` at the best-voted alignments, gaps under
/// [`MAX_GAP`] bridged; longest first. Alignments closer than [`MAX_GAP`] to one already examined
/// are skipped (a still picture votes for every offset across its length).
fn runs(a: Track<'_>, b: &Indexed<'_>) -> Vec<Run> {
    let Indexed { track: b, index } = b;
    if a.hashes.is_empty() || b.hashes.is_empty() || (a.hop - b.hop).abs() > 1e-9 {
        return Vec::new();
    }
    let mut votes: Vec<(i64, usize)> = index.votes(a.hashes).into_iter().filter(|&(_, v)| v >= 2).collect();
    votes.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let gap = (MAX_GAP / a.hop).round() as usize;
    let alignments = if a.most_bits.is_some() { PICTURE_ALIGNMENTS } else { ALIGNMENTS };
    let mut examined: Vec<i64> = Vec::with_capacity(alignments);
    let mut out = Vec::new();
    for &(offset, _) in &votes {
        if examined.len() == alignments {
            break;
        }
        if examined.iter().any(|&o| o.abs_diff(offset) < gap as u64) {
            continue;
        }
        examined.push(offset);
        let mut matched = matched_at(a.hashes, b.hashes, offset);
        if let Some(most) = a.most_bits {
            matched.iter_mut().for_each(|m| *m = m.filter(|&e| e <= most));
        }
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
            if r.end > r.start && (a.most_bits.is_none() || changes(&a.hashes[r.start..r.end])) {
                out.push(r);
            }
        }
    }
    out.sort_by(|x, y| (y.end - y.start).cmp(&(x.end - x.start)).then(x.start.cmp(&y.start)));
    out
}

/// Whether a run of picture hashes shows the picture change: some hash differs from the first in
/// at least [`PICTURE_CHANGE`] bits. A still picture (a sky over a field, a title card) has
/// look-alikes all through a title; a picture that moves or cuts is what a run can match.
fn changes(hashes: &[u32]) -> bool {
    let first = hashes.iter().copied().find(|&h| h != 0).unwrap_or(0);
    hashes.iter().any(|&h| h != 0 && (h ^ first).count_ones() >= PICTURE_CHANGE)
}

/// What a pair of episodes shares in two windows (`[sound, picture]` each): the longest run of
/// `shortest` to `longest` seconds of each kind, joined when they overlap (the picture carries a
/// quiet stretch the sound cannot match, the sound a stretch whose picture changed), else the
/// longer.
fn shared(a: &Kinds<'_>, b: &Kinds<'_>, shortest: f64, longest: f64) -> Option<(f64, f64)> {
    let best = |k: usize| {
        let (x, y) = (a[k].as_ref()?.track, b[k].as_ref()?);
        runs(x, y).iter().map(|r| x.seconds(r)).find(|(s, e)| (shortest..=longest).contains(&(e - s)))
    };
    match (best(0), best(1)) {
        (Some(s), Some(p)) if s.0 <= p.1 && p.0 <= s.1 && s.1.max(p.1) - s.0.min(p.0) <= longest => {
            Some((s.0.min(p.0), s.1.max(p.1)))
        }
        (Some(s), Some(p)) => Some(if p.1 - p.0 > s.1 - s.0 { p } else { s }),
        (s, p) => s.or(p),
    }
}

/// A track with the index of its hashes, built once and aligned against every other episode.
#[derive(Debug)]
struct Indexed<'a> {
    track: Track<'a>,
    index: Positions<'a>,
}

/// An episode's sound and picture, each indexed when present.
type Kinds<'a> = [Option<Indexed<'a>>; 2];

/// A window of each of the episodes' `tracks`, made by `window` from the track and the duration,
/// indexed.
fn cut<'a>(
    episodes: &[Episode<'_>],
    tracks: &[[Option<Track<'a>>; 2]],
    window: impl Fn(Track<'a>, f64) -> Track<'a>,
) -> Vec<Kinds<'a>> {
    episodes
        .iter()
        .zip(tracks)
        .map(|(e, t)| {
            t.map(|k| {
                k.map(|k| {
                    let track = window(k, e.signals.duration);
                    // Sound is noisy: its hashes' halves vote too. A picture hash matches within
                    // 2 bits, and its run's other hashes (mostly exact) vote for it.
                    let index = match track.most_bits {
                        None => Positions::with_halves(track.hashes),
                        Some(_) => Positions::new(track.hashes),
                    };
                    Indexed { track, index }
                })
            })
        })
        .collect()
}

/// For each episode, the stretch of its windows (made by `window`) that most other episodes share
/// (see [`shared`] and [`consensus`]); `None` without one.
fn season_consensus(windows: &[Kinds<'_>], shortest: f64, longest: f64) -> (Vec<Option<(f64, f64)>>, Vec<usize>) {
    let comparable = |w: &Kinds<'_>| w.iter().any(Option::is_some);
    let mut found = Vec::with_capacity(windows.len());
    let mut compared = Vec::with_capacity(windows.len());
    for (i, wa) in windows.iter().enumerate() {
        let mut candidates: Vec<(f64, f64)> = Vec::new();
        let mut others = 0;
        if comparable(wa) {
            for (j, wb) in windows.iter().enumerate() {
                if j != i && comparable(wb) {
                    others += 1;
                    candidates.extend(shared(wa, wb, shortest, longest));
                }
            }
        }
        compared.push(others);
        found.push(consensus(&candidates));
    }
    (found, compared)
}

/// The markers of each of a season's `episodes`, in order.
pub fn season_markers(episodes: &[Episode<'_>]) -> Vec<Markers> {
    let tracks: Vec<[Option<Track<'_>>; 2]> = episodes.iter().map(|e| Track::of(e.signals)).collect();
    let windows = cut(episodes, &tracks, Track::window);
    // Each episode's intro, from its candidates against each other episode, moved to the cuts.
    let (intros, compared) = season_consensus(&windows, MIN_INTRO, MAX_INTRO);
    let intros: Vec<Option<(f64, f64)>> =
        intros.iter().zip(episodes).map(|(found, e)| found.map(|found| to_cuts(e.signals, found, MIN_INTRO))).collect();
    // The stretch at the end each episode shares with the others: end credits, for an episode
    // whose text channel found none.
    let (ends, _) = season_consensus(&cut(episodes, &tracks, Track::tail), MIN_SHARED_END, f64::INFINITY);
    // Whole episodes, for the recaps of those after them.
    let recapped = episodes.iter().any(|e| e.number.is_some());
    let whole = if recapped { cut(episodes, &tracks, |t, _| t) } else { Vec::new() };
    episodes
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let duration = e.signals.duration;
            let clamp = |t: f64| report::time(t.clamp(0.0, duration));
            let mut m = Markers { episodes_compared: compared[i], ..Markers::default() };
            if let Some((a, b)) = intros[i] {
                m.intro_start = Some(clamp(a));
                m.intro_end = Some(clamp(b));
            }
            if let Some(found) = e.number.and_then(|n| recap(episodes, &windows, &whole, &intros, i, n)) {
                let (a, b) = to_cuts(e.signals, found, 0.0);
                m.recap_start = Some(clamp(a));
                m.recap_end = Some(clamp(b));
            }
            if let Some(c) = credits(e.signals).or_else(|| ends[i].map(|found| credits::from_season(e.signals, found)))
            {
                m.credit_start = Some(clamp(c.start));
                m.credit_end = c.end.map(clamp);
                m.post_credits_start = c.post_credits.map(|s| clamp(s.0));
                m.post_credits_end = c.post_credits.map(|s| clamp(s.1));
                m.mid_credits_start = c.mid_credits.map(|s| clamp(s.0));
                m.mid_credits_end = c.mid_credits.map(|s| clamp(s.1));
                m.credits_cue = Some(c.cue.as_str().to_string());
            }
            m
        })
        .collect()
}

/// The stretches of black frames of `s` (its visual cues of kind `black`), by start.
fn black_frames(s: &Signals) -> impl Iterator<Item = &crate::signals::VisualCue> + Clone {
    s.visual.iter().flat_map(|v| v.cues.iter()).filter(|c| c.kind == "black")
}

/// The part of `[start, end)` outside `intro`: the longer of what lies before and after it.
fn outside(intro: Option<(f64, f64)>, (start, end): (f64, f64)) -> (f64, f64) {
    match intro {
        Some((x, y)) if start < y && end > x => {
            let (before, after) = ((start, end.min(x)), (start.max(y), end));
            if after.1 - after.0 >= before.1 - before.0 { after } else { before }
        }
        _ => (start, end),
    }
}

/// The recap of episode `i` (number `n`): its window's runs of sound (at least [`MIN_RECAP_RUN`]
/// seconds) and of picture (at least [`MIN_RECAP_PICTURE`]) that match an earlier episode, both
/// with the intros (of this episode and of the one matched) left out; of the groups they form
/// (gaps up to [`RECAP_GAP`] bridged), the one with the most matched seconds, at least
/// [`MIN_RECAP`].
fn recap(
    episodes: &[Episode<'_>],
    windows: &[Kinds<'_>],
    whole: &[Kinds<'_>],
    intros: &[Option<(f64, f64)>],
    i: usize,
    n: i64,
) -> Option<(f64, f64)> {
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for (j, other) in episodes.iter().enumerate() {
        if j == i || other.number.is_none_or(|k| k >= n) {
            continue;
        }
        for (k, shortest) in [(0, MIN_RECAP_RUN), (1, MIN_RECAP_PICTURE)] {
            let (Some(a), Some(full)) = (windows[i][k].as_ref().map(|w| w.track), whole[j][k].as_ref()) else {
                continue;
            };
            for r in runs(a, full) {
                let shift = r.offset as f64 * a.hop;
                let (start, end) = outside(intros[i], a.seconds(&r));
                let (there_start, there_end) = outside(intros[j], (start + shift, end + shift));
                if there_end - there_start >= shortest {
                    spans.push((there_start - shift, there_end - shift));
                }
            }
        }
    }
    // The spans in groups, gaps up to RECAP_GAP bridged: the recap is the group with the most
    // matched seconds, when it has at least MIN_RECAP (a lone shot that looks like an earlier one
    // is no recap).
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut groups: Vec<((f64, f64), f64)> = Vec::new(); // (span, matched seconds)
    for (a, b) in spans {
        match groups.last_mut() {
            Some(((_, end), matched)) if a <= *end + RECAP_GAP => {
                *matched += (b - a.max(*end)).max(0.0);
                *end = end.max(b);
            }
            _ => groups.push(((a, b), b - a)),
        }
    }
    groups.into_iter().filter(|g| g.1 >= MIN_RECAP).max_by(|x, y| x.1.total_cmp(&y.1)).map(|g| g.0)
}

/// Moves an intro or recap found in the fingerprints, `(start, end)`, to the picture's cuts: the
/// start to the earliest cut at most [`SNAP`] seconds before it with mostly silent sound between
/// that opens onto silence (or any cut at most [`NEAR_CUT`] seconds before it), the end to a cut
/// less than one hop ([`LAST_HOP`]) before it or else the earliest cut at most [`SNAP`] seconds
/// after it on the same terms. Cuts are the shot boundaries
/// and where black frames start (for the start) or end (for the end). An edge without such a cut
/// stays where the fingerprints put it, and both stay when the moved span would be shorter than
/// `shortest` seconds.
fn to_cuts(s: &Signals, (start, end): (f64, f64), shortest: f64) -> (f64, f64) {
    let black = black_frames(s);
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
            // A run ends one hop after its last matched hash: a cut inside that hop ends it.
            (c < end && end - c < LAST_HOP)
                || (c >= end
                    && c - end <= SNAP
                    && (c - end <= NEAR_CUT || (silent(end, c) && silent((c - OPENS).max(end), c))))
        })
        .min_by(f64::total_cmp)
        .unwrap_or(end);
    if new_end - new_start >= shortest { (new_start, new_end) } else { (start, end) }
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
mod tests;
