//! What the admin API answers, besides the portal's views ([`crate::portal::views`]), the webhook
//! views and the delivery log: the handlers serialise these, and the OpenAPI document describes
//! them.

use serde::Serialize;
use utoipa::ToSchema;

use crate::store::RecipeStatus;

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

/// A catalog's settings after a change.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogSettingsChanged {
    /// The catalog's name.
    pub name: String,
    /// Whether media asset generation is on.
    pub media_generation: bool,
}

/// A new API key: shown in this answer only.
#[derive(Clone, Serialize, ToSchema)]
pub struct ApiKeyCreated {
    /// The key (`kino_` and 64 hex digits).
    pub key: String,
    /// Its first characters, as listings show them.
    pub prefix: String,
    /// A reminder that the key is shown once.
    pub note: &'static str,
}

impl std::fmt::Debug for ApiKeyCreated {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeyCreated")
            .field("key", &crate::redacted::Redacted)
            .field("prefix", &self.prefix)
            .field("note", &self.note)
            .finish()
    }
}

/// New OAuth client credentials: the secret is shown in this answer only.
#[derive(Clone, Serialize, ToSchema)]
pub struct ClientCreated {
    /// Client id (`kc_...`).
    pub client_id: String,
    /// Client secret (`kcs_...`).
    pub client_secret: String,
    /// A reminder that the secret is shown once.
    pub note: &'static str,
}

impl std::fmt::Debug for ClientCreated {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCreated")
            .field("client_id", &self.client_id)
            .field("client_secret", &crate::redacted::Redacted)
            .field("note", &self.note)
            .finish()
    }
}

/// What a revocation revoked: the key prefix or the client id.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Revoked {
    /// The revoked key's prefix, or the revoked client's id.
    pub revoked: String,
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
    pub changed: Vec<crate::portal::smartlists::Change>,
}

/// A recipe run started (202).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunStarted {
    /// The recipe.
    pub recipe_id: String,
    /// This run's number, from 1.
    pub run_number: i64,
    /// `running`.
    pub status: RecipeStatus,
}

/// A webhook created: its signing secret is shown in this answer only.
#[derive(Clone, Serialize, ToSchema)]
pub struct WebhookCreated {
    /// The webhook.
    #[serde(flatten)]
    pub webhook: crate::webhooks::WebhookView,
    /// The HMAC-SHA256 signing secret.
    pub signing_secret: String,
    /// A reminder that the secret is shown once.
    pub note: &'static str,
}

impl std::fmt::Debug for WebhookCreated {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookCreated")
            .field("webhook", &self.webhook)
            .field("signing_secret", &crate::redacted::Redacted)
            .field("note", &self.note)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_keys_and_secrets_never_show_in_debug_output() {
        const SECRET: &str = "kino_0123456789abcdef";
        let webhook = crate::webhooks::WebhookView {
            id: "w".into(),
            url: "https://example.com/hook".into(),
            events: vec![],
            enabled: false,
            created_at: String::new(),
            updated_at: String::new(),
        };
        let shown = [
            format!("{:?}", ApiKeyCreated { key: SECRET.into(), prefix: "kino_0123".into(), note: "" }),
            format!("{:?}", ClientCreated { client_id: "kc_1".into(), client_secret: SECRET.into(), note: "" }),
            format!("{:?}", WebhookCreated { webhook, signing_secret: SECRET.into(), note: "" }),
        ];
        for text in shown {
            assert!(!text.contains(SECRET) && text.contains("<redacted>"), "{text}");
        }
    }
}
