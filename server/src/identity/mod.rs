//! OAuth 2.0 client credentials (RFC 6749 section 4.4): the token endpoint (client authentication
//! by HTTP Basic or body parameters, section 2.3.1), validation of the JWT access tokens it issues
//! (RFC 8725: one algorithm allowed, `exp`, `iss`, `aud` and the token type checked, and the
//! client still live), and the listing and revocation of clients. The HS256 signing key is
//! generated on first start and kept in the data directory.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

pub mod keys;

use crate::auth::{CredentialError, hash_key, random_hex};
use crate::state::AppState;
use crate::store::{OrgId, Store, StoreError};

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
pub fn authenticate(state: &AppState, token: &str) -> Result<Claims, TokenError> {
    let claims = validate(&state.keys.tokens, token)?;
    match state.store.client_is_live(OrgId(claims.org), &claims.sub) {
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
    store.add_client(org, &client_id, &crate::auth::hash_key(&secret))?;
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

#[derive(Debug, Deserialize)]
struct TokenRequest {
    client_id: Option<String>,
    client_secret: Option<String>,
    grant_type: Option<String>,
    scope: Option<String>,
}

/// An access token (RFC 6749 5.1).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Token {
    /// A JWT (HS256, `typ: at+jwt`).
    pub access_token: String,
    /// Seconds until it expires (3600).
    pub expires_in: u64,
    /// `bearer`.
    pub token_type: String,
    /// The granted scopes, space-separated.
    pub scope: String,
}

/// A token endpoint error (RFC 6749 5.2).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OAuthError {
    /// The error code.
    pub error: OAuthErrorCode,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_description: Option<String>,
}

/// The error codes of the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OAuthErrorCode {
    /// Malformed or missing fields (400).
    InvalidRequest,
    /// Unknown client or wrong secret (401).
    InvalidClient,
    /// Not `client_credentials` (400).
    UnsupportedGrantType,
    /// An unknown scope (400).
    InvalidScope,
    /// The server failed (500).
    ServerError,
}

fn oauth_error(status: StatusCode, error: OAuthErrorCode, description: &str) -> Response {
    let body = OAuthError { error, error_description: Some(description.to_string()) };
    let mut res = (status, Json(body)).into_response();
    no_store(res.headers_mut());
    if status == StatusCode::UNAUTHORIZED {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Basic realm=\"kino\""));
    }
    res
}

fn invalid_request(description: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, OAuthErrorCode::InvalidRequest, description)
}

fn invalid_client(description: &str) -> Response {
    oauth_error(StatusCode::UNAUTHORIZED, OAuthErrorCode::InvalidClient, description)
}

fn no_store(h: &mut HeaderMap) {
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}

/// Decodes one `application/x-www-form-urlencoded` value (`+` is a space, `%XX` a byte), as
/// RFC 6749 2.3.1 encodes the client id and secret before joining them for HTTP Basic.
fn form_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = s.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// The client id and secret of an HTTP Basic credential (the part after `Basic `): base64 of
/// `urlencode(client_id):urlencode(client_secret)`. The error names the rule broken.
fn basic_credentials(encoded: &str) -> Result<(String, String), &'static str> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    const RULE: &str = "the Basic credential must be base64 of client_id:client_secret";
    let decoded = LENIENT.decode(encoded.trim()).map_err(|_| RULE)?;
    let text = String::from_utf8(decoded).map_err(|_| RULE)?;
    let (id, secret) = text.split_once(':').ok_or(RULE)?;
    let id = form_decode(id).ok_or("the Basic credential's client_id is not valid form-urlencoded UTF-8")?;
    let secret =
        form_decode(secret).ok_or("the Basic credential's client_secret is not valid form-urlencoded UTF-8")?;
    if id.is_empty() || secret.is_empty() {
        return Err("the Basic credential's client_id and client_secret must not be empty");
    }
    Ok((id, secret))
}

/// Why a token request's client credentials were not taken, with the description to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClientAuthError {
    /// `invalid_request` (400): missing, or two methods at once.
    Request(&'static str),
    /// `invalid_client` (401 with a Basic challenge): a malformed Basic credential.
    Client(&'static str),
}

impl ClientAuthError {
    fn into_response(self) -> Response {
        match self {
            ClientAuthError::Request(description) => invalid_request(description),
            ClientAuthError::Client(description) => invalid_client(description),
        }
    }
}

/// The client credentials of a token request: HTTP Basic (RFC 6749 2.3.1, which the server must
/// support) or `client_id` and `client_secret` in the body, never both (section 2.3).
fn client_credentials(headers: &HeaderMap, req: &TokenRequest) -> Result<(String, String), ClientAuthError> {
    use ClientAuthError::{Client, Request};
    let basic = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(value) => {
            let value = value.to_str().map_err(|_| Client("the Authorization header must be ASCII"))?.trim();
            let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
            if !scheme.eq_ignore_ascii_case("basic") {
                return Err(Request(
                    "Authorization: the token endpoint accepts only the Basic scheme (client_id:client_secret)",
                ));
            }
            Some(basic_credentials(rest).map_err(Client)?)
        }
    };
    match (basic, &req.client_id, &req.client_secret) {
        (Some(_), _, Some(_)) => {
            Err(Request("client authentication: use HTTP Basic or client_id and client_secret in the body, not both"))
        }
        (Some((id, _)), Some(body_id), None) if *body_id != id => {
            Err(Request("client_id: the body's client_id differs from the Basic credential's"))
        }
        (Some(pair), _, None) => Ok(pair),
        (None, Some(id), Some(secret)) => Ok((id.clone(), secret.clone())),
        (None, None, _) => Err(Request("client_id is required (in the body, or use HTTP Basic)")),
        (None, Some(_), None) => Err(Request("client_secret is required (in the body, or use HTTP Basic)")),
    }
}

