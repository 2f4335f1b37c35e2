//! Schemas of the OpenAPI document that no handler type carries as such: request bodies that the
//! handlers read field by field (to name the field and the rule in an error) or store as given
//! (smartlist filters, recipe configs, the token request), and the enumerations of fields kept as
//! text; the admin API's request bodies are in [`super::admin_bodies`] (re-exported here). Every
//! answer is described by the type its handler serialises, not here; the contract test
//! (`server/tests/server/support.rs`) validates every answer of the integration tests against them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

pub use super::admin_bodies::*;

/// The interface's UUID pattern of portal path ids: versions 1 to 8 with variant 8, 9, a or b, and
/// the nil and max UUIDs (case-insensitive).
pub const UUID_PATTERN: &str = "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$";

/// Smartlist purposes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    /// `editorial`
    Editorial,
    /// `creative-lab`
    CreativeLab,
    /// `review-filter`
    ReviewFilter,
}

/// `true` or `false`, as text.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrueFalse {
    /// `true`
    True,
    /// `false`
    False,
}

/// Recipe types.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RecipeType {
    /// Still frames.
    Thumbnails,
    /// Clips.
    PreviewClips,
}

/// Creative asset types.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CreativeAssetType {
    /// A still frame.
    Thumbnail,
    /// A clip.
    Preview,
    /// A 9:16 still frame.
    ThumbnailVertical,
    /// A 9:16 clip.
    PreviewVertical,
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

/// A smartlist's membership filter: every key optional; values within a key are any-of, keys
/// all-of; `{}` matches every item (docs/portal.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"genres": ["drama"], "release_year": {"gte": 2000, "lte": 2009}})))]
pub struct SmartlistFilter {
    /// One of the item's `metadata.genres` (case-insensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genres: Option<Vec<String>>,
    /// One of the item's `metadata.keywords` or its signals' keyword tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keywords: Option<Vec<String>>,
    /// One of the item's signals' mood tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moods: Option<Vec<String>>,
    /// One of the item's `metadata.cast`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast: Option<Vec<String>>,
    /// One of the item's `tag` values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<Vec<String>>,
    /// One of the item's ratings, as `rating` or `scheme:rating`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<Vec<String>>,
    /// The item's type (`standalone`, `series`, `season`, `episode`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Vec<String>>,
    /// The item's `release_year` lies within (either bound optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_year: Option<YearRange>,
}

/// An inclusive range of years.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct YearRange {
    /// From this year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gte: Option<i64>,
    /// Up to this year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lte: Option<i64>,
}

/// A recipe's config (docs/portal.md): exactly one of `smartlist_id` and `inventory_ids`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"inventory_ids": ["tt-demo-001"], "per_item": 1, "data_only": true})))]
pub struct RecipeConfig {
    /// A smartlist of the organisation: its members at run time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[0-9a-fA-F-]{36}$")]
    pub smartlist_id: Option<String>,
    /// Item ids (1 to 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_items = 1, max_items = 10000)]
    pub inventory_ids: Option<Vec<String>>,
    /// Moments per item, 1 to 10 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 10)]
    pub per_item: Option<u32>,
    /// Also make the 9:16 forms (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertical: Option<bool>,
    /// Choose moments and scores only, render no files (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_only: Option<bool>,
    /// Previews parameters (strings, numbers or booleans) except `trigger_generation`,
    /// `generate`, `aspect_ratio` and `number_of_top_candidates`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub previews: Option<BTreeMap<String, Value>>,
    /// The thumbnail frame rule's thresholds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<ThumbnailRule>,
}

/// The thumbnail frame rule's thresholds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ThumbnailRule {
    /// Lowest mean brightness (default 0.15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub min_brightness: Option<f64>,
    /// Highest mean brightness (default 0.85).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub max_brightness: Option<f64>,
    /// Highest nudity (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub max_nudity: Option<f64>,
    /// Highest blood/gore (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub max_blood_gore: Option<f64>,
    /// Seconds from every shot boundary (default 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 60.0)]
    pub shot_margin: Option<f64>,
    /// Prefer frames with the main character (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_character: Option<bool>,
}

/// The bytes of a file (a clip or an image).
#[derive(Debug, Clone, Copy)]
pub struct Binary;

impl utoipa::PartialSchema for Binary {
    fn schema() -> RefOr<Schema> {
        use utoipa::openapi::{KnownFormat, SchemaFormat};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
            .into()
    }
}

impl ToSchema for Binary {}

/// An empty JSON object (the answer of a task reset).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct Empty {}

// ---- the OAuth 2.0 token endpoint ----

/// A token request (RFC 6749 4.4.2), as JSON or `application/x-www-form-urlencoded`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TokenRequest {
    /// The client id (`kc_...`); may be left out when the client authenticates with HTTP Basic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The client secret (`kcs_...`); must be left out when the client authenticates with HTTP
    /// Basic (one method at a time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Only `client_credentials`.
    #[schema(value_type = GrantType)]
    pub grant_type: String,
    /// Space-separated scopes; every scope when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(examples("read:smartlist:published read:recipe:published"))]
    pub scope: Option<String>,
}

/// The grant types of the token endpoint.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrantType {
    /// OAuth 2.0 client credentials.
    ClientCredentials,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_webhook_events_are_the_services() {
        let listed: Vec<String> = [
            WebhookEvent::RecipeCompleted,
            WebhookEvent::RecipeFailed,
            WebhookEvent::CreativeAssetCompleted,
            WebhookEvent::CreativeAssetCreated,
            WebhookEvent::CreativeAssetFailed,
            WebhookEvent::SmartListUpdated,
        ]
        .iter()
        .map(|e| serde_json::to_value(e).unwrap().as_str().unwrap().to_string())
        .collect();
        assert_eq!(listed, crate::webhooks::EVENTS);
    }

    #[test]
    fn the_enumerations_are_the_services() {
        let names = |v: Vec<Value>| v.into_iter().map(|v| v.as_str().unwrap().to_string()).collect::<Vec<_>>();
        let purposes = names(
            [Purpose::Editorial, Purpose::CreativeLab, Purpose::ReviewFilter]
                .map(|p| serde_json::to_value(p).unwrap())
                .to_vec(),
        );
        assert_eq!(purposes, crate::portal::smartlists::PURPOSES);
        let types = names(
            [RecipeType::Thumbnails, RecipeType::PreviewClips].map(|p| serde_json::to_value(p).unwrap()).to_vec(),
        );
        assert_eq!(types, crate::portal::recipes::TYPES);
    }
}
