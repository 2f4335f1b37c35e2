//! The channels `analyze` measures itself, read by the pass and by the sidecar merge
//! (`crate::sidecar`: the learned channels are the others), which is why they sit in a leaf of
//! their own rather than in `analyze/mod.rs`.

/// The channels `analyze` measures itself (see `kino::signals::ANALYSIS_CHANNELS`).
pub const MEASURED_CHANNELS: &[&str] = &[
    "shots",
    "scenes",
    "speech",
    "timelines.brightness",
    "timelines.relevance",
    "vertical",
    "audio_fingerprint",
    "picture_fingerprint",
];

/// The learned channels `analyze` measures itself from the title's affect, with or without
/// models (`feel.rs`): a sidecar's replace them.
pub const AFFECT_CHANNELS: &[&str] = &["emotions", "timelines.clip_types"];
