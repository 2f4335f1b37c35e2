//! Schemas of the OpenAPI document that no handler type carries as such: request bodies that the
//! handlers read field by field (to name the field and the rule in an error) or store as given
//! (the token request), and enumerations of fields kept as text. The portal's vocabulary, its
//! filter and its recipe config live in `portal/` beside the code that parses them and are
//! re-exported here; the admin API's request bodies are in [`super::admin_bodies`] (re-exported
//! here). Every
//! answer is described by the type its handler serialises, not here; the contract test
//! (`server/tests/server/support.rs`) validates every answer of the integration tests against them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

pub use super::admin_bodies::*;

/// The interface's UUID pattern of portal path ids: versions 1 to 8 with variant 8, 9, a or b, and
/// the nil and max UUIDs (case-insensitive).
pub const UUID_PATTERN: &str = "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$";

/// `true` or `false`, as text.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrueFalse {
    /// `true`
    True,
    /// `false`
    False,
}

pub use crate::portal::filter::{SmartlistFilter, YearRange};
pub use crate::portal::kinds::{CreativeAssetType, Purpose, RecipeType};
pub use crate::portal::recipes::config::{RecipeConfig, ThumbnailRule};
pub use crate::portal::views::LogoData;

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
#[derive(Clone, Serialize, Deserialize, ToSchema)]
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

impl std::fmt::Debug for TokenRequest {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRequest")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| crate::redacted::Redacted))
            .field("grant_type", &self.grant_type)
            .field("scope", &self.scope)
            .finish()
    }
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
}
