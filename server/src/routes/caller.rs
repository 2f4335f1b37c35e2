//! Who is calling, settled once per request, for every interface: one type, [`Caller`], whose
//! parameter names the gate that admitted it, so a handler's signature says which credential its
//! interface accepts and the compiler keeps a portal caller out of an API handler. Each gate refuses
//! a caller before the handler runs (and before any body is read, since handlers take their caller
//! first):
//!
//! - [`ApiKey`], the processing and results interfaces: an API key ([`ApiCaller`]; or
//!   [`ApiCredential`], the same checked inside the handler's one hand-off to the blocking pool);
//! - [`Portal`]: an access token counted by the token layer ([`PortalCaller`]; its scopes are
//!   checked per endpoint, [`Caller::require`]);
//! - [`Previews`]: an access token with the previews scope or an API key, and a catalog of the
//!   organisation ([`PreviewsCaller`], or [`PreviewsCredential`] checked in the handler's work).
//!
//! The admin API's operator holds no organisation's credential but the admin token ([`Admin`]),
//! and names the organisation in the path ([`Scope`]); both are settled here too. The web
//! application's caller is a signed-in user's session (`web::common::Signed`), with its own
//! sign-in page instead of an error.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::portal_error::PortalError;
use super::tokens::{insufficient_scope_challenge, refused};
use crate::auth::{self, Accept, hash_key};
use crate::blocking::blocking;
use crate::error::AppError;
use crate::identity::{self, Claims};
use crate::query::Params;
use crate::state::AppState;
use crate::store::{OrgId, Store};

/// A caller, settled: its organisation, its decoded query string and, when it came with an access
/// token, the token's claims. `G` is the gate that admitted it ([`ApiKey`], [`Portal`],
/// [`Previews`]); only that gate makes one.
#[derive(Debug, Clone)]
pub struct Caller<G> {
    /// The caller's organisation.
    pub org: OrgId,
    /// The decoded query string (empty for the portal, whose endpoints read their own).
    pub params: Params,
    /// The access token's claims, when one came.
    token: Option<Arc<Claims>>,
    gate: PhantomData<G>,
}

/// The gate of the processing and results interfaces: an API key.
#[derive(Debug, Clone, Copy)]
pub struct ApiKey;

/// The gate of the portal: an access token, counted.
#[derive(Debug, Clone, Copy)]
pub struct Portal;

/// The gate of the previews: an access token with the previews scope or an API key, and a
/// catalog of the organisation.
#[derive(Debug, Clone, Copy)]
pub struct Previews;

/// The caller of the processing and results interfaces.
pub type ApiCaller = Caller<ApiKey>;
/// The caller of a portal endpoint.
pub type PortalCaller = Caller<Portal>;
/// The caller of a previews endpoint.
pub type PreviewsCaller = Caller<Previews>;

impl<G> Caller<G> {
    fn admitted(org: OrgId, params: Params, token: Option<Arc<Claims>>) -> Caller<G> {
        Caller { org, params, token, gate: PhantomData }
    }

    /// An API caller as the gate would admit it (the crate's tests).
    #[cfg(test)]
    pub(crate) fn for_test(org: OrgId, params: Params) -> Caller<G> {
        Caller::admitted(org, params, None)
    }
}

impl PortalCaller {
    /// The organisation, when the caller's access token carries `scope`; else 403 with the
    /// RFC 6750 challenge.
    pub fn require(&self, scope: &str) -> Result<OrgId, PortalError> {
        if self.token.as_ref().is_some_and(|claims| claims.has_scope(scope)) {
            Ok(self.org)
        } else {
            Err(PortalError::new(StatusCode::FORBIDDEN, format!("the token lacks the scope {scope}"))
                .with_challenge(insufficient_scope_challenge(scope)))
        }
    }
}

/// An access token the token layer ([`count_tokens`](super::tokens::count_tokens)) authenticated
/// and counted, handed to the portal's and the previews' gates in the request's extensions.
#[derive(Debug, Clone)]
pub struct CountedToken {
    /// The token's organisation.
    pub org: OrgId,
    pub(super) claims: Arc<Claims>,
}

