//! Sound events into kino's channels: per-frame AudioSet scores (YAMNet's 521 classes every
//! 0.48 s, from `kino-models`' `SoundTagger`, or any tagger with AudioSet display names) become
//! clip-type timelines, per-scene keyword and mood tags, each sound group's score on the timeline
//! (the affect model's sound-event reading, `crate::affect`) and the strongest sounds of each
//! scene. Pure functions over plain data; the tables and the reasons behind them are in
//! `docs/media.md` ("Sound events").
//!
//! ```
//! use kino::signals::Scene;
//! use kino_media::sound::sound_channels;
//!
//! let names: Vec<String> = ["Speech", "Laughter"].map(String::from).to_vec();
//! // Laughter in the third and fourth frames (0.96 to 2.4 s).
//! let scores = vec![vec![0.95, 0.0], vec![0.9, 0.0], vec![0.1, 0.8], vec![0.1, 0.9], vec![0.9, 0.0]];
//! let scenes = [Scene { start: 0.0, end: 3.0 }];
//! let channels = sound_channels(&names, 0.48, &scores, 3.0, 0.5, &scenes);
//! assert!(channels.clip_types["Funny and comical"][3] > 0.8);
//! assert_eq!(channels.tags[0].name, "laughter");
//! assert_eq!(channels.scene_sounds[0][0].0, "Speech");
//! ```

use std::collections::BTreeMap;

use kino::signals::{MAX_SAMPLES, Scene, Tag, TagKind, sample_count};

/// A group of AudioSet classes that counts as one kind of evidence: its score in a frame is the
/// largest score of its classes there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoundGroup {
    /// The tag's name (`laughter`, `sad`, ...).
    pub name: &'static str,
    /// `Keyword` for sound events, `Mood` for the music-mood classes.
    pub kind: TagKind,
    /// AudioSet display names, exactly as in `yamnet_class_map.csv`.
    pub classes: &'static [&'static str],
    /// Clip types it is evidence for, each with a weight in (0, 1].
    pub clip_types: &'static [(&'static str, f32)],
    /// Emotions it is evidence for (names of `crate::affect::EMOTIONS`), each with a weight in
    /// (0, 1].
    pub emotions: &'static [(&'static str, f32)],
}

const fn keyword(
    name: &'static str,
    classes: &'static [&'static str],
    clip_types: &'static [(&'static str, f32)],
    emotions: &'static [(&'static str, f32)],
) -> SoundGroup {
    SoundGroup { name, kind: TagKind::Keyword, classes, clip_types, emotions }
}

const fn mood(
    name: &'static str,
    class: &'static [&'static str],
    clip_types: &'static [(&'static str, f32)],
    emotions: &'static [(&'static str, f32)],
) -> SoundGroup {
    SoundGroup { name, kind: TagKind::Mood, classes: class, clip_types, emotions }
}

/// The sound classes kino uses and what each is evidence for.
pub const SOUND_GROUPS: [SoundGroup; 15] = [
    keyword(
        "laughter",
        &["Laughter", "Baby laughter", "Giggle", "Snicker", "Belly laugh", "Chuckle, chortle"],
        &[("Funny and comical", 1.0)],
        &[("amusement", 1.0)],
    ),
    keyword("applause", &["Applause", "Clapping", "Cheering"], &[("Exciting", 0.5)], &[("joy", 1.0)]),
    keyword("screaming", &["Screaming"], &[("Scary", 1.0)], &[("fear", 1.0)]),
    keyword(
        "gunshots",
        &["Gunshot, gunfire", "Machine gun", "Fusillade", "Artillery fire", "Cap gun"],
        &[("High-octane action", 1.0)],
        &[("fear", 1.0)],
    ),
    keyword("explosion", &["Explosion", "Boom"], &[("High-octane action", 1.0)], &[("surprise", 1.0), ("fear", 0.5)]),
    keyword(
        "engines",
        &[
            "Engine",
            "Light engine (high frequency)",
            "Medium engine (mid frequency)",
            "Heavy engine (low frequency)",
            "Engine starting",
            "Accelerating, revving, vroom",
            "Race car, auto racing",
            "Motorcycle",
            "Skidding",
            "Tire squeal",
        ],
        &[("High-octane action", 0.5)],
        &[],
    ),
    keyword(
        "sirens",
        &[
            "Siren",
            "Civil defense siren",
            "Police car (siren)",
            "Ambulance (siren)",
            "Fire engine, fire truck (siren)",
            "Emergency vehicle",
        ],
        &[("High-octane action", 0.5)],
        &[("fear", 0.5)],
    ),
    keyword(
        "crying",
        &["Crying, sobbing", "Baby cry, infant cry", "Whimper", "Wail, moan"],
        &[("Emotional", 1.0)],
        &[("sadness", 1.0)],
    ),
    keyword("music", &["Music"], &[], &[]),
    mood("happy", &["Happy music"], &[("Heartfelt", 0.5)], &[("joy", 1.0)]),
    mood("sad", &["Sad music"], &[("Emotional", 1.0)], &[("sadness", 1.0)]),
    mood(
        "tender",
        &["Tender music"],
        &[("Romantic", 1.0), ("Heartfelt", 1.0), ("Emotional", 0.5)],
        &[("tenderness", 1.0)],
    ),
    mood("exciting", &["Exciting music"], &[("Exciting", 1.0), ("Epic", 0.5)], &[("excitement", 1.0)]),
    mood("angry", &["Angry music"], &[("Dark & gritty", 1.0)], &[("anger", 1.0)]),
    mood("scary", &["Scary music"], &[("Scary", 1.0), ("Creepy and scary", 1.0)], &[("fear", 1.0)]),
];

