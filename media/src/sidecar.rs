//! Channels that need learned models (nudity, gore, profanity, clip types, characters, tags,
//! emotions, embeddings) come from a sidecar signals document when one exists; this module merges
//! them onto the measured document and says which channels they fill.

use std::path::Path;

use kino::Signals;
use kino::signals::{ANALYSIS_CHANNELS, Interval, Scene};

use crate::analyze::channels::MEASURED_CHANNELS;
use crate::error::{Error, Result};

/// The channels only a sidecar can fill (without one they are absent: zero or empty): the core's
/// [`ANALYSIS_CHANNELS`] less those [`MEASURED_CHANNELS`] `analyze` measures itself, in the core's
/// order.
pub fn learned_channels() -> Vec<&'static str> {
    ANALYSIS_CHANNELS.iter().copied().filter(|c| !MEASURED_CHANNELS.contains(c)).collect()
}

/// The sidecar's duration may differ from the probed one by this much (container rounding).
const DURATION_TOLERANCE: f64 = 1.0;

/// The learned channels the sidecar holds measurements for: its own `analysis.measured` when it
/// has one; otherwise every learned channel it carries (timelines always; lists when non-empty;
/// optional parts when present).
fn sidecar_measured(side: &Signals) -> Vec<&'static str> {
    if let Some(a) = &side.analysis {
        return learned_channels().into_iter().filter(|c| a.measured.iter().any(|m| m == c)).collect();
    }
    let present = |c: &str| match c {
        "timelines.nudity" | "timelines.blood_gore" | "timelines.profanity" => true,
        "timelines.clip_types" => !side.timelines.clip_types.is_empty(),
        "characters" => !side.characters.is_empty(),
        "tags" => !side.tags.is_empty(),
        "scene_embeddings" => side.scene_embeddings.is_some(),
        "item_embedding" => side.item_embedding.is_some(),
        "emotions" => side.emotions.is_some(),
        "profanity" => side.profanity.is_some(),
        "character_descriptors" => side.character_descriptors.is_some(),
        "objects" => side.objects.is_some(),
        "speakers" => side.speakers.is_some(),
        _ => false,
    };
    learned_channels().into_iter().filter(|c| present(c)).collect()
}

/// Resamples a timeline onto `n` samples of `step`: each sample takes the sidecar sample that
/// covers its centre.
fn resample(values: &[f32], side_step: f64, n: usize, step: f64) -> Vec<f32> {
    if values.is_empty() {
        return vec![0.0; n];
    }
    (0..n)
        .map(|i| {
            let t = (i as f64 + 0.5) * step;
            values[((t / side_step).floor().max(0.0) as usize).min(values.len() - 1)]
        })
        .collect()
}

fn clip_interval([a, b]: Interval, duration: f64) -> Option<Interval> {
    let (a, b) = (a.max(0.0), b.min(duration));
    (a < b).then_some([a, b])
}

/// Merges the learned channels of `side` (read from `path`) into `doc`; returns the channels
/// filled. Times are clipped to `doc.duration`; timelines are resampled to `doc.step`.
pub fn merge(doc: &mut Signals, side: &Signals, path: &Path) -> Result<Vec<&'static str>> {
    if (side.duration - doc.duration).abs() > DURATION_TOLERANCE {
        return Err(Error::Sidecar {
            path: path.to_path_buf(),
            reason: format!(
                "`duration` must be within {DURATION_TOLERANCE} s of the video's ({}) (got {})",
                doc.duration, side.duration
            ),
        });
    }
    let measured = sidecar_measured(side);
    let n = doc.timelines.brightness.len();
    let (step, duration) = (doc.step, doc.duration);
    for &channel in &measured {
        match channel {
            "timelines.nudity" => doc.timelines.nudity = resample(&side.timelines.nudity, side.step, n, step),
            "timelines.blood_gore" => {
                doc.timelines.blood_gore = resample(&side.timelines.blood_gore, side.step, n, step)
            }
            "timelines.profanity" => doc.timelines.profanity = resample(&side.timelines.profanity, side.step, n, step),
            "timelines.clip_types" => {
                doc.timelines.clip_types = side
                    .timelines
                    .clip_types
                    .iter()
                    .map(|(k, v)| (k.clone(), resample(v, side.step, n, step)))
                    .collect()
            }
            "characters" => {
                doc.characters = side
                    .characters
                    .iter()
                    .map(|c| {
                        let mut c = c.clone();
                        c.spans = c.spans.iter().filter_map(|&s| clip_interval(s, duration)).collect();
                        c
                    })
                    .collect()
            }
            "tags" => {
                doc.tags = side
                    .tags
                    .iter()
                    .filter_map(|t| {
                        let [start, end] = clip_interval([t.start, t.end], duration)?;
                        Some(kino::signals::Tag { start, end, ..t.clone() })
                    })
                    .collect()
            }
            "scene_embeddings" => {
                // Embeddings belong to the sidecar's scenes, so its scenes replace the measured ones.
                if let Some(embeddings) = &side.scene_embeddings {
                    let mut scenes = Vec::new();
                    let mut kept = Vec::new();
                    for (s, e) in side.scenes.iter().zip(embeddings) {
                        if s.start < duration {
                            scenes.push(Scene { start: s.start, end: s.end.min(duration) });
                            kept.push(e.clone());
                        }
                    }
                    if let Some(last) = scenes.last_mut() {
                        last.end = duration;
                        doc.scenes = scenes;
                        doc.scene_embeddings = Some(kept);
                    }
                }
            }
            "item_embedding" => doc.item_embedding = side.item_embedding.clone(),
            "character_descriptors" => doc.character_descriptors = side.character_descriptors.clone(),
            "emotions" => {
                doc.emotions = side.emotions.clone().map(|mut e| {
                    let limit = kino::signals::sample_count(duration, e.step);
                    e.probs.truncate(limit);
                    e.valence.truncate(limit);
                    e.arousal.truncate(limit);
                    e.dominance.truncate(limit);
                    e
                })
            }
            "objects" => doc.objects = side.objects.as_ref().map(|o| objects_within(o, duration)),
            "speakers" => {
                let characters = doc.characters.len();
                doc.speakers = side.speakers.as_ref().map(|s| speakers_within(s, duration, characters));
            }
            "profanity" => {
                doc.profanity = side.profanity.as_ref().map(|events| {
                    events
                        .iter()
                        .filter_map(|ev| {
                            let [start, end] = clip_interval([ev.start, ev.end], duration)?;
                            Some(kino::signals::ProfanityEvent { start, end, ..ev.clone() })
                        })
                        .collect()
                })
            }
            _ => {}
        }
    }
    Ok(measured)
}

