//! An organisation's webhooks and their delivery log.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::Value;

use super::answers::{Deleted, WebhookCreated};
use super::common::{Answer, accepted, body, created, ok};
use crate::portal::text;
use crate::routes::blocking;
use crate::routes::caller::Scope;
use crate::routes::portal::PortalError;
use crate::state::AppState;
use crate::store::DeliveryRow;
use crate::webhooks::{self, WebhookView};

/// `GET /admin/v1/orgs/{org}/webhooks`.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/webhooks",
    tag = "admin",
    summary = "The organisation's webhooks",
    params(crate::openapi::OrgPath),
    responses((status = 200, description = "The webhooks", body = Vec<WebhookView>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn list_webhooks(State(state): State<AppState>, s: Scope) -> Answer<Vec<WebhookView>> {
    blocking(move || ok(webhooks::list(&state.store, s.org)?)).await
}

/// `POST /admin/v1/orgs/{org}/webhooks` `{url, events, enabled}`: the signing secret is in this
/// answer only. Created disabled unless `enabled` is true; `events` defaults to every event.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/webhooks",
    tag = "admin",
    summary = "Creates a webhook; its signing secret is shown in this answer only",
    params(crate::openapi::OrgPath),
    request_body = crate::openapi::schemas::WebhookInput,
    responses((status = 201, description = "Created", body = WebhookCreated), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn create_webhook(State(state): State<AppState>, s: Scope, bytes: Bytes) -> Answer<WebhookCreated> {
    let b = body(&bytes)?;
    let url = text("url", b.get("url"), true, 2048)?.unwrap_or_default();
    let events: Vec<String> = match b.get("events") {
        None | Some(Value::Null) => webhooks::EVENTS.iter().map(|e| e.to_string()).collect(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|_| PortalError::new(StatusCode::BAD_REQUEST, "events: must be a list of event names"))?,
    };
    let enable = match b.get("enabled") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(v)) => *v,
        Some(_) => return Err(PortalError::new(StatusCode::BAD_REQUEST, "enabled: must be true or false")),
    };
    // Creation resolves the URL's host (to refuse internal addresses): off the async threads.
    blocking(move || {
        let (view, secret) = webhooks::create(
            &state.store,
            &state.keys.secrets,
            state.config.webhook_allow_loopback,
            s.org,
            &url,
            &events,
            enable,
        )?;
        created(WebhookCreated { webhook: view, signing_secret: secret, note: "the signing secret is shown once" })
    })
    .await
}

/// `DELETE /admin/v1/orgs/{org}/webhooks/{id}` (its delivery log too).
#[utoipa::path(
    delete,
    path = "/admin/v1/orgs/{org}/webhooks/{id}",
    tag = "admin",
    summary = "Deletes a webhook and its delivery log",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "Deleted", body = Deleted), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn delete_webhook(State(state): State<AppState>, s: Scope) -> Answer<Deleted> {
    blocking(move || {
        webhooks::delete(&state.store, s.org, &s.id)?;
        ok(Deleted { deleted: s.id })
    })
    .await
}

/// `POST /admin/v1/orgs/{org}/webhooks/{id}/enable`.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/webhooks/{id}/enable",
    tag = "admin",
    summary = "Enables a webhook",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "Enabled", body = WebhookView), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn enable_webhook(State(state): State<AppState>, s: Scope) -> Answer<WebhookView> {
    blocking(move || ok(webhooks::set_enabled(&state.store, s.org, &s.id, true)?)).await
}

/// `POST /admin/v1/orgs/{org}/webhooks/{id}/disable`.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/webhooks/{id}/disable",
    tag = "admin",
    summary = "Disables a webhook",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "Disabled", body = WebhookView), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn disable_webhook(State(state): State<AppState>, s: Scope) -> Answer<WebhookView> {
    blocking(move || ok(webhooks::set_enabled(&state.store, s.org, &s.id, false)?)).await
}

/// `POST /admin/v1/orgs/{org}/webhooks/{id}/test`: queues a Test delivery (202).
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/webhooks/{id}/test",
    tag = "admin",
    summary = "Queues a Test delivery",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses(
        (status = 202, description = "Queued", body = DeliveryRow),
        (status = 429, description = "The organisation has 10 deliveries queued by hand not yet sent", body = crate::error::PortalErrorBody),
        crate::openapi::AdminErrors
    ),
    security(("admin_token" = [])),
)]
pub async fn test_webhook(State(state): State<AppState>, s: Scope) -> Answer<DeliveryRow> {
    blocking(move || accepted(webhooks::test(&state.store, &state.effects, s.org, &s.id)?)).await
}

/// `GET /admin/v1/orgs/{org}/webhooks/{id}/deliveries`: the delivery log, newest first.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/webhooks/{id}/deliveries",
    tag = "admin",
    summary = "A webhook's delivery log, newest first",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "The deliveries", body = Vec<DeliveryRow>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn webhook_deliveries(State(state): State<AppState>, s: Scope) -> Answer<Vec<DeliveryRow>> {
    blocking(move || ok(webhooks::deliveries(&state.store, s.org, &s.id, webhooks::MAX_LIST)?)).await
}

/// `POST /admin/v1/orgs/{org}/webhook-deliveries/{id}/redeliver`: the same bytes again (202).
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/webhook-deliveries/{id}/redeliver",
    tag = "admin",
    summary = "Sends the same bytes of a delivery again",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses(
        (status = 202, description = "Queued", body = DeliveryRow),
        (status = 429, description = "The organisation has 10 deliveries queued by hand not yet sent", body = crate::error::PortalErrorBody),
        crate::openapi::AdminErrors
    ),
    security(("admin_token" = [])),
)]
pub async fn redeliver(State(state): State<AppState>, s: Scope) -> Answer<DeliveryRow> {
    blocking(move || accepted(webhooks::redeliver(&state.store, &state.effects, s.org, &s.id)?)).await
}
