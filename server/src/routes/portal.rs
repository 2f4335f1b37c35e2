//! The portal interface (bearer tokens, rate limited, `{error, message, statusCode}` errors).
//! Smartlists, catalogs, recipes and creative assets of the caller's organisation; lists show
//! published resources only. A path id that is not a UUID answers 400; a well-formed id of no
//! published resource of the organisation answers 404.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::caller::PortalCaller;
use crate::identity;
use crate::portal::kinds::{CreativeAssetType, Purpose, RecipeType};
use crate::portal::pages::{
    CatalogPage, CatalogsLink, CreativeAssetPage, Pagination, PortalCatalog, RecipePage, SmartlistAssetPage,
    SmartlistLink, SmartlistPage, page_of,
};
use crate::portal::{is_email, is_uuid, views};
use crate::query::Params;
use crate::state::AppState;
use crate::store::OrgId;
use crate::vocabulary::Vocabulary;

pub use crate::portal::MAX_SAFE_INTEGER;

pub use super::portal_error::{PortalError, PortalErrorBody};

/// The handler's answer: `f` run for the caller's organisation when its token carries `scope`
/// (the [`count_tokens`](super::tokens::count_tokens) layer authenticated and counted it, and puts
/// the rate-limit headers on this answer, whatever it is).
async fn answer<T: Serialize + Send + 'static>(
    caller: &PortalCaller,
    scope: &str,
    f: impl FnOnce(OrgId) -> Result<T, PortalError> + Send + 'static,
) -> Response {
    let work = match caller.require(scope) {
        Ok(org) => crate::blocking::blocking(move || f(org)).await,
        Err(e) => Err(e),
    };
    match work {
        Ok(body) => Json(body).into_response(),
        Err(e) => e.into_response(),
    }
}

fn bounded_int(params: &Params, name: &str, default: i64, min: i64, max: i64) -> Result<i64, PortalError> {
    let Some(raw) = params.get(name) else { return Ok(default) };
    match raw.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(PortalError::new(
            StatusCode::BAD_REQUEST,
            format!("{name} must be an integer from {min} to {max} (got {raw:?})"),
        )),
    }
}

/// `page` and `limit` of a portal list.
fn paging(raw: Option<&str>) -> Result<(i64, i64), PortalError> {
    let params = Params::parse(raw).map_err(|_| PortalError::new(StatusCode::BAD_REQUEST, "malformed query string"))?;
    Ok((bounded_int(&params, "page", 1, 1, MAX_SAFE_INTEGER)?, bounded_int(&params, "limit", 20, 1, 100)?))
}

fn catalogs_of(state: &AppState, org: OrgId) -> Result<Vec<PortalCatalog>, PortalError> {
    let account = state.store.org_name(org)?.unwrap_or_default();
    Ok(state
        .store
        .catalogs(org)?
        .iter()
        .map(|(id, name, created)| PortalCatalog::new(*id, name, &account, created))
        .collect())
}

/// `GET /catalogs/`.
#[utoipa::path(
    get,
    path = "/catalogs/",
    tag = "portal",
    summary = "The organisation's catalogs",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::params::PortalPage),
    responses((status = 200, description = "A page of catalogs", body = CatalogPage), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:smartlist:published"])),
)]
pub async fn catalogs(State(state): State<AppState>, RawQuery(raw): RawQuery, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[0], move |org| {
        let (page, limit) = paging(raw.as_deref())?;
        Ok(CatalogPage::of(catalogs_of(&state, org)?, page, limit))
    })
    .await
}

/// `GET /catalogs/{id}`.
#[utoipa::path(
    get,
    path = "/catalogs/{id}",
    tag = "portal",
    summary = "One catalog",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::CatalogId),
    responses((status = 200, description = "The catalog", body = PortalCatalog), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:smartlist:published"])),
)]
pub async fn catalog(State(state): State<AppState>, Path(id): Path<String>, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[0], move |org| {
        let id: i64 = id.parse().ok().filter(|v: &i64| v.abs() <= MAX_SAFE_INTEGER).ok_or_else(|| {
            PortalError::new(
                StatusCode::BAD_REQUEST,
                format!("catalog id must be an integer from -{MAX_SAFE_INTEGER} to {MAX_SAFE_INTEGER}"),
            )
        })?;
        catalogs_of(&state, org)?
            .into_iter()
            .find(|c| c.id == id)
            .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("catalog {id} not found")))
    })
    .await
}

