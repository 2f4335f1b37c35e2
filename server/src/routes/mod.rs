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
pub mod oauth;
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
        // The key's lookup reads the database: off the async threads.
        let (s, query, headers) = (state.clone(), parts.uri.query().map(str::to_string), parts.headers.clone());
        let (org, params) = blocking(move || caller(&s, query.as_deref(), &headers, Accept::ApiKey)).await?;
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
    let org = auth::organisation(&state.store, &params, headers, accept)?;
    Ok((org, params))
}

/// Runs a handler's store and domain work on tokio's blocking pool, off the async threads: a
/// query can wait for the database's writer or the disk, a domain operation can compute for a
/// while. A panic there answers 500 (through `E: From<JoinError>`) instead of dropping the
/// connection.
pub async fn blocking<T, E>(work: impl FnOnce() -> Result<T, E> + Send + 'static) -> Result<T, E>
where
    T: Send + 'static,
    E: From<tokio::task::JoinError> + Send + 'static,
{
    tokio::task::spawn_blocking(work).await?
}

impl From<crate::signals::SignalsError> for AppError {
    fn from(e: crate::signals::SignalsError) -> Self {
        match e {
            crate::signals::SignalsError::Store(e) => e.into(),
            crate::signals::SignalsError::Invalid(e) => e.into(),
            crate::signals::SignalsError::Consequence(e) => e.into(),
            unreadable @ crate::signals::SignalsError::Unreadable { .. } => AppError::Internal(unreadable.to_string()),
        }
    }
}

/// A live (not deleted) item of the organisation, or 404.
pub fn live_item(state: &AppState, org: OrgId, id: &str) -> Result<ItemRow, AppError> {
    match state.store.item(org, id)? {
        Some(item) if !item.deleted => Ok(item),
        _ => Err(AppError::item_not_found(id)),
    }
}
