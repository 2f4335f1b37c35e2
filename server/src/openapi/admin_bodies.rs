//! Bodies of the admin API in the OpenAPI document. Its handlers read JSON objects field by field
//! (to name the field and the rule in a 400) and answer JSON they assemble; these types describe
//! both, and the contract test validates every admin answer of the integration tests against them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::schemas::{Purpose, RecipeConfig, RecipeType, SmartlistFilter};
use crate::portal::views::{CreativeAssetDetail, RecipeDetail};

/// An organisation.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Organisation {
    /// Id.
    pub id: i64,
    /// Unique name.
    pub name: String,
}

/// An organisation created (201), or found existing (200, `created` false).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OrganisationCreated {
    /// Id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Whether it was created by this request.
    pub created: bool,
}

/// `{name}` of a new organisation or catalog.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct NameInput {
    /// The name (1 to 100 characters for organisations, 200 for catalogs).
    #[schema(min_length = 1, max_length = 100, examples("acme"))]
    pub name: String,
}

/// A catalog as the admin API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AdminCatalog {
    /// Catalog id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Whether media asset generation (`trigger_generation`) is on.
    pub media_generation: bool,
}

/// A catalog created.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogCreated {
    /// Catalog id.
    pub id: i64,
    /// Name.
    pub name: String,
}

/// `{media_generation}`: media asset generation on or off.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CatalogSettings {
    /// Whether `trigger_generation` renders media for this catalog.
    pub media_generation: bool,
}

/// A catalog's settings after a change.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogSettingsChanged {
    /// The catalog's name.
    pub name: String,
    /// Whether media asset generation is on.
    pub media_generation: bool,
}

/// An API key as listed (the key itself is never shown again).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiKeyListing {
    /// The key's first characters.
    pub prefix: String,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Revoked (RFC 3339), or `null`.
    #[schema(format = DateTime)]
    pub revoked_at: Option<String>,
}

/// A new API key: shown in this answer only.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiKeyCreated {
    /// The key (`kino_` and 64 hex digits).
    pub key: String,
    /// Its first characters, as listings show them.
    pub prefix: String,
    /// A reminder that the key is shown once.
    pub note: String,
}

/// New OAuth client credentials: the secret is shown in this answer only.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClientCreated {
    /// Client id (`kc_...`).
    pub client_id: String,
    /// Client secret (`kcs_...`).
    pub client_secret: String,
    /// A reminder that the secret is shown once.
    pub note: String,
}

/// A smartlist's fields; every one optional when changing, `title`, `creator` and a catalog
/// required when creating.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"title": "Everything", "catalog": "demo", "creator": "ed@example.com", "filter": {}, "published": true})))]
pub struct SmartlistInput {
    /// 1 to 200 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200)]
    pub title: Option<String>,
    /// At most 5000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// The catalog's name (or give `catalog_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// The catalog's id (or give `catalog`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog_id: Option<i64>,
    /// Purposes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<Vec<Purpose>>,
    /// Whether a model generated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_ai_generated: Option<bool>,
    /// The creator's email address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Email)]
    pub creator: Option<String>,
    /// The membership filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<SmartlistFilter>,
    /// Published (visible in the portal) or draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<bool>,
}

/// A recipe's fields; every one optional when changing; `title`, `type`, `creator`, a catalog
/// and `config` required when creating.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"title": "Stills", "type": "thumbnails", "catalog": "demo", "creator": "ed@example.com",
    "config": {"inventory_ids": ["tt-demo-001"], "data_only": true}, "published": false})))]
pub struct RecipeInput {
    /// 1 to 200 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200)]
    pub title: Option<String>,
    /// At most 5000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// `thumbnails` or `preview-clips`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<RecipeType>,
    /// The creator's email address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Email)]
    pub creator: Option<String>,
    /// The catalog's name (or give `catalog_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// The catalog's id (or give `catalog`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog_id: Option<i64>,
    /// What to make and how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<RecipeConfig>,
    /// Publishing runs the recipe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<bool>,
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

/// A recipe run started (202).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunStarted {
    /// The recipe.
    pub recipe_id: String,
    /// This run's number, from 1.
    pub run_number: i64,
    /// `running`.
    pub status: String,
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

/// What was deleted.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Deleted {
    /// The id of the deleted resource.
    pub deleted: String,
}

/// The smartlists whose membership changed in a refresh.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RefreshOutcome {
    /// One entry per changed smartlist.
    pub changed: Vec<MembershipChange>,
}

/// A smartlist's membership change.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MembershipChange {
    /// The smartlist.
    pub id: String,
    /// Service ids of the items that joined.
    pub added: Vec<String>,
    /// Service ids of the items that left.
    pub removed: Vec<String>,
}

/// `{url, events, enabled}` of a new webhook.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"url": "https://hooks.example.com/kino", "events": ["recipe.completed"], "enabled": true})))]
pub struct WebhookInput {
    /// The receiving HTTPS URL (internal addresses are refused).
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
    /// Subscribed events; every event when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<WebhookEvent>>,
    /// Deliver events (false when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// The events a webhook can subscribe to.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
pub enum WebhookEvent {
    /// A published recipe finished with at least one asset.
    #[serde(rename = "recipe.completed")]
    RecipeCompleted,
    /// A published recipe failed.
    #[serde(rename = "recipe.failed")]
    RecipeFailed,
    /// A creative asset was made.
    #[serde(rename = "creative_asset.completed")]
    CreativeAssetCompleted,
    /// A creative asset record was created.
    #[serde(rename = "creative_asset.created")]
    CreativeAssetCreated,
    /// A creative asset could not be made.
    #[serde(rename = "creative_asset.failed")]
    CreativeAssetFailed,
    /// A published smartlist's membership changed.
    #[serde(rename = "smart_list.updated")]
    SmartListUpdated,
}

/// A webhook created: its signing secret is shown in this answer only.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookCreated {
    /// The webhook.
    #[serde(flatten)]
    pub webhook: crate::webhooks::WebhookView,
    /// The HMAC-SHA256 signing secret.
    pub signing_secret: String,
    /// A reminder that the secret is shown once.
    pub note: String,
}

/// An OAuth client as listed (its secret is never shown again).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClientListing {
    /// The client id.
    pub client_id: String,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Revoked (RFC 3339), or `null`.
    #[schema(format = DateTime)]
    pub revoked_at: Option<String>,
}

/// What a revocation revoked: the key prefix or the client id.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Revoked {
    /// The revoked key's prefix, or the revoked client's id.
    pub revoked: String,
}
