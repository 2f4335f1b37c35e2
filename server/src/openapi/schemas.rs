//! Bodies of the OpenAPI document that no handler type carries as such: the portal error and
//! pagination envelopes, the OAuth 2.0 token endpoint, smartlist filters and recipe configs, and a
//! few enumerations; the admin API's bodies are in [`super::admin_bodies`] (re-exported here).
//! Each type here serialises exactly like the JSON its handler writes; the unit tests below tie the
//! ones whose handler builds JSON by hand to that handler's output, and the contract test
//! (`server/tests/support`) validates every answer of the integration tests against them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use crate::portal::views::{CreativeAsset, Recipe, Smartlist, SmartlistAsset};

pub use super::admin_bodies::*;

/// The interface's UUID pattern of portal path ids: versions 1 to 8 with variant 8, 9, a or b, and
/// the nil and max UUIDs (case-insensitive).
pub const UUID_PATTERN: &str = "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$";

/// The body of every portal and admin error.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"error": "Not Found", "message": "smartlist 0b9c... not found", "statusCode": 404})))]
pub struct PortalError {
    /// The status's reason phrase (`Bad Request`, `Not Found`, ...).
    pub error: String,
    /// What went wrong, naming the parameter or field and the rule.
    pub message: String,
    /// The HTTP status code.
    #[serde(rename = "statusCode")]
    pub status_code: u16,
}

/// The pagination of a portal list.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Pagination {
    /// This page, from 1.
    pub page: i64,
    /// Items per page.
    pub limit: i64,
    /// Items on every page.
    pub total: i64,
    /// Pages (`ceil(total / limit)`).
    pub total_pages: i64,
}

/// Declares a portal page type.
macro_rules! page {
    ($name:ident, $item:ty, $what:literal) => {
        #[doc = concat!("A page of ", $what, ".")]
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct $name {
            /// This page's items.
            pub data: Vec<$item>,
            /// Where this page lies.
            pub pagination: Pagination,
        }
    };
    ($name:ident, $item:ty, $what:literal, $links:ty) => {
        #[doc = concat!("A page of ", $what, ".")]
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct $name {
            /// This page's items.
            pub data: Vec<$item>,
            /// Where this page lies.
            pub pagination: Pagination,
            /// Related resources.
            pub _links: $links,
        }
    };
}

page!(CatalogPage, PortalCatalog, "catalogs");
page!(SmartlistPage, Smartlist, "published smartlists", CatalogsLink);
page!(SmartlistAssetPage, SmartlistAsset, "a smartlist's members, in position order", SmartlistLink);
page!(RecipePage, Recipe, "published recipes");
page!(CreativeAssetPage, CreativeAsset, "creative assets of published recipes");

/// Where the catalogs are listed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogsLink {
    /// The catalog list.
    pub catalogs: String,
}

/// The smartlist of a member page.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SmartlistLink {
    /// The smartlist.
    pub smartlist: String,
}

/// A catalog as the portal shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PortalCatalog {
    /// Catalog id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Always `active`.
    pub status: String,
    /// The organisation's name.
    pub account: String,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Last changed (RFC 3339).
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// The catalog and its smartlists.
    pub _links: CatalogLinks,
}

/// Links of a portal catalog.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogLinks {
    /// This catalog.
    #[serde(rename = "self")]
    pub self_: String,
    /// Its smartlists.
    pub smartlists: String,
}

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

/// A JSON `null` (the answer of catalog writes).
#[derive(Debug, Clone, Copy)]
pub struct Null;

impl utoipa::PartialSchema for Null {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().schema_type(Type::Null).description(Some("`null`")).into()
    }
}

impl ToSchema for Null {}

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

/// An access token (RFC 6749 5.1).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Token {
    /// A JWT (HS256, `typ: at+jwt`).
    pub access_token: String,
    /// Seconds until it expires (3600).
    pub expires_in: u64,
    /// `bearer`.
    pub token_type: String,
    /// The granted scopes, space-separated.
    pub scope: String,
}

/// A token endpoint error (RFC 6749 5.2).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct OAuthError {
    /// The error code.
    #[schema(value_type = OAuthErrorCode)]
    pub error: String,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_description: Option<String>,
}

/// The error codes of the token endpoint.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OAuthErrorCode {
    /// Malformed or missing fields (400).
    InvalidRequest,
    /// Unknown client or wrong secret (401).
    InvalidClient,
    /// Not `client_credentials` (400).
    UnsupportedGrantType,
    /// An unknown scope (400).
    InvalidScope,
    /// The server failed (500).
    ServerError,
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