/// A sidecar's objects inside `duration`: frames past it dropped, tracks clipped to it (a track
/// starting past it dropped, and its boxes left without a track).
fn objects_within(o: &kino::signals::Objects, duration: f64) -> kino::signals::Objects {
    let mut index = vec![None; o.tracks.len()];
    let mut tracks = Vec::new();
    for (i, t) in o.tracks.iter().enumerate() {
        if t.start <= duration {
            index[i] = Some(tracks.len() as u32);
            tracks.push(kino::signals::ObjectTrack { end: t.end.min(duration), ..t.clone() });
        }
    }
    let frames = o
        .frames
        .iter()
        .filter(|f| f.time <= duration)
        .map(|f| {
            let mut f = f.clone();
            for b in &mut f.boxes {
                b.track = b.track.and_then(|t| index.get(t as usize).copied().flatten());
            }
            f
        })
        .collect();
    kino::signals::Objects { interval: o.interval, frames, tracks }
}

/// A sidecar's speakers inside `duration` (turns clipped, those past it dropped), their
/// characters kept only where the document has that many characters.
fn speakers_within(s: &kino::signals::Speakers, duration: f64, characters: usize) -> kino::signals::Speakers {
    let turns = s
        .turns
        .iter()
        .filter_map(|t| {
            let [start, end] = clip_interval([t.start, t.end], duration)?;
            Some(kino::signals::SpeakerTurn { start, end, ..t.clone() })
        })
        .collect();
    let characters = s.characters.iter().map(|c| c.filter(|&c| (c as usize) < characters)).collect();
    kino::signals::Speakers { turns, voices: s.voices.clone(), characters }
}

/// Loads the sidecar at `path` (JSON or binary), turning the core's errors into [`Error::Sidecar`].
pub fn load(path: &Path) -> Result<Signals> {
    Signals::load(path).map_err(|e| Error::Sidecar { path: path.to_path_buf(), reason: e.to_string() })
}

#[cfg(test)]
mod tests {
    use kino::signals::{ObjectBox, ObjectFrame, ObjectTrack, Objects, SpeakerTurn, Speakers};

    use super::*;

    #[test]
    fn a_sidecars_objects_and_speakers_are_kept_inside_the_video() {
        let person =
            |track| ObjectBox { class: "person".into(), confidence: 0.9, x: 0.1, y: 0.1, w: 0.2, h: 0.5, track };
        let track = |start: f64, end: f64| ObjectTrack {
            class: "person".into(),
            start,
            end,
            frames: 2,
            confidence: 0.9,
            largest: 0.1,
        };
        let o = Objects {
            interval: 2.0,
            frames: vec![
                ObjectFrame { time: 8.0, boxes: vec![person(Some(0))] },
                ObjectFrame { time: 12.0, boxes: vec![person(Some(1)), person(Some(0))] },
            ],
            tracks: vec![track(8.0, 12.0), track(12.0, 12.0)],
        };
        let kept = objects_within(&o, 10.0);
        assert_eq!(kept.frames.len(), 1);
        assert_eq!(kept.tracks, vec![track(8.0, 10.0)]);
        assert_eq!(kept.frames[0].boxes[0].track, Some(0));
        let turn = |start: f64, end: f64, speaker: u32| SpeakerTurn { start, end, speaker, embedding: Vec::new() };
        let s = Speakers {
            turns: vec![turn(1.0, 4.0, 0), turn(8.0, 12.0, 1), turn(11.0, 13.0, 0)],
            voices: vec![vec![1.0], vec![1.0]],
            characters: vec![Some(0), Some(3)],
        };
        let kept = speakers_within(&s, 10.0, 2);
        assert_eq!(kept.turns, vec![turn(1.0, 4.0, 0), turn(8.0, 10.0, 1)]);
        assert_eq!(kept.characters, vec![Some(0), None], "character 3 is not in a document of 2");
    }
}
