//! The products: which exist, which this deployment processes, and each one's stored payload.

use kino::signals::Signals;
use serde_json::{Value, json};

/// Every product name of the tasks interface.
pub const PRODUCTS: [&str; 16] = [
    "adbreaks",
    "contextual_adbreak",
    "emotions",
    "fingerprint",
    "fingerprintplus",
    "jitpreviews",
    "jitthumbnails",
    "markers",
    "nudity",
    "profanity",
    "semantic",
    "similar",
    "content_summary",
    "semantic_scenes",
    "vertical_conversion",
    "scene_tags",
];

/// The products this deployment computes.
pub const PROCESSED: [&str; 7] =
    ["jitpreviews", "semantic", "semantic_scenes", "profanity", "emotions", "similar", "vertical_conversion"];

/// The error of a task for a product this deployment does not compute.
pub const NOT_AVAILABLE: &str = "product not available in this deployment";

/// Computes a product's payload (the product fields of `data`) from an item's signals; the error
/// says what the signals lack.
pub fn compute(product: &str, s: &Signals) -> Result<Value, String> {
    match product {
        "jitpreviews" => Ok(json!({
            "duration": s.duration,
            "clip_types": s.timelines.clip_types.keys().collect::<Vec<_>>(),
        })),
        "semantic" | "similar" => match &s.item_embedding {
            Some(e) => Ok(json!({ "embedding": e })),
            None => Err("the item's signals have no item_embedding".into()),
        },
        "semantic_scenes" => match &s.scene_embeddings {
            Some(embeddings) => Ok(json!({
                "scene_embeddings": s.scenes.iter().zip(embeddings).map(|(sc, e)| json!({
                    "start_ts": sc.start, "end_ts": sc.end, "embedding": e,
                })).collect::<Vec<_>>()
            })),
            None => Err("the item's signals have no scene_embeddings".into()),
        },
        "profanity" => {
            let r = kino::profanity(s, &kino::ProfanityOptions::default()).map_err(|e| e.to_string())?;
            Ok(json!({ "profanity": r }))
        }
        "emotions" => {
            let windows = kino::emotion_windows(s, kino::emotions::DEFAULT_WINDOW).map_err(|e| e.to_string())?;
            Ok(json!({ "emotion": windows }))
        }
        "vertical_conversion" => match &s.vertical {
            Some(v) => {
                Ok(json!({ "vertical": { "step": v.step, "blackbars": v.blackbars, "samples": v.x_center.len() } }))
            }
            None => Err("the item's signals have no vertical track".into()),
        },
        _ => Err(NOT_AVAILABLE.into()),
    }
}
