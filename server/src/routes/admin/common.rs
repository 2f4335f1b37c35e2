//! What the admin API's handlers share: the admin credential and organisation scope
//! extractors, the answer helpers, and the domain errors as portal errors.

use crate::auth::{CredentialError, hash_key};
use crate::portal::ManageError;
use crate::routes::blocking;
use crate::routes::portal::PortalError;
use crate::state::AppState;
use crate::store::OrgId;
use crate::webhooks::WebhookError;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde_json::Value;
use std::collections::HashMap;
use subtle::ConstantTimeEq;

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

/// The admin credential, checked before a handler runs.
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

pub(super) fn body(bytes: &Bytes) -> Result<Value, PortalError> {
    if bytes.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| PortalError::new(StatusCode::BAD_REQUEST, format!("the body must be a JSON object: {e}")))
}
