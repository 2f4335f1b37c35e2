//! Organisations and their catalogs.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::Value;

use super::answers::{AdminCatalog, CatalogCreated, CatalogSettingsChanged, Organisation, OrganisationCreated};
use super::common::{Answer, body, created, ok};
use crate::portal::text;
use crate::routes::blocking;
use crate::routes::caller::{Admin, Scope};
use crate::routes::portal::PortalError;
use crate::state::AppState;

/// `GET /admin/v1/orgs`.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs",
    tag = "admin",
    summary = "The organisations",
    responses((status = 200, description = "The organisations", body = Vec<Organisation>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn list_orgs(State(state): State<AppState>, _: Admin) -> Answer<Vec<Organisation>> {
    blocking(move || ok(state.store.orgs()?.into_iter().map(|(id, name)| Organisation { id: id.0, name }).collect()))
        .await
}

/// `POST /admin/v1/orgs` `{name}`: an organisation with a catalog of the same name.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs",
    tag = "admin",
    summary = "Creates an organisation with a catalog of its name",
    request_body = crate::openapi::schemas::NameInput,
    responses((status = 201, description = "Created", body = OrganisationCreated), (status = 200, description = "It existed already", body = OrganisationCreated), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn create_org(State(state): State<AppState>, _: Admin, bytes: Bytes) -> Answer<OrganisationCreated> {
    blocking(move || {
        let name = text("name", body(&bytes)?.get("name"), true, 100)?.unwrap_or_default();
        let (id, new) = state.store.ensure_org(&name)?;
        state.store.ensure_catalog(id, &name)?;
        let answer = OrganisationCreated { id: id.0, name, created: new };
        if new { created(answer) } else { ok(answer) }
    })
    .await
}

/// `GET /admin/v1/orgs/{org}/catalogs`.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/catalogs",
    tag = "admin",
    summary = "The organisation's catalogs",
    params(crate::openapi::OrgPath),
    responses((status = 200, description = "The catalogs", body = Vec<AdminCatalog>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn list_catalogs(State(state): State<AppState>, s: Scope) -> Answer<Vec<AdminCatalog>> {
    blocking(move || {
        let mut out = Vec::new();
        for (id, name, created_at) in state.store.catalogs(s.org)? {
            let generation = state.store.catalog_generation(s.org, &name)?;
            out.push(AdminCatalog { id, name, created_at, media_generation: generation });
        }
        ok(out)
    })
    .await
}

/// `POST /admin/v1/orgs/{org}/catalogs` `{name}`.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/catalogs",
    tag = "admin",
    summary = "Creates a catalog (or finds it)",
    params(crate::openapi::OrgPath),
    request_body = crate::openapi::schemas::NameInput,
    responses((status = 201, description = "Created", body = CatalogCreated), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn create_catalog(State(state): State<AppState>, s: Scope, bytes: Bytes) -> Answer<CatalogCreated> {
    blocking(move || {
        let name = text("name", body(&bytes)?.get("name"), true, 200)?.unwrap_or_default();
        let id = state.store.ensure_catalog(s.org, &name)?;
        created(CatalogCreated { id, name })
    })
    .await
}

/// `PATCH /admin/v1/orgs/{org}/catalogs/{name}` `{"media_generation": true}`: turns media asset
/// generation (`trigger_generation`) on or off for the catalog (off by default).
#[utoipa::path(
    patch,
    path = "/admin/v1/orgs/{org}/catalogs/{name}",
    tag = "admin",
    summary = "Turns media asset generation (`trigger_generation`) on or off for a catalog",
    params(crate::openapi::OrgPath, crate::openapi::CatalogName),
    request_body = crate::openapi::schemas::CatalogSettings,
    responses((status = 200, description = "Changed", body = CatalogSettingsChanged), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn update_catalog(State(state): State<AppState>, s: Scope, bytes: Bytes) -> Answer<CatalogSettingsChanged> {
    blocking(move || {
        let Some(Value::Bool(enabled)) = body(&bytes)?.get("media_generation").cloned() else {
            return Err(PortalError::new(StatusCode::BAD_REQUEST, "media_generation: must be true or false"));
        };
        if !state.store.set_catalog_generation(s.org, &s.id, enabled)? {
            return Err(PortalError::new(StatusCode::NOT_FOUND, format!("catalog {:?} not found", s.id)));
        }
        ok(CatalogSettingsChanged { name: s.id, media_generation: enabled })
    })
    .await
}
