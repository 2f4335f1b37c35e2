//! One [`Reading`] per channel, from what the analysis measured. Each function states its rule;
//! the constants are in the table of `docs/media.md` ("How kino feels a film").

use super::{AMUSEMENT, ANGER, EMOTION_COUNT, FEAR, JOY, Reading, SADNESS, SURPRISE, unit};
use crate::sound::SOUND_GROUPS;

/// The picture's brightness (`Y`, mean luma) and saturation (`S`, mean chroma) where a film's
/// are usually found, and how far they usually spread: each is standardised with these before
/// the colour-emotion relations apply.
pub const BRIGHTNESS_CENTRE: f64 = 0.40;
pub const BRIGHTNESS_SPREAD: f64 = 0.20;
pub const SATURATION_CENTRE: f64 = 0.18;
pub const SATURATION_SPREAD: f64 = 0.10;
/// The weight of the colour reading in every dimension.
pub const COLOUR_WEIGHT: f32 = 0.5;

/// Colour: the colour-emotion relations of Valdez & Mehrabian (1994), pleasure
/// `0.69 Y + 0.22 S`, arousal `-0.31 Y + 0.60 S`, dominance `-0.76 Y + 0.32 S`, on the
/// standardised brightness and saturation of each sample, squashed into `[-1, 1]` by
/// `tanh(x / 2)`.
pub fn colour(brightness: &[f32], saturation: &[f32], n: usize) -> Reading {
    let mut r = Reading::new("colour", "rule: Valdez & Mehrabian (1994) on brightness and saturation", n);
    for i in 0..n {
        let (Some(&y), Some(&s)) = (brightness.get(i), saturation.get(i)) else { continue };
        let y = (f64::from(y) - BRIGHTNESS_CENTRE) / BRIGHTNESS_SPREAD;
        let s = (f64::from(s) - SATURATION_CENTRE) / SATURATION_SPREAD;
        let squash = |x: f64| Some((x / 2.0).tanh() as f32);
        r.set_vad(
            i,
            [squash(0.69 * y + 0.22 * s), squash(-0.31 * y + 0.60 * s), squash(-0.76 * y + 0.32 * s)],
            COLOUR_WEIGHT,
        );
    }
    r
}

/// Motion (mean luma change between frames, 0..=255) that counts as none, and as the most.
pub const MOTION_RANGE: (f64, f64) = (1.0, 10.0);
/// Cuts within [`CUT_RADIUS`] seconds of a sample that count as the fastest cutting.
pub const FAST_CUTS: f64 = 6.0;
pub const CUT_RADIUS: f64 = 5.0;
/// The weight of the motion reading (arousal only).
pub const MOTION_WEIGHT: f32 = 1.0;

/// Motion in `[0, 1]` per sample ([`MOTION_RANGE`]).
pub fn motion_units(motion: &[f64]) -> Vec<f32> {
    motion.iter().map(|&m| unit(m, MOTION_RANGE.0, MOTION_RANGE.1)).collect()
}

/// The cut rate in `[0, 1]` per sample: cuts within [`CUT_RADIUS`] s, over [`FAST_CUTS`].
pub fn cut_units(shots: &[f64], step: f64, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let t = (i as f64 + 0.5) * step;
            let lo = shots.partition_point(|&s| s < t - CUT_RADIUS);
            let hi = shots.partition_point(|&s| s <= t + CUT_RADIUS);
            unit((hi - lo) as f64, 0.0, FAST_CUTS)
        })
        .collect()
}

/// Motion and cutting as arousal (Hanjalic & Xu 2005): `2 activity - 1`, the activity being
/// the noisy-or of the two, `1 - (1 - motion)(1 - cuts)`, so a still picture is calm and either
/// fast motion or fast cutting is aroused.
pub fn motion(motion: &[f32], cuts: &[f32], n: usize) -> Reading {
    let mut r = Reading::new("motion", "rule: Hanjalic & Xu (2005), motion and cut rate as arousal", n);
    for i in 0..n {
        let (m, c) = (motion.get(i).copied().unwrap_or(0.0), cuts.get(i).copied().unwrap_or(0.0));
        let activity = 1.0 - (1.0 - m) * (1.0 - c);
        r.set_vad(i, [None, Some(2.0 * activity - 1.0), None], MOTION_WEIGHT);
    }
    r
}

