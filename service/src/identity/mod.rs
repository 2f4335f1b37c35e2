//! OAuth 2.0 client credentials (RFC 6749 section 4.4): the token endpoint (client authentication
//! by HTTP Basic or body parameters, section 2.3.1), validation of the JWT access tokens it issues
//! (RFC 8725: one algorithm allowed, `exp`, `iss`, `aud` and the token type checked, and the
//! client still live), and the listing and revocation of clients. The HS256 signing key is
//! generated on first start and kept in the data directory.

use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

pub mod api_keys;
pub mod keys;

use crate::ids::random_hex;
use crate::store::{OrgId, Store, StoreError};
use api_keys::{CredentialError, hash_key};

/// The scope that grants the previews endpoints (`/results/jitpreviews/v2/...`) to an access token.
pub const PREVIEWS_SCOPE: &str = "read:previews";

/// Scopes a client may ask for (every one when it asks for none); catalog reads come with the
/// smartlist scope. The first three are the interface's; [`PREVIEWS_SCOPE`] is kino's.
pub const SCOPES: [&str; 4] =
    ["read:smartlist:published", "read:recipe:published", "read:creative-asset:published", PREVIEWS_SCOPE];
/// Lifetime of an access token, seconds.
pub const TOKEN_LIFETIME: u64 = 3600;
const ISSUER: &str = "kino";
const AUDIENCE: &str = "kino-api";
const TOKEN_TYPE: &str = "at+jwt";

pub use keys::TokenKeys;

/// The claims of an access token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// Issuer.
    pub iss: String,
    /// Audience.
    pub aud: String,
    /// The client id.
    pub sub: String,
    /// The organisation.
    pub org: i64,
    /// Space-separated scopes.
    pub scope: String,
    /// Issued at (seconds since the epoch).
    pub iat: u64,
    /// Expiry (seconds since the epoch).
    pub exp: u64,
}

impl Claims {
    /// Whether the token carries `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scope.split(' ').any(|s| s == scope)
    }
}

/// Why a bearer token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    /// No `Authorization: Bearer` header.
    Missing,
    /// Malformed, badly signed, expired, or not an access token of this server.
    Invalid,
    /// Well-formed and signed, but its client has been revoked (or no longer exists).
    Revoked,
    /// The client could not be looked up (the database failed; logged).
    Unavailable,
}

impl TokenError {
    /// The `error_description` shown to the client.
    pub fn description(self) -> &'static str {
        match self {
            TokenError::Missing => "a bearer access token is required",
            TokenError::Invalid => "the access token is invalid or expired",
            TokenError::Revoked => "the access token's client has been revoked",
            TokenError::Unavailable => "the access token could not be checked",
        }
    }
}

/// Validates an access token.
pub fn validate(keys: &TokenKeys, token: &str) -> Result<Claims, TokenError> {
    let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Invalid)?;
    if header.alg != Algorithm::HS256 || header.typ.as_deref() != Some(TOKEN_TYPE) {
        return Err(TokenError::Invalid);
    }
    let mut v = Validation::new(Algorithm::HS256);
    v.set_issuer(&[ISSUER]);
    v.set_audience(&[AUDIENCE]);
    v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    v.leeway = 0;
    jsonwebtoken::decode::<Claims>(token, &keys.decoding, &v).map(|d| d.claims).map_err(|_| TokenError::Invalid)
}

/// Validates an access token and checks that its client is still live (one indexed lookup, so a
/// revocation by any process on the database takes effect at the next request).
pub fn authenticate(store: &Store, keys: &TokenKeys, token: &str) -> Result<Claims, TokenError> {
    let claims = validate(keys, token)?;
    match store.client_is_live(OrgId(claims.org), &claims.sub) {
        Ok(true) => Ok(claims),
        Ok(false) => Err(TokenError::Revoked),
        Err(e) => {
            tracing::error!(error = %e, "client lookup failed");
            Err(TokenError::Unavailable)
        }
    }
}

/// Issues a token for an organisation's client.
pub fn issue(keys: &TokenKeys, client_id: &str, org: OrgId, scopes: &[&str]) -> String {
    let now = chrono::Utc::now().timestamp().max(0) as u64;
    let claims = Claims {
        iss: ISSUER.into(),
        aud: AUDIENCE.into(),
        sub: client_id.into(),
        org: org.0,
        scope: scopes.join(" "),
        iat: now,
        exp: now + TOKEN_LIFETIME,
    };
    let mut header = Header::new(Algorithm::HS256);
    header.typ = Some(TOKEN_TYPE.into());
    jsonwebtoken::encode(&header, &claims, &keys.encoding).expect("HMAC signing cannot fail")
}

/// A new client id and secret.
pub fn new_client() -> (String, String) {
    (format!("kc_{}", random_hex(12)), format!("kcs_{}", random_hex(32)))
}

/// Creates OAuth client credentials for the organisation: the client id and the secret (shown
/// once; only its hash is stored).
pub fn create_client(store: &Store, org: OrgId) -> Result<(String, String), StoreError> {
    let (client_id, secret) = new_client();
    store.add_client(org, &client_id, &hash_key(&secret))?;
    Ok((client_id, secret))
}

/// An OAuth client as listed (its secret is never shown again).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ClientListing {
    /// The client id.
    pub client_id: String,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Revoked (RFC 3339), or `null` while live.
    #[schema(format = DateTime)]
    pub revoked_at: Option<String>,
}

/// The organisation's OAuth clients, oldest first: ids and times, never secrets.
pub fn clients(store: &Store, org: OrgId) -> Result<Vec<ClientListing>, StoreError> {
    Ok(store
        .clients(org)?
        .into_iter()
        .map(|(client_id, created_at, revoked_at)| ClientListing { client_id, created_at, revoked_at })
        .collect())
}

/// Revokes a live client of the organisation: it gets no new token, and the tokens it holds are
/// refused from the next request on ([`authenticate`]).
pub fn revoke_client(store: &Store, org: OrgId, client_id: &str) -> Result<(), CredentialError> {
    let client_id = client_id.trim();
    if store.revoke_client(org, client_id)? {
        Ok(())
    } else {
        Err(CredentialError::NotFound { field: "client_id", what: "OAuth client", given: client_id.to_string() })
    }
}

/// The organisation of a live client whose secret is `secret` (compared in constant time), or
/// `None` for an unknown or revoked client or a wrong secret.
pub fn client_org(store: &Store, client_id: &str, secret: &str) -> Result<Option<OrgId>, StoreError> {
    let client = store.client(client_id)?;
    Ok(client
        .filter(|(_, stored)| bool::from(stored.as_bytes().ct_eq(hash_key(secret).as_bytes())))
        .map(|(org, _)| org))
}
