//! The portal interface (bearer tokens, rate limited, `{error, message, statusCode}` errors).
//! Today: catalogs. Smartlists, recipes and creative assets come next (issue 6).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::identity::{self, TokenError};
use crate::query::Params;
use crate::ratelimit::Quota;
use crate::state::AppState;
use crate::store::OrgId;

/// Largest page number and catalog id (2^53 - 1), as the interface states.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// A portal error: `{error, message, statusCode}`.
#[derive(Debug)]
pub struct PortalError {
    status: StatusCode,
    message: String,
    authenticate: Option<String>,
}

impl PortalError {
    fn new(status: StatusCode, message: impl Into<String>) -> PortalError {
        PortalError { status, message: message.into(), authenticate: None }
    }
}

impl IntoResponse for PortalError {
    fn into_response(self) -> Response {
        let body = json!({
            "error": self.status.canonical_reason().unwrap_or("Error"),
            "message": self.message,
            "statusCode": self.status.as_u16(),
        });
        let mut res = (self.status, Json(body)).into_response();
        if let Some(value) = self.authenticate.and_then(|v| HeaderValue::from_str(&v).ok()) {
            res.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        }
        res
    }
}

impl From<crate::store::StoreError> for PortalError {
    fn from(e: crate::store::StoreError) -> Self {
        tracing::error!(error = %e, "database error");
        PortalError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error")
    }
}

/// Checks the bearer token and its scope (RFC 6750 errors).
fn authorize(state: &AppState, headers: &HeaderMap, scope: &str) -> Result<OrgId, PortalError> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")));
    let claims = match token.map(|t| identity::validate(&state.tokens, t.trim())) {
        None | Some(Err(TokenError::Missing)) => {
            return Err(PortalError {
                authenticate: Some("Bearer realm=\"kino\"".into()),
                ..PortalError::new(StatusCode::UNAUTHORIZED, "a bearer access token is required")
            });
        }
        Some(Err(TokenError::Invalid)) => {
            return Err(PortalError {
                authenticate: Some("Bearer realm=\"kino\", error=\"invalid_token\", error_description=\"the access token is invalid or expired\"".into()),
                ..PortalError::new(StatusCode::UNAUTHORIZED, "the access token is invalid or expired")
            });
        }
        Some(Ok(claims)) => claims,
    };
    if !claims.has_scope(scope) {
        return Err(PortalError {
            authenticate: Some(format!("Bearer realm=\"kino\", error=\"insufficient_scope\", scope=\"{scope}\"")),
            ..PortalError::new(StatusCode::FORBIDDEN, format!("the token lacks the scope {scope}"))
        });
    }
    Ok(OrgId(claims.org))
}

fn with_quota(mut res: Response, q: Quota) -> Response {
    let h = res.headers_mut();
    for (name, value) in [
        ("ratelimit-limit", q.limit.to_string()),
        ("ratelimit-remaining", q.remaining.to_string()),
        ("ratelimit-reset", q.reset.to_string()),
        ("x-ratelimit-limit", q.limit.to_string()),
        ("x-ratelimit-remaining", q.remaining.to_string()),
        ("x-ratelimit-reset", q.reset.to_string()),
    ] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(name, v);
        }
    }
    if !q.allowed {
        if let Ok(v) = HeaderValue::from_str(&q.reset.to_string()) {
            h.insert(header::RETRY_AFTER, v);
        }
    }
    res
}

/// Authorizes, counts the request against the organisation's quota, runs `f`, and puts the
/// rate-limit headers on whatever it answers.
fn portal(
    state: &AppState,
    headers: &HeaderMap,
    scope: &str,
    f: impl FnOnce(OrgId) -> Result<Value, PortalError>,
) -> Response {
    let org = match authorize(state, headers, scope) {
        Ok(org) => org,
        Err(e) => return e.into_response(),
    };
    let quota = state.limiter.hit(org);
    if !quota.allowed {
        let e = PortalError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("rate limit of {} requests per hour exceeded", quota.limit),
        );
        return with_quota(e.into_response(), quota);
    }
    let res = match f(org) {
        Ok(body) => Json(body).into_response(),
        Err(e) => e.into_response(),
    };
    with_quota(res, quota)
}

fn bounded_int(params: &Params, name: &str, default: i64, min: i64, max: i64) -> Result<i64, PortalError> {
    let Some(raw) = params.get(name) else { return Ok(default) };
    match raw.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(PortalError::new(
            StatusCode::BAD_REQUEST,
            format!("{name} must be an integer from {min} to {max} (got {raw:?})"),
        )),
    }
}

/// `page` and `limit` of a portal list.
fn paging(raw: Option<&str>) -> Result<(i64, i64), PortalError> {
    let params = Params::parse(raw).map_err(|_| PortalError::new(StatusCode::BAD_REQUEST, "malformed query string"))?;
    Ok((bounded_int(&params, "page", 1, 1, MAX_SAFE_INTEGER)?, bounded_int(&params, "limit", 20, 1, 100)?))
}

/// The pagination envelope over a full list.
pub fn envelope(items: Vec<Value>, page: i64, limit: i64) -> Value {
    let total = items.len() as i64;
    let data: Vec<Value> =
        items.into_iter().skip(((page - 1).saturating_mul(limit)) as usize).take(limit as usize).collect();
    json!({
        "data": data,
        "pagination": {"page": page, "limit": limit, "total": total, "total_pages": (total + limit - 1) / limit},
    })
}

fn catalog_json(id: i64, name: &str, account: &str, created: &str) -> Value {
    json!({
        "id": id,
        "name": name,
        "status": "active",
        "account": account,
        "created_at": created,
        "updated_at": created,
        "_links": {"self": format!("/catalogs/{id}"), "smartlists": format!("/smartlists/?catalogId={id}")},
    })
}

fn catalogs_of(state: &AppState, org: OrgId) -> Result<Vec<Value>, PortalError> {
    let account = state.store.org_name(org)?.unwrap_or_default();
    Ok(state
        .store
        .catalogs(org)?
        .iter()
        .map(|(id, name, created)| catalog_json(*id, name, &account, created))
        .collect())
}

/// `GET /catalogs/`.
pub async fn catalogs(State(state): State<AppState>, RawQuery(raw): RawQuery, headers: HeaderMap) -> Response {
    portal(&state, &headers, identity::SCOPES[0], |org| {
        let (page, limit) = paging(raw.as_deref())?;
        Ok(envelope(catalogs_of(&state, org)?, page, limit))
    })
}

/// `GET /catalogs/{id}`.
pub async fn catalog(State(state): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    portal(&state, &headers, identity::SCOPES[0], |org| {
        let id: i64 = id.parse().ok().filter(|v: &i64| v.abs() <= MAX_SAFE_INTEGER).ok_or_else(|| {
            PortalError::new(
                StatusCode::BAD_REQUEST,
                format!("catalog id must be an integer from -{MAX_SAFE_INTEGER} to {MAX_SAFE_INTEGER}"),
            )
        })?;
        catalogs_of(&state, org)?
            .into_iter()
            .find(|c| c["id"] == id)
            .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("catalog {id} not found")))
    })
}
