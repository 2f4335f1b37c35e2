//! Just-in-time thumbnails (`/results/jitthumbnails/v2`): a frame in each of the best clips, chosen
//! by the core's thumbnail frame rule, with generation of the images; status and list as for
//! previews. Authentication, rate limits and catalogs are the previews'.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use kino::thumbnail::{ThumbnailQuery, jit_thumbnails};

use super::caller::PreviewsCredential;
use super::envelope::{
    GenerationStatus, ItemIdentity, ThumbnailOut, ThumbnailsAnswer, ThumbnailsAnswerData, ThumbnailsList,
};
use super::previews::{Selection, generation_of, require_generation, selection_pairs};
use super::results::{item_status, list_product};
use super::{StatusEnvelope, blocking};
use crate::error::AppError;
use crate::state::AppState;
use crate::store::{OrgId, ResultStatus};

/// Thumbnails of an item: the clip search's parameters choose the clips, the frame rule
/// (`shot_margin`, `main_character`, and the clip bounds where stricter) a frame in each;
/// `trigger_generation=true` also renders the images in the background.
#[utoipa::path(
    get,
    operation_id = "search_thumbnails",
    path = "/results/jitthumbnails/v2/{inventory_id}",
    tag = "thumbnails",
    params(crate::openapi::InventoryId, crate::openapi::params::ThumbnailSearch, crate::openapi::params::CatalogQuery),
    responses(
        (status = 200, description = "The thumbnails", body = ThumbnailsAnswer),
        (status = 429, description = "Too many generations queued; try again after `Retry-After`", body = crate::error::ErrorDetail),
        crate::openapi::PreviewsErrors,
    ),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn thumbnails(
    State(state): State<AppState>,
    Path(id): Path<String>,
    c: PreviewsCredential,
) -> impl IntoResponse {
    blocking(move || {
        let c = c.check(&state.store)?;
        thumbnails_of(state, c.org, &c.params, id)
    })
    .await
}

fn thumbnails_of(
    state: AppState,
    org: OrgId,
    params: &crate::query::Params,
    id: String,
) -> Result<Json<ThumbnailsAnswer>, AppError> {
    let query = ThumbnailQuery::from_pairs(selection_pairs(params))?;
    let selection = Selection::of(
        &state.store,
        &state.signals,
        state.analysis.encoder.as_ref(),
        org,
        &id,
        query.clips.search_query.as_deref(),
    )?;
    let found = jit_thumbnails(&selection.prepared, &query, selection.embedding.as_deref())?;
    let version = query.clips.effective_version().to_string();
    let version_id = selection.version_id(crate::products::Product::Jitthumbnails, &version);
    let Selection { item, prepared, .. } = selection;
    let clips = &query.clips;
    let mut gen_id = None;
    let mut out: Vec<ThumbnailOut> =
        found.iter().map(|t| ThumbnailOut { thumbnail: t.clone(), generated: None }).collect();
    if clips.trigger_generation || clips.generate {
        require_generation(&state, org, params, clips)?;
        let vertical = clips.aspect_ratio == kino::clips::AspectRatio::Vertical9x16;
        let request =
            crate::generation::GenerationRequest::thumbnails(&found, prepared.signals().fps, vertical, &version);
        let queued = crate::generation::queue(
            &state.store,
            &state.effects,
            state.config.max_queued_generations,
            org,
            &id,
            request,
        )?;
        for (n, t) in out.iter_mut().enumerate() {
            t.generated = Some(crate::jobs::render::thumbnail_paths(&queued, n));
        }
        gen_id = Some(queued);
    }
    Ok(Json(ThumbnailsAnswer {
        status: ResultStatus::Success,
        error: String::new(),
        updated: crate::store::now(),
        version_id: version_id.clone(),
        inventory_id: item.id.clone(),
        item_type: item.item_type.result_type(),
        data: ThumbnailsAnswerData {
            item: ItemIdentity {
                inventory_id: item.id,
                item_type: item.item_type.result_type(),
                service_id: item.service_id,
                version_id,
            },
            jitthumbnail: out,
            gen_id,
        },
    }))
}

/// The status of a thumbnails generation: 404 until it has finished, then 200 with `SUCCESS` and
/// the images (`data.jitthumbnail`), or `FAILED` with `data: null`.
#[utoipa::path(
    get,
    operation_id = "thumbnails_generation_status",
    path = "/results/jitthumbnails/v2/gen/{gen_id}/status",
    tag = "thumbnails",
    params(("gen_id" = String, Path, description = "The `gen_id` of a thumbnails search"), crate::openapi::params::CatalogQuery),
    responses((status = 200, description = "Finished", body = GenerationStatus), crate::openapi::PreviewsErrors),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn generation(
    State(state): State<AppState>,
    Path(gen_id): Path<String>,
    c: PreviewsCredential,
) -> impl IntoResponse {
    blocking(move || {
        let c = c.check(&state.store)?;
        generation_of(state, c.org, gen_id)
    })
    .await
}

/// The status of the item's thumbnails result (its signals were processed).
#[utoipa::path(
    get,
    operation_id = "thumbnails_status",
    path = "/results/jitthumbnails/v2/status/{inventory_id}",
    tag = "thumbnails",
    params(crate::openapi::InventoryId, crate::openapi::params::VersionQuery, crate::openapi::params::CatalogQuery),
    responses((status = 200, description = "The result's status", body = StatusEnvelope), crate::openapi::PreviewsErrors),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn status(State(state): State<AppState>, Path(id): Path<String>, c: PreviewsCredential) -> impl IntoResponse {
    blocking(move || {
        let c = c.check(&state.store)?;
        item_status(&state, c.org, &c.params, &id, crate::products::Product::Jitthumbnails).map(Json)
    })
    .await
}

/// Items with thumbnails results, oldest update first.
#[utoipa::path(
    get,
    operation_id = "list_thumbnails",
    path = "/results/jitthumbnails/v2/",
    tag = "thumbnails",
    params(crate::openapi::params::PreviewsListQuery, crate::openapi::params::CatalogQuery),
    responses((status = 200, description = "A page of results", body = ThumbnailsList), crate::openapi::PreviewsErrors),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn list(State(state): State<AppState>, c: PreviewsCredential) -> impl IntoResponse {
    blocking(move || {
        let c = c.check(&state.store)?;
        list_product(&state, c.org, &c.params, crate::products::Product::Jitthumbnails, 1000, None).map(Json)
    })
    .await
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/results/jitthumbnails/v2/", get(list))
        .route("/results/jitthumbnails/v2/gen/{gen_id}/status", get(generation))
        .route("/results/jitthumbnails/v2/status/{inventory_id}", get(status))
        .route("/results/jitthumbnails/v2/{inventory_id}", get(thumbnails))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(thumbnails, generation, status, list))]
pub struct Api;
