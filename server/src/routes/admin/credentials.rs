//! An organisation's credentials: API keys and OAuth clients.

use axum::extract::State;

use super::answers::{ApiKeyCreated, ClientCreated, Revoked};
use super::common::{Answer, created, ok};
use crate::routes::blocking;
use crate::routes::caller::Scope;
use crate::state::AppState;

/// `GET /admin/v1/orgs/{org}/api-keys`: prefixes and times only, revoked keys too.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/api-keys",
    tag = "admin",
    summary = "The organisation's API keys (prefixes only)",
    params(crate::openapi::OrgPath),
    responses((status = 200, description = "The keys", body = Vec<crate::auth::ApiKeyListing>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn list_keys(State(state): State<AppState>, s: Scope) -> Answer<Vec<crate::auth::ApiKeyListing>> {
    blocking(move || ok(crate::auth::keys(&state.store, s.org)?)).await
}

/// `POST /admin/v1/orgs/{org}/api-keys`: the key is in this answer only.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/api-keys",
    tag = "admin",
    summary = "Creates an API key, shown in this answer only",
    params(crate::openapi::OrgPath),
    responses((status = 201, description = "Created", body = ApiKeyCreated), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn create_key(State(state): State<AppState>, s: Scope) -> Answer<ApiKeyCreated> {
    blocking(move || {
        let (key, prefix) = crate::auth::create_key(&state.store, s.org)?;
        created(ApiKeyCreated { key, prefix, note: "shown once; stored only as a hash" })
    })
    .await
}

/// `DELETE /admin/v1/orgs/{org}/api-keys/{id}`: revokes the live key with this prefix (as listed);
/// 404 when none, 409 when the prefix is ambiguous (nothing revoked). Effective at once.
#[utoipa::path(
    delete,
    path = "/admin/v1/orgs/{org}/api-keys/{id}",
    tag = "admin",
    summary = "Revokes an API key, given by its prefix (effective at the next request)",
    params(crate::openapi::OrgPath, ("id" = String, Path, description = "The key's prefix, as listed")),
    responses((status = 200, description = "Revoked", body = Revoked), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn revoke_key(State(state): State<AppState>, s: Scope) -> Answer<Revoked> {
    blocking(move || ok(Revoked { revoked: crate::auth::revoke_key(&state.store, s.org, &s.id)? })).await
}

/// `GET /admin/v1/orgs/{org}/clients`: client ids and times only, revoked clients too.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/clients",
    tag = "admin",
    summary = "The organisation's OAuth clients (ids only; secrets are never shown)",
    params(crate::openapi::OrgPath),
    responses((status = 200, description = "The clients", body = Vec<crate::identity::ClientListing>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn list_clients(State(state): State<AppState>, s: Scope) -> Answer<Vec<crate::identity::ClientListing>> {
    blocking(move || ok(crate::identity::clients(&state.store, s.org)?)).await
}

/// `POST /admin/v1/orgs/{org}/clients`: OAuth client credentials; the secret is in this answer only.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/clients",
    tag = "admin",
    summary = "Creates OAuth client credentials; the secret is shown in this answer only",
    params(crate::openapi::OrgPath),
    responses((status = 201, description = "Created", body = ClientCreated), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn create_client(State(state): State<AppState>, s: Scope) -> Answer<ClientCreated> {
    blocking(move || {
        let (client_id, secret) = crate::identity::create_client(&state.store, s.org)?;
        created(ClientCreated {
            client_id,
            client_secret: secret,
            note: "the secret is shown once; stored only as a hash",
        })
    })
    .await
}

/// `DELETE /admin/v1/orgs/{org}/clients/{id}`: revokes the client; it gets no new token and the
/// tokens it holds are refused from the next request on. 404 when it is not a live client.
#[utoipa::path(
    delete,
    path = "/admin/v1/orgs/{org}/clients/{id}",
    tag = "admin",
    summary = "Revokes an OAuth client and every token it holds (effective at the next request)",
    params(crate::openapi::OrgPath, ("id" = String, Path, description = "The client id")),
    responses((status = 200, description = "Revoked", body = Revoked), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn revoke_client(State(state): State<AppState>, s: Scope) -> Answer<Revoked> {
    blocking(move || {
        crate::identity::revoke_client(&state.store, s.org, &s.id)?;
        ok(Revoked { revoked: s.id.trim().to_string() })
    })
    .await
}