/// `POST /oauth/token`: JSON or form-encoded body; the client authenticates with HTTP Basic or
/// with `client_id` and `client_secret` in the body.
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
        (status = 200, description = "An access token (`Cache-Control: no-store`)", body = Token),
        (status = 400, description = "`invalid_request`, `unsupported_grant_type` or `invalid_scope`", body = OAuthError),
        (status = 401, description = "`invalid_client` (with `WWW-Authenticate: Basic`)", body = OAuthError),
    ),
    security((), ("client_basic" = [])),
)]
pub async fn token(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().to_ascii_lowercase().starts_with("application/x-www-form-urlencoded"));
    let parsed: Result<TokenRequest, String> = if form {
        serde_urlencoded::from_bytes(&body).map_err(|e| e.to_string())
    } else {
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    };
    let req = match parsed {
        Ok(r) => r,
        Err(e) => return invalid_request(&format!("malformed request body: {e}")),
    };
    let (client_id, secret) = match client_credentials(&headers, &req) {
        Ok(pair) => pair,
        Err(e) => return e.into_response(),
    };
    let Some(grant) = req.grant_type else { return invalid_request("grant_type is required") };
    if grant != "client_credentials" {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::UnsupportedGrantType,
            "grant_type: only client_credentials is supported",
        );
    }
    let requested: Vec<&str> = match req.scope.as_deref().map(str::trim) {
        None | Some("") => SCOPES.to_vec(),
        Some(s) => s.split(' ').filter(|p| !p.is_empty()).collect(),
    };
    if let Some(bad) = requested.iter().find(|s| !SCOPES.contains(s)) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::InvalidScope,
            &format!("scope: unknown scope {bad:?} (known: {})", SCOPES.join(" ")),
        );
    }
    // The lookup reads the database: off the async threads.
    let (s, id) = (state.clone(), client_id.clone());
    let lookup = tokio::task::spawn_blocking(move || s.store.client(&id).map_err(|e| e.to_string()))
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    let client = match lookup {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, "client lookup failed");
            let body = OAuthError { error: OAuthErrorCode::ServerError, error_description: None };
            return (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response();
        }
    };
    let Some((org, _)) = client.filter(|(_, stored)| bool::from(stored.as_bytes().ct_eq(hash_key(&secret).as_bytes())))
    else {
        return invalid_client("unknown or revoked client, or wrong secret");
    };
    let token = issue(&state.keys.tokens, &client_id, org, &requested);
    let mut res = Json(Token {
        access_token: token,
        expires_in: TOKEN_LIFETIME,
        token_type: "bearer".into(),
        scope: requested.join(" "),
    })
    .into_response();
    no_store(res.headers_mut());
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(raw: &str) -> Result<(String, String), &'static str> {
        use base64::Engine;
        basic_credentials(&base64::engine::general_purpose::STANDARD.encode(raw))
    }

    #[test]
    fn basic_credentials_are_form_decoded() {
        assert_eq!(basic("kc_1:kcs_2"), Ok(("kc_1".into(), "kcs_2".into())));
        assert_eq!(basic("a%3Ab+c:s%25%3A%2B"), Ok(("a:b c".into(), "s%:+".into())), "RFC 6749 2.3.1 encoding");
        assert_eq!(basic("id:secret:with:colons"), Ok(("id".into(), "secret:with:colons".into())));
        assert_eq!(basic_credentials("a2NfMTprY3NfMg"), Ok(("kc_1".into(), "kcs_2".into())), "padding optional");
        assert_eq!(basic_credentials("a2NfMTprY3NfMg=="), Ok(("kc_1".into(), "kcs_2".into())));
    }

    #[test]
    fn malformed_basic_credentials_name_the_rule() {
        for raw in ["no-colon", ":secret", "id:", "%zz:secret", "id:%C3", "%:x", "id:%4", "%+1:x"] {
            assert!(basic(raw).is_err(), "{raw:?}");
        }
        for encoded in ["", "!!!", "a2NfMTprY3NfMg=x", "\u{e9}"] {
            assert!(basic_credentials(encoded).is_err(), "{encoded:?}");
        }
        assert!(basic("no-colon").unwrap_err().contains("client_id:client_secret"));
    }
}