/// A score that counts as evidence: a clip type is reported when its timeline reaches it
/// somewhere, a tag when its group reaches it in the scene. YAMNet's 8-bit output moves in logit steps of 0.757, so near here the possible
/// scores are 0.18, 0.32 and 0.50: this keeps a logit of -0.76 and above.
pub const EVIDENCE: f32 = 0.3;

/// Sound labels kept per scene for its description.
pub const SCENE_SOUNDS: usize = 3;

/// What [`sound_channels`] derives from sound events.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundChannels {
    /// Timelines of the clip types with evidence (absent, not zero-filled, otherwise), each with
    /// `sample_count(duration, step)` values in [0, 1].
    pub clip_types: BTreeMap<String, Vec<f32>>,
    /// Per scene (in scene order), a keyword tag per sound group and a mood tag per music mood
    /// with evidence there; start and end are the scene's.
    pub tags: Vec<Tag>,
    /// Each group's score per timeline sample, in [`SOUND_GROUPS`] order (what the affect model
    /// reads as evidence of emotions).
    pub groups: Vec<Vec<f32>>,
    /// Per scene, up to [`SCENE_SOUNDS`] AudioSet labels with evidence, strongest first.
    pub scene_sounds: Vec<Vec<(String, f32)>>,
}

/// Derives kino's channels from sound events. `names` are the AudioSet display names of the
/// score columns; `scores` has one row per frame, frame `i` starting at `i * hop` seconds and
/// covering `2 * hop` (YAMNet's windows overlap by half); `duration`, `step` and `scenes` are the
/// document's. Scores outside [0, 1] are clamped, NaN counts as 0, and a missing column as 0.
///
/// Frames reach the timeline grid through their centre regions: frame `i` speaks for
/// `[(i + 0.5) hop, (i + 1.5) hop)` around its centre (the first from 0, the last to the end of its
/// window), and a timeline sample takes the **maximum** over the frames whose region overlaps it.
/// The maximum, because YAMNet scores a whole 0.96 s window: a short event (a gunshot) scores
/// fully in the frame centred on it and less in its neighbours, and a mean would dilute it
/// wherever a sample straddles two frames. A scene takes the frames whose centre lies in it (those
/// overlapping it when it is shorter than a hop).
pub fn sound_channels(
    names: &[String],
    hop: f64,
    scores: &[Vec<f32>],
    duration: f64,
    step: f64,
    scenes: &[Scene],
) -> SoundChannels {
    let n = sample_count(duration, step).min(MAX_SAMPLES);
    let frames = Frames::new(hop, scores.len());
    let column = |name: &str| names.iter().position(|n| n == name);
    let group_frames: Vec<Vec<f32>> = SOUND_GROUPS
        .iter()
        .map(|g| {
            let columns: Vec<usize> = g.classes.iter().filter_map(|c| column(c)).collect();
            scores.iter().map(|row| columns.iter().map(|&c| score(row, c)).fold(0.0, f32::max)).collect()
        })
        .collect();
    let group_grid: Vec<Vec<f32>> = group_frames.iter().map(|g| frames.resample(g, n, step)).collect();

    let mut clip_types = BTreeMap::new();
    for (g, group) in SOUND_GROUPS.iter().enumerate() {
        for &(clip_type, weight) in group.clip_types {
            let timeline: &mut Vec<f32> = clip_types.entry(clip_type.to_string()).or_insert_with(|| vec![0.0; n]);
            for (v, &s) in timeline.iter_mut().zip(&group_grid[g]) {
                *v = v.max(weight * s);
            }
        }
    }
    clip_types.retain(|_, timeline: &mut Vec<f32>| timeline.iter().any(|&v| v >= EVIDENCE));

    let mut tags = Vec::new();
    let mut scene_sounds = Vec::with_capacity(scenes.len());
    for scene in scenes {
        let members = frames.in_scene(scene);
        let strongest = |values: &dyn Fn(usize) -> f32| members.clone().map(values).fold(0.0, f32::max);
        let (start, end) = (scene.start.max(0.0), scene.end.min(duration));
        if start < end {
            for (g, group) in SOUND_GROUPS.iter().enumerate() {
                let s = strongest(&|i| group_frames[g][i]);
                if s >= EVIDENCE {
                    tags.push(Tag { kind: group.kind, name: group.name.to_string(), start, end, score: f64::from(s) });
                }
            }
        }
        let mut sounds: Vec<(String, f32)> = names
            .iter()
            .enumerate()
            .map(|(c, name)| (name.clone(), strongest(&|i| score(&scores[i], c))))
            .filter(|&(_, s)| s >= EVIDENCE)
            .collect();
        sounds.sort_by(|a, b| b.1.total_cmp(&a.1));
        sounds.truncate(SCENE_SOUNDS);
        scene_sounds.push(sounds);
    }

    SoundChannels { clip_types, tags, groups: group_grid, scene_sounds }
}