/// The API key gate: the organisation of the caller's API key (`?key=` or `X-API-Key`) and the
/// decoded query string. A missing, unknown or revoked key, a bearer access token, or a malformed
/// query string is refused before the handler runs (and before any body is read, since handlers
/// take it first).
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
        Ok(Caller::admitted(org, params, None))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ApiCredential {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<ApiCredential, Self::Rejection> {
        Ok(ApiCredential::of(parts))
    }
}

/// The portal's gate: the token the layer counted (the endpoint checks its scope).
impl FromRequestParts<AppState> for PortalCaller {
    type Rejection = PortalError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<PortalCaller, PortalError> {
        // Only a route without the layer lacks it: a wiring mistake, not the caller's.
        let token = parts.extensions.get::<CountedToken>().ok_or_else(PortalError::internal)?;
        Ok(Caller::admitted(token.org, Params::default(), Some(token.claims.clone())))
    }
}

/// The previews' gate: an access token with the `read:previews` scope (counted by
/// [`count_tokens`](super::tokens::count_tokens)) or an API key (`?key=`, `X-API-Key` or bearer),
/// and the query, which must name one of the organisation's catalogs.
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
    /// A counted access token with the scope, and the query, parsed.
    Token(CountedToken, Params),
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
        match parts.extensions.get::<CountedToken>() {
            Some(token) if !token.claims.has_scope(identity::PREVIEWS_SCOPE) => Err(refused(
                StatusCode::FORBIDDEN,
                format!("insufficient_scope: the access token lacks the scope {}", identity::PREVIEWS_SCOPE),
                Some(insufficient_scope_challenge(identity::PREVIEWS_SCOPE)),
            )),
            Some(token) => {
                let params = Params::parse(parts.uri.query()).map_err(IntoResponse::into_response)?;
                Ok(PreviewsCredential(Unchecked::Token(token.clone(), params)))
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
            Unchecked::Token(token, _) => f.debug_tuple("Token").field(&token.org).finish_non_exhaustive(),
            Unchecked::Key { .. } => f.debug_struct("Key").finish_non_exhaustive(),
        }
    }
}

impl PreviewsCredential {
    /// The caller, once its API key (unless a token came) and its catalog are found in the
    /// database, in one call for both: the key's error first, then the catalog's.
    pub fn check(self, store: &Store) -> Result<PreviewsCaller, AppError> {
        let accept = Accept::ApiKeyOrBearer;
        let (org, params, token, has_catalog) = match self.0 {
            Unchecked::Token(token, params) => {
                let name = params.required("catalog").map_err(AppError::invalid)?;
                let has = store.has_catalog(token.org, name)?;
                (token.org, params, Some(token.claims), has)
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
                (org, params, None, has)
            }
        };
        if !has_catalog {
            let name = params.get("catalog").unwrap_or_default();
            return Err(AppError::NotFound(format!("catalog {name:?} not found")));
        }
        Ok(Caller::admitted(org, params, token))
    }
}

/// The admin API's gate: the admin credential (`Authorization: Bearer <admin token>`), checked
/// before a handler runs.
#[derive(Debug)]
pub struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = PortalError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Admin, PortalError> {
        let given = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim);
        match (&state.config.admin_token, given) {
            (Some(expected), Some(given))
                if bool::from(hash_key(given).as_bytes().ct_eq(hash_key(expected).as_bytes())) =>
            {
                Ok(Admin)
            }
            _ => Err(PortalError::new(
                StatusCode::UNAUTHORIZED,
                "the admin API needs Authorization: Bearer <admin token>",
            )
            .with_challenge("Bearer realm=\"kino-admin\"")),
        }
    }
}

/// For the admin: the organisation named `{org}` in the path, and the path's other segment
/// (`{id}` or `{name}`; empty when there is none).
#[derive(Debug)]
pub struct Scope {
    pub(super) org: OrgId,
    pub(super) id: String,
}

impl FromRequestParts<AppState> for Scope {
    type Rejection = PortalError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Scope, PortalError> {
        Admin::from_request_parts(parts, state).await?;
        let Path(mut params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|e| PortalError::new(StatusCode::BAD_REQUEST, e.body_text()))?;
        let name = params.remove("org").unwrap_or_default();
        let s = state.clone();
        let org = blocking(move || {
            s.store
                .org_by_name(&name)?
                .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("organisation {name:?} not found")))
        })
        .await?;
        let id = params.remove("id").or_else(|| params.remove("name")).unwrap_or_default();
        Ok(Scope { org, id })
    }
}
