//! Duplicate search over a catalog's audio fingerprints (`/results/fingerprintplus/v3/duplicates`):
//! which of the caller's titles are the same film. The matching is the core's
//! (`kino::fingerprint`); the fingerprints are those of the items' signals.

use axum::Json;
use axum::extract::{Path, State};
use kino::fingerprint::{Duplicate, DuplicateIndex};
use serde::Serialize;
use utoipa::ToSchema;

use super::{ApiCaller, ApiCredential, blocking, live_item};
use crate::error::AppError;
use crate::fingerprints::fingerprints;
use crate::state::AppState;

/// The titles that are the same film as one item.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DuplicatesAnswer {
    /// The item searched for.
    pub inventory_id: String,
    /// How many of the caller's titles have a fingerprint (were compared).
    pub compared: usize,
    /// The same titles, most similar first (`id` is their `inventory_id`).
    pub duplicates: Vec<Duplicate>,
}

/// Every group of titles that are the same film.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DuplicateGroups {
    /// How many of the caller's titles have a fingerprint (were compared).
    pub compared: usize,
    /// Groups of two or more `inventory_id`s, largest first.
    pub groups: Vec<Vec<String>>,
}

/// The caller's titles that are the same film as this item: another encode, size, crop, or with a
/// few cuts, by its audio fingerprint (docs/interface.md#fingerprints-and-duplicates).
#[utoipa::path(
    get,
    path = "/results/fingerprintplus/v3/duplicates/{inventory_id}",
    tag = "fingerprints",
    params(crate::openapi::InventoryId),
    responses((status = 200, description = "The same titles", body = DuplicatesAnswer), super::results::ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn duplicates(
    State(state): State<AppState>,
    Path(id): Path<String>,
    credential: ApiCredential,
) -> Result<Json<DuplicatesAnswer>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        live_item(&state, org, &id)?;
        let all = fingerprints(&state.store, &state.signals, org)?;
        let Some((_, query)) = all.iter().find(|(other, _)| *other == id) else {
            return Err(AppError::NotFound(format!(
                "item {id:?} has no audio fingerprint (its signals come from an analysis of its media)"
            )));
        };
        let index = DuplicateIndex::new(all.iter().map(|(i, fp)| (i.clone(), fp)));
        let duplicates = index.search(query, Some(&id));
        Ok(Json(DuplicatesAnswer { inventory_id: id, compared: all.len(), duplicates }))
    })
    .await
}

/// Every group of the caller's titles that are the same film.
#[utoipa::path(
    get,
    path = "/results/fingerprintplus/v3/duplicates",
    tag = "fingerprints",
    responses((status = 200, description = "The groups", body = DuplicateGroups), super::results::ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn groups(
    State(state): State<AppState>,
    credential: ApiCredential,
) -> Result<Json<DuplicateGroups>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let all = fingerprints(&state.store, &state.signals, org)?;
        let index = DuplicateIndex::new(all.iter().map(|(i, fp)| (i.clone(), fp)));
        Ok(Json(DuplicateGroups { compared: all.len(), groups: index.groups() }))
    })
    .await
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/results/fingerprintplus/v3/duplicates", get(groups))
        .route("/results/fingerprintplus/v3/duplicates/{inventory_id}", get(duplicates))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(duplicates, groups))]
pub struct Api;
