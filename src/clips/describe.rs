//! Aggregates and descriptive fields of a final clip interval (sections 4.4, 5 of
//! `clip-selection.md`).

use std::collections::BTreeMap;

use super::candidates::SceneScores;
use super::clip::{Clip, CropWindow, TagScore, VerticalConversion};
use super::geometry::overlaps;
use super::query::ClipQuery;
use super::shots::ShotCoverage;
use super::types::{AspectRatio, CharacterPreference, ClipType};
use crate::signals::{Prepared, TagKind, Vertical, fixed_mean, fixed_value, kind_slot};

/// The aggregates of signals.md over an arbitrary interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Aggregates {
    pub(crate) relevance: f64,
    pub(crate) nudity: f64,
    pub(crate) blood_gore: f64,
    pub(crate) profanity: f64,
    pub(crate) brightness: f64,
}

pub(crate) fn aggregates(p: &Prepared, start: f64, stop: f64) -> Aggregates {
    let (lo, hi) = p.sample_range(start, stop);
    let count = hi - lo;
    Aggregates {
        relevance: fixed_mean(p.relevance.sum(lo, hi), count),
        nudity: fixed_value(p.nudity.max(lo, hi)),
        blood_gore: fixed_value(p.blood_gore.max(lo, hi)),
        profanity: fixed_value(p.profanity.max(lo, hi)),
        brightness: fixed_mean(p.brightness.sum(lo, hi), count),
    }
}

/// Ranks of the characters on screen during `[start, stop]`, ascending.
pub(crate) fn characters_over(p: &Prepared, start: f64, stop: f64) -> Vec<u32> {
    p.characters
        .iter()
        .filter(|(_, spans)| {
            let at = spans.partition_point(|iv| iv[1] <= start);
            spans.get(at).is_some_and(|iv| overlaps(iv[0], iv[1], start, stop))
        })
        .map(|(rank, _)| *rank)
        .collect()
}

/// Whether the characters on screen satisfy the query's character preference.
pub(crate) fn preference_met(q: &ClipQuery, present: &[u32]) -> bool {
    let listed = |r: &u32| present.binary_search(r).is_ok();
    match q.character_preference {
        CharacterPreference::NoPreference => true,
        CharacterPreference::Any => !present.is_empty(),
        CharacterPreference::Avoid => present.is_empty(),
        CharacterPreference::AnyOf => q.character_list.iter().any(listed),
        CharacterPreference::AllOf => q.character_list.iter().all(listed),
    }
}

/// The refinement guard: whether an interval is inside `[0, D]`, non-empty, meets every
/// threshold and the `shot_type` filter, and keeps the character preference (so that section 7's
/// "every returned clip satisfies the character preference" holds after refinement too).
pub(crate) fn acceptable(p: &Prepared, q: &ClipQuery, shots: &ShotCoverage, start: f64, stop: f64) -> bool {
    if !(0.0 <= start && start < stop && stop <= p.duration()) {
        return false;
    }
    if !shots.passes(&q.shot_type, start, stop) {
        return false;
    }
    if !preference_met(q, &characters_over(p, start, stop)) {
        return false;
    }
    let a = aggregates(p, start, stop);
    let within = |v: f64, lo: f64, hi: f64| lo <= v && v <= hi;
    within(a.nudity, q.min_nudity, q.max_nudity)
        && within(a.blood_gore, q.min_blood_gore, q.max_blood_gore)
        && within(a.profanity, q.min_profanity, q.max_profanity)
        && within(a.brightness, q.min_brightness, q.max_brightness)
}

/// Mean of a clip type's timeline over an interval; 0 when the document lacks it.
fn type_mean(p: &Prepared, ct: ClipType, lo: usize, hi: usize) -> f64 {
    p.clip_type_prefix(ct).map_or(0.0, |prefix| fixed_mean(prefix.sum(lo, hi), hi - lo))
}

/// How refinement moved a clip.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Refined {
    pub(crate) start: f64,
    pub(crate) stop: f64,
    pub(crate) snapped_start: f64,
    pub(crate) snapped_stop: f64,
    pub(crate) start_shift: f64,
    pub(crate) stop_shift: f64,
}

impl Refined {
    pub(crate) fn unchanged(start: f64, stop: f64) -> Refined {
        Refined { start, stop, snapped_start: start, snapped_stop: stop, start_shift: 0.0, stop_shift: 0.0 }
    }
}

