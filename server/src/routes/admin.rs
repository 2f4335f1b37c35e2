//! The admin HTTP API: what the interface places in its web application (organisations,
//! catalogs, API keys, OAuth clients, smartlists, recipes, webhooks), under `/admin/v1`, behind
//! the admin credential (`Authorization: Bearer <admin token>`). Errors use the portal error body.
//! `kino-server admin ...` offers the same operations from the command line.

mod answers;
mod common;
mod credentials;
mod orgs;
mod recipes;
mod smartlists;
mod webhooks;

pub use answers::{
    AdminCatalog, ApiKeyCreated, CatalogCreated, CatalogSettingsChanged, ClientCreated, Deleted, Organisation,
    OrganisationCreated, RefreshOutcome, Revoked, RunStarted, WebhookCreated,
};
pub use common::{Admin, Scope};
// The handlers (with their OpenAPI paths), by concept; the router and the document name them here.
pub use credentials::*;
pub use orgs::*;
pub use recipes::*;
pub use smartlists::*;
pub use webhooks::*;
