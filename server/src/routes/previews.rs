//! Previews (`/results/jitpreviews/v2`): clip search through the core's `ClipQuery` parser,
//! generation, status, clip types, list. A caller with an access token (rather than an API key)
//! is counted against its organisation's portal rate limit and needs the `read:previews` scope.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use kino::ClipQuery;
use serde_json::json;

use super::caller::{PreviewsCaller, PreviewsCredential};
use super::envelope::{ClipsData, ClipsEnvelope, GenerationState, GenerationStatus, ItemIdentity, PreviewsList};
use super::results::{item_status, list_product};
use super::{StatusEnvelope, blocking};
use crate::error::{AppError, Detail};
use crate::generation::{self, Finished, GenerationError};
use crate::query::Params;
use crate::state::AppState;
use crate::store::{OrgId, ResultStatus};

/// The best moments of an item as preview clips, chosen by the parameters (docs/clip-selection.md);
/// `trigger_generation=true` also renders them in the background.
#[utoipa::path(
    get,
    operation_id = "search_clips",
    path = "/results/jitpreviews/v2/{inventory_id}",
    tag = "previews",
    params(crate::openapi::InventoryId, crate::openapi::params::ClipSearch, crate::openapi::params::CatalogQuery),
    responses(
        (status = 200, description = "The clips", body = ClipsEnvelope),
        (status = 429, description = "Too many generations queued; try again after `Retry-After`", body = crate::error::ErrorDetail),
        crate::openapi::PreviewsErrors,
    ),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn clips(State(state): State<AppState>, Path(id): Path<String>, c: PreviewsCredential) -> impl IntoResponse {
    blocking(move || {
        let c = c.check(&state.store)?;
        clips_of(state, c.org, &c.params, id)
    })
    .await
}

pub use crate::previews::Selection;

/// The query's parameters without the credential and the catalog, for the core's parsers.
pub fn selection_pairs(params: &Params) -> impl Iterator<Item = (&str, &str)> {
    params.0.iter().filter(|(k, _)| k != "key" && k != "catalog").map(|(k, v)| (k.as_str(), v.as_str()))
}

fn clips_of(state: AppState, org: OrgId, params: &Params, id: String) -> Result<Json<ClipsEnvelope>, AppError> {
    let query = ClipQuery::from_pairs(selection_pairs(params))?;
    let selection = Selection::of(
        &state.store,
        &state.signals,
        state.analysis.encoder.as_ref(),
        org,
        &id,
        query.search_query.as_deref(),
    )?;
    let mut clips = kino::select(&selection.prepared, &query, selection.embedding.as_deref())?;
    for clip in &mut clips {
        clip.service_id = Some(selection.item.service_id.clone());
    }
    let version = query.effective_version().to_string();
    let version_id = selection.version_id(crate::products::Product::Jitpreviews, &version);
    let item = selection.item;
    let mut gen_id = None;
    if query.trigger_generation || query.generate {
        require_generation(&state, org, params, &query)?;
        // Rendering is queued durably and runs in the background with a bounded number of
        // renders at once; the gen status answers 404 until it has finished.
        let vertical = query.aspect_ratio == kino::clips::AspectRatio::Vertical9x16;
        let request = crate::generation::GenerationRequest::new(&clips, vertical, &version);
        let queued =
            generation::queue(&state.store, &state.effects, state.config.max_queued_generations, org, &id, request)?;
        for (n, clip) in clips.iter_mut().enumerate() {
            clip.generated = Some(crate::jobs::render::paths(&queued, n));
        }
        gen_id = Some(queued);
    }
    Ok(Json(ClipsEnvelope {
        status: ResultStatus::Success,
        error: String::new(),
        updated: crate::store::now(),
        version_id: version_id.clone(),
        inventory_id: item.id.clone(),
        item_type: item.item_type.result_type(),
        data: ClipsData {
            item: ItemIdentity {
                inventory_id: item.id,
                item_type: item.item_type.result_type(),
                service_id: item.service_id,
                version_id,
            },
            jitpreview: clips,
            gen_id,
        },
    }))
}

/// Refuses a generation request (`trigger_generation`, or the deprecated `generate`) for a catalog
/// without media asset generation (off by default), naming the parameter.
pub(super) fn require_generation(
    state: &AppState,
    org: OrgId,
    params: &Params,
    query: &ClipQuery,
) -> Result<(), AppError> {
    let catalog = params.get("catalog").unwrap_or_default();
    match generation::require_enabled(&state.store, org, catalog) {
        Err(GenerationError::NotEnabled(_)) => {
            let name = if query.generate { "generate" } else { "trigger_generation" };
            Err(AppError::invalid(Detail::query(
                name,
                "value_error",
                format!(
                    "Value error, media asset generation is not enabled for catalog {catalog:?} (off by default; \
                     kino-server admin set-generation ORG {catalog} on, or PATCH /admin/v1/orgs/ORG/catalogs/{catalog})"
                ),
                json!("true"),
                json!({"catalog": catalog}),
            )))
        }
        other => Ok(other?),
    }
}

