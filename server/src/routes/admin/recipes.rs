//! An organisation's recipes, their runs and the creative assets they made.

use axum::body::Bytes;
use axum::extract::State;

use super::answers::RunStarted;
use super::common::{Answer, accepted, body, created, ok};
use crate::portal::recipes;
use crate::portal::views::{self, AdminCreativeAsset, AdminRecipe};
use crate::routes::blocking;
use crate::routes::caller::Scope;
use crate::state::AppState;
use crate::store::RecipeStatus;

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
    blocking(move || created(views::admin_recipe(&recipes::create(&state.portal(), s.org, &body(&bytes)?)?))).await
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
    blocking(move || ok(views::admin_recipe(&recipes::get(&state.store, s.org, &s.id)?))).await
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
    blocking(move || ok(views::admin_recipe(&recipes::update(&state.portal(), s.org, &s.id, &body(&bytes)?)?))).await
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
    blocking(move || ok(views::admin_recipe(&recipes::set_published(&state.portal(), s.org, &s.id, true)?))).await
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
    blocking(move || ok(views::admin_recipe(&recipes::set_published(&state.portal(), s.org, &s.id, false)?))).await
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
        let run = recipes::start(&state.portal(), s.org, &s.id)?;
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
        let r = recipes::get(&state.store, s.org, &s.id)?;
        let assets = state.store.creative_assets(s.org, Some(&r.id))?;
        ok(assets.iter().map(|a| views::admin_creative_asset(a, &state.config.media_base_url)).collect())
    })
    .await
}
