//! The stored payload of each product: the product fields of a result's `data`, and their schemas
//! in the OpenAPI document.

use kino::{EmotionWindow, ProfanityLabel, ProfanityResult, ProfanitySegment};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// The product fields of a `jitpreviews` result (previews themselves are computed per request).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct JitpreviewsPayload {
    /// The item's duration in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// The clip types the item's signals have timelines for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip_types: Option<Vec<String>>,
}

/// The product fields of a `jitthumbnails` result (thumbnails themselves are chosen per request).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct JitthumbnailsPayload {
    /// The item's duration in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// How many characters the item's signals know (the frame rule prefers the main one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub characters: Option<usize>,
}

/// The product fields of a `fingerprint` result: the title's audio fingerprint.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct FingerprintPayload {
    /// The hashes, one every `fingerprint_hop` seconds (32-bit sub-band energy hashes of the
    /// soundtrack, 0 where it is silent; docs/python-and-products.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Vec<u32>>,
    /// Seconds between hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint_hop: Option<f64>,
}

/// The product fields of a `fingerprintplus` result: the fingerprint and the title's profile.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct FingerprintplusPayload {
    /// The hashes, one every `fingerprint_hop` seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Vec<u32>>,
    /// Seconds between hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint_hop: Option<f64>,
    /// Emotion: its mean probability over the title (empty when emotions were not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mood: Option<std::collections::BTreeMap<String, f64>>,
    /// Clip type: the mean of its timeline, a genre-like profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genre: Option<std::collections::BTreeMap<String, f64>>,
    /// Keyword tag: its highest score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyword: Option<std::collections::BTreeMap<String, f64>>,
    /// Mood tag: its highest score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mood_tag: Option<std::collections::BTreeMap<String, f64>>,
    /// `{"main": "en"}`: the main spoken language (`null` when no transcript).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Value>,
}

/// The product fields of a `semantic` (and `similar`) result: the item embedding.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct EmbeddingPayload {
    /// 256 floats describing the whole item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
}

/// The product fields of a `semantic_scenes` result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct SceneEmbeddingsPayload {
    /// One embedding per scene, in time order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_embeddings: Option<Vec<SceneEmbedding>>,
}

/// The embedding of one scene.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SceneEmbedding {
    /// Scene start in seconds.
    pub start_ts: f64,
    /// Scene end in seconds.
    pub end_ts: f64,
    /// 1024 floats.
    pub embedding: Vec<f32>,
}

/// The product fields of a `profanity` result: label and segments.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ProfanityPayload {
    /// Label and segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profanity: Option<ProfanityResult>,
}

/// The fields of the profanity classification endpoint: the label only.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ProfanityLabelPayload {
    /// The label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profanity: Option<ProfanityLabelOnly>,
}

/// `data.profanity` of the classification endpoint.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProfanityLabelOnly {
    /// `None`, `Mild`, `Moderate` or `Strong`.
    pub label: ProfanityLabel,
}

/// The fields of the profanity segments endpoint: the segments only.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ProfanitySegmentsPayload {
    /// The segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profanity: Option<ProfanitySegmentsOnly>,
}

/// `data.profanity` of the segments endpoint.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProfanitySegmentsOnly {
    /// Spans of speech with profanity, in time order.
    pub segments: Vec<ProfanitySegment>,
}

/// The product fields of a `content_summary` result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ContentSummaryPayload {
    /// The extractive summary of what is said, and the title's emotional arc.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_summary: Option<kino::summary::ContentSummary>,
}

/// The product fields of an `adbreaks` result (the default parameters; the filter endpoints take
/// others).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct AdbreaksPayload {
    /// One break per window, its candidates best first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adbreak: Option<Vec<kino::adbreaks::Adbreak>>,
}

/// The product fields of a `contextual_adbreak` result (the default parameters).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ContextualAdbreakPayload {
    /// The breaks with what surrounds them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_adbreak: Option<Vec<kino::adbreaks::ContextualAdbreak>>,
}

/// The product fields of a `nudity` result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct NudityPayload {
    /// The nudity timeline, its segments, maximum and mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nudity: Option<kino::visual::NudityResult>,
}

/// The product fields of a `scene_tags` result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct SceneTagsPayload {
    /// One entry per scene, in time order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_tags: Option<Vec<kino::visual::SceneTags>>,
}

/// The product fields of an `emotions` result.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct EmotionsPayload {
    /// Consecutive windows of the title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotion: Option<Vec<EmotionWindow>>,
}

/// The product fields of a `vertical_conversion` result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct VerticalPayload {
    /// A summary of the item's vertical track.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertical: Option<VerticalSummary>,
}

/// A summary of an item's vertical (9:16) track.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct VerticalSummary {
    /// Seconds between subject positions.
    pub step: f64,
    /// Black bar rows at the top and bottom, in source pixels.
    pub blackbars: [u32; 2],
    /// Number of subject positions.
    pub samples: usize,
}
