//! Request bodies of the admin API in the OpenAPI document. Its handlers read JSON objects field by
//! field (to name the field and the rule in a 400); these types describe what they accept. What
//! the admin API answers is described by the types its handlers serialise
//! (`crate::routes::admin::answers`, `crate::portal::views`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::schemas::{Purpose, RecipeConfig, RecipeType, SmartlistFilter};

pub use crate::webhooks::WebhookEvent;

/// `{name}` of a new organisation or catalog.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct NameInput {
    /// The name (1 to 100 characters for organisations, 200 for catalogs).
    #[schema(min_length = 1, max_length = 100, examples("acme"))]
    pub name: String,
}

/// `{media_generation}`: media asset generation on or off.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CatalogSettings {
    /// Whether `trigger_generation` renders media for this catalog.
    pub media_generation: bool,
}

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
