//! The admin HTTP API: what the interface places in its web application (organisations,
//! catalogs, API keys, OAuth clients, smartlists, recipes, webhooks), under `/admin/v1`, behind
//! the admin credential (`Authorization: Bearer <admin token>`). Errors use the portal error body.
//! `kino-server admin ...` offers the same operations from the command line.

use std::collections::HashMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde_json::Value;
use subtle::ConstantTimeEq;

use super::blocking;
use super::portal::PortalError;
use crate::auth::{CredentialError, hash_key};
use crate::portal::views::{AdminCreativeAsset, AdminRecipe, SmartlistAsset, SmartlistDetail};
use crate::portal::{ManageError, recipes, smartlists, text, views};
use crate::state::AppState;
use crate::store::{DeliveryRow, OrgId, RecipeStatus};
use crate::webhooks::{self, WebhookError, WebhookView};

mod answers;

pub use answers::{
    AdminCatalog, ApiKeyCreated, CatalogCreated, CatalogSettingsChanged, ClientCreated, Deleted, Organisation,
    OrganisationCreated, RefreshOutcome, Revoked, RunStarted, WebhookCreated,
};

impl From<ManageError> for PortalError {
    fn from(e: ManageError) -> Self {
        match &e {
            ManageError::Invalid { .. } => PortalError::new(StatusCode::BAD_REQUEST, e.to_string()),
            ManageError::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            ManageError::Conflict(_) => PortalError::new(StatusCode::CONFLICT, e.to_string()),
            ManageError::Store(inner) => {
                tracing::error!(error = %inner, "database error");
                PortalError::internal()
            }
        }
    }
}

impl From<WebhookError> for PortalError {
    fn from(e: WebhookError) -> Self {
        match e {
            WebhookError::Invalid { .. } => PortalError::new(StatusCode::BAD_REQUEST, e.to_string()),
            WebhookError::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            WebhookError::Store(inner) => inner.into(),
        }
    }
}

impl From<CredentialError> for PortalError {
    fn from(e: CredentialError) -> Self {
        match e {
            CredentialError::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            CredentialError::Ambiguous { .. } => PortalError::new(StatusCode::CONFLICT, e.to_string()),
            CredentialError::Store(inner) => inner.into(),
        }
    }
}

/// What an admin handler answers: a status and `T` as JSON.
type Answer<T> = Result<(StatusCode, Json<T>), PortalError>;

fn ok<T>(v: T) -> Answer<T> {
    Ok((StatusCode::OK, Json(v)))
}

fn created<T>(v: T) -> Answer<T> {
    Ok((StatusCode::CREATED, Json(v)))
}

fn accepted<T>(v: T) -> Answer<T> {
    Ok((StatusCode::ACCEPTED, Json(v)))
}

/// The admin credential, checked before a handler runs.
#[derive(Debug)]
pub struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = PortalError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Admin, PortalError> {
        let given = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim);
        match (&state.config.admin_token, given) {
            (Some(expected), Some(given))
                if bool::from(hash_key(given).as_bytes().ct_eq(hash_key(expected).as_bytes())) =>
            {
                Ok(Admin)
            }
            _ => Err(PortalError::new(
                StatusCode::UNAUTHORIZED,
                "the admin API needs Authorization: Bearer <admin token>",
            )
            .with_challenge("Bearer realm=\"kino-admin\"")),
        }
    }
}

/// For the admin: the organisation named `{org}` in the path, and the path's other segment
/// (`{id}` or `{name}`; empty when there is none).
#[derive(Debug)]
pub struct Scope {
    org: OrgId,
    id: String,
}

impl FromRequestParts<AppState> for Scope {
    type Rejection = PortalError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Scope, PortalError> {
        Admin::from_request_parts(parts, state).await?;
        let Path(mut params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|e| PortalError::new(StatusCode::BAD_REQUEST, e.body_text()))?;
        let name = params.remove("org").unwrap_or_default();
        let s = state.clone();
        let org = blocking(move || {
            s.store
                .org_by_name(&name)?
                .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("organisation {name:?} not found")))
        })
        .await?;
        let id = params.remove("id").or_else(|| params.remove("name")).unwrap_or_default();
        Ok(Scope { org, id })
    }
}

