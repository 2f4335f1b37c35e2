//! HTTP handlers, one module per interface group, and the envelopes they share.

pub mod adbreaks;
pub mod admin;
pub mod analysis;
pub mod catalog;
pub mod characters;
pub mod envelope;
pub mod fingerprints;
pub mod markers;
pub mod portal;
pub mod previews;
pub mod results;
pub mod search;
pub mod service;
pub mod tasks;
pub mod thumbnails;

pub use envelope::{ResultEnvelope, ResultList, StatusEnvelope};

use axum::http::HeaderMap;

use crate::auth::{self, Accept};
use crate::error::AppError;
use crate::query::Params;
use crate::state::AppState;
use crate::store::{ItemRow, OrgId};

/// The caller's organisation and decoded query.
pub fn caller(
    state: &AppState,
    raw: Option<&str>,
    headers: &HeaderMap,
    accept: Accept,
) -> Result<(OrgId, Params), AppError> {
    let params = Params::parse(raw)?;
    let org = auth::organisation(state, &params, headers, accept)?;
    Ok((org, params))
}

/// Refuses a request that carries a body to the processing interface (catalog, analysis, tasks)
/// without a live credential, before the body is read: an anonymous client cannot make the
/// service buffer or parse anything. The handlers resolve the caller again for their own use.
pub async fn credential_before_body(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let path = request.uri().path();
    let processing = ["/catalog/", "/analysis/", "/tasks/"].iter().any(|p| path.starts_with(p));
    let headers = request.headers();
    let has_body = headers.contains_key(axum::http::header::TRANSFER_ENCODING)
        || headers
            .get(axum::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0");
    if processing
        && has_body
        && let Err(e) = caller(&state, request.uri().query(), headers, Accept::ApiKey)
    {
        return e.into_response();
    }
    next.run(request).await
}

/// A live (not deleted) item of the organisation, or 404.
pub fn live_item(state: &AppState, org: OrgId, id: &str) -> Result<ItemRow, AppError> {
    match state.store.item(org, id)? {
        Some(item) if !item.deleted => Ok(item),
        _ => Err(AppError::item_not_found(id)),
    }
}
