//! Binge markers (`/results/markers/v1`): the intro, recap, end-credit and post-credits times of
//! an episode, computed by the `markers` task from its season's fingerprints and its own on-screen
//! text and black frames (`kino::markers`).

use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;
use utoipa::ToSchema;

use super::results::ListQuery;
use super::{ApiCaller, ApiCredential, blocking, live_item};
use crate::error::AppError;
use crate::openapi::params::PreviewsListQuery;
use crate::products::Product;
use crate::results::live_results;
use crate::state::AppState;
use crate::store::ResultRow;

/// The markers of one item (seconds; `null` where nothing was found or the item is not processed).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MarkersAnswer {
    /// The customer's item id.
    pub ident: String,
    /// True until the item's `markers` task has succeeded.
    pub not_yet_available: bool,
    /// Start of the intro.
    pub intro_start: Option<f64>,
    /// End of the intro.
    pub intro_end: Option<f64>,
    /// Start of the recap of earlier episodes.
    pub recap_start: Option<f64>,
    /// End of the recap.
    pub recap_end: Option<f64>,
    /// Start of the end credits.
    pub credit_start: Option<f64>,
    /// End of the end credits: where their last text goes, or black frames after it start.
    pub credit_end: Option<f64>,
    /// Start of a scene after the end credits (a post-credits scene, after black frames).
    pub post_credits_start: Option<f64>,
    /// End of that scene.
    pub post_credits_end: Option<f64>,
    /// Start of a scene between two parts of the end credits (a mid-credits scene).
    pub mid_credits_start: Option<f64>,
    /// End of that scene.
    pub mid_credits_end: Option<f64>,
    /// Which cue found the end credits: `text` (the on-screen text channel), `picture` (frames the
    /// image classifier takes for text, or a picture rolling up as credits do) or `season` (the
    /// end the season's episodes share); `null` without credits.
    pub credits_cue: Option<String>,
    /// How many other episodes of the season were compared (absent until available).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub episodes_compared: Option<usize>,
}

impl MarkersAnswer {
    fn new(ident: String, row: Option<&ResultRow>) -> MarkersAnswer {
        let stored = crate::products::stored_markers(row);
        let m = stored.clone().unwrap_or_default();
        MarkersAnswer {
            ident,
            not_yet_available: stored.is_none(),
            intro_start: m.intro_start,
            intro_end: m.intro_end,
            recap_start: m.recap_start,
            recap_end: m.recap_end,
            credit_start: m.credit_start,
            credit_end: m.credit_end,
            post_credits_start: m.post_credits_start,
            post_credits_end: m.post_credits_end,
            mid_credits_start: m.mid_credits_start,
            mid_credits_end: m.mid_credits_end,
            credits_cue: m.credits_cue,
            episodes_compared: stored.map(|s| s.episodes_compared),
        }
    }
}

/// A page of markers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MarkersList {
    /// The page, from 0.
    pub page_num: i64,
    /// Markers per page.
    pub page_size: i64,
    /// Markers on every page.
    pub total_count: usize,
    /// This page's markers, oldest update first.
    pub data: Vec<MarkersAnswer>,
}

/// The binge markers of an item: `not_yet_available` until its `markers` task has succeeded.
#[utoipa::path(
    get,
    path = "/results/markers/v1/asset/{inventory_id}",
    tag = "markers",
    params(crate::openapi::InventoryId),
    responses((status = 200, description = "The markers", body = MarkersAnswer), super::results::ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn asset(
    State(state): State<AppState>,
    Path(id): Path<String>,
    credential: ApiCredential,
) -> Result<Json<MarkersAnswer>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let item = live_item(&state, org, &id)?;
        let row = state.store.result(org, &item.id, Product::Markers, None)?;
        Ok(Json(MarkersAnswer::new(item.id, row.as_ref())))
    })
    .await
}

/// Items with markers, oldest update first.
#[utoipa::path(
    get,
    path = "/results/markers/v1/",
    tag = "markers",
    params(PreviewsListQuery),
    responses((status = 200, description = "A page of markers", body = MarkersList), super::results::ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn list(State(state): State<AppState>, credential: ApiCredential) -> Result<Json<MarkersList>, AppError> {
    blocking(move || {
        let ApiCaller { org, params, .. } = credential.check(&state.store)?;
        let q = ListQuery::parse(&params, 1000)?;
        let data: Vec<MarkersAnswer> = live_results(&state.store, org, Product::Markers, q.window(&params), None)?
            .into_iter()
            .map(|(item, row)| MarkersAnswer::new(item.id, Some(&row)))
            .collect();
        let total_count = data.len();
        Ok(Json(MarkersList { page_num: q.page_num, page_size: q.page_size, total_count, data: q.page(data) }))
    })
    .await
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/results/markers/v1/", get(list))
        .route("/results/markers/v1/asset/{inventory_id}", get(asset))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(asset, list))]
pub struct Api;
