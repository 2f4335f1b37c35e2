//! The portal's errors (`{error, message, statusCode}`): what the portal's handlers, its caller and
//! the token layer answer when they refuse (a leaf of the routes).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};

pub use crate::error::PortalErrorBody;

/// A portal error: `{error, message, statusCode}`.
#[derive(Debug)]
pub struct PortalError {
    status: StatusCode,
    message: String,
    authenticate: Option<String>,
}

impl PortalError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> PortalError {
        PortalError { status, message: message.into(), authenticate: None }
    }

    /// The same error with a `WWW-Authenticate` challenge.
    pub fn with_challenge(self, challenge: impl Into<String>) -> PortalError {
        PortalError { authenticate: Some(challenge.into()), ..self }
    }

    /// A 500 whose cause is only logged.
    pub fn internal() -> PortalError {
        PortalError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error")
    }
}

impl IntoResponse for PortalError {
    fn into_response(self) -> Response {
        let body = PortalErrorBody {
            error: self.status.canonical_reason().unwrap_or("Error").to_string(),
            message: self.message,
            status_code: self.status.as_u16(),
        };
        let mut res = (self.status, Json(body)).into_response();
        if let Some(value) = self.authenticate.and_then(|v| HeaderValue::from_str(&v).ok()) {
            res.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        }
        res
    }
}

impl From<tokio::task::JoinError> for PortalError {
    fn from(e: tokio::task::JoinError) -> Self {
        tracing::error!(error = %e, "a request's work failed");
        PortalError::internal()
    }
}

impl From<crate::store::StoreError> for PortalError {
    fn from(e: crate::store::StoreError) -> Self {
        tracing::error!(error = %e, "database error");
        PortalError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error")
    }
}

/// `router` with the portal's own fallbacks: a method one of its routes does not take, and any
/// path under one of `prefixes` that none of its routes matches, answer with the portal's error
/// body. A fallback is nested at each prefix, so axum's routing, not a list of prefixes read at
/// request time, decides whose fallback answers; paths outside every interface's prefixes get
/// the service's own (`app.rs`). A prefix `/p/` takes `/p/` and every path under it; `/p` takes
/// `/p` itself too, and every path under `/p/` but `/p/` (a collection's route there).
pub fn with_portal_fallbacks<S>(router: Router<S>, prefixes: &[&str]) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let router = router.method_not_allowed_fallback(method_not_allowed);
    prefixes.iter().fold(router, |router, prefix| router.nest(prefix, Router::new().fallback(no_such_endpoint)))
}

async fn no_such_endpoint() -> PortalError {
    PortalError::new(StatusCode::NOT_FOUND, "no such endpoint")
}

async fn method_not_allowed() -> PortalError {
    PortalError::new(StatusCode::METHOD_NOT_ALLOWED, "method not allowed on this endpoint")
}
