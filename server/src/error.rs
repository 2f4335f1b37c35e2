//! Errors as the interface shapes them: FastAPI-style validation bodies (422), `{"detail": ...}`
//! for 400/401/404, and a generic 500 whose detail is only logged.

use axum::Json;
use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

pub use kino_service::error::{Detail, ServiceError};

/// A problem as the answer shows it: its location split into names and list indexes.
fn to_issue(d: &Detail) -> ValidationIssue {
    ValidationIssue {
        kind: d.kind.clone(),
        loc: d.loc.iter().flat_map(|segment| loc_parts(segment)).collect(),
        msg: d.msg.clone(),
        input: d.input.clone(),
        ctx: d.ctx.clone(),
    }
}

/// The body of a 422 answer: every problem with the request, FastAPI's `HTTPValidationError`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"detail": [{"type": "less_than_equal", "loc": ["query", "max_nudity"],
    "msg": "Input should be less than or equal to 1", "input": "2", "ctx": {"le": 1.0}}]})))]
pub struct ValidationError {
    /// The problems, in parameter order.
    pub detail: Vec<ValidationIssue>,
}

/// One validation problem, in pydantic's shape.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ValidationIssue {
    /// pydantic's error type (`missing`, `int_parsing`, `less_than_equal`, `value_error`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Where: `["query", "page_size"]`, `["path", "product"]`, `["body", "genres", 0]`.
    pub loc: Vec<LocSegment>,
    /// What is wrong, naming the rule.
    pub msg: String,
    /// The offending input (`null` when there is none to show).
    pub input: Value,
    /// The rule's values (`{"le": 1.0}`, `{"expected": "..."}`), when it has any.
    #[serde(skip_serializing_if = "Value::is_null")]
    #[schema(value_type = Object)]
    pub ctx: Value,
}

/// A segment of a location: a field name, or an index into a list.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum LocSegment {
    /// A name (`query`, `body`, a field).
    Name(String),
    /// A list index.
    Index(u64),
}

/// The body of the other errors of the processing and results interfaces (400, 401, 404, 405,
/// 413, 429, 500, 503).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"detail": "item \"tt-missing\" not found"})))]
pub struct ErrorDetail {
    /// What went wrong.
    pub detail: String,
}

/// A location segment as FastAPI writes it: `genres[0]` is `"genres", 0`.
fn loc_parts(segment: &str) -> Vec<LocSegment> {
    let (name, mut rest) = segment.split_once('[').map_or((segment, ""), |(n, r)| (n, r));
    let mut out = Vec::new();
    if !name.is_empty() || rest.is_empty() {
        out.push(LocSegment::Name(name.into()));
    }
    while let Some((index, tail)) = rest.split_once(']') {
        match index.parse::<u64>() {
            Ok(i) => out.push(LocSegment::Index(i)),
            Err(_) => out.push(LocSegment::Name(index.into())),
        }
        rest = tail.strip_prefix('[').unwrap_or(tail);
    }
    out
}

/// Everything a handler can answer besides success.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 422 with every problem.
    #[error("validation failed")]
    Validation(Vec<Detail>),
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 400.
    #[error("{0}")]
    BadRequest(String),
    /// 401.
    #[error("{0}")]
    Unauthorized(&'static str),
    /// 413.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// 415: a body of a media type the endpoint does not take.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// 429 with `Retry-After`: the caller has too much work queued.
    #[error("{detail}")]
    TooManyRequests {
        /// What the caller has too much of.
        detail: String,
        /// Seconds after which trying again makes sense.
        retry_after: u64,
    },
    /// 503 with `Retry-After`: the service is at a capacity limit shared by every caller.
    #[error("{detail}")]
    Unavailable {
        /// Which limit.
        detail: String,
        /// Seconds after which trying again makes sense.
        retry_after: u64,
    },
    /// 500; the detail is logged, never shown.
    #[error("internal error: {0}")]
    Internal(String),
}

impl AppError {
    /// The 404 for an item (or anything of another organisation: indistinguishable on purpose).
    pub fn item_not_found(id: &str) -> AppError {
        AppError::NotFound(format!("item {id:?} not found"))
    }

    /// A single validation problem.
    pub fn invalid(detail: Detail) -> AppError {
        AppError::Validation(vec![detail])
    }
}

impl From<tokio::task::JoinError> for AppError {
    fn from(e: tokio::task::JoinError) -> Self {
        AppError::Internal(format!("the request's work failed: {e}"))
    }
}

impl From<ServiceError> for AppError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::NotFound(m) => AppError::NotFound(m),
            ServiceError::Store(e) => e.into(),
            ServiceError::Kino(e) => e.into(),
            ServiceError::Signals(e) => e.into(),
            ServiceError::Search(e) => e.into(),
        }
    }
}

impl From<crate::store::StoreError> for AppError {
    fn from(e: crate::store::StoreError) -> Self {
        AppError::Internal(e.to_string())
    }
}