/// Builds the full clip record for a final interval.
pub(crate) fn describe(
    p: &Prepared,
    q: &ClipQuery,
    scenes: Option<&SceneScores>,
    shots: &ShotCoverage,
    r: Refined,
    clip_index: usize,
) -> Clip {
    let s = p.signals();
    let (start, stop) = (r.start, r.stop);
    let a = aggregates(p, start, stop);
    let (lo, hi) = p.sample_range(start, stop);
    let (clip_type, type_score) = if q.clip_type == ClipType::Any {
        let best = p.clip_types.iter().map(|(ct, prefix)| (*ct, fixed_mean(prefix.sum(lo, hi), hi - lo))).fold(
            None,
            |best: Option<(ClipType, f64)>, (ct, m)| match best {
                Some((_, bm)) if bm >= m => best,
                _ => Some((ct, m)),
            },
        );
        let described = best.filter(|&(_, m)| m > 0.0).map_or(ClipType::Any, |(ct, _)| ct);
        (described, a.relevance)
    } else {
        (q.clip_type, type_mean(p, q.clip_type, lo, hi))
    };
    let characters = characters_over(p, start, stop);
    let keywords = if q.add_keyword_tags { tags_over(p, TagKind::Keyword, start, stop) } else { Vec::new() };
    let mood = tags_over(p, TagKind::Mood, start, stop);
    let environment = tags_over(p, TagKind::Environment, start, stop);
    let vertical_conversion = match (q.aspect_ratio, &s.vertical) {
        (AspectRatio::Vertical9x16, Some(v)) => {
            Some(vertical_conversion(s.frame_width, s.frame_height, v, start, stop))
        }
        _ => None,
    };
    Clip {
        start_time: start,
        stop_time: stop,
        relevance: a.relevance,
        query_relevance: scenes.map_or(0.0, |sc| sc.best_over(start, stop)),
        search_query: q.search_query.clone().unwrap_or_default(),
        start_frame: frame(start, s.fps),
        stop_frame: frame(stop, s.fps),
        characters,
        nudity: a.nudity,
        blood_gore: a.blood_gore,
        profanity: a.profanity,
        brightness: a.brightness,
        shot_type: shots.dominant(start, stop),
        clip_index,
        snapped_start: r.snapped_start,
        snapped_stop: r.snapped_stop,
        clip_type,
        keyword: keywords.first().cloned(),
        keywords,
        mood_tag: mood.first().cloned(),
        mood,
        environment,
        start_speech_avoidance: r.start_shift,
        end_speech_avoidance: r.stop_shift,
        type_score,
        service_id: None,
        inventory_id: s.inventory_id.clone(),
        fps: s.fps,
        generated: None,
        vertical_conversion,
        source_frame_width: s.frame_width,
        source_frame_height: s.frame_height,
    }
}

fn frame(t: f64, fps: f64) -> i64 {
    (t * fps).round() as i64
}

/// Tags of one kind overlapping `[start, stop]`: one per name with its best score, best first,
/// then by name.
fn tags_over(p: &Prepared, kind: TagKind, start: f64, stop: f64) -> Vec<TagScore> {
    let order = &p.tags_by_kind[kind_slot(kind)];
    let end = order.partition_point(|&i| p.tag(i).0.start < stop);
    let mut best: BTreeMap<&str, (f64, &'static str)> = BTreeMap::new();
    for &i in &order[..end] {
        let (t, source) = p.tag(i);
        if overlaps(t.start, t.end, start, stop) {
            let entry = best.entry(t.name.as_str()).or_insert((t.score, source.as_str()));
            if t.score > entry.0 {
                *entry = (t.score, source.as_str());
            }
        }
    }
    let mut out: Vec<TagScore> = best
        .into_iter()
        .map(|(name, (score, source))| TagScore { name: name.to_string(), score, source: source.to_string() })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    out
}

/// The 9:16 window inside the picture (frame minus black bars), centred on `x_center`.
pub(crate) fn crop_window(width: u32, height: u32, blackbars: [u32; 2], x_center: f64) -> CropWindow {
    let [top, bottom] = blackbars;
    let content = height.saturating_sub(top + bottom).max(1);
    let mut h = content;
    let mut w = ((u64::from(h) * 9 + 8) / 16).max(1) as u32;
    if w > width {
        w = width;
        h = (((u64::from(w) * 16 + 4) / 9) as u32).min(content);
    }
    let y = top + (content - h) / 2;
    let ideal = x_center * f64::from(width) - f64::from(w) / 2.0;
    let x = ideal.round().clamp(0.0, f64::from(width - w)) as u32;
    CropWindow { x, y, width: w, height: h }
}

fn vertical_conversion(width: u32, height: u32, v: &Vertical, start: f64, stop: f64) -> VerticalConversion {
    let len = v.x_center.len();
    let lo = ((start / v.step + 1e-6).floor().max(0.0) as usize).min(len - 1);
    let hi = ((stop / v.step - 1e-6).ceil().max(0.0) as usize).clamp(lo + 1, len);
    let mut window: Vec<f32> = v.x_center[lo..hi].to_vec();
    window.sort_by(f32::total_cmp);
    let mid = window.len() / 2;
    let median = if window.len() % 2 == 1 {
        f64::from(window[mid])
    } else {
        (f64::from(window[mid - 1]) + f64::from(window[mid])) / 2.0
    };
    VerticalConversion {
        coordinates: crop_window(width, height, v.blackbars, median),
        blackbars: v.blackbars,
        start_buffer: crop_window(width, height, v.blackbars, f64::from(v.x_center[lo])),
        end_buffer: crop_window(width, height, v.blackbars, f64::from(v.x_center[hi - 1])),
    }
}