fn body(bytes: &Bytes) -> Result<Value, PortalError> {
    if bytes.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| PortalError::new(StatusCode::BAD_REQUEST, format!("the body must be a JSON object: {e}")))
}

// ---- organisations, catalogs, credentials ----

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

// ---- smartlists ----

/// `GET /admin/v1/orgs/{org}/smartlists`: drafts included.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/smartlists",
    tag = "admin",
    summary = "The organisation's smartlists, drafts included",
    params(crate::openapi::OrgPath),
    responses((status = 200, description = "The smartlists", body = Vec<SmartlistDetail>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn list_smartlists(State(state): State<AppState>, s: Scope) -> Answer<Vec<SmartlistDetail>> {
    blocking(move || ok(state.store.smartlists(s.org)?.iter().map(views::smartlist_detail).collect())).await
}

/// `POST /admin/v1/orgs/{org}/smartlists`.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/smartlists",
    tag = "admin",
    summary = "Creates a smartlist and computes its membership",
    params(crate::openapi::OrgPath),
    request_body = crate::openapi::schemas::SmartlistInput,
    responses((status = 201, description = "Created", body = SmartlistDetail), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn create_smartlist(State(state): State<AppState>, s: Scope, bytes: Bytes) -> Answer<SmartlistDetail> {
    blocking(move || created(views::smartlist_detail(&smartlists::create(&state, s.org, &body(&bytes)?)?))).await
}

/// `GET /admin/v1/orgs/{org}/smartlists/{id}`.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/smartlists/{id}",
    tag = "admin",
    summary = "One smartlist",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "The smartlist", body = SmartlistDetail), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn get_smartlist(State(state): State<AppState>, s: Scope) -> Answer<SmartlistDetail> {
    blocking(move || ok(views::smartlist_detail(&smartlists::get(&state, s.org, &s.id)?))).await
}

/// `PATCH /admin/v1/orgs/{org}/smartlists/{id}`: the fields given.
#[utoipa::path(
    patch,
    path = "/admin/v1/orgs/{org}/smartlists/{id}",
    tag = "admin",
    summary = "Changes the fields given; a new filter recomputes the membership",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    request_body = crate::openapi::schemas::SmartlistInput,
    responses((status = 200, description = "Changed", body = SmartlistDetail), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn update_smartlist(State(state): State<AppState>, s: Scope, bytes: Bytes) -> Answer<SmartlistDetail> {
    blocking(move || ok(views::smartlist_detail(&smartlists::update(&state, s.org, &s.id, &body(&bytes)?)?))).await
}

/// `DELETE /admin/v1/orgs/{org}/smartlists/{id}`.
#[utoipa::path(
    delete,
    path = "/admin/v1/orgs/{org}/smartlists/{id}",
    tag = "admin",
    summary = "Deletes a smartlist",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "Deleted", body = Deleted), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn delete_smartlist(State(state): State<AppState>, s: Scope) -> Answer<Deleted> {
    blocking(move || {
        smartlists::delete(&state, s.org, &s.id)?;
        ok(Deleted { deleted: s.id })
    })
    .await
}

/// `POST /admin/v1/orgs/{org}/smartlists/{id}/publish`.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/smartlists/{id}/publish",
    tag = "admin",
    summary = "Publishes a smartlist",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "Published", body = SmartlistDetail), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn publish_smartlist(State(state): State<AppState>, s: Scope) -> Answer<SmartlistDetail> {
    blocking(move || ok(views::smartlist_detail(&smartlists::set_published(&state, s.org, &s.id, true)?))).await
}

/// `POST /admin/v1/orgs/{org}/smartlists/{id}/unpublish`.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/smartlists/{id}/unpublish",
    tag = "admin",
    summary = "Makes a smartlist a draft",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "A draft", body = SmartlistDetail), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn unpublish_smartlist(State(state): State<AppState>, s: Scope) -> Answer<SmartlistDetail> {
    blocking(move || ok(views::smartlist_detail(&smartlists::set_published(&state, s.org, &s.id, false)?))).await
}

