//! The `data` of each event, as the interface's "data shapes" table names its fields; callers
//! build one of these and pass `serde_json::to_value(&data)` to [`super::emit`].

use serde::Serialize;

use crate::store::RecipeStatus;

/// `smart_list.updated`: a Smartlist's membership changed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SmartListUpdated {
    /// The portal Smartlist id.
    pub smart_list_id: String,
    /// Its current title.
    pub smart_list_title: String,
    /// Service asset ids that joined (may be empty).
    pub added_asset_ids: Vec<String>,
    /// Service asset ids that left (may be empty).
    pub removed_asset_ids: Vec<String>,
}

/// `recipe.completed`: a published recipe finished.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipeCompleted {
    /// Recipe UUID.
    pub recipe_id: String,
    /// Recipe title.
    pub recipe_title: String,
    /// Always `completed`.
    pub status: RecipeStatus,
    /// Whether the run produced data only.
    pub data_only: bool,
    /// How many creative assets it produced.
    pub creative_asset_count: u64,
    /// Their UUIDs.
    pub creative_asset_ids: Vec<String>,
}

/// `recipe.failed`: a published recipe failed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipeFailed {
    /// Recipe UUID.
    pub recipe_id: String,
    /// Recipe title.
    pub recipe_title: String,
    /// Always `failed`.
    pub status: RecipeStatus,
    /// Whether the run produced data only.
    pub data_only: bool,
    /// Why it failed.
    pub error_message: String,
}

/// `creative_asset.created`, `creative_asset.completed` and `creative_asset.failed`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreativeAssetEvent {
    /// Creative asset UUID.
    pub creative_asset_id: String,
    /// Service asset id.
    pub asset_id: String,
    /// Recipe UUID.
    pub recipe_id: String,
    /// Recipe title.
    pub recipe_title: String,
    /// Creative asset type.
    #[serde(rename = "type")]
    pub asset_type: crate::portal::kinds::CreativeAssetType,
    /// Path relative to storage; `None` (null) while the files are not ready.
    pub url: Option<String>,
}
