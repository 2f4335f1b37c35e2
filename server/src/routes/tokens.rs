//! Callers with access tokens (`/oauth/token`): the layer that authenticates them and counts
//! their requests against the organisation's rate limit, handing the token's caller to the
//! extractors of the portal and of the previews (`caller.rs`).
//!
//! The layer runs before any handler: a refused token never reaches one, a counted request always
//! gets the `ratelimit-*` headers on whatever it is answered (the handler's result, its error, a
//! missing scope), and `429` once the hour's quota is spent. The portal requires a token; the
//! previews take one or an API key (which is not counted).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::caller::CountedToken;
use super::portal_error::PortalError;
use crate::error::{AppError, ErrorDetail};
use crate::identity::{self, TokenError};
use crate::ratelimit::Quota;
use crate::state::AppState;
use crate::store::OrgId;

/// The interface a request belongs to, which decides the shape of its errors and whether a
/// token is required.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    /// The portal: a token is required; errors are `{error, message, statusCode}`.
    Portal,
    /// The previews: a token or an API key; errors are `{detail}`.
    Previews,
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
/// over the quota, hands a [`CountedToken`] to the handler and puts the rate-limit headers on the
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
    let checked = crate::blocking::blocking(move || {
        let claims = identity::authenticate(&s.store, &s.keys.tokens, &token)?;
        let quota = s.guards.limiter.hit(&s.store, OrgId(claims.org)).map_err(Counted::Store)?;
        Ok::<_, Counted>((claims, quota))
    })
    .await;
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
        request.extensions_mut().insert(CountedToken { org, claims: Arc::new(claims) });
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

impl From<tokio::task::JoinError> for Counted {
    fn from(_: tokio::task::JoinError) -> Self {
        Counted::Failed
    }
}

impl From<TokenError> for Counted {
    fn from(e: TokenError) -> Self {
        Counted::Token(e)
    }
}
