//! `POST /oauth/token` (RFC 6749 section 4.4, client credentials): the request's parsing (JSON or
//! form-encoded, HTTP Basic or body credentials, never both) and the OAuth answers. What a token
//! is and how clients are checked lives in [`crate::identity`].

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::blocking;
use crate::error::AppError;
use crate::identity::*;
use crate::state::AppState;

#[derive(Deserialize)]
struct TokenRequest {
    client_id: Option<String>,
    client_secret: Option<String>,
    grant_type: Option<String>,
    scope: Option<String>,
}

impl std::fmt::Debug for TokenRequest {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRequest")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| crate::redacted::Redacted))
            .field("grant_type", &self.grant_type)
            .field("scope", &self.scope)
            .finish()
    }
}

/// An access token (RFC 6749 5.1).
#[derive(Clone, Serialize, Deserialize, utoipa::ToSchema)]
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

impl std::fmt::Debug for Token {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("access_token", &crate::redacted::Redacted)
            .field("expires_in", &self.expires_in)
            .field("token_type", &self.token_type)
            .field("scope", &self.scope)
            .finish()
    }
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
    let lookup = blocking(move || client_org(&s.store, &id, &secret).map_err(AppError::from)).await;
    let client = match lookup {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, "client lookup failed");
            let body = OAuthError { error: OAuthErrorCode::ServerError, error_description: None };
            return (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response();
        }
    };
    let Some(org) = client else {
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

/// This module's routes (merged in `app.rs`); anything else under `/oauth` gets the portal's
/// error body.
pub fn router() -> axum::Router<AppState> {
    use axum::routing::post;
    super::portal_error::with_portal_fallbacks(axum::Router::new().route("/oauth/token", post(token)), &["/oauth/"])
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(token))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_secret_never_shows_in_debug_output() {
        let request = TokenRequest {
            client_id: Some("kc_1".into()),
            client_secret: Some("kcs_the-secret".into()),
            grant_type: Some("client_credentials".into()),
            scope: None,
        };
        let shown = format!("{request:?}");
        assert!(!shown.contains("kcs_the-secret") && shown.contains("<redacted>") && shown.contains("kc_1"), "{shown}");
    }

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
