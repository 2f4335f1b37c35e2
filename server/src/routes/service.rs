//! The service's own endpoints: health, the OpenAPI document and the docs page, and the
//! description of `/media` (the bucket, served read-only by `tower_http::services::ServeDir`).

use axum::Json;

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

/// What this service runs: its version, the text encoder of queries, and every pretrained model
/// with whether it is loaded and, when not, why and how to fetch it.
#[utoipa::path(
    get,
    path = "/version",
    tag = "service",
    responses((status = 200, description = "The service and its models", body = VersionInfo)),
    security(()),
)]
pub async fn version(axum::extract::State(state): axum::extract::State<crate::AppState>) -> Json<VersionInfo> {
    Json(VersionInfo {
        service: format!("kino-server {}", env!("CARGO_PKG_VERSION")),
        text_encoder: state.analysis.encoder.version().to_string(),
        models_enabled: state.config.models_dir.is_some(),
        models: state
            .analysis
            .models
            .states()
            .iter()
            .map(|m| ModelInfo {
                id: m.id.to_string(),
                version: m.version.to_string(),
                summary: m.summary.to_string(),
                loaded: m.loaded,
                reason: m.reason.clone(),
            })
            .collect(),
    })
}

/// The service and the models it runs.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[schema(example = json!({"service": "kino-server 0.1.0", "text_encoder": "all-minilm-l6-v2 1.0.0 (lift-1024)",
    "models_enabled": true, "models": [{"id": "silero-vad", "version": "6.2.3",
    "summary": "voice activity detection", "loaded": true, "reason": null}]}))]
pub struct VersionInfo {
    /// `kino-server` and its version.
    pub service: String,
    /// The `version_id` of `/text-embedding` answers: the sentence model in the 1024-float scene
    /// space, or `lexical-hash-v1` without it.
    pub text_encoder: String,
    /// Whether the service looks for models at all (`--no-models` turns them off).
    pub models_enabled: bool,
    /// Every model analysis may use.
    pub models: Vec<ModelInfo>,
}

/// One pretrained model.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct ModelInfo {
    /// Short name, e.g. `silero-vad`.
    pub id: String,
    /// The pinned version of the package that carries it.
    pub version: String,
    /// What it is for.
    pub summary: String,
    /// Whether analysis uses it.
    pub loaded: bool,
    /// Why it is not used (not fetched: the command that fetches it; or a load failure); null
    /// when loaded.
    pub reason: Option<String>,
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

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<crate::state::AppState> {
    use axum::routing::get;
    axum::Router::new().route("/health", get(health)).route("/version", get(version))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(health, version, media_generation_file, media_creative_asset_file))]
pub struct Api;
