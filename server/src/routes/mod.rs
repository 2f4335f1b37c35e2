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
use crate::store::{ItemRow, OrgId, Store};

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
        let credential = ApiCredential::of(parts);
        // The key's lookup reads the database: off the async threads.
        let store = state.store.clone();
        blocking(move || credential.check(&store)).await
    }
}

/// A caller's API key and query as they came, for a handler that reads no body and works on the
/// blocking pool anyway: it checks them there first ([`ApiCredential::check`]), so that the request is
/// handed to the pool once instead of twice. Nothing of the caller can be read before the check.
/// A handler that reads a body takes [`ApiCaller`] instead: no body is read before its
/// credential is checked.
pub struct ApiCredential {
    /// The raw query string.
    query: Option<String>,
    /// The headers (`X-API-Key`, or a bearer credential to refuse).
    headers: HeaderMap,
}

impl std::fmt::Debug for ApiCredential {
    /// Without the query and headers, which carry the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredential").finish_non_exhaustive()
    }
}

impl ApiCredential {
    fn of(parts: &Parts) -> ApiCredential {
        ApiCredential { query: parts.uri.query().map(str::to_string), headers: parts.headers.clone() }
    }

    /// The caller: its decoded query, then the organisation of its API key, looked up in `store`.
    pub fn check(self, store: &Store) -> Result<ApiCaller, AppError> {
        let params = Params::parse(self.query.as_deref())?;
        let org = auth::organisation(store, &params, &self.headers, Accept::ApiKey)?;
        Ok(ApiCaller { org, params })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ApiCredential {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<ApiCredential, Self::Rejection> {
        Ok(ApiCredential::of(parts))
    }
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
