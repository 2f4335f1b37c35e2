//! HTTP handlers, one module per interface group, and the envelopes they share.

pub mod adbreaks;
pub mod admin;
pub mod analysis;
pub mod catalog;
pub mod characters;
pub mod envelope;
pub mod fingerprints;
pub mod markers;
pub mod media;
pub mod portal;
pub mod previews;
pub mod results;
pub mod search;
pub mod service;
pub mod tasks;
pub mod thumbnails;
pub mod tokens;

pub use envelope::{ResultEnvelope, ResultList, StatusEnvelope};

use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::request::Parts;

use crate::auth::{self, Accept};
use crate::error::AppError;
use crate::query::Params;
use crate::state::AppState;
use crate::store::{ItemRow, OrgId};

/// The caller of the processing and results interfaces, extracted from the request: the
/// organisation of its API key (`?key=` or `X-API-Key`) and the decoded query string. A missing,
/// unknown or revoked key, a bearer access token, or a malformed query string is refused before
/// the handler runs (and before any body is read, since handlers take it after this).
#[derive(Debug)]
pub struct ApiCaller {
    /// The caller's organisation.
    pub org: OrgId,
    /// The decoded query string.
    pub params: Params,
}

impl FromRequestParts<AppState> for ApiCaller {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<ApiCaller, AppError> {
        let (org, params) = caller(state, parts.uri.query(), &parts.headers, Accept::ApiKey)?;
        Ok(ApiCaller { org, params })
    }
}

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

/// A live (not deleted) item of the organisation, or 404.
pub fn live_item(state: &AppState, org: OrgId, id: &str) -> Result<ItemRow, AppError> {
    match state.store.item(org, id)? {
        Some(item) if !item.deleted => Ok(item),
        _ => Err(AppError::item_not_found(id)),
    }
}
