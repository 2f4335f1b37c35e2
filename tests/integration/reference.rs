//! A naive reference selector: it rescans every window's samples, sorts every candidate, and
//! searches every shot and speech interval. Slow and obviously right; the fast selector must match
//! it exactly on generated inputs.

use kino::clips::{CharacterPreference, ClipType, ShotKind};
use kino::signals::{fixed_mean, fixed_value, to_fixed};
use kino::{ClipQuery, Prepared};

#[derive(Debug, Clone, PartialEq)]
pub struct RefClip {
    pub candidate: (f64, f64),
    pub start: f64,
    pub stop: f64,
    pub snapped: (f64, f64),
    pub shifts: (f64, f64),
    pub relevance: f64,
    pub type_score: f64,
    pub query_relevance: f64,
    pub maxima: (f64, f64, f64),
    pub brightness: f64,
    pub shot_type: Option<ShotKind>,
}

fn samples(p: &Prepared, s: f64, e: f64) -> (usize, usize) {
    let step = p.step();
    let n = p.samples();
    let lo = ((s / step + 1e-6).floor().max(0.0) as usize).min(n - 1);
    let hi = ((e / step - 1e-6).ceil().max(0.0) as usize).min(n);
    (lo, hi.max(lo + 1).min(n))
}

fn sum(values: &[f32], lo: usize, hi: usize) -> u64 {
    values[lo..hi].iter().map(|&v| u64::from(to_fixed(v))).sum()
}

fn max(values: &[f32], lo: usize, hi: usize) -> f64 {
    fixed_value(values[lo..hi].iter().map(|&v| to_fixed(v)).max().unwrap_or(0))
}

struct Agg {
    rel_sum: u64,
    relevance: f64,
    nudity: f64,
    blood_gore: f64,
    profanity: f64,
    brightness: f64,
}

fn agg(p: &Prepared, s: f64, e: f64) -> Agg {
    let t = &p.signals().timelines;
    let (lo, hi) = samples(p, s, e);
    let rel_sum = sum(&t.relevance, lo, hi);
    Agg {
        rel_sum,
        relevance: fixed_mean(rel_sum, hi - lo),
        nudity: max(&t.nudity, lo, hi),
        blood_gore: max(&t.blood_gore, lo, hi),
        profanity: max(&t.profanity, lo, hi),
        brightness: fixed_mean(sum(&t.brightness, lo, hi), hi - lo),
    }
}

fn thresholds_ok(q: &ClipQuery, a: &Agg) -> bool {
    let ok = |v: f64, lo: f64, hi: f64| lo <= v && v <= hi;
    ok(a.nudity, q.min_nudity, q.max_nudity)
        && ok(a.blood_gore, q.min_blood_gore, q.max_blood_gore)
        && ok(a.profanity, q.min_profanity, q.max_profanity)
        && ok(a.brightness, q.min_brightness, q.max_brightness)
}

pub fn present(p: &Prepared, s: f64, e: f64) -> Vec<u32> {
    let mut out: Vec<u32> = p
        .signals()
        .characters
        .iter()
        .filter(|c| c.spans.iter().any(|&[a, b]| b.min(e) - a.max(s) > 0.0))
        .map(|c| c.rank)
        .collect();
    out.sort();
    out
}

pub fn preference_ok(q: &ClipQuery, present: &[u32]) -> bool {
    match q.character_preference {
        CharacterPreference::NoPreference => true,
        CharacterPreference::Any => !present.is_empty(),
        CharacterPreference::Avoid => present.is_empty(),
        CharacterPreference::AnyOf => q.character_list.iter().any(|r| present.contains(r)),
        CharacterPreference::AllOf => q.character_list.iter().all(|r| present.contains(r)),
    }
}

/// The shot type covering the most of `[s, e]`: every shot's overlap, in whole microseconds,
/// summed by kind; the earlier kind on a tie; `None` when no shot overlaps.
pub fn dominant_shot(p: &Prepared, s: f64, e: f64) -> Option<ShotKind> {
    let us = |t: f64| (t * 1e6).round() as i64;
    let (s, e) = (us(s), us(e));
    let mut covered = [0i64; 6];
    for shot in p.signals().visual.iter().flat_map(|v| &v.shot_types) {
        let kind = ShotKind::ALL.iter().position(|k| k.as_str() == shot.kind).expect("a known kind");
        covered[kind] += (us(shot.end).min(e) - us(shot.start).max(s)).max(0);
    }
    let most = *covered.iter().max().expect("six kinds");
    (most > 0).then(|| ShotKind::ALL[covered.iter().position(|&c| c == most).expect("the maximum")])
}