/// `GET /admin/v1/orgs/{org}/smartlists/{id}/assets`: the members (drafts too).
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/smartlists/{id}/assets",
    tag = "admin",
    summary = "A smartlist's members, drafts too",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "The members", body = Vec<SmartlistAsset>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn smartlist_members(State(state): State<AppState>, s: Scope) -> Answer<Vec<SmartlistAsset>> {
    blocking(move || {
        let list = smartlists::get(&state, s.org, &s.id)?;
        let mut out = Vec::new();
        for (i, item) in state.store.smartlist_members(&list.id)?.iter().enumerate() {
            let title = state.store.item(s.org, item)?.and_then(|it| it.body["title"].as_str().map(String::from));
            out.push(views::smartlist_asset(item, title.as_deref().unwrap_or(""), i + 1));
        }
        ok(out)
    })
    .await
}

/// `POST /admin/v1/orgs/{org}/smartlists/refresh`: recompute every smartlist of the organisation now.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/smartlists/refresh",
    tag = "admin",
    summary = "Recomputes every smartlist of the organisation now",
    params(crate::openapi::OrgPath),
    responses((status = 200, description = "The changes", body = RefreshOutcome), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn refresh_smartlists(State(state): State<AppState>, s: Scope) -> Answer<RefreshOutcome> {
    blocking(move || ok(RefreshOutcome { changed: smartlists::refresh(&state, s.org, None, chrono::Utc::now())? }))
        .await
}

// ---- recipes ----

/// `GET /admin/v1/orgs/{org}/recipes`: drafts included.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/recipes",
    tag = "admin",
    summary = "The organisation's recipes, drafts included",
    params(crate::openapi::OrgPath),
    responses((status = 200, description = "The recipes", body = Vec<AdminRecipe>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn list_recipes(State(state): State<AppState>, s: Scope) -> Answer<Vec<AdminRecipe>> {
    blocking(move || ok(state.store.recipes(s.org)?.iter().map(views::admin_recipe).collect())).await
}

/// `POST /admin/v1/orgs/{org}/recipes`; a published recipe starts running.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/recipes",
    tag = "admin",
    summary = "Creates a recipe; a published one starts running",
    params(crate::openapi::OrgPath),
    request_body = crate::openapi::schemas::RecipeInput,
    responses((status = 201, description = "Created", body = AdminRecipe), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn create_recipe(State(state): State<AppState>, s: Scope, bytes: Bytes) -> Answer<AdminRecipe> {
    blocking(move || created(views::admin_recipe(&recipes::create(&state, s.org, &body(&bytes)?)?))).await
}

/// `GET /admin/v1/orgs/{org}/recipes/{id}`.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/recipes/{id}",
    tag = "admin",
    summary = "One recipe",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "The recipe", body = AdminRecipe), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn get_recipe(State(state): State<AppState>, s: Scope) -> Answer<AdminRecipe> {
    blocking(move || ok(views::admin_recipe(&recipes::get(&state, s.org, &s.id)?))).await
}

/// `PATCH /admin/v1/orgs/{org}/recipes/{id}`.
#[utoipa::path(
    patch,
    path = "/admin/v1/orgs/{org}/recipes/{id}",
    tag = "admin",
    summary = "Changes the fields given (a new config bumps `version`)",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    request_body = crate::openapi::schemas::RecipeInput,
    responses((status = 200, description = "Changed", body = AdminRecipe), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn update_recipe(State(state): State<AppState>, s: Scope, bytes: Bytes) -> Answer<AdminRecipe> {
    blocking(move || ok(views::admin_recipe(&recipes::update(&state, s.org, &s.id, &body(&bytes)?)?))).await
}

/// `POST /admin/v1/orgs/{org}/recipes/{id}/publish` (runs it).
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/recipes/{id}/publish",
    tag = "admin",
    summary = "Publishes a recipe, which runs it",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "Published", body = AdminRecipe), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn publish_recipe(State(state): State<AppState>, s: Scope) -> Answer<AdminRecipe> {
    blocking(move || ok(views::admin_recipe(&recipes::set_published(&state, s.org, &s.id, true)?))).await
}

/// `POST /admin/v1/orgs/{org}/recipes/{id}/unpublish`.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/recipes/{id}/unpublish",
    tag = "admin",
    summary = "Makes a recipe a draft",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "A draft", body = AdminRecipe), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn unpublish_recipe(State(state): State<AppState>, s: Scope) -> Answer<AdminRecipe> {
    blocking(move || ok(views::admin_recipe(&recipes::set_published(&state, s.org, &s.id, false)?))).await
}

/// `POST /admin/v1/orgs/{org}/recipes/{id}/run`: 202 with the run number.
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/recipes/{id}/run",
    tag = "admin",
    summary = "Runs a recipe again (409 while a run is in progress)",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 202, description = "Started", body = RunStarted), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn run_recipe(State(state): State<AppState>, s: Scope) -> Answer<RunStarted> {
    blocking(move || {
        let run = recipes::start(&state, s.org, &s.id)?;
        accepted(RunStarted { recipe_id: s.id, run_number: run, status: RecipeStatus::Running })
    })
    .await
}

/// `GET /admin/v1/orgs/{org}/recipes/{id}/creative-assets`: every asset of every run.
#[utoipa::path(
    get,
    path = "/admin/v1/orgs/{org}/recipes/{id}/creative-assets",
    tag = "admin",
    summary = "Every creative asset of every run of a recipe, with its error",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 200, description = "The assets", body = Vec<AdminCreativeAsset>), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn recipe_assets(State(state): State<AppState>, s: Scope) -> Answer<Vec<AdminCreativeAsset>> {
    blocking(move || {
        let r = recipes::get(&state, s.org, &s.id)?;
        let assets = state.store.creative_assets(s.org, Some(&r.id))?;
        ok(assets.iter().map(|a| views::admin_creative_asset(a, &state.config.media_base_url)).collect())
    })
    .await
}

