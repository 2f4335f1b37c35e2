//! The JSON the portal interface shows for each resource (list and detail views, and the admin
//! API's views that add what only the organisation's administrator sees), as types: the handlers
//! serialise these, and the OpenAPI document describes them.

use super::kinds::{CreativeAssetType, Purpose, RecipeType};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::portal::filter::SmartlistFilter;
use crate::portal::recipes::config::RecipeConfig;
use crate::store::{CreativeAssetRow, CreativeAssetStatus, RecipeRow, RecipeStatus, SmartlistRow};

/// A smartlist as portal lists show it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Smartlist {
    /// UUID.
    #[schema(format = "uuid")]
    pub id: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// `dynamic`: membership follows the filter.
    #[serde(rename = "type")]
    pub kind: String,
    /// `published` or `draft`.
    #[schema(value_type = PublishingState)]
    pub publishing_state: &'static str,
    /// Purposes (`editorial`, `creative-lab`, `review-filter`).
    pub purpose: Vec<Purpose>,
    /// Whether a model generated it.
    pub is_ai_generated: bool,
    /// Creator's email address.
    #[schema(format = Email)]
    pub creator: String,
    /// Current number of members.
    pub item_count: i64,
    /// When published (RFC 3339); `null` while a draft.
    #[schema(format = DateTime)]
    pub published_at: Option<String>,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Last changed (RFC 3339).
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// The smartlist and its members.
    pub _links: SmartlistLinks,
}

/// Whether a smartlist is visible to the portal.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PublishingState {
    /// Visible.
    Published,
    /// Not visible (kept current silently).
    Draft,
}

/// Links of a smartlist.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SmartlistLinks {
    /// This smartlist.
    #[serde(rename = "self")]
    pub self_: String,
    /// Its members.
    pub assets: String,
}

/// A smartlist with its catalog and filter (detail view).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SmartlistDetail {
    /// The list view's fields.
    #[serde(flatten)]
    pub smartlist: Smartlist,
    /// The catalog's name.
    pub catalog: String,
    /// The membership filter.
    #[schema(value_type = SmartlistFilter)]
    pub filter: Value,
}

/// A member of a smartlist.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SmartlistAsset {
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's title.
    pub title: String,
    /// Position in the smartlist, from 1.
    pub position: usize,
}

/// A recipe as portal lists show it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Recipe {
    /// UUID.
    #[schema(format = "uuid")]
    pub id: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// `draft`, `published`, `running`, `completed` or `failed`.
    pub status: RecipeStatus,
    /// `thumbnails` or `preview-clips`.
    #[serde(rename = "type")]
    pub kind: RecipeType,
    /// Creator's email address.
    #[schema(format = Email)]
    pub creator: String,
    /// The catalog's name.
    pub catalog: String,
    /// Runs while unpublished.
    pub test_runs_count: i64,
    /// When published (RFC 3339); `null` while a draft.
    #[schema(format = DateTime)]
    pub published_at: Option<String>,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Last changed (RFC 3339).
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// This recipe.
    pub _links: SelfLink,
}

/// A link to the resource itself.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SelfLink {
    /// The resource.
    #[serde(rename = "self")]
    pub self_: String,
}

/// A recipe with its config and version (detail view).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RecipeDetail {
    /// The list view's fields.
    #[serde(flatten)]
    pub recipe: Recipe,
    /// What the recipe makes and how.
    #[schema(value_type = RecipeConfig)]
    pub config: Value,
    /// Bumped on every config change.
    pub version: i64,
}

/// A creative asset as portal lists show it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreativeAsset {
    /// UUID.
    #[schema(format = "uuid")]
    pub id: String,
    /// Title.
    pub title: String,
    /// `thumbnail`, `preview`, `thumbnail-vertical` or `preview-vertical`.
    #[serde(rename = "type")]
    pub kind: CreativeAssetType,
    /// `pending`, `completed` or `failed`.
    pub status: CreativeAssetStatus,
    /// The recipe that made it.
    #[schema(format = "uuid")]
    pub recipe_id: String,
    /// The recipe's title.
    pub recipe_title: String,
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's title.
    pub asset_title: String,
    /// Large image, relative to the bucket.
    pub image_uri: Option<String>,
    /// Large image URL.
    pub image_url: Option<String>,
    /// Small image, relative to the bucket.
    pub small_image_uri: Option<String>,
    /// Small image URL.
    pub small_image_url: Option<String>,
    /// Video, relative to the bucket.
    pub video_uri: Option<String>,
    /// Video URL.
    pub video_url: Option<String>,
    /// Start in seconds.
    pub start_time: f64,
    /// End in seconds (equal to the start for a thumbnail).
    pub stop_time: f64,
    /// The scores that justified the choice (`clip`, `frame`, `vertical`).
    #[schema(value_type = Object)]
    pub metadata: Value,
    /// Where the item's logo goes, when it has one.
    #[schema(value_type = Option<LogoData>)]
    pub logo_data: Option<Value>,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Last changed (RFC 3339).
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// The asset and its recipe.
    pub _links: CreativeAssetLinks,
}

/// Links of a creative asset.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreativeAssetLinks {
    /// This asset.
    #[serde(rename = "self")]
    pub self_: String,
    /// Its recipe.
    pub recipe: String,
}

/// A creative asset with its run number and index (detail view).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreativeAssetDetail {
    /// The list view's fields.
    #[serde(flatten)]
    pub asset: CreativeAsset,
    /// Which run of the recipe made it, from 1.
    pub run_number: i64,
    /// Its index within the run, from 0.
    pub asset_index: i64,
}

