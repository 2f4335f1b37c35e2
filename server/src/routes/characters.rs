//! The characters of an item with their identities across its series
//! (`/results/characters/v1/{inventory_id}`), linked by the core (`kino::characters`) from the
//! face descriptors in the episodes' signals, and its speakers with their voices across the series
//! (`kino::speakers`) from the voice descriptors.

use axum::Json;
use axum::extract::{Path, State};

use super::{ApiCaller, ApiCredential, blocking, live_item};
pub use crate::characters::CharactersAnswer;
use crate::characters::characters_of;
use crate::error::AppError;
use crate::state::AppState;

/// The item's characters with their identities across its series: the same person keeps one
/// number in every episode where the evidence (face descriptors) allows; and its speakers with
/// their voices across the series, by the voice descriptors.
#[utoipa::path(
    get,
    path = "/results/characters/v1/{inventory_id}",
    tag = "characters",
    params(crate::openapi::InventoryId),
    responses((status = 200, description = "The characters", body = CharactersAnswer), super::results::ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn characters(
    State(state): State<AppState>,
    Path(id): Path<String>,
    credential: ApiCredential,
) -> Result<Json<CharactersAnswer>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let item = live_item(&state, org, &id)?;
        Ok(Json(characters_of(&state.store, &state.signals, org, item)?))
    })
    .await
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new().route("/results/characters/v1/{inventory_id}", get(characters))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(characters))]
pub struct Api;
