//! `/media`: the bucket's files, read from the object store when the service publishes to one
//! (with a local bucket, `app.rs` serves the directory itself).

use axum::body::Body;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::bucket::BucketError;
use crate::error::AppError;
use crate::state::AppState;

/// The content type of a bucket file, by its extension.
fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "mp4" => "video/mp4",
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

/// `GET`/`HEAD /media/{path}` from the object store: the file streamed with its length and type,
/// 404 for a path that is not in the bucket (or not a plain relative path).
pub async fn object(State(state): State<AppState>, method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "GET, HEAD")]).into_response();
    }
    let path = uri.path().trim_start_matches('/');
    match state.bucket.get(path).await {
        Some(Ok(file)) => {
            let body = if method == Method::HEAD { Body::empty() } else { Body::from_stream(file.stream) };
            let mut res = Response::new(body);
            let headers = res.headers_mut();
            headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static(content_type(path)));
            headers.insert(header::CONTENT_LENGTH, header::HeaderValue::from(file.size));
            res
        }
        None | Some(Err(BucketError::NotFound(_) | BucketError::BadPath(_))) => {
            AppError::NotFound(format!("no file {path:?} in the bucket")).into_response()
        }
        Some(Err(e)) => {
            tracing::error!(path, error = %e, "cannot read from the object store");
            AppError::Internal("the object store failed".into()).into_response()
        }
    }
}