/// A recipe as the admin API shows it: the detail view, runs and the last error.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AdminRecipe {
    /// The portal's detail view.
    #[serde(flatten)]
    pub recipe: RecipeDetail,
    /// Every run so far.
    pub runs: i64,
    /// Why the last run failed, or `null`.
    pub last_error: Option<String>,
}

/// A creative asset as the admin API shows it: the detail view and its error.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AdminCreativeAsset {
    /// The portal's detail view.
    #[serde(flatten)]
    pub asset: CreativeAssetDetail,
    /// Why it failed, or `null`.
    pub error: Option<String>,
}

/// A smartlist as lists show it.
pub fn smartlist(s: &SmartlistRow) -> Smartlist {
    Smartlist {
        id: s.id.clone(),
        title: s.title.clone(),
        description: s.description.clone(),
        kind: s.kind.clone(),
        publishing_state: if s.published_at.is_some() { "published" } else { "draft" },
        purpose: s.purpose.clone(),
        is_ai_generated: s.is_ai_generated,
        creator: s.creator.clone(),
        item_count: s.item_count,
        published_at: s.published_at.clone(),
        created_at: s.created_at.clone(),
        updated_at: s.updated_at.clone(),
        _links: SmartlistLinks {
            self_: format!("/smartlists/{}", s.id),
            assets: format!("/smartlists/{}/assets", s.id),
        },
    }
}

/// A smartlist with its catalog and filter.
pub fn smartlist_detail(s: &SmartlistRow) -> SmartlistDetail {
    SmartlistDetail { smartlist: smartlist(s), catalog: s.catalog_name.clone(), filter: s.filter.clone() }
}

/// A member of a smartlist.
pub fn smartlist_asset(inventory_id: &str, title: &str, position: usize) -> SmartlistAsset {
    SmartlistAsset { inventory_id: inventory_id.into(), title: title.into(), position }
}

/// A recipe as lists show it.
pub fn recipe(r: &RecipeRow) -> Recipe {
    Recipe {
        id: r.id.clone(),
        title: r.title.clone(),
        description: r.description.clone(),
        status: r.status,
        kind: r.kind,
        creator: r.creator.clone(),
        catalog: r.catalog_name.clone(),
        test_runs_count: r.test_runs_count,
        published_at: r.published_at.clone(),
        created_at: r.created_at.clone(),
        updated_at: r.updated_at.clone(),
        _links: SelfLink { self_: format!("/recipes/{}", r.id) },
    }
}

/// A recipe with its config and version.
pub fn recipe_detail(r: &RecipeRow) -> RecipeDetail {
    RecipeDetail { recipe: recipe(r), config: r.config.clone(), version: r.version }
}

/// A recipe as the admin sees it: the detail view, its runs and its last error.
pub fn admin_recipe(r: &RecipeRow) -> AdminRecipe {
    AdminRecipe { recipe: recipe_detail(r), runs: r.runs, last_error: r.last_error.clone() }
}

/// Where a stored file is served: the configured public base joined with its bucket path.
pub fn file_url(base: &str, uri: Option<&String>) -> Option<String> {
    uri.map(|u| format!("{}/{}", base.trim_end_matches('/'), u.trim_start_matches('/')))
}

/// A creative asset as lists show it; its files are served under `media_base`.
pub fn creative_asset(a: &CreativeAssetRow, media_base: &str) -> CreativeAsset {
    CreativeAsset {
        id: a.id.clone(),
        title: a.title.clone(),
        kind: a.kind,
        status: a.status,
        recipe_id: a.recipe_id.clone(),
        recipe_title: a.recipe_title.clone(),
        inventory_id: a.item_id.clone(),
        asset_title: a.asset_title.clone(),
        image_uri: a.image_uri.clone(),
        image_url: file_url(media_base, a.image_uri.as_ref()),
        small_image_uri: a.small_image_uri.clone(),
        small_image_url: file_url(media_base, a.small_image_uri.as_ref()),
        video_uri: a.video_uri.clone(),
        video_url: file_url(media_base, a.video_uri.as_ref()),
        start_time: a.start_time,
        stop_time: a.stop_time,
        metadata: a.metadata.clone(),
        logo_data: a.logo_data.clone(),
        created_at: a.created_at.clone(),
        updated_at: a.updated_at.clone(),
        _links: CreativeAssetLinks {
            self_: format!("/creative-assets/{}", a.id),
            recipe: format!("/recipes/{}", a.recipe_id),
        },
    }
}

/// A creative asset with its run number and index.
pub fn creative_asset_detail(a: &CreativeAssetRow, media_base: &str) -> CreativeAssetDetail {
    CreativeAssetDetail { asset: creative_asset(a, media_base), run_number: a.run_number, asset_index: a.asset_index }
}

/// A creative asset as the admin sees it: the detail view and its error.
pub fn admin_creative_asset(a: &CreativeAssetRow, media_base: &str) -> AdminCreativeAsset {
    AdminCreativeAsset { asset: creative_asset_detail(a, media_base), error: a.error.clone() }
}

/// Where an item's logo goes on a creative asset.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LogoData {
    /// Always true (absent logos give `null`).
    pub has_logo: bool,
    /// `[x, y, width, height]` as fractions of the frame.
    pub coordinates: Vec<f64>,
    /// Width as a fraction of the frame.
    pub size: f64,
    /// The logo's URL (from the item's `logo_urls`).
    pub logo_image: String,
    /// Which logo: `dark`, `bright`, or another key of `logo_urls`.
    pub logo_name: String,
    /// Contrast between logo and frame, 0 to 1.
    pub score: f64,
}
