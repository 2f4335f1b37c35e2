//! API keys over HTTP: the credential of a request (`?key=`, `X-API-Key`, a bearer key) resolved
//! to its organisation. Making, listing and revoking keys is the domain's
//! (`kino_service::identity::api_keys`), re-exported here.

use crate::error::AppError;
use crate::query::Params;
use crate::store::{OrgId, Store};
use axum::http::{HeaderMap, header};

pub use crate::ids::random_hex;
pub use kino_service::identity::api_keys::{
    ApiKeyListing, CredentialError, create_key, generate_key, hash_key, key_prefix, keys, revoke_key,
};

/// Which credentials an endpoint accepts besides `?key=`.
#[derive(Debug, Clone, Copy)]
pub enum Accept {
    /// `?key=` or the deprecated `X-API-Key` header.
    ApiKey,
    /// Also `Authorization: Bearer <credential>` (previews).
    ApiKeyOrBearer,
}

/// The credential of an `Authorization: Bearer <credential>` header (the scheme in any case).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, credential) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| credential.trim()).filter(|c| !c.is_empty())
}

/// Whether a bearer credential is an access token from `/oauth/token` (a JWT: three
/// dot-separated parts) rather than an API key.
pub fn is_access_token(credential: &str) -> bool {
    credential.matches('.').count() == 2
}

/// Resolves the caller's organisation from `?key=`, `X-API-Key` or (where accepted) a bearer API
/// key; 401 when none is given or it is not a live key. Access tokens are not API keys: the
/// previews endpoints check them first (scope and rate limit, `routes/previews.rs`).
pub fn organisation(store: &Store, params: &Params, headers: &HeaderMap, accept: Accept) -> Result<OrgId, AppError> {
    let key = api_key(params, headers, accept)?;
    store.org_of_key(&hash_key(key))?.ok_or(AppError::Unauthorized(INVALID_KEY))
}

/// The organisation of the request's API key and whether it has the catalog `catalog`, in one
/// database call; the errors of [`organisation`].
pub fn organisation_in_catalog(
    store: &Store,
    params: &Params,
    headers: &HeaderMap,
    accept: Accept,
    catalog: &str,
) -> Result<(OrgId, bool), AppError> {
    let key = api_key(params, headers, accept)?;
    store.org_of_key_in_catalog(&hash_key(key), catalog)?.ok_or(AppError::Unauthorized(INVALID_KEY))
}

const INVALID_KEY: &str = "Invalid or revoked API key";

/// The API key a request presents (`?key=`, `X-API-Key`, or a bearer API key where accepted).
fn api_key<'a>(params: &'a Params, headers: &'a HeaderMap, accept: Accept) -> Result<&'a str, AppError> {
    let bearer = match accept {
        Accept::ApiKeyOrBearer => bearer(headers),
        Accept::ApiKey => None,
    };
    if bearer.is_some_and(is_access_token) {
        return Err(AppError::Unauthorized("An access token is not accepted here: pass ?key=<API key>"));
    }
    let x_api_key = headers.get("x-api-key").and_then(|v| v.to_str().ok()).map(str::trim);
    let key = params.get("key").or(x_api_key).or(bearer).filter(|k| !k.is_empty());
    key.ok_or(AppError::Unauthorized("Not authenticated: pass ?key=<API key>"))
}
