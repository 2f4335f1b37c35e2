//! The portal events. Each is queued (one delivery per subscribed webhook, see
//! [`crate::webhooks`]) in the same transaction as the change that caused it, so a crash never
//! keeps the change and loses its event; queueing never waits for the network. The `data` shapes
//! are the typed ones of [`crate::webhooks::events`].

use serde::Serialize;

use crate::changes::Effects;
use crate::store::{CreativeAssetRow, OrgId, Outgoing, RecipeStatus, Store};
use crate::webhooks::events::{CreativeAssetEvent, RecipeCompleted, RecipeFailed, SmartListUpdated};

/// The event ready to queue with the change that causes it (`None`, logged, if it cannot be
/// built, which only a programming error can cause).
pub fn outgoing(org: OrgId, event: &str, data: impl Serialize) -> Option<Outgoing> {
    let built = serde_json::to_value(data)
        .map_err(|e| e.to_string())
        .and_then(|v| crate::webhooks::outgoing(org, event, v).map_err(|e| e.to_string()));
    built.map_err(|e| tracing::error!(event, error = %e, "cannot build a webhook event")).ok()
}

/// Queues `event` on its own (where there is no change to commit with it); a failure is logged.
pub fn emit(store: &Store, fx: &Effects, org: OrgId, event: &str, data: impl Serialize) {
    let queued = serde_json::to_value(data)
        .map_err(|e| e.to_string())
        .and_then(|v| crate::webhooks::emit(store, fx, org, event, v).map_err(|e| e.to_string()));
    if let Err(e) = queued {
        tracing::error!(event, error = %e, "cannot queue webhook deliveries");
    }
}

/// `smart_list.updated`: the service asset ids that joined and left.
pub fn smart_list_updated(id: &str, title: &str, added: &[String], removed: &[String]) -> SmartListUpdated {
    SmartListUpdated {
        smart_list_id: id.into(),
        smart_list_title: title.into(),
        added_asset_ids: added.to_vec(),
        removed_asset_ids: removed.to_vec(),
    }
}

/// `creative_asset.created`, `.completed` or `.failed`; `url` is the asset's main file (video or
/// image) relative to the bucket, null while there is none.
pub fn creative_asset(a: &CreativeAssetRow, service_id: &str) -> CreativeAssetEvent {
    CreativeAssetEvent {
        creative_asset_id: a.id.clone(),
        asset_id: service_id.into(),
        recipe_id: a.recipe_id.clone(),
        recipe_title: a.recipe_title.clone(),
        asset_type: a.kind,
        url: a.video_uri.clone().or_else(|| a.image_uri.clone()),
    }
}

/// `recipe.completed`.
pub fn recipe_completed(id: &str, title: &str, data_only: bool, assets: &[String]) -> RecipeCompleted {
    RecipeCompleted {
        recipe_id: id.into(),
        recipe_title: title.into(),
        status: RecipeStatus::Completed,
        data_only,
        creative_asset_count: assets.len() as u64,
        creative_asset_ids: assets.to_vec(),
    }
}

/// `recipe.failed`.
pub fn recipe_failed(id: &str, title: &str, data_only: bool, error: &str) -> RecipeFailed {
    RecipeFailed {
        recipe_id: id.into(),
        recipe_title: title.into(),
        status: RecipeStatus::Failed,
        data_only,
        error_message: error.into(),
    }
}
