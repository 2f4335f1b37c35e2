//! Callers with access tokens (`/oauth/token`): the layer that authenticates them and counts
//! their requests against the organisation's rate limit, and the extractors that hand the result
//! to the handlers of the portal and of the previews.
//!
//! The layer runs before any handler: a refused token never reaches one, a counted request always
//! gets the `ratelimit-*` headers on whatever it is answered (the handler's result, its error, a
//! missing scope), and `429` once the hour's quota is spent. The portal requires a token; the
//! previews take one or an API key (which is not counted).

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::portal::PortalError;
use crate::error::{AppError, ErrorDetail};
use crate::identity::{self, Claims, TokenError};
use crate::query::Params;
use crate::ratelimit::Quota;
use crate::state::AppState;
use crate::store::{OrgId, Store};

/// The interface a request belongs to, which decides the shape of its errors and whether a
/// token is required.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    /// The portal: a token is required; errors are `{error, message, statusCode}`.
    Portal,
    /// The previews: a token or an API key; errors are `{detail}`.
    Previews,
}

/// An authenticated access token whose request was counted.
#[derive(Debug, Clone)]
pub struct TokenCaller {
    /// The token's organisation.
    pub org: OrgId,
    claims: Arc<Claims>,
}

impl TokenCaller {
    /// Whether the token carries `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.claims.has_scope(scope)
    }
}

/// The RFC 6750 challenge of a refused access token.
pub fn invalid_token_challenge(e: TokenError) -> String {
    format!("Bearer realm=\"kino\", error=\"invalid_token\", error_description=\"{}\"", e.description())
}

/// The RFC 6750 challenge of a token that lacks `scope`.
pub fn insufficient_scope_challenge(scope: &str) -> String {
    format!("Bearer realm=\"kino\", error=\"insufficient_scope\", scope=\"{scope}\"")
}

/// A refusal in the previews' error shape (`{"detail": ...}`) with a `WWW-Authenticate` challenge.
pub fn refused(status: StatusCode, detail: String, challenge: Option<String>) -> Response {
    let mut res = (status, Json(ErrorDetail { detail })).into_response();
    if let Some(value) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    res
}

/// Puts the rate-limit headers on an answer (and `Retry-After` on a refusal).
fn with_quota(mut res: Response, q: Quota) -> Response {
    let h = res.headers_mut();
    for (name, value) in [
        ("ratelimit-limit", q.limit.to_string()),
        ("ratelimit-remaining", q.remaining.to_string()),
        ("ratelimit-reset", q.reset.to_string()),
        ("x-ratelimit-limit", q.limit.to_string()),
        ("x-ratelimit-remaining", q.remaining.to_string()),
        ("x-ratelimit-reset", q.reset.to_string()),
    ] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(name, v);
        }
    }
    if !q.allowed
        && let Ok(v) = HeaderValue::from_str(&q.reset.to_string())
    {
        h.insert(header::RETRY_AFTER, v);
    }
    res
}

/// The refusal of a token, in the interface's shape.
fn token_refused(interface: Interface, e: TokenError) -> Response {
    match (interface, e) {
        (Interface::Portal, TokenError::Missing) => PortalError::new(StatusCode::UNAUTHORIZED, e.description())
            .with_challenge("Bearer realm=\"kino\"")
            .into_response(),
        (Interface::Portal, TokenError::Unavailable) => PortalError::internal().into_response(),
        (Interface::Portal, _) => PortalError::new(StatusCode::UNAUTHORIZED, e.description())
            .with_challenge(invalid_token_challenge(e))
            .into_response(),
        (Interface::Previews, TokenError::Unavailable) => {
            AppError::Internal("client lookup failed".into()).into_response()
        }
        (Interface::Previews, _) => {
            refused(StatusCode::UNAUTHORIZED, e.description().into(), Some(invalid_token_challenge(e)))
        }
    }
}

/// The layer of the portal and previews routes (`middleware::from_fn_with_state((state,
/// interface), count_tokens)`): authenticates an access token, counts the request, refuses it
/// over the quota, hands a [`TokenCaller`] to the handler and puts the rate-limit headers on the
/// answer. A previews request without an access token passes through untouched.
pub async fn count_tokens(
    State((state, interface)): State<(AppState, Interface)>,
    mut request: Request,
    next: Next,
) -> Response {
    let token = match (interface, crate::auth::bearer(request.headers())) {
        // Any bearer credential must be a valid token here.
        (Interface::Portal, None) => return token_refused(interface, TokenError::Missing),
        (Interface::Portal, Some(token)) => token.to_string(),
        // A bearer API key is the previews' business (an API key caller, not counted).
        (Interface::Previews, bearer) => match bearer.filter(|b| crate::auth::is_access_token(b)) {
            Some(token) => token.to_string(),
            None => return next.run(request).await,
        },
    };
    // The client's liveness and the request count are in the database: off the async threads.
    let s = state.clone();
    let checked = tokio::task::spawn_blocking(move || {
        let claims = identity::authenticate(&s.store, &s.keys.tokens, &token)?;
        let quota = s.guards.limiter.hit(&s.store, OrgId(claims.org)).map_err(Counted::Store)?;
        Ok::<_, Counted>((claims, quota))
    })
    .await
    .unwrap_or(Err(Counted::Failed));
    let (claims, quota) = match checked {
        Ok(pair) => pair,
        Err(Counted::Token(e)) => return token_refused(interface, e),
        Err(Counted::Store(e)) => {
            return match interface {
                Interface::Portal => PortalError::from(e).into_response(),
                Interface::Previews => AppError::from(e).into_response(),
            };
        }
        Err(Counted::Failed) => {
            return match interface {
                Interface::Portal => PortalError::internal().into_response(),
                Interface::Previews => AppError::Internal("the rate-limit check failed".into()).into_response(),
            };
        }
    };
    let org = OrgId(claims.org);
    let res = if quota.allowed {
        request.extensions_mut().insert(TokenCaller { org, claims: Arc::new(claims) });
        next.run(request).await
    } else {
        let message = format!("rate limit of {} requests per hour exceeded", quota.limit);
        match interface {
            Interface::Portal => PortalError::new(StatusCode::TOO_MANY_REQUESTS, message).into_response(),
            Interface::Previews => refused(StatusCode::TOO_MANY_REQUESTS, message, None),
        }
    };
    with_quota(res, quota)
}

/// Why [`count_tokens`] could not count a request.
enum Counted {
    /// The token was refused.
    Token(TokenError),
    /// The database failed.
    Store(crate::store::StoreError),
    /// The check itself failed (a panic on the blocking pool).
    Failed,
}

impl From<TokenError> for Counted {
    fn from(e: TokenError) -> Self {
        Counted::Token(e)
    }
}

/// The caller of a portal endpoint (behind [`count_tokens`]); [`PortalCaller::require`] checks
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
/// [`count_tokens`]) or an API key (`?key=`, `X-API-Key` or bearer), and the query, which must
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
        super::blocking(move || credential.check(&store)).await.map_err(IntoResponse::into_response)
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
        let accept = crate::auth::Accept::ApiKeyOrBearer;
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
                        crate::auth::organisation(store, &params, &headers, accept)?;
                        return Err(AppError::invalid(missing));
                    }
                };
                // The key and the catalog in one database call.
                let (org, has) = crate::auth::organisation_in_catalog(store, &params, &headers, accept, name)?;
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
