//! API keys: generated at random, stored as SHA-256 hashes, resolved to an organisation.

use axum::http::HeaderMap;
use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::query::Params;
use crate::state::AppState;
use crate::store::OrgId;

/// `n` random bytes as lower-case hex.
pub fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).expect("the operating system's random source is available");
    hex::encode(buf)
}

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

/// Resolves the caller's organisation from `?key=`, `X-API-Key` or (where accepted) a bearer
/// credential; 401 when none is given or it is not a live key.
pub fn organisation(state: &AppState, params: &Params, headers: &HeaderMap, accept: Accept) -> Result<OrgId, AppError> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    let bearer = match accept {
        Accept::ApiKeyOrBearer => header("authorization")
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim),
        Accept::ApiKey => None,
    };
    // A bearer that looks like a JWT is an access token from `/oauth/token`.
    if let Some(token) = bearer.filter(|b| b.matches('.').count() == 2) {
        return crate::identity::validate(&state.tokens, token)
            .map(|claims| OrgId(claims.org))
            .map_err(|_| AppError::Unauthorized("Invalid or expired access token"));
    }
    let key = params.get("key").or_else(|| header("x-api-key")).or(bearer).filter(|k| !k.is_empty());
    let Some(key) = key else { return Err(AppError::Unauthorized("Not authenticated: pass ?key=<API key>")) };
    state.store.org_of_key(&hash_key(key))?.ok_or(AppError::Unauthorized("Invalid or revoked API key"))
}