/// Column `c` of a row, in [0, 1] (NaN and a missing column count as 0).
fn score(row: &[f32], c: usize) -> f32 {
    row.get(c).copied().filter(|s| !s.is_nan()).unwrap_or(0.0).clamp(0.0, 1.0)
}

/// The frames' centre regions on the time axis.
struct Frames {
    hop: f64,
    count: usize,
}

impl Frames {
    fn new(hop: f64, count: usize) -> Frames {
        // A hop that is not a positive time gives frames no place on the time axis.
        let count = if hop.is_finite() && hop > 0.0 { count } else { 0 };
        Frames { hop, count }
    }

    /// The region frame `i` speaks for.
    fn region(&self, i: usize) -> (f64, f64) {
        let lo = if i == 0 { 0.0 } else { (i as f64 + 0.5) * self.hop };
        let hi = if i + 1 == self.count { (i as f64 + 2.0) * self.hop } else { (i as f64 + 1.5) * self.hop };
        (lo, hi)
    }

    /// The first frame whose region may overlap time `t`.
    fn first_near(&self, t: f64) -> usize {
        let i = (t / self.hop - 0.5).floor();
        if i.is_finite() && i > 1.0 { (i as usize - 1).min(self.count) } else { 0 }
    }

    /// The frames whose region overlaps `[t0, t1)`.
    fn overlapping(&self, t0: f64, t1: f64) -> impl Iterator<Item = usize> + Clone + '_ {
        (self.first_near(t0)..self.count)
            .take_while(move |&i| self.region(i).0 < t1)
            .filter(move |&i| self.region(i).1 > t0)
    }

    /// `n` samples of `step` seconds, each the maximum of `values` over the frames overlapping it.
    fn resample(&self, values: &[f32], n: usize, step: f64) -> Vec<f32> {
        (0..n)
            .map(|j| self.overlapping(j as f64 * step, (j + 1) as f64 * step).map(|i| values[i]).fold(0.0, f32::max))
            .collect()
    }

    /// The frames of a scene: those whose centre lies in it, else those overlapping it.
    fn in_scene(&self, scene: &Scene) -> std::ops::Range<usize> {
        let centred: Vec<usize> = self
            .overlapping(scene.start, scene.end)
            .filter(|&i| (scene.start..scene.end).contains(&((i as f64 + 1.0) * self.hop)))
            .collect();
        let chosen = if centred.is_empty() { self.overlapping(scene.start, scene.end).collect() } else { centred };
        match (chosen.first(), chosen.last()) {
            (Some(&a), Some(&b)) => a..b + 1,
            _ => 0..0,
        }
    }
}

#[cfg(test)]
mod tests;
