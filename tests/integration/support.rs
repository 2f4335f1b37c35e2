//! Small helpers shared by the test modules.

use kino::signals::{Character, FORMAT, Signals, Tag, TagKind, Timelines};
use kino::{ClipQuery, Prepared};

/// A hand-made document of `values.len()` one-second samples with the given relevance.
pub fn flat_signals(relevance: &[f32]) -> Signals {
    let n = relevance.len();
    Signals {
        format: FORMAT.into(),
        inventory_id: "hand".into(),
        duration: n as f64,
        fps: 25.0,
        frame_width: 1920,
        frame_height: 1080,
        step: 1.0,
        timelines: Timelines {
            relevance: relevance.to_vec(),
            nudity: vec![0.1; n],
            blood_gore: vec![0.0; n],
            profanity: vec![0.0; n],
            brightness: vec![0.5; n],
            clip_types: Default::default(),
        },
        shots: vec![],
        speech: vec![],
        characters: vec![],
        tags: vec![],
        scenes: vec![],
        scene_embeddings: None,
        item_embedding: None,
        emotions: None,
        profanity: None,
        vertical: None,
        analysis: None,
        text: None,
        transcript: None,
        audio_fingerprint: None,
        character_descriptors: None,
        visual: None,
        picture_fingerprint: None,
        objects: None,
        speakers: None,
        scene_channels: None,
    }
}

pub fn character(rank: u32, spans: &[[f64; 2]]) -> Character {
    Character { rank, spans: spans.to_vec() }
}

pub fn tag(kind: TagKind, name: &str, start: f64, end: f64, score: f64) -> Tag {
    Tag { kind, name: name.into(), start, end, score }
}

pub fn prepared(s: Signals) -> Prepared {
    Prepared::new(s).expect("valid test signals")
}

/// Parses `key=value&key=value`.
pub fn query(text: &str) -> ClipQuery {
    ClipQuery::from_pairs(pairs(text)).unwrap_or_else(|e| panic!("query {text:?}: {e}"))
}

pub fn pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// The package's directory, read when the test runs (`cargo test` sets it): a path baked in at
/// build time (`env!`) would be stale when a shared build directory serves another clone.
pub fn manifest_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo test, which sets CARGO_MANIFEST_DIR"),
    )
}