fn query(raw: Option<&str>) -> Result<Params, PortalError> {
    Params::parse(raw).map_err(|_| PortalError::new(StatusCode::BAD_REQUEST, "malformed query string"))
}

/// A path id of a smartlist, recipe or creative asset: 400 unless it matches the interface's
/// UUID pattern (so a typo is told apart from a missing resource, which is 404).
fn uuid_path(id: &str, what: &str) -> Result<String, PortalError> {
    if is_uuid(id) {
        Ok(id.to_ascii_lowercase())
    } else {
        Err(PortalError::new(StatusCode::BAD_REQUEST, format!("{what} id must be a UUID (got {id:?})")))
    }
}

fn one_of(params: &Params, name: &str, allowed: &[&str]) -> Result<Option<String>, PortalError> {
    match params.get(name) {
        None => Ok(None),
        Some(v) if allowed.contains(&v) => Ok(Some(v.to_string())),
        Some(v) => Err(PortalError::new(
            StatusCode::BAD_REQUEST,
            format!("{name} must be one of {} (got {v:?})", allowed.join(", ")),
        )),
    }
}

/// The value of the query parameter `name` in the portal's vocabulary, when given.
fn one_kind<T: Vocabulary>(params: &Params, name: &str) -> Result<Option<T>, PortalError> {
    match params.get(name) {
        None => Ok(None),
        Some(v) => T::from_text(v).map(Some).ok_or_else(|| {
            PortalError::new(StatusCode::BAD_REQUEST, format!("{name} must be one of {} (got {v:?})", T::allowed()))
        }),
    }
}

fn email_param(params: &Params, name: &str) -> Result<Option<String>, PortalError> {
    match params.get(name) {
        None => Ok(None),
        Some(v) if is_email(v) => Ok(Some(v.to_lowercase())),
        Some(v) => {
            Err(PortalError::new(StatusCode::BAD_REQUEST, format!("{name} must be an email address (got {v:?})")))
        }
    }
}

fn contains_ci(haystack: &str, needle: Option<&str>) -> bool {
    needle.is_none_or(|n| haystack.to_lowercase().contains(&n.to_lowercase()))
}

/// `GET /smartlists/`: published smartlists, filtered.
#[utoipa::path(
    get,
    path = "/smartlists/",
    tag = "portal",
    summary = "Published smartlists, filtered",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::params::PortalPage, crate::openapi::params::SmartlistFilters),
    responses((status = 200, description = "A page of smartlists", body = SmartlistPage), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:smartlist:published"])),
)]
pub async fn smartlists(State(state): State<AppState>, RawQuery(raw): RawQuery, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[0], move |org| {
        let (page, limit) = paging(raw.as_deref())?;
        let params = query(raw.as_deref())?;
        let catalog_id = match params.get("catalogId") {
            None => None,
            Some(_) => Some(bounded_int(&params, "catalogId", 0, -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)?),
        };
        let creator = email_param(&params, "creator")?;
        let purpose = one_kind::<Purpose>(&params, "purpose")?;
        let ai = one_of(&params, "is_ai_generated", &["true", "false"])?.map(|v| v == "true");
        let items: Vec<_> = state
            .store
            .smartlists(org)?
            .iter()
            .filter(|s| s.published_at.is_some())
            .filter(|s| catalog_id.is_none_or(|c| s.catalog_id == c))
            .filter(|s| params.get("catalogName").is_none_or(|n| s.catalog_name == n))
            .filter(|s| creator.as_ref().is_none_or(|c| s.creator.to_lowercase() == *c))
            .filter(|s| purpose.as_ref().is_none_or(|p| s.purpose.contains(p)))
            .filter(|s| ai.is_none_or(|a| s.is_ai_generated == a))
            .filter(|s| contains_ci(&s.title, params.get("search")))
            .map(views::smartlist)
            .collect();
        let total = items.len() as i64;
        Ok(SmartlistPage {
            data: page_of(items, page, limit),
            pagination: Pagination::new(page, limit, total),
            _links: CatalogsLink { catalogs: "/catalogs/".into() },
        })
    })
    .await
}

