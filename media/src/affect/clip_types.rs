//! The twelve clip types from every channel: each is a rule over the fused affect and the cues
//! an editor would choose it by (the table in `docs/media.md`, "Clip types"). A type is
//! reported only where its timeline reaches [`CLIP_EVIDENCE`] somewhere; `Gory & bloody` only
//! from a measured `blood_gore` timeline, never guessed.

use std::collections::BTreeMap;

use super::{AMUSEMENT, EXCITEMENT, FEAR, Fused, JOY, SADNESS, TENDERNESS, unit};

/// A clip type is reported when its timeline reaches this somewhere.
pub const CLIP_EVIDENCE: f32 = 0.5;

/// Fused arousal from the first to the second counts from not at all to fully aroused; from
/// the first of [`CALM`] to its second, from fully to not at all calm.
pub const AROUSED: (f64, f64) = (-0.1, 0.4);
pub const CALM: (f64, f64) = (0.0, 0.4);

/// What the rules read, each per timeline sample (a missing or short slice counts as 0).
#[derive(Debug, Clone, Copy)]
pub struct ClipTypeInputs<'a> {
    pub fused: &'a Fused,
    /// Mean luma, `[0, 1]`.
    pub brightness: &'a [f32],
    /// Mean chroma, `[0, 1]`.
    pub saturation: &'a [f32],
    /// The share of coloured pixels in warm hues (reds to yellows), `[0, 1]`.
    pub warmth: &'a [f32],
    /// Motion and cut rate, `[0, 1]` (`readings::motion_units`, `readings::cut_units`).
    pub motion: &'a [f32],
    pub cuts: &'a [f32],
    /// Loudness, `[0, 1]` (`readings::loudness_units`); empty without audio.
    pub loudness: &'a [f32],
    /// Clip-type timelines from sound events (`sound::sound_channels`); empty without them.
    pub sound: &'a BTreeMap<String, Vec<f32>>,
    /// Music heard (the sound-event model's `Music`), `[0, 1]`; empty without it.
    pub music: &'a [f32],
    /// Action seen (weapons, vehicles, fire), scenery seen (landscapes), `[0, 1]`.
    pub action_seen: &'a [f32],
    pub scenery_seen: &'a [f32],
    /// Wide shots (`[0, 1]`: 1 in a wide shot), and two or more faces close together.
    pub wide: &'a [f32],
    pub couple: &'a [f32],
    /// The measured blood and gore timeline (all 0 when not measured).
    pub blood_gore: &'a [f32],
}

fn at(v: &[f32], i: usize) -> f32 {
    v.get(i).copied().filter(|x| x.is_finite()).unwrap_or(0.0)
}

/// The clip-type timelines with evidence (see the module documentation).
pub fn clip_types(x: &ClipTypeInputs<'_>) -> BTreeMap<String, Vec<f32>> {
    let n = x.fused.valence.len();
    let mut out: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    let has_music = !x.music.is_empty();
    for i in 0..n {
        let p = &x.fused.probs[i];
        let (v, a) = (x.fused.valence[i], x.fused.arousal[i]);
        let aroused = unit(f64::from(a), AROUSED.0, AROUSED.1);
        let calm = 1.0 - unit(f64::from(a), CALM.0, CALM.1);
        let negative = unit(f64::from(-v), 0.0, 0.4);
        let dark = unit(0.35 - f64::from(at(x.brightness, i)), 0.0, 0.25);
        let grey = unit(0.25 - f64::from(at(x.saturation, i)), 0.0, 0.15);
        let (m, c) = (at(x.motion, i), at(x.cuts, i));
        let sound = |name: &str| x.sound.get(name).map_or(0.0, |t| at(t, i));
        // Music where the sound-event model ran; loudness stands in for it otherwise.
        let music = if has_music { at(x.music, i) } else { at(x.loudness, i) };
        let landscape = at(x.scenery_seen, i).max(0.6 * at(x.wide, i) * at(x.scenery_seen, i).max(0.5));
        let rules: [(&str, f32); 11] = [
            (
                "High-octane action",
                sound("High-octane action").max(aroused * (0.5 * m + 0.5 * c).max(at(x.action_seen, i))),
            ),
            ("Exciting", sound("Exciting").max(p[EXCITEMENT]).max(aroused * music.max(m))),
            ("Emotional", sound("Emotional").max(p[SADNESS]).max(0.8 * p[TENDERNESS])),
            ("Dark & gritty", sound("Dark & gritty").max(dark * (0.5 + 0.5 * grey) * (0.5 + 0.5 * negative))),
            ("Epic", sound("Epic").max(aroused * music * (0.5 + 0.5 * landscape.max(at(x.wide, i))))),
            ("Scary", sound("Scary").max(p[FEAR])),
            ("Creepy and scary", sound("Creepy and scary").max(p[FEAR] * (0.5 + 0.5 * dark) * (1.0 - 0.5 * m))),
            ("Romantic", sound("Romantic").max(p[TENDERNESS] * (0.5 + 0.5 * at(x.couple, i).max(at(x.warmth, i))))),
            ("Funny and comical", sound("Funny and comical").max(p[AMUSEMENT])),
            ("Heartfelt", sound("Heartfelt").max(p[TENDERNESS].max(p[JOY]) * calm)),
            ("Epic scenery", landscape * (0.6 + 0.4 * music) * (1.0 - 0.5 * c)),
        ];
        for (name, value) in rules {
            out.entry(name.to_string()).or_insert_with(|| vec![0.0; n])[i] = value.clamp(0.0, 1.0);
        }
        let gore = at(x.blood_gore, i);
        if gore > 0.0 {
            out.entry("Gory & bloody".to_string()).or_insert_with(|| vec![0.0; n])[i] = gore.clamp(0.0, 1.0);
        }
    }
    for timeline in out.values_mut() {
        let smoothed = crate::timeline::smooth(&timeline.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), 1);
        *timeline = smoothed.into_iter().map(|v| (kino::report::score(v) as f32).clamp(0.0, 1.0)).collect();
    }
    out.retain(|_, t| t.iter().any(|&v| v >= CLIP_EVIDENCE));
    out
}