// ---- webhooks ----

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
    blocking(move || ok(webhooks::list(&state, s.org)?)).await
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
        let (mut view, secret) = webhooks::create(&state, s.org, &url, &events)?;
        if enable {
            view = webhooks::set_enabled(&state, s.org, &view.id, true)?;
        }
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
        webhooks::delete(&state, s.org, &s.id)?;
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
    blocking(move || ok(webhooks::set_enabled(&state, s.org, &s.id, true)?)).await
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
    blocking(move || ok(webhooks::set_enabled(&state, s.org, &s.id, false)?)).await
}

/// `POST /admin/v1/orgs/{org}/webhooks/{id}/test`: queues a Test delivery (202).
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/webhooks/{id}/test",
    tag = "admin",
    summary = "Queues a Test delivery",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 202, description = "Queued", body = DeliveryRow), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn test_webhook(State(state): State<AppState>, s: Scope) -> Answer<DeliveryRow> {
    blocking(move || accepted(webhooks::test(&state, s.org, &s.id)?)).await
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
    blocking(move || ok(webhooks::deliveries(&state, s.org, &s.id, webhooks::MAX_LIST)?)).await
}

/// `POST /admin/v1/orgs/{org}/webhook-deliveries/{id}/redeliver`: the same bytes again (202).
#[utoipa::path(
    post,
    path = "/admin/v1/orgs/{org}/webhook-deliveries/{id}/redeliver",
    tag = "admin",
    summary = "Sends the same bytes of a delivery again",
    params(crate::openapi::OrgPath, crate::openapi::ResourceId),
    responses((status = 202, description = "Queued", body = DeliveryRow), crate::openapi::AdminErrors),
    security(("admin_token" = [])),
)]
pub async fn redeliver(State(state): State<AppState>, s: Scope) -> Answer<DeliveryRow> {
    blocking(move || accepted(webhooks::redeliver(&state, s.org, &s.id)?)).await
}
