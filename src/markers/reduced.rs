//! What the markers read of an episode's signals, so that a caller holding a whole season holds
//! only that of each episode.

use std::collections::BTreeMap;

use crate::signals::{OnScreenText, Signals, Timelines, Visual};

/// The parts of `s` that [`super::season_markers`] reads: the duration, shots, speech, characters'
/// spans, the on-screen text's lines and credits, the visual channel's sampled frames and cues,
/// and both fingerprints. Everything else is left out (timelines, scenes and their embeddings,
/// tags, the transcript, emotions, the text density, the visual features), so the result is no
/// valid document, only an episode to mark: the markers of a season of such episodes are those
/// of the whole documents. A season's caller reads each episode whole, keeps this of it and
/// drops the rest before reading the next.
pub fn read_by_markers(s: &Signals) -> Signals {
    Signals {
        format: s.format.clone(),
        inventory_id: s.inventory_id.clone(),
        duration: s.duration,
        fps: s.fps,
        frame_width: s.frame_width,
        frame_height: s.frame_height,
        step: s.step,
        timelines: Timelines {
            relevance: Vec::new(),
            nudity: Vec::new(),
            blood_gore: Vec::new(),
            profanity: Vec::new(),
            brightness: Vec::new(),
            clip_types: BTreeMap::new(),
        },
        shots: s.shots.clone(),
        speech: s.speech.clone(),
        characters: s.characters.clone(),
        tags: Vec::new(),
        scenes: Vec::new(),
        scene_embeddings: None,
        item_embedding: None,
        emotions: None,
        profanity: None,
        vertical: None,
        analysis: None,
        text: s.text.as_ref().map(|t| OnScreenText {
            step: t.step,
            density: Vec::new(),
            lines: t.lines.clone(),
            credits_start: t.credits_start,
        }),
        transcript: None,
        audio_fingerprint: s.audio_fingerprint.clone(),
        character_descriptors: None,
        visual: s.visual.as_ref().map(|v| Visual {
            interval: v.interval,
            frames: v.frames.clone(),
            shot_types: Vec::new(),
            scene_features: None,
            item_feature: None,
            cues: v.cues.clone(),
            tags: Vec::new(),
        }),
        picture_fingerprint: s.picture_fingerprint.clone(),
        objects: None,
        speakers: None,
        scene_channels: None,
    }
}
