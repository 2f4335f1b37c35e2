//! OAuth 2.0 client credentials (RFC 6749 section 4.4): the token endpoint, and validation of the
//! JWT access tokens it issues (RFC 8725: one algorithm allowed, `exp`, `iss`, `aud` and the token
//! type checked). The HS256 signing key is generated on first start and kept in the data directory.

use std::path::Path;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use serde_json::json;
use subtle::ConstantTimeEq;

use crate::auth::{hash_key, random_hex};
use crate::state::AppState;
use crate::store::OrgId;

/// Scopes a client may ask for; catalog reads come with the smartlist scope.
pub const SCOPES: [&str; 3] = ["read:smartlist:published", "read:recipe:published", "read:creative-asset:published"];
/// Lifetime of an access token, seconds.
pub const TOKEN_LIFETIME: u64 = 3600;
const ISSUER: &str = "kino";
const AUDIENCE: &str = "kino-api";
const TOKEN_TYPE: &str = "at+jwt";

/// The signing and verifying keys.
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys(..)")
    }
}

impl TokenKeys {
    /// Loads the key at `path`, creating a random 256-bit key (mode 0600) when absent.
    pub fn load_or_create(path: &Path) -> std::io::Result<TokenKeys> {
        let secret = match std::fs::read(path) {
            Ok(bytes) if bytes.len() >= 32 => bytes,
            _ => {
                let hex = random_hex(32);
                let tmp = path.with_extension("tmp");
                std::fs::write(&tmp, hex.as_bytes())?;
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
                }
                std::fs::rename(&tmp, path)?;
                hex.into_bytes()
            }
        };
        Ok(TokenKeys::from_secret(&secret))
    }

    /// Keys from a secret (tests).
    pub fn from_secret(secret: &[u8]) -> TokenKeys {
        TokenKeys { encoding: EncodingKey::from_secret(secret), decoding: DecodingKey::from_secret(secret) }
    }
}

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

#[derive(Debug, Deserialize)]
struct TokenRequest {
    client_id: Option<String>,
    client_secret: Option<String>,
    grant_type: Option<String>,
    scope: Option<String>,
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut res = (status, Json(json!({"error": error, "error_description": description}))).into_response();
    no_store(res.headers_mut());
    if status == StatusCode::UNAUTHORIZED {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Basic realm=\"kino\""));
    }
    res
}

fn no_store(h: &mut HeaderMap) {
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}

/// `POST /oauth/token`: JSON or form-encoded client credentials.
#[utoipa::path(
    post,
    path = "/oauth/token",
    tag = "identity",
    summary = "Issues an access token (OAuth 2.0 client credentials, RFC 6749 4.4)",
    request_body(
        description = "Client credentials",
        content(
            (crate::openapi::schemas::TokenRequest = "application/json"),
            (crate::openapi::schemas::TokenRequest = "application/x-www-form-urlencoded"),
        ),
    ),
    responses(
        (status = 200, description = "An access token (`Cache-Control: no-store`)", body = crate::openapi::schemas::Token),
        (status = 400, description = "`invalid_request`, `unsupported_grant_type` or `invalid_scope`", body = crate::openapi::schemas::OAuthError),
        (status = 401, description = "`invalid_client`", body = crate::openapi::schemas::OAuthError),
    ),
    security(()),
)]
pub async fn token(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    let parsed: Result<TokenRequest, String> = if form {
        serde_urlencoded::from_bytes(&body).map_err(|e| e.to_string())
    } else {
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    };
    let req = match parsed {
        Ok(r) => r,
        Err(e) => {
            return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", &format!("malformed request body: {e}"));
        }
    };
    let (Some(client_id), Some(secret), Some(grant)) = (req.client_id, req.client_secret, req.grant_type) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "client_id, client_secret and grant_type are required",
        );
    };
    if grant != "client_credentials" {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "only client_credentials is supported");
    }
    let requested: Vec<&str> = match req.scope.as_deref().map(str::trim) {
        None | Some("") => SCOPES.to_vec(),
        Some(s) => s.split(' ').filter(|p| !p.is_empty()).collect(),
    };
    if let Some(bad) = requested.iter().find(|s| !SCOPES.contains(s)) {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_scope", &format!("unknown scope {bad:?}"));
    }
    let client = match state.store.client(&client_id) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, "client lookup failed");
            return (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({"error": "server_error"}))).into_response();
        }
    };
    let Some((org, _)) = client.filter(|(_, stored)| bool::from(stored.as_bytes().ct_eq(hash_key(&secret).as_bytes())))
    else {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "unknown client or wrong secret");
    };
    let token = issue(&state.tokens, &client_id, org, &requested);
    let mut res = Json(json!({"access_token": token, "expires_in": TOKEN_LIFETIME, "token_type": "bearer", "scope": requested.join(" ")}))
        .into_response();
    no_store(res.headers_mut());
    res
}
