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

pub use super::caller::{Admin, Scope};
pub use answers::{
    AdminCatalog, ApiKeyCreated, CatalogCreated, CatalogSettingsChanged, ClientCreated, Deleted, Organisation,
    OrganisationCreated, RefreshOutcome, Revoked, RunStarted, WebhookCreated,
};
// The handlers (with their OpenAPI paths), by concept; the router and the document name them here.
pub use credentials::*;
pub use orgs::*;
pub use recipes::*;
pub use smartlists::*;
pub use webhooks::*;

use crate::state::AppState;

/// This module's routes, under `/admin/v1`; a path under `/admin/` or a method it does not have
/// gets the portal's error body.
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{delete, get, patch, post};
    let routes = axum::Router::new()
        .route("/orgs", get(list_orgs).post(create_org))
        .route("/orgs/{org}/catalogs", get(list_catalogs).post(create_catalog))
        .route("/orgs/{org}/catalogs/{name}", patch(update_catalog))
        .route("/orgs/{org}/api-keys", get(list_keys).post(create_key))
        .route("/orgs/{org}/api-keys/{id}", delete(revoke_key))
        .route("/orgs/{org}/clients", get(list_clients).post(create_client))
        .route("/orgs/{org}/clients/{id}", delete(revoke_client))
        .route("/orgs/{org}/smartlists", get(list_smartlists).post(create_smartlist))
        .route("/orgs/{org}/smartlists/refresh", post(refresh_smartlists))
        .route("/orgs/{org}/smartlists/{id}", get(get_smartlist).patch(update_smartlist).delete(delete_smartlist))
        .route("/orgs/{org}/smartlists/{id}/publish", post(publish_smartlist))
        .route("/orgs/{org}/smartlists/{id}/unpublish", post(unpublish_smartlist))
        .route("/orgs/{org}/smartlists/{id}/assets", get(smartlist_members))
        .route("/orgs/{org}/recipes", get(list_recipes).post(create_recipe))
        .route("/orgs/{org}/recipes/{id}", get(get_recipe).patch(update_recipe))
        .route("/orgs/{org}/recipes/{id}/publish", post(publish_recipe))
        .route("/orgs/{org}/recipes/{id}/unpublish", post(unpublish_recipe))
        .route("/orgs/{org}/recipes/{id}/run", post(run_recipe))
        .route("/orgs/{org}/recipes/{id}/creative-assets", get(recipe_assets))
        .route("/orgs/{org}/webhooks", get(list_webhooks).post(create_webhook))
        .route("/orgs/{org}/webhooks/{id}", delete(delete_webhook))
        .route("/orgs/{org}/webhooks/{id}/enable", post(enable_webhook))
        .route("/orgs/{org}/webhooks/{id}/disable", post(disable_webhook))
        .route("/orgs/{org}/webhooks/{id}/test", post(test_webhook))
        .route("/orgs/{org}/webhooks/{id}/deliveries", get(webhook_deliveries))
        .route("/orgs/{org}/webhook-deliveries/{id}/redeliver", post(redeliver));
    super::portal_error::with_portal_fallbacks(axum::Router::new().nest("/admin/v1", routes), &["/admin/"])
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(
    list_orgs,
    create_org,
    list_catalogs,
    create_catalog,
    update_catalog,
    list_keys,
    create_key,
    revoke_key,
    list_clients,
    create_client,
    revoke_client,
    list_smartlists,
    create_smartlist,
    get_smartlist,
    update_smartlist,
    delete_smartlist,
    publish_smartlist,
    unpublish_smartlist,
    smartlist_members,
    refresh_smartlists,
    list_recipes,
    create_recipe,
    get_recipe,
    update_recipe,
    publish_recipe,
    unpublish_recipe,
    run_recipe,
    recipe_assets,
    list_webhooks,
    create_webhook,
    delete_webhook,
    enable_webhook,
    disable_webhook,
    test_webhook,
    webhook_deliveries,
    redeliver
))]
pub struct Api;