impl From<GenerationError> for AppError {
    fn from(e: GenerationError) -> Self {
        match e {
            GenerationError::Store(e) => e.into(),
            full @ GenerationError::QueueFull(_) => {
                AppError::TooManyRequests { detail: full.to_string(), retry_after: 30 }
            }
            not_finished @ GenerationError::NotFinished(_) => AppError::NotFound(not_finished.to_string()),
            other @ (GenerationError::NotEnabled(_) | GenerationError::Unstorable(_)) => {
                AppError::Internal(other.to_string())
            }
        }
    }
}

/// The status of a generation: 404 until it has finished, then 200 with `SUCCESS` and the files, or
/// `FAILED` with `data: null`.
#[utoipa::path(
    get,
    operation_id = "generation_status",
    path = "/results/jitpreviews/v2/gen/{gen_id}/status",
    tag = "previews",
    params(("gen_id" = String, Path, description = "The `gen_id` of a clip search"), crate::openapi::params::CatalogQuery),
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

pub(super) fn generation_of(state: AppState, org: OrgId, gen_id: String) -> Result<Json<GenerationStatus>, AppError> {
    Ok(Json(match generation::finished(&state.store, org, &gen_id)? {
        Finished::Success(data) => GenerationStatus { status: GenerationState::Success, error: String::new(), data },
        Finished::Failed(error) => GenerationStatus { status: GenerationState::Failed, error, data: None },
    }))
}

/// The clip types a previews version accepts.
#[utoipa::path(
    get,
    operation_id = "clip_types",
    path = "/results/jitpreviews/v2/info/clip_types",
    tag = "previews",
    params(("version" = Option<String>, Query, description = "A previews version code; the newest when absent"), crate::openapi::params::CatalogQuery),
    responses((status = 200, description = "The clip types", body = kino::clips::ClipTypesInfo), crate::openapi::PreviewsErrors),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn clip_types(c: PreviewsCaller) -> Result<Json<kino::clips::ClipTypesInfo>, AppError> {
    kino::clip_types_info(c.params.get("version")).map(Json).map_err(AppError::from)
}

/// The status of the item's previews result (its signals were processed).
#[utoipa::path(
    get,
    operation_id = "previews_status",
    path = "/results/jitpreviews/v2/status/{inventory_id}",
    tag = "previews",
    params(crate::openapi::InventoryId, crate::openapi::params::VersionQuery, crate::openapi::params::CatalogQuery),
    responses((status = 200, description = "The result's status", body = StatusEnvelope), crate::openapi::PreviewsErrors),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn status(State(state): State<AppState>, Path(id): Path<String>, c: PreviewsCredential) -> impl IntoResponse {
    blocking(move || {
        let c = c.check(&state.store)?;
        item_status(&state, c.org, &c.params, &id, crate::products::Product::Jitpreviews).map(Json)
    })
    .await
}

/// Items with previews results, oldest update first.
#[utoipa::path(
    get,
    operation_id = "list_previews",
    path = "/results/jitpreviews/v2/",
    tag = "previews",
    params(crate::openapi::params::PreviewsListQuery, crate::openapi::params::CatalogQuery),
    responses((status = 200, description = "A page of results", body = PreviewsList), crate::openapi::PreviewsErrors),
    security(("api_key" = []), ("api_key_header" = []), ("bearer" = [])),
)]
pub async fn list(State(state): State<AppState>, c: PreviewsCredential) -> impl IntoResponse {
    blocking(move || {
        let c = c.check(&state.store)?;
        list_product(&state, c.org, &c.params, crate::products::Product::Jitpreviews, 1000, None).map(Json)
    })
    .await
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/results/jitpreviews/v2/", get(list))
        .route("/results/jitpreviews/v2/info/clip_types", get(clip_types))
        .route("/results/jitpreviews/v2/gen/{gen_id}/status", get(generation))
        .route("/results/jitpreviews/v2/status/{inventory_id}", get(status))
        .route("/results/jitpreviews/v2/{inventory_id}", get(clips))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(clips, generation, clip_types, status, list))]
pub struct Api;
