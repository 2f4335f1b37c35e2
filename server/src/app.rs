//! The router: every route module's `router()`, merged, with the fallbacks and the layers that
//! hold for all of them.

use axum::Router;

use crate::routes;
use crate::routes::tokens::{Interface, count_tokens};
use crate::state::AppState;

/// Whether a path belongs to the portal interface or the admin API, whose errors have the portal
/// body `{error, message, statusCode}`.
fn is_portal(path: &str) -> bool {
    path == "/catalogs"
        || ["/catalogs/", "/smartlists", "/recipes", "/creative-assets", "/admin/", "/portal/", "/oauth/"]
            .iter()
            .any(|p| path.starts_with(p))
}

async fn not_found(uri: axum::http::Uri) -> axum::response::Response {
    use axum::response::IntoResponse;
    if uri.path().starts_with("/app/") {
        return crate::web::page_error(axum::http::StatusCode::NOT_FOUND, "there is no such page");
    }
    if is_portal(uri.path()) {
        crate::routes::portal::PortalError::new(axum::http::StatusCode::NOT_FOUND, "no such endpoint").into_response()
    } else {
        crate::error::AppError::NotFound("no such endpoint".into()).into_response()
    }
}

async fn method_not_allowed(uri: axum::http::Uri) -> axum::response::Response {
    use axum::response::IntoResponse;
    let status = axum::http::StatusCode::METHOD_NOT_ALLOWED;
    if uri.path().starts_with("/app/") {
        return crate::web::page_error(status, "this page does not take that method");
    }
    if is_portal(uri.path()) {
        crate::routes::portal::PortalError::new(status, "method not allowed on this endpoint").into_response()
    } else {
        let body = crate::error::ErrorDetail { detail: "Method Not Allowed".into() };
        (status, axum::Json(body)).into_response()
    }
}

/// The service's router over `state`; tests call it without a socket. Each route module gives
/// its own `router()`, merged here; the portal and the previews behind the access-token layer,
/// the admin API nested under `/admin/v1` with its own fallback.
pub fn app(state: AppState) -> Router {
    let portal = routes::portal::router()
        .route_layer(axum::middleware::from_fn_with_state((state.clone(), Interface::Portal), count_tokens));
    let previews = routes::previews::router()
        .merge(routes::thumbnails::router())
        .route_layer(axum::middleware::from_fn_with_state((state.clone(), Interface::Previews), count_tokens));
    Router::new()
        .merge(routes::service::router())
        .merge(crate::openapi::api::router())
        .merge(routes::oauth::router())
        .merge(portal)
        .nest("/admin/v1", routes::admin::router())
        // catalog ingestion, customer signals and tasks (API keys; the key is checked before any
        // body is read, since every handler extracts its caller before its body)
        .merge(routes::catalog::router())
        .merge(routes::analysis::router())
        .merge(routes::tasks::router())
        .merge(previews)
        // the results of every other product, and the catalog-wide scene search (API keys)
        .merge(routes::results::router())
        .merge(routes::search::router())
        .merge(routes::adbreaks::router())
        .merge(routes::fingerprints::router())
        .merge(routes::characters::router())
        .merge(routes::markers::router())
        // the web application: HTML pages, its own error pages
        .merge(crate::web::routes())
        // rendered clips and thumbnails (the bucket), read-only
        .nest_service("/media", media_service(&state))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::map_response(crate::error::json_errors))
        .with_state(state)
}

/// The bucket's files under `/media`: the bucket root as a directory, or the object store the
/// renders are published to ([`crate::bucket`]).
fn media_service(state: &AppState) -> Router {
    let files = if state.bucket.is_remote() {
        Router::new().fallback(crate::routes::media::object).with_state(state.clone())
    } else {
        Router::new().fallback_service(tower_http::services::ServeDir::new(&state.config.bucket_root))
    };
    files.layer(axum::middleware::from_fn(crate::routes::media::plain_paths_only))
}