fn published_smartlist(state: &AppState, org: OrgId, id: &str) -> Result<crate::store::SmartlistRow, PortalError> {
    let id = uuid_path(id, "smartlist")?;
    state
        .store
        .smartlist(org, &id)?
        .filter(|s| s.published_at.is_some())
        .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("smartlist {id} not found")))
}

/// `GET /smartlists/{id}`.
#[utoipa::path(
    get,
    path = "/smartlists/{id}",
    tag = "portal",
    summary = "One published smartlist with its filter",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::PortalId),
    responses((status = 200, description = "The smartlist", body = crate::portal::views::SmartlistDetail), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:smartlist:published"])),
)]
pub async fn smartlist(State(state): State<AppState>, Path(id): Path<String>, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[0], move |org| {
        Ok(views::smartlist_detail(&published_smartlist(&state, org, &id)?))
    })
    .await
}

/// `GET /smartlists/{id}/assets`: the current members in position order.
#[utoipa::path(
    get,
    path = "/smartlists/{id}/assets",
    tag = "portal",
    summary = "The members of a published smartlist, in position order",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::PortalId, crate::openapi::params::PortalPage),
    responses((status = 200, description = "A page of members", body = SmartlistAssetPage), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:smartlist:published"])),
)]
pub async fn smartlist_assets(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    caller: PortalCaller,
) -> Response {
    answer(&caller, identity::SCOPES[0], move |org| {
        let s = published_smartlist(&state, org, &id)?;
        let (page, limit) = paging(raw.as_deref())?;
        let offset = (page - 1).saturating_mul(limit);
        let data = state
            .store
            .smartlist_page(org, &s.id, offset, limit)?
            .iter()
            .map(|(position, item, title)| views::smartlist_asset(item, title, *position as usize))
            .collect();
        Ok(SmartlistAssetPage {
            data,
            pagination: Pagination::new(page, limit, s.item_count),
            _links: SmartlistLink { smartlist: format!("/smartlists/{}", s.id) },
        })
    })
    .await
}

/// `GET /recipes/`: published recipes, filtered.
#[utoipa::path(
    get,
    path = "/recipes/",
    tag = "portal",
    summary = "Published recipes, filtered",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::params::PortalPage, crate::openapi::params::RecipeFilters),
    responses((status = 200, description = "A page of recipes", body = RecipePage), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:recipe:published"])),
)]
pub async fn recipes(State(state): State<AppState>, RawQuery(raw): RawQuery, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[1], move |org| {
        let (page, limit) = paging(raw.as_deref())?;
        let params = query(raw.as_deref())?;
        let kind = one_kind::<RecipeType>(&params, "type")?;
        let creator = email_param(&params, "creator")?;
        let items = state
            .store
            .recipes(org)?
            .iter()
            .filter(|r| r.published_at.is_some())
            .filter(|r| kind.as_ref().is_none_or(|k| r.kind == *k))
            .filter(|r| creator.as_ref().is_none_or(|c| r.creator.to_lowercase() == *c))
            .filter(|r| contains_ci(&r.title, params.get("search")))
            .map(views::recipe)
            .collect();
        Ok(RecipePage::of(items, page, limit))
    })
    .await
}

/// `GET /recipes/{id}`.
#[utoipa::path(
    get,
    path = "/recipes/{id}",
    tag = "portal",
    summary = "One published recipe with its config and version",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::PortalId),
    responses((status = 200, description = "The recipe", body = crate::portal::views::RecipeDetail), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:recipe:published"])),
)]
pub async fn recipe(State(state): State<AppState>, Path(id): Path<String>, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[1], move |org| {
        let id = uuid_path(&id, "recipe")?;
        state
            .store
            .recipe(org, &id)?
            .filter(|r| r.published_at.is_some())
            .map(|r| views::recipe_detail(&r))
            .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("recipe {id} not found")))
    })
    .await
}