pub fn shot_type_ok(p: &Prepared, q: &ClipQuery, s: f64, e: f64) -> bool {
    q.shot_type.is_empty() || dominant_shot(p, s, e).is_some_and(|k| q.shot_type.contains(&k))
}

fn guard(p: &Prepared, q: &ClipQuery, s: f64, e: f64) -> bool {
    0.0 <= s
        && s < e
        && e <= p.duration()
        && thresholds_ok(q, &agg(p, s, e))
        && preference_ok(q, &present(p, s, e))
        && shot_type_ok(p, q, s, e)
}

/// Unit scene vectors and the query's unit vector, exactly as the core normalises them.
fn unit(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
    let scale = if norm > 0.0 { (1.0 / norm) as f32 } else { 0.0 };
    v.iter().map(|&x| x * scale).collect()
}

pub fn scene_scores(p: &Prepared, embedding: &[f32]) -> Vec<f64> {
    let q = unit(embedding);
    p.signals()
        .scene_embeddings
        .as_ref()
        .expect("scene embeddings")
        .iter()
        .map(|v| {
            let u = unit(v);
            let cos = kino::text::dot(&q, &u);
            let score = (cos + 1.0) / 2.0;
            if score > 0.0 { score.min(1.0) } else { 0.0 }
        })
        .collect()
}

fn query_relevance(p: &Prepared, scores: &[f64], s: f64, e: f64) -> f64 {
    p.signals()
        .scenes
        .iter()
        .zip(scores)
        .filter(|(sc, _)| sc.start < e && s < sc.end)
        .map(|(_, &v)| v)
        .fold(0.0, f64::max)
}

fn snap(t: f64, bwd: f64, fwd: f64, shots: &[f64]) -> f64 {
    let mut best: Option<f64> = None;
    for &b in shots {
        if b >= t - bwd && b <= t + fwd && best.is_none_or(|x| (b - t).abs() < (x - t).abs()) {
            best = Some(b);
        }
    }
    best.unwrap_or(t)
}

pub fn safe(t: f64, before: f64, after: f64, speech: &[[f64; 2]]) -> bool {
    speech.iter().all(|&[a, b]| !(a - after < t && t < b + before))
}

fn avoid(t: f64, before: f64, after: f64, bwd: f64, fwd: f64, speech: &[[f64; 2]]) -> f64 {
    if safe(t, before, after, speech) {
        return t;
    }
    let mut points: Vec<f64> = speech.iter().flat_map(|&[a, b]| [a - after, b + before]).collect();
    points.retain(|&x| x >= t - bwd && x <= t + fwd && safe(x, before, after, speech));
    points.sort_by(|a, b| (a - t).abs().total_cmp(&(b - t).abs()).then(a.total_cmp(b)));
    points.first().copied().unwrap_or(t)
}

fn gap(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.0 - a.1).max(a.0 - b.1).max(0.0)
}

