//! Who is calling, settled once per request: one extractor per interface, each refusing a caller
//! before the handler runs (and before any body is read, since handlers take their caller first).
//!
//! - the processing and results interfaces: an API key ([`ApiCaller`]; or [`ApiCredential`], the
//!   same checked inside the handler's one hand-off to the blocking pool);
//! - the portal: an access token counted by the token layer ([`PortalCaller`], scopes checked
//!   per endpoint);
//! - the previews: an access token with the previews scope or an API key, and a catalog of the
//!   organisation ([`PreviewsCaller`], or [`PreviewsCredential`] checked in the handler's work).
//!
//! The admin API's caller (the admin token) is `admin::common::Admin`; the web application's
//! is its session (`web::common::Signed`).

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::portal_error::PortalError;
use super::tokens::{insufficient_scope_challenge, refused};
use crate::auth::{self, Accept};
use crate::blocking::blocking;
use crate::error::AppError;
use crate::identity::{self, Claims};
use crate::query::Params;
use crate::state::AppState;
use crate::store::{OrgId, Store};

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

/// An authenticated access token whose request was counted.
#[derive(Debug, Clone)]
pub struct TokenCaller {
    /// The token's organisation.
    pub org: OrgId,
    pub(super) claims: Arc<Claims>,
}

impl TokenCaller {
    /// Whether the token carries `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.claims.has_scope(scope)
    }
}

/// The caller of a portal endpoint (behind [`count_tokens`](super::tokens::count_tokens)); [`PortalCaller::require`] checks
/// the endpoint's scope.
#[derive(Debug, Clone)]
pub struct PortalCaller(TokenCaller);

impl PortalCaller {
    /// The organisation, when the token carries `scope`; else 403 with the RFC 6750 challenge.
    pub fn require(&self, scope: &str) -> Result<OrgId, PortalError> {
        if self.0.has_scope(scope) {
            Ok(self.0.org)
        } else {
            Err(PortalError::new(StatusCode::FORBIDDEN, format!("the token lacks the scope {scope}"))
                .with_challenge(insufficient_scope_challenge(scope)))
        }
    }
}

impl FromRequestParts<AppState> for PortalCaller {
    type Rejection = PortalError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<PortalCaller, PortalError> {
        // Only a route without the layer lacks it: a wiring mistake, not the caller's.
        parts.extensions.get::<TokenCaller>().cloned().map(PortalCaller).ok_or_else(PortalError::internal)
    }
}

/// The caller of a previews endpoint: an access token with the `read:previews` scope (counted by
/// [`count_tokens`](super::tokens::count_tokens)) or an API key (`?key=`, `X-API-Key` or bearer), and the query, which must
/// name one of the organisation's catalogs.
#[derive(Debug)]
pub struct PreviewsCaller {
    /// The caller's organisation.
    pub org: OrgId,
    /// The decoded query string.
    pub params: Params,
}

impl FromRequestParts<AppState> for PreviewsCaller {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<PreviewsCaller, Response> {
        let credential = PreviewsCredential::from_request_parts(parts, state).await?;
        // The API key's and the catalog's lookups read the database: off the async threads.
        let store = state.store.clone();
        blocking(move || credential.check(&store)).await.map_err(IntoResponse::into_response)
    }
}

/// A previews request's credential and query as they came, for a handler that works on the
/// blocking pool anyway: it checks them there first ([`PreviewsCredential::check`]), so that the
/// request is handed to the pool once instead of twice. What needs no database (a token's scope, a
/// token caller's query) is checked on extraction; nothing of the caller can be read before the
/// check (the fields are private).
pub struct PreviewsCredential(Unchecked);

/// What [`PreviewsCredential`] holds.
enum Unchecked {
    /// A counted access token with the scope: its organisation and the query, parsed.
    Token(OrgId, Params),
    /// An API key somewhere in the raw query string or the headers.
    Key {
        /// The raw query string.
        query: Option<String>,
        /// The headers.
        headers: HeaderMap,
    },
}

impl FromRequestParts<AppState> for PreviewsCredential {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<PreviewsCredential, Response> {
        match parts.extensions.get::<TokenCaller>() {
            Some(token) if !token.has_scope(identity::PREVIEWS_SCOPE) => Err(refused(
                StatusCode::FORBIDDEN,
                format!("insufficient_scope: the access token lacks the scope {}", identity::PREVIEWS_SCOPE),
                Some(insufficient_scope_challenge(identity::PREVIEWS_SCOPE)),
            )),
            Some(token) => {
                let params = Params::parse(parts.uri.query()).map_err(IntoResponse::into_response)?;
                Ok(PreviewsCredential(Unchecked::Token(token.org, params)))
            }
            None => Ok(PreviewsCredential(Unchecked::Key {
                query: parts.uri.query().map(str::to_string),
                headers: parts.headers.clone(),
            })),
        }
    }
}

impl std::fmt::Debug for PreviewsCredential {
    /// Without the query and headers, which carry the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Unchecked::Token(org, _) => f.debug_tuple("Token").field(org).finish_non_exhaustive(),
            Unchecked::Key { .. } => f.debug_struct("Key").finish_non_exhaustive(),
        }
    }
}

impl PreviewsCredential {
    /// The caller, once its API key (unless a token came) and its catalog are found in the
    /// database, in one call for both: the key's error first, then the catalog's.
    pub fn check(self, store: &Store) -> Result<PreviewsCaller, AppError> {
        let accept = Accept::ApiKeyOrBearer;
        let (org, params, has_catalog) = match self.0 {
            Unchecked::Token(org, params) => {
                let name = params.required("catalog").map_err(AppError::invalid)?;
                let has = store.has_catalog(org, name)?;
                (org, params, has)
            }
            Unchecked::Key { query, headers } => {
                let params = Params::parse(query.as_deref())?;
                let name = match params.required("catalog") {
                    Ok(name) => name,
                    Err(missing) => {
                        // The key's error first, then the missing catalog's.
                        auth::organisation(store, &params, &headers, accept)?;
                        return Err(AppError::invalid(missing));
                    }
                };
                // The key and the catalog in one database call.
                let (org, has) = auth::organisation_in_catalog(store, &params, &headers, accept, name)?;
                (org, params, has)
            }
        };
        if !has_catalog {
            let name = params.get("catalog").unwrap_or_default();
            return Err(AppError::NotFound(format!("catalog {name:?} not found")));
        }
        Ok(PreviewsCaller { org, params })
    }
}
