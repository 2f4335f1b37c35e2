//! The products: what each one computes from an item's signals, and its stored payload (which
//! products exist is `Product`, in the store's vocabulary).

use kino::signals::Signals;
use kino::{EmotionWindow, ProfanityLabel, ProfanityResult, ProfanitySegment};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

pub use crate::vocabulary::Product;

/// The error of a task for a product this deployment does not compute.
pub const NOT_AVAILABLE: &str = "product not available in this deployment";

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

/// The markers of a stored `markers` result, when it succeeded.
pub fn stored_markers(row: Option<&crate::store::ResultRow>) -> Option<kino::markers::Markers> {
    row.filter(|r| r.status == crate::store::ResultStatus::Success)
        .and_then(|r| r.data.clone())
        .and_then(|d| serde_json::from_value(d).ok())
}

/// An episode of a season: its id, its number, and what the markers read of its signals
/// ([`kino::markers::read_by_markers`]).
pub type SeasonEpisode = (String, Option<i64>, Signals);

/// The episodes of the season of `item` (itself included) with their numbers and what the markers
/// read of their signals, in episode order; just the item when it is not an episode of a season.
/// Episodes without signals are left out. Episodes are read one at a time, each document dropped
/// once its part is kept, and the others are not added to the signals cache.
pub fn season_of(
    store: &crate::store::Store,
    cache: &crate::signals::SignalsCache,
    org: crate::store::OrgId,
    item: &crate::store::ItemRow,
    own: &Signals,
) -> Result<Vec<SeasonEpisode>, crate::error::ServiceError> {
    let read = kino::markers::read_by_markers;
    let mut out = vec![(item.id.clone(), item.episodic_number("episode_number"), read(own))];
    if let Some(season) = season_id(item) {
        for e in store.children(org, &season)? {
            if e.deleted || e.id == item.id || season_id(&e).as_deref() != Some(&season) {
                continue;
            }
            if let Some(s) = crate::signals::read_with(store, cache, org, &e.id, read)? {
                out.push((e.id.clone(), e.episodic_number("episode_number"), s));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    Ok(out)
}

pub use crate::catalog::season::season_id;

/// The markers of `item` among its season's episodes.
pub fn markers_of(
    store: &crate::store::Store,
    cache: &crate::signals::SignalsCache,
    org: crate::store::OrgId,
    item: &crate::store::ItemRow,
    own: &Signals,
) -> Result<Value, String> {
    let season = season_of(store, cache, org, item, own).map_err(|e| e.to_string())?;
    let episodes: Vec<kino::markers::Episode<'_>> =
        season.iter().map(|(_, n, s)| kino::markers::Episode { number: *n, signals: s }).collect();
    let all = kino::markers::season_markers(&episodes);
    let i = season.iter().position(|(id, ..)| *id == item.id).ok_or("the item is not in its season")?;
    serde_json::to_value(&all[i]).map_err(|e| e.to_string())
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

/// The signals channels each product reads (for the models named in its `version_id`).
fn channels_of(product: Product) -> &'static [&'static str] {
    match product {
        Product::Jitpreviews => &[
            "speech",
            "timelines.clip_types",
            "tags",
            "scene_embeddings",
            "timelines.nudity",
            "timelines.blood_gore",
            "timelines.profanity",
        ],
        Product::Jitthumbnails => &[
            "characters",
            "timelines.clip_types",
            "scene_embeddings",
            "timelines.nudity",
            "timelines.blood_gore",
            "timelines.profanity",
        ],
        Product::Fingerprint => &["audio_fingerprint"],
        Product::Fingerprintplus => &["audio_fingerprint", "emotions", "timelines.clip_types", "tags", "transcript"],
        Product::Semantic | Product::Similar => &["item_embedding"],
        Product::SemanticScenes => &["scene_embeddings"],
        Product::Profanity => &["profanity", "timelines.profanity"],
        Product::Emotions => &["emotions"],
        Product::VerticalConversion => &["vertical"],
        Product::ContentSummary => &["transcript", "emotions"],
        Product::Nudity => &["timelines.nudity"],
        Product::Adbreaks => &["shots", "scenes", "speech", "timelines.brightness"],
        Product::ContextualAdbreak => {
            &["shots", "scenes", "speech", "timelines.brightness", "timelines.nudity", "timelines.profanity", "tags"]
        }
        Product::SceneTags => &["tags"],
        // The intro edges move to cuts (`shots`, black frames of `visual`); credits to black frames.
        Product::Markers => &["audio_fingerprint", "picture_fingerprint", "text", "shots", "visual"],
    }
}

/// Whether `product` reads a channel that speech recognition produces or changes
/// ([`kino_media::SPEECH_STAGE_CHANNELS`]), so a fast pass of the media analysis is not enough.
pub fn needs_speech_stage(product: Product) -> bool {
    channels_of(product).iter().any(|c| kino_media::SPEECH_STAGE_CHANNELS.contains(c))
}

/// The pretrained models that produced the channels `product` reads, from the signals'
/// provenance (`analysis.models`): `id@version` of each, sorted, joined by `+`; empty when none.
pub fn models_of(product: Product, s: &Signals) -> String {
    let Some(analysis) = &s.analysis else { return String::new() };
    let mut models: Vec<String> = channels_of(product)
        .iter()
        .filter_map(|c| analysis.models.get(*c))
        .filter_map(|label| {
            let mut words = label.split_whitespace();
            Some(format!("{}@{}", words.next()?, words.next()?))
        })
        .collect();
    models.sort();
    models.dedup();
    models.join("+")
}

/// Computes a product's payload (the product fields of `data`) from an item's signals; the error
/// says what the signals lack. `sentences` encodes sentences for the content summary (the sentence
/// model when loaded).
pub fn compute(product: Product, s: &Signals, sentences: &dyn kino::TextEncoder) -> Result<Value, String> {
    let payload = match product {
        Product::Jitpreviews => to_value(JitpreviewsPayload {
            duration: Some(s.duration),
            clip_types: Some(s.timelines.clip_types.keys().cloned().collect()),
        }),
        Product::Jitthumbnails => {
            to_value(JitthumbnailsPayload { duration: Some(s.duration), characters: Some(s.characters.len()) })
        }
        Product::Fingerprint => match &s.audio_fingerprint {
            Some(f) => {
                to_value(FingerprintPayload { fingerprint: Some(f.hashes.clone()), fingerprint_hop: Some(f.hop) })
            }
            None => {
                return Err("the item's signals have no audio_fingerprint (analyse its media with kino-media)".into());
            }
        },
        Product::Fingerprintplus => to_value(kino::fingerprint::profile(s).map_err(|e| e.to_string())?),
        Product::Semantic | Product::Similar => match &s.item_embedding {
            Some(e) => to_value(EmbeddingPayload { embedding: Some(e.clone()) }),
            None => return Err("the item's signals have no item_embedding".into()),
        },
        Product::SemanticScenes => match &s.scene_embeddings {
            Some(embeddings) => to_value(SceneEmbeddingsPayload {
                scene_embeddings: Some(
                    s.scenes
                        .iter()
                        .zip(embeddings)
                        .map(|(sc, e)| SceneEmbedding { start_ts: sc.start, end_ts: sc.end, embedding: e.clone() })
                        .collect(),
                ),
            }),
            None => return Err("the item's signals have no scene_embeddings".into()),
        },
        Product::Profanity => {
            let r = kino::profanity(s, &kino::ProfanityOptions::default()).map_err(|e| e.to_string())?;
            to_value(ProfanityPayload { profanity: Some(r) })
        }
        Product::Emotions => {
            let windows = kino::emotion_windows(s, kino::emotions::DEFAULT_WINDOW).map_err(|e| match e {
                kino::Error::MissingSignal { .. } => missing_emotions(s),
                other => other.to_string(),
            })?;
            to_value(EmotionsPayload { emotion: Some(windows) })
        }
        Product::VerticalConversion => match &s.vertical {
            Some(v) => to_value(VerticalPayload {
                vertical: Some(VerticalSummary { step: v.step, blackbars: v.blackbars, samples: v.x_center.len() }),
            }),
            None => return Err("the item's signals have no vertical track".into()),
        },
        Product::ContentSummary => {
            let options = kino::summary::SummaryOptions::default();
            match kino::summary::content_summary(s, sentences, &options) {
                Ok(summary) => to_value(ContentSummaryPayload { content_summary: Some(summary) }),
                Err(kino::Error::MissingSignal { .. }) => {
                    let why = s.analysis.as_ref().and_then(|a| a.reasons.get("transcript")).cloned();
                    return Err(format!(
                        "the item's signals have no transcript{} and no emotional arc",
                        why.map(|w| format!(" ({w})")).unwrap_or_default()
                    ));
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        Product::Adbreaks => {
            let r = kino::adbreaks::adbreaks(s, &Default::default()).map_err(|e| e.to_string())?;
            to_value(AdbreaksPayload { adbreak: Some(r) })
        }
        Product::ContextualAdbreak => {
            let r = kino::adbreaks::contextual_adbreaks(s, &Default::default()).map_err(|e| e.to_string())?;
            to_value(ContextualAdbreakPayload { context_adbreak: Some(r) })
        }
        Product::Nudity => {
            let r = kino::visual::nudity(s, &kino::visual::NudityOptions::default()).map_err(|e| e.to_string())?;
            to_value(NudityPayload { nudity: Some(r) })
        }
        Product::SceneTags => {
            let r = kino::visual::scene_tags(s).map_err(|e| e.to_string())?;
            to_value(SceneTagsPayload { scene_tags: Some(r) })
        }
        // Computed among the season's episodes ([`markers_of`]), not from one item's signals.
        Product::Markers => return Err(NOT_AVAILABLE.into()),
    };
    payload.map_err(|e| e.to_string())
}

/// Why an item has no emotions, and how to supply them: kino's analysis measures emotions for
/// every title with a picture (`docs/media.md`, "How kino feels a film"), so a document without
/// them was analysed by an earlier kino, or supplied from elsewhere without them.
fn missing_emotions(s: &Signals) -> String {
    let supply = "send a signals document with `emotions` (PUT /analysis/v1/item/{type}/{id}, docs/signals.md)";
    let reason = s.analysis.as_ref().and_then(|a| a.reasons.get("emotions"));
    let why = match reason {
        Some(r) => format!(" ({r})"),
        None => String::new(),
    };
    format!(
        "the item's signals have no emotions{why}: they were analysed by an earlier kino or supplied without \
         them; kino now measures emotions for every title with a picture, so reprocess the item \
         (operations.force_asset_reprocess), or {supply}"
    )
}

fn to_value(payload: impl Serialize) -> serde_json::Result<Value> {
    serde_json::to_value(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hardening II, item 9: an analysed title without emotions gets a task error that says
    /// what is missing and how to supply it, not only that the field is absent.
    #[test]
    fn a_title_without_emotions_is_told_what_is_missing_and_how_to_supply_it() {
        let mut s = kino::synth::demo_signals("t", 30.0, 1.0, 7);
        s.emotions = None;
        let words = kino::text::LexicalEncoder::default();
        let plain = compute(Product::Emotions, &s, &words).unwrap_err();
        assert!(plain.contains("PUT /analysis/v1/item"), "{plain}");
        let mut analysis = kino::signals::Analysis {
            analyzer: "kino-media 0.1.0".into(),
            measured: Vec::new(),
            absent: vec!["emotions".into()],
            models: Default::default(),
            reasons: [(
                "emotions".to_string(),
                "model yamnet 0.2.1 is not in the models directory (kino models fetch yamnet)".to_string(),
            )]
            .into(),
        };
        s.analysis = Some(analysis.clone());
        let no_model = compute(Product::Emotions, &s, &words).unwrap_err();
        assert!(no_model.contains("kino models fetch yamnet") && no_model.contains("reprocess"), "{no_model}");
        analysis.reasons.insert(
            "emotions".into(),
            "yamnet 0.2.1 heard no sound or music-mood class that is evidence of an emotion".into(),
        );
        s.analysis = Some(analysis);
        let no_evidence = compute(Product::Emotions, &s, &words).unwrap_err();
        assert!(no_evidence.contains("heard no sound") && no_evidence.contains("earlier kino"), "{no_evidence}");
        assert!(no_evidence.contains("PUT /analysis/v1/item"), "{no_evidence}");
    }
}
