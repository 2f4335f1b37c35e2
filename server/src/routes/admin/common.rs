//! What the admin API's handlers share: the answer helpers and the domain errors as portal errors
//! (the admin credential and the organisation scope are settled in `routes/caller.rs`).

use crate::auth::CredentialError;
use crate::portal::ManageError;
use crate::routes::portal::PortalError;
use crate::webhooks::WebhookError;
use axum::Json;
use axum::body::Bytes;
use axum::http::StatusCode;
use serde_json::Value;

impl From<ManageError> for PortalError {
    fn from(e: ManageError) -> Self {
        match &e {
            ManageError::Invalid { .. } => PortalError::new(StatusCode::BAD_REQUEST, e.to_string()),
            ManageError::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            ManageError::Conflict(_) => PortalError::new(StatusCode::CONFLICT, e.to_string()),
            ManageError::Store(inner) => {
                tracing::error!(error = %inner, "database error");
                PortalError::internal()
            }
        }
    }
}

impl From<WebhookError> for PortalError {
    fn from(e: WebhookError) -> Self {
        match e {
            WebhookError::Invalid { .. } => PortalError::new(StatusCode::BAD_REQUEST, e.to_string()),
            WebhookError::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            WebhookError::TooManyPending { .. } => PortalError::new(StatusCode::TOO_MANY_REQUESTS, e.to_string()),
            WebhookError::Store(inner) => inner.into(),
        }
    }
}

impl From<CredentialError> for PortalError {
    fn from(e: CredentialError) -> Self {
        match e {
            CredentialError::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            CredentialError::Ambiguous { .. } => PortalError::new(StatusCode::CONFLICT, e.to_string()),
            CredentialError::Store(inner) => inner.into(),
        }
    }
}

/// What an admin handler answers: a status and `T` as JSON.
pub(super) type Answer<T> = Result<(StatusCode, Json<T>), PortalError>;

pub(super) fn ok<T>(v: T) -> Answer<T> {
    Ok((StatusCode::OK, Json(v)))
}

pub(super) fn created<T>(v: T) -> Answer<T> {
    Ok((StatusCode::CREATED, Json(v)))
}

pub(super) fn accepted<T>(v: T) -> Answer<T> {
    Ok((StatusCode::ACCEPTED, Json(v)))
}

pub(super) fn body(bytes: &Bytes) -> Result<Value, PortalError> {
    if bytes.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| PortalError::new(StatusCode::BAD_REQUEST, format!("the body must be a JSON object: {e}")))
}