pub fn reference_select(p: &Prepared, q: &ClipQuery, embedding: Option<&[f32]>) -> Vec<RefClip> {
    let (d, step, len) = (p.duration(), p.step(), q.clip_length);
    let n = p.samples();
    let scores = embedding.map(|e| scene_scores(p, e));
    let t = &p.signals().timelines;
    if len <= 0.0 {
        return vec![];
    }
    let (w0, w1) = (d * q.skip_start / 100.0, d - d * q.skip_end / 100.0);
    let mut candidates = Vec::new();
    for i in 0..n {
        let s = i as f64 * step;
        let e = s + len;
        if !(s >= w0 - 1e-9 && e <= w1 + 1e-9) {
            continue;
        }
        if ((e / step - 1e-6).ceil()) as usize > n {
            continue;
        }
        let a = agg(p, s, e);
        if !thresholds_ok(q, &a) || !preference_ok(q, &present(p, s, e)) || !shot_type_ok(p, q, s, e) {
            continue;
        }
        let (lo, hi) = samples(p, s, e);
        let primary: u64 = if let Some(scores) = &scores {
            query_relevance(p, scores, s, e).to_bits()
        } else if q.clip_type != ClipType::Any {
            t.clip_types.get(q.clip_type.as_str()).map_or(0, |v| sum(v, lo, hi))
        } else {
            a.rel_sum
        };
        candidates.push((primary, a.rel_sum, s));
    }
    // Best first; ties to the higher relevance, then the earlier start (stable sort keeps order).
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
    let mut accepted: Vec<(f64, f64)> = Vec::new();
    for (_, _, s) in candidates {
        if accepted.len() >= q.number_of_top_candidates {
            break;
        }
        let c = (s, s + len);
        if accepted.iter().all(|&a| gap(a, c) >= q.minimum_clip_separation) {
            accepted.push(c);
        }
    }
    let shots = &p.signals().shots;
    let speech = &p.signals().speech;
    accepted
        .into_iter()
        .map(|(s0, e0)| {
            let (mut s, mut e) = (s0, e0);
            let snapped = (
                snap(s, q.start_bwd_snap_search, q.start_fwd_snap_search, shots),
                snap(e, q.end_bwd_snap_search, q.end_fwd_snap_search, shots),
            );
            if snapped != (s, e) && guard(p, q, snapped.0, snapped.1) {
                (s, e) = snapped;
            }
            let snapped = (s, e);
            let moved = (
                avoid(
                    s,
                    q.start_speech_stop_silence_before,
                    q.start_speech_stop_silence_after,
                    q.start_bwd_speech_search,
                    q.start_fwd_speech_search,
                    speech,
                ),
                avoid(
                    e,
                    q.end_speech_stop_silence_before,
                    q.end_speech_stop_silence_after,
                    q.end_bwd_speech_search,
                    q.end_fwd_speech_search,
                    speech,
                ),
            );
            let mut shifts = (0.0, 0.0);
            if moved != (s, e) && guard(p, q, moved.0, moved.1) {
                shifts = (moved.0 - s, moved.1 - e);
                (s, e) = moved;
            }
            let a = agg(p, s, e);
            let (lo, hi) = samples(p, s, e);
            let type_score = if q.clip_type == ClipType::Any {
                a.relevance
            } else {
                t.clip_types.get(q.clip_type.as_str()).map_or(0.0, |v| fixed_mean(sum(v, lo, hi), hi - lo))
            };
            RefClip {
                candidate: (s0, e0),
                start: s,
                stop: e,
                snapped,
                shifts,
                relevance: a.relevance,
                type_score,
                query_relevance: scores.as_ref().map_or(0.0, |sc| query_relevance(p, sc, s, e)),
                maxima: (a.nudity, a.blood_gore, a.profanity),
                brightness: a.brightness,
                shot_type: dominant_shot(p, s, e),
            }
        })
        .collect()
}

/// The ranking key `(primary, relevance sum)` of the grid candidate `[s, e]`.
pub fn key_of(p: &Prepared, q: &ClipQuery, embedding: Option<&[f32]>, s: f64, e: f64) -> (u64, u64) {
    let (lo, hi) = samples(p, s, e);
    let t = &p.signals().timelines;
    let rel = sum(&t.relevance, lo, hi);
    let primary = if let Some(emb) = embedding {
        query_relevance(p, &scene_scores(p, emb), s, e).to_bits()
    } else if q.clip_type != ClipType::Any {
        t.clip_types.get(q.clip_type.as_str()).map_or(0, |v| sum(v, lo, hi))
    } else {
        rel
    };
    (primary, rel)
}

/// The best ranking key over every grid candidate in the skip window, by brute force.
pub fn max_key(p: &Prepared, q: &ClipQuery, embedding: Option<&[f32]>) -> Option<(u64, u64)> {
    let (d, step, len) = (p.duration(), p.step(), q.clip_length);
    let (w0, w1) = (d * q.skip_start / 100.0, d - d * q.skip_end / 100.0);
    if len <= 0.0 {
        return None;
    }
    (0..p.samples())
        .map(|i| i as f64 * step)
        .filter(|&s| s >= w0 - 1e-9 && s + len <= w1 + 1e-9 && ((s + len) / step - 1e-6).ceil() as usize <= p.samples())
        .map(|s| key_of(p, q, embedding, s, s + len))
        .max()
}
