//! The products: what each one computes from an item's signals (here), its stored payload
//! (`payloads.rs`), the channels it reads and the models they came from (`channels.rs`), and the
//! season of episodes the markers read (`season.rs`). Which products exist is `Product`, in the
//! store's vocabulary.

use kino::signals::Signals;
use serde::Serialize;
use serde_json::Value;

pub use crate::vocabulary::Product;

/// The error of a task for a product this deployment does not compute.
pub const NOT_AVAILABLE: &str = "product not available in this deployment";

mod channels;
mod payloads;
mod season;

pub use channels::{models_of, needs_speech_stage};
pub use payloads::*;
pub use season::{SeasonEpisode, markers_of, season_id, season_of, stored_markers};

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