/// Loudness (dBFS) that counts as calm, and as the most aroused.
pub const LOUDNESS_RANGE: (f64, f64) = (-50.0, -15.0);
/// A rise of at least this many dB within [`RISE_SAMPLES`] samples, to a level above
/// [`RISE_FLOOR`], is a sudden sound: evidence of surprise.
pub const RISE_DB: f64 = 15.0;
/// The most a sudden sound alone says of surprise (a door slam startles; a conversation that
/// starts after silence does not surprise).
pub const RISE_SURPRISE: f32 = 0.5;
pub const RISE_SAMPLES: usize = 3;
pub const RISE_FLOOR: f64 = -35.0;
/// The weight of the loudness reading (arousal, and surprise at sudden sounds).
pub const LOUDNESS_WEIGHT: f32 = 1.0;

/// Loudness in `[0, 1]` per sample ([`LOUDNESS_RANGE`]).
pub fn loudness_units(loudness_db: &[f64]) -> Vec<f32> {
    loudness_db.iter().map(|&l| unit(l, LOUDNESS_RANGE.0, LOUDNESS_RANGE.1)).collect()
}

/// Loudness as arousal (`2 loudness - 1`), and a sudden rise as surprise (its probability
/// growing from 0 at half of [`RISE_DB`] to [`RISE_SURPRISE`] at twice it). `None` without audio.
pub fn loudness(loudness_db: &[f64], has_audio: bool, n: usize) -> Option<Reading> {
    if !has_audio || loudness_db.is_empty() {
        return None;
    }
    let mut r = Reading::new("loudness", "rule: loudness and its sudden rises (EBU R 128 momentary level)", n);
    let units = loudness_units(loudness_db);
    for i in 0..n.min(loudness_db.len()) {
        r.set_vad(i, [None, Some(2.0 * units[i] - 1.0), None], LOUDNESS_WEIGHT);
        let before = loudness_db[i.saturating_sub(RISE_SAMPLES)..i].iter().copied().fold(f64::INFINITY, f64::min);
        let rise = loudness_db[i] - before;
        if loudness_db[i] > RISE_FLOOR && rise.is_finite() && rise >= RISE_DB {
            let mut probs = [0.0; EMOTION_COUNT];
            probs[SURPRISE] = RISE_SURPRISE * unit(rise, RISE_DB / 2.0, RISE_DB * 2.0);
            r.probs[i] = probs;
        }
    }
    Some(r)
}

/// The weight of direct evidence from sound events, music mood, faces and words (times the
/// strongest probability).
pub const SOUND_WEIGHT: f32 = 1.5;
pub const FACE_WEIGHT: f32 = 1.5;
pub const SPEECH_WEIGHT: f32 = 1.0;
/// What is seen is weaker evidence: a label names a thing, not how the moment feels.
pub const SEEN_WEIGHT: f32 = 0.5;

/// Sound events and music mood: each emotion's probability is the largest weighted score of the
/// sound groups that are evidence for it (the table [`SOUND_GROUPS`]); `groups` holds each
/// group's score per sample, in that order.
pub fn sound_events(groups: &[Vec<f32>], source: &str, n: usize) -> Reading {
    let mut r = Reading::new("sound events", source, n);
    for i in 0..n {
        let mut probs = [0f32; EMOTION_COUNT];
        for (g, group) in SOUND_GROUPS.iter().enumerate() {
            let s = groups.get(g).and_then(|v| v.get(i)).copied().unwrap_or(0.0);
            for &(emotion, weight) in group.emotions {
                if let Some(e) = super::EMOTIONS.iter().position(|(name, _)| *name == emotion) {
                    probs[e] = probs[e].max(weight * s);
                }
            }
        }
        r.set_probs(i, probs, SOUND_WEIGHT);
    }
    r
}

/// What the facial expression model's seven classes (angry, disgust, fear, happy, sad,
/// surprise, neutral) are evidence for: a rule, each class to the emotions it shows.
pub const EXPRESSION_EMOTIONS: [&[(usize, f32)]; 7] = [
    &[(ANGER, 1.0)],
    &[(ANGER, 0.6)],
    &[(FEAR, 1.0)],
    &[(JOY, 1.0), (AMUSEMENT, 0.4)],
    &[(SADNESS, 1.0)],
    &[(SURPRISE, 1.0)],
    &[],
];

/// A face this tall (a share of the frame's height) or taller counts fully; smaller faces count
/// in proportion (their expression is less certain and matters less to the moment).
pub const FACE_FULL_HEIGHT: f32 = 0.15;

