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

/// Answers 404 for a bucket path that is not plain: an empty segment (`gen//id/clip-0.mp4`, a
/// trailing `/`), `.` or `..`, whether the bucket is a directory or an object store.
pub async fn plain_paths_only(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    // The path as the client sent it: nesting under `/media` may have merged a leading `//`.
    let full = req.extensions().get::<axum::extract::OriginalUri>().map_or(req.uri(), |o| &o.0).path();
    let path = full.strip_prefix("/media").unwrap_or(full);
    let path = path.strip_prefix('/').unwrap_or(path);
    let plain = !path.is_empty() && path.split('/').all(|s| !s.is_empty() && s != "." && s != "..");
    if !plain {
        return AppError::NotFound(format!("no file {path:?} in the bucket")).into_response();
    }
    next.run(req).await
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
