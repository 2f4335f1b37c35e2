//! The service's own endpoints: health, the OpenAPI document and the docs page, and the
//! description of `/media` (the bucket, served read-only by `tower_http::services::ServeDir`).

use axum::Json;
use axum::response::Html;
use serde_json::Value;

/// Answers `ok` while the service runs.
#[utoipa::path(
    get,
    path = "/health",
    tag = "service",
    responses((status = 200, description = "Running", body = String, content_type = "text/plain", example = "ok")),
    security(()),
)]
pub async fn health() -> &'static str {
    "ok"
}

/// This document: OpenAPI 3.1 of every endpoint, generated from the handlers' types.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "service",
    responses((status = 200, description = "The OpenAPI document", body = Object)),
    security(()),
)]
pub async fn openapi_json() -> Json<Value> {
    Json(crate::openapi::document())
}

/// The same document for the portal's documentation address.
#[utoipa::path(
    get,
    path = "/smartlists/openapi.json",
    tag = "service",
    responses((status = 200, description = "The OpenAPI document", body = Object)),
    security(()),
)]
pub async fn portal_openapi_json() -> Json<Value> {
    Json(crate::openapi::document())
}

/// A readable page of every endpoint, its parameters and answers.
#[utoipa::path(
    get,
    path = "/docs",
    tag = "service",
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn docs() -> Html<String> {
    Html(crate::openapi::docs_page())
}

/// The docs page, at the portal's documentation addresses.
#[utoipa::path(
    get,
    path = "/portal/docs",
    tag = "service",
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn portal_docs() -> Html<String> {
    Html(crate::openapi::docs_page())
}

/// The docs page, at any address under `/portal/docs/`.
#[utoipa::path(
    get,
    path = "/portal/docs/{rest}",
    tag = "service",
    params(("rest" = String, Path, description = "Any remainder", example = "index.html")),
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn portal_docs_any() -> Html<String> {
    Html(crate::openapi::docs_page())
}

/// The docs page, at the smartlists' documentation address.
#[utoipa::path(
    get,
    path = "/smartlists/docs",
    tag = "service",
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn smartlist_docs() -> Html<String> {
    Html(crate::openapi::docs_page())
}

/// The docs page, at any address under `/smartlists/docs/`.
#[utoipa::path(
    get,
    path = "/smartlists/docs/{rest}",
    tag = "service",
    params(("rest" = String, Path, description = "Any remainder", example = "index.html")),
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn smartlist_docs_any() -> Html<String> {
    Html(crate::openapi::docs_page())
}

/// A rendered clip or thumbnail of a generation (the paths in `gen` of the previews and of the
/// generation status), from the bucket.
#[utoipa::path(
    get,
    path = "/media/gen/{gen_id}/{file}",
    tag = "media",
    params(
        ("gen_id" = String, Path, description = "The generation"),
        ("file" = String, Path, description = "`clip-<n>.mp4`, `clip-<n>-large.jpg` or `clip-<n>-small.jpg`", example = "clip-0.mp4"),
    ),
    responses(
        (status = 200, description = "The file", content(
            (crate::openapi::schemas::Binary = "video/mp4"),
            (crate::openapi::schemas::Binary = "image/jpeg"),
        )),
        (status = 404, description = "No such file (yet)", body = crate::error::ErrorDetail),
    ),
    security(()),
)]
pub async fn media_generation_file() {}

/// A rendered creative asset file (the `*_uri` paths of creative assets), from the bucket.
#[utoipa::path(
    get,
    path = "/media/creative-assets/{recipe_id}/{file}",
    tag = "media",
    params(
        ("recipe_id" = String, Path, description = "The recipe"),
        ("file" = String, Path, description = "`<asset id>.mp4`, `<asset id>-large.jpg` or `<asset id>-small.jpg`"),
    ),
    responses(
        (status = 200, description = "The file", content(
            (crate::openapi::schemas::Binary = "video/mp4"),
            (crate::openapi::schemas::Binary = "image/jpeg"),
        )),
        (status = 404, description = "No such file", body = crate::error::ErrorDetail),
    ),
    security(()),
)]
pub async fn media_creative_asset_file() {}
