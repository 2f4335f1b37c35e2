//! The router: every route module's `router()`, merged, with the fallbacks and the layers that
//! hold for all of them.

use axum::Router;

use crate::routes;
use crate::routes::tokens::{Interface, count_tokens};
use crate::state::AppState;

/// A path no interface has (each interface answers its own: the portal, OAuth and the admin API
/// with the portal's body, the web application with a page).
async fn not_found() -> crate::error::AppError {
    crate::error::AppError::NotFound("no such endpoint".into())
}

/// A method a route of the service's API does not take.
async fn method_not_allowed() -> axum::response::Response {
    use axum::response::IntoResponse;
    let body = crate::error::ErrorDetail { detail: "Method Not Allowed".into() };
    (axum::http::StatusCode::METHOD_NOT_ALLOWED, axum::Json(body)).into_response()
}

/// The service's router over `state`; tests call it without a socket. Each route module gives
/// its own `router()`, merged here; the portal and the previews behind the access-token layer.
/// The portal, OAuth, the admin API and the web application bring their own fallbacks (nested
/// under their prefixes); the ones here answer every other path.
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
        .merge(routes::admin::router())
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
