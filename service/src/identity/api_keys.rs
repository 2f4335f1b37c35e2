//! API keys: generated at random, stored as SHA-256 hashes, listed by prefix and revoked (by the
//! admin API and `kino-server admin` alike).

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::ids::random_hex;
use crate::store::{OrgId, Store, StoreError};

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
