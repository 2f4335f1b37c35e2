//! API keys: generated at random, stored as SHA-256 hashes, resolved to an organisation, listed
//! by prefix and revoked (by the admin API and `kino-server admin` alike).

use axum::http::{HeaderMap, header};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::query::Params;
use crate::store::{OrgId, Store, StoreError};

pub use crate::ids::random_hex;

/// A new API key: `kino_` and 32 random bytes in hex.
pub fn generate_key() -> String {
    format!("kino_{}", random_hex(32))
}

/// The stored form of a key.
pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// The first characters of a key, shown in listings and used to revoke it.
pub fn key_prefix(key: &str) -> String {
    key.chars().take(13).collect()
}

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

/// An API key as listed: identified by its prefix, never the key itself.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ApiKeyListing {
    /// The key's first characters.
    pub prefix: String,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Revoked (RFC 3339), or `null` while live.
    #[schema(format = DateTime)]
    pub revoked_at: Option<String>,
}

/// Why a credential could not be revoked.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// No live credential of the organisation matches.
    #[error("{field}: the organisation has no live {what} {given:?} (see the listing; revoked ones stay revoked)")]
    NotFound {
        /// The argument that named it.
        field: &'static str,
        /// `API key` or `OAuth client`.
        what: &'static str,
        /// What was given (a prefix or a client id, never a whole key).
        given: String,
    },
    /// A key prefix matches several live keys: nothing was revoked.
    #[error(
        "key: {count} live keys start with {prefix:?}; nothing was revoked: pass the whole key (kino-server admin revoke-key ORG KEY)"
    )]
    Ambiguous {
        /// The prefix given.
        prefix: String,
        /// How many live keys start with it.
        count: usize,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Creates an API key for the organisation: the key (shown once; only its hash is stored) and
/// its prefix.
pub fn create_key(store: &Store, org: OrgId) -> Result<(String, String), StoreError> {
    let key = generate_key();
    let prefix = key_prefix(&key);
    store.add_key(org, &hash_key(&key), &prefix)?;
    Ok((key, prefix))
}

/// The organisation's API keys, oldest first: prefixes and times only.
pub fn keys(store: &Store, org: OrgId) -> Result<Vec<ApiKeyListing>, StoreError> {
    Ok(store
        .keys(org)?
        .into_iter()
        .map(|(prefix, created_at, revoked_at)| ApiKeyListing { prefix, created_at, revoked_at })
        .collect())
}

/// Revokes one live API key of the organisation, given whole or by its prefix (as listed); the
/// prefix revoked. An ambiguous prefix revokes nothing. Effective at once: every request looks
/// the key up.
pub fn revoke_key(store: &Store, org: OrgId, given: &str) -> Result<String, CredentialError> {
    let given = given.trim();
    let prefix = key_prefix(given);
    let hash = (given.chars().count() > prefix.chars().count()).then(|| hash_key(given));
    match store.revoke_key(org, &prefix, hash.as_deref())? {
        0 => Err(CredentialError::NotFound { field: "key", what: "API key", given: prefix }),
        1 => Ok(prefix),
        count => Err(CredentialError::Ambiguous { prefix, count }),
    }
}