/// One sampled frame's faces: each face's height (a share of the frame's height) and its
/// expression probabilities (`None` where the model abstained).
#[derive(Debug, Clone, PartialEq)]
pub struct FacesSeen {
    /// Seconds.
    pub time: f64,
    pub faces: Vec<(f32, Option<[f32; 7]>)>,
}

/// Facial expression: per sampled frame, the expressions of its faces averaged by face area,
/// mapped to the emotions ([`EXPRESSION_EMOTIONS`]) and scaled by the tallest face's share of
/// [`FACE_FULL_HEIGHT`]; the frame speaks for the `interval` seconds from its time.
pub fn faces(frames: &[FacesSeen], source: &str, interval: f64, step: f64, n: usize) -> Reading {
    let mut r = Reading::new("faces", source, n);
    for frame in frames {
        let expressive: Vec<(f32, [f32; 7])> = frame.faces.iter().filter_map(|&(h, e)| Some((h, e?))).collect();
        if expressive.is_empty() {
            continue;
        }
        let total: f32 = expressive.iter().map(|(h, _)| h * h).sum::<f32>().max(1e-6);
        let mut mean = [0f32; 7];
        for (h, row) in &expressive {
            mean.iter_mut().zip(row).for_each(|(m, p)| *m += h * h / total * p);
        }
        let size = (expressive.iter().map(|(h, _)| *h).fold(0.0, f32::max) / FACE_FULL_HEIGHT).min(1.0);
        let mut probs = [0f32; EMOTION_COUNT];
        for (class, share) in mean.iter().enumerate() {
            for &(e, w) in EXPRESSION_EMOTIONS[class] {
                probs[e] = probs[e].max(size * w * share);
            }
        }
        for i in samples_of(frame.time, frame.time + interval, step, n) {
            r.set_probs(i, probs, FACE_WEIGHT);
        }
    }
    r
}

/// What is seen or said, placed among the emotions by the sentence model
/// ([`super::anchors::Anchors`]): `spans` are `(start, end, probabilities)`; `weight` is
/// [`SEEN_WEIGHT`] or [`SPEECH_WEIGHT`].
pub fn placed(
    channel: &'static str,
    source: &str,
    spans: &[(f64, f64, [f32; EMOTION_COUNT])],
    weight: f32,
    step: f64,
    n: usize,
) -> Reading {
    let mut r = Reading::new(channel, source, n);
    for &(start, end, probs) in spans {
        for i in samples_of(start, end, step, n) {
            // Where two spans share a sample, the stronger speaks.
            let stronger = probs.iter().fold(0f32, |a, &b| a.max(b)) > r.probs[i].iter().fold(0f32, |a, &b| a.max(b));
            if stronger {
                r.set_probs(i, probs, weight);
            }
        }
    }
    r
}

/// Speaking rate (words per second of a transcript segment) that counts as calm, and as the
/// most aroused; the prosody reading's weight (arousal only).
pub const SPEAKING_RATE: (f64, f64) = (1.5, 4.0);
pub const PROSODY_WEIGHT: f32 = 0.5;

/// How it is said: the speaking rate of each transcript segment as arousal. `segments` are
/// `(start, end, words)`. Pitch is not measured.
pub fn prosody(segments: &[(f64, f64, usize)], n: usize, step: f64) -> Reading {
    let mut r = Reading::new("prosody", "rule: speaking rate (words per second of each transcript segment)", n);
    for &(start, end, words) in segments {
        let length = end - start;
        if length.is_nan() || length <= 0.5 || words == 0 {
            continue;
        }
        let rate = unit(words as f64 / length, SPEAKING_RATE.0, SPEAKING_RATE.1);
        for i in samples_of(start, end, step, n) {
            r.set_vad(i, [None, Some(2.0 * rate - 1.0), None], PROSODY_WEIGHT);
        }
    }
    r
}

/// The samples (of `step` seconds, `n` of them) that `[start, end)` overlaps.
pub fn samples_of(start: f64, end: f64, step: f64, n: usize) -> std::ops::Range<usize> {
    if !(start.is_finite() && end.is_finite() && step > 0.0) || end <= start {
        return 0..0;
    }
    let a = (start.max(0.0) / step).floor() as usize;
    let b = ((end / step).ceil().max(0.0) as usize).min(n);
    a.min(b)..b
}