/// The creative assets of the organisation's published recipes.
fn published_assets(state: &AppState, org: OrgId) -> Result<Vec<crate::store::CreativeAssetRow>, PortalError> {
    let published: std::collections::HashSet<String> =
        state.store.recipes(org)?.into_iter().filter(|r| r.published_at.is_some()).map(|r| r.id).collect();
    Ok(state.store.creative_assets(org, None)?.into_iter().filter(|a| published.contains(&a.recipe_id)).collect())
}

/// `GET /creative-assets/`.
#[utoipa::path(
    get,
    path = "/creative-assets/",
    tag = "portal",
    summary = "Creative assets of published recipes, filtered",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::params::PortalPage, crate::openapi::params::CreativeAssetFilters),
    responses((status = 200, description = "A page of creative assets", body = CreativeAssetPage), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:creative-asset:published"])),
)]
pub async fn creative_assets(State(state): State<AppState>, RawQuery(raw): RawQuery, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[2], move |org| {
        let (page, limit) = paging(raw.as_deref())?;
        let params = query(raw.as_deref())?;
        let recipe = params.get("recipeId").map(|r| uuid_path(r, "recipeId")).transpose()?;
        let kind = one_kind::<CreativeAssetType>(&params, "type")?;
        let matching: Vec<crate::store::CreativeAssetRow> = published_assets(&state, org)?
            .into_iter()
            .filter(|a| recipe.as_ref().is_none_or(|r| a.recipe_id == *r))
            .filter(|a| params.get("inventoryId").is_none_or(|i| a.item_id == i))
            .filter(|a| kind.as_ref().is_none_or(|k| a.kind == *k))
            .collect();
        let total = matching.len() as i64;
        let data = page_of(matching, page, limit)
            .iter()
            .map(|a| views::creative_asset(a, &state.config.media_base_url))
            .collect();
        Ok(CreativeAssetPage { data, pagination: Pagination::new(page, limit, total) })
    })
    .await
}

/// `GET /creative-assets/{id}`.
#[utoipa::path(
    get,
    path = "/creative-assets/{id}",
    tag = "portal",
    summary = "One creative asset with its run number and index",
    description = "Bearer access token with the scope below; rate limited per organisation (`ratelimit-*` headers).",
    params(crate::openapi::PortalId),
    responses((status = 200, description = "The creative asset", body = crate::portal::views::CreativeAssetDetail), crate::openapi::PortalErrors),
    security(("oauth2" = ["read:creative-asset:published"])),
)]
pub async fn creative_asset(State(state): State<AppState>, Path(id): Path<String>, caller: PortalCaller) -> Response {
    answer(&caller, identity::SCOPES[2], move |org| {
        let id = uuid_path(&id, "creative asset")?;
        let a = published_assets(&state, org)?
            .into_iter()
            .find(|a| a.id == id)
            .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("creative asset {id} not found")))?;
        Ok(views::creative_asset_detail(&a, &state.config.media_base_url))
    })
    .await
}

/// This module's routes (merged in `app.rs`), with the portal's own fallbacks under the four
/// collections: `/smartlists`, `/smartlists/a/b/c` or a `POST` answer with the portal's body.
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    let routes = axum::Router::new()
        .route("/catalogs/", get(catalogs))
        .route("/catalogs/{id}", get(catalog))
        .route("/smartlists/", get(smartlists))
        .route("/smartlists/{id}", get(smartlist))
        .route("/smartlists/{id}/assets", get(smartlist_assets))
        .route("/recipes/", get(recipes))
        .route("/recipes/{id}", get(recipe))
        .route("/creative-assets/", get(creative_assets))
        .route("/creative-assets/{id}", get(creative_asset));
    super::portal_error::with_portal_fallbacks(routes, &["/catalogs", "/smartlists", "/recipes", "/creative-assets"])
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(
    catalogs,
    catalog,
    smartlists,
    smartlist,
    smartlist_assets,
    recipes,
    recipe,
    creative_assets,
    creative_asset
))]
pub struct Api;
