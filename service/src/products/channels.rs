//! Which signals channels each product reads: whether it waits for speech recognition, and the
//! models its `version_id` names.

use kino::signals::Signals;

use crate::vocabulary::Product;

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
