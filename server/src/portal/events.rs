//! The portal events and their `data` shapes, exactly as the interface lists them. Emitting
//! queues one delivery per subscribed webhook (durably, see [`crate::webhooks`]); it never waits
//! for the network and never fails the operation that caused it.

use serde_json::{Value, json};

use crate::state::AppState;
use crate::store::{CreativeAssetRow, OrgId};

/// Queues `event` for the organisation's webhooks; a failure to queue is logged.
pub fn emit(state: &AppState, org: OrgId, event: &str, data: Value) {
    if let Err(e) = crate::webhooks::emit(state, org, event, data) {
        tracing::error!(event, error = %e, "cannot queue webhook deliveries");
    }
}

/// `smart_list.updated`: the service asset ids that joined and left.
pub fn smart_list_updated(id: &str, title: &str, added: &[String], removed: &[String]) -> Value {
    json!({"smartListId": id, "smartListTitle": title, "addedAssetIds": added, "removedAssetIds": removed})
}

/// `creative_asset.created`, `.completed` or `.failed`.
pub fn creative_asset(a: &CreativeAssetRow, service_id: &str) -> Value {
    json!({
        "creativeAssetId": a.id,
        "assetId": service_id,
        "recipeId": a.recipe_id,
        "recipeTitle": a.recipe_title,
        "type": a.kind,
        "url": a.video_uri.as_ref().or(a.image_uri.as_ref()),
    })
}

/// `recipe.completed`.
pub fn recipe_completed(id: &str, title: &str, data_only: bool, assets: &[String]) -> Value {
    json!({
        "recipeId": id,
        "recipeTitle": title,
        "status": "completed",
        "dataOnly": data_only,
        "creativeAssetCount": assets.len(),
        "creativeAssetIds": assets,
    })
}

/// `recipe.failed`.
pub fn recipe_failed(id: &str, title: &str, data_only: bool, error: &str) -> Value {
    json!({"recipeId": id, "recipeTitle": title, "status": "failed", "dataOnly": data_only, "errorMessage": error})
}