impl From<kino::Error> for AppError {
    fn from(e: kino::Error) -> Self {
        match e {
            kino::Error::InvalidQuery { issues } => AppError::Validation(
                issues
                    .into_iter()
                    .map(|i| Detail {
                        kind: i.kind.as_str().into(),
                        loc: vec!["query".into(), i.param],
                        msg: i.message,
                        input: i.input.map(Value::String).unwrap_or(Value::Null),
                        ctx: i.ctx,
                    })
                    .collect(),
            ),
            kino::Error::InvalidSignals { field, rule } => AppError::invalid(Detail {
                kind: "value_error".into(),
                loc: std::iter::once("body".to_string()).chain(field.split('.').map(String::from)).collect(),
                msg: format!("Value error, {field} {rule}"),
                input: Value::Null,
                ctx: json!({"error": rule}),
            }),
            kino::Error::SignalsJson { path, message } => AppError::invalid(Detail {
                kind: "json_invalid".into(),
                loc: vec!["body".into(), path],
                msg: message,
                input: Value::Null,
                ctx: Value::Null,
            }),
            kino::Error::Io { .. } => AppError::Internal(e.to_string()),
            // A model that fails is the service's fault, not the query's.
            kino::Error::TextEncoder { .. } => AppError::Internal(e.to_string()),
            kino::Error::InvalidParameter { param, rule } => AppError::invalid(Detail {
                kind: "value_error".into(),
                loc: vec!["query".into(), param.to_string()],
                msg: format!("Value error, {param} {rule}"),
                input: Value::Null,
                ctx: json!({"error": rule}),
            }),
            other => AppError::invalid(Detail {
                kind: "value_error".into(),
                loc: vec!["query".into()],
                msg: format!("Value error, {other}"),
                input: Value::Null,
                ctx: json!({"error": other.to_string()}),
            }),
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let detail = |m: &str| json!(ErrorDetail { detail: m.to_string() });
        let (status, body) = match &self {
            AppError::Validation(details) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                json!(ValidationError { detail: details.iter().map(to_issue).collect() }),
            ),
            AppError::NotFound(m) => (StatusCode::NOT_FOUND, detail(m)),
            AppError::BadRequest(m) => (StatusCode::BAD_REQUEST, detail(m)),
            AppError::Unauthorized(m) => (StatusCode::UNAUTHORIZED, detail(m)),
            AppError::PayloadTooLarge(m) => (StatusCode::PAYLOAD_TOO_LARGE, detail(m)),
            AppError::UnsupportedMediaType(m) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, detail(m)),
            AppError::TooManyRequests { detail, retry_after } | AppError::Unavailable { detail, retry_after } => {
                let status = if matches!(self, AppError::TooManyRequests { .. }) {
                    StatusCode::TOO_MANY_REQUESTS
                } else {
                    StatusCode::SERVICE_UNAVAILABLE
                };
                return (
                    status,
                    [(header::RETRY_AFTER, retry_after.to_string())],
                    Json(ErrorDetail { detail: detail.clone() }),
                )
                    .into_response();
            }
            AppError::Internal(m) => {
                tracing::error!(error = %m, "internal error");
                (StatusCode::INTERNAL_SERVER_ERROR, detail("internal server error"))
            }
        };
        (status, Json(body)).into_response()
    }
}

/// Gives every error response a JSON body. The framework's own rejections (405, 413, a path that
/// is not UTF-8, ...) come as plain text or empty; they become `{"detail": "<text>"}` like the
/// service's own errors, with their status and other headers (such as `allow`) kept.
pub async fn json_errors(res: Response) -> Response {
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
    if status.as_u16() < 400 || is_json {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024)
        .await
        .ok()
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("Error").to_string());
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Response::from_parts(parts, Body::from(json!(ErrorDetail { detail: text }).to_string()))
}

#[cfg(test)]
mod tests {
    use super::loc_parts;
    use serde_json::json;

    #[test]
    fn indexes_become_numbers() {
        let parts = |s: &str| json!(loc_parts(s));
        assert_eq!(parts("genres[0]"), json!(["genres", 0]));
        assert_eq!(parts("probs[3][1]"), json!(["probs", 3, 1]));
        assert_eq!(parts("min_nudity"), json!(["min_nudity"]));
        assert_eq!(parts(""), json!([""]));
    }
}

/// The body of every portal and admin error.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[schema(as = PortalError)]
#[schema(examples(json!({"error": "Not Found", "message": "smartlist 0b9c... not found", "statusCode": 404})))]
pub struct PortalErrorBody {
    /// The status's reason phrase (`Bad Request`, `Not Found`, ...).
    pub error: String,
    /// What went wrong, naming the parameter or field and the rule.
    pub message: String,
    /// The HTTP status code.
    #[serde(rename = "statusCode")]
    pub status_code: u16,
}
