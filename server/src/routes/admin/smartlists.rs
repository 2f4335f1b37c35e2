//! An organisation's smartlists, drafts included.

use axum::body::Bytes;
use axum::extract::State;

use super::answers::{Deleted, RefreshOutcome};
use super::common::{Answer, body, created, ok};
use crate::portal::smartlists;
use crate::portal::views::{self, SmartlistAsset, SmartlistDetail};
use crate::routes::blocking;
use crate::routes::caller::Scope;
use crate::state::AppState;

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
    blocking(move || created(views::smartlist_detail(&smartlists::create(&state.portal(), s.org, &body(&bytes)?)?)))
        .await
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
    blocking(move || ok(views::smartlist_detail(&smartlists::get(&state.store, s.org, &s.id)?))).await
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
    blocking(move || ok(views::smartlist_detail(&smartlists::update(&state.portal(), s.org, &s.id, &body(&bytes)?)?)))
        .await
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
        smartlists::delete(&state.store, s.org, &s.id)?;
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
    blocking(move || ok(views::smartlist_detail(&smartlists::set_published(&state.portal(), s.org, &s.id, true)?)))
        .await
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
    blocking(move || ok(views::smartlist_detail(&smartlists::set_published(&state.portal(), s.org, &s.id, false)?)))
        .await
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
        let list = smartlists::get(&state.store, s.org, &s.id)?;
        let mut out = Vec::new();
        for (i, item) in state.store.smartlist_members(&list.id)?.iter().enumerate() {
            let title = state.store.item(s.org, item)?.and_then(|it| it.title().map(String::from));
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
    blocking(move || {
        ok(RefreshOutcome { changed: smartlists::refresh(&state.portal(), s.org, None, chrono::Utc::now())? })
    })
    .await
}
