//! The router: every path of the processing and results interfaces.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post, put};

use crate::routes::tokens::{Interface, count_tokens};
use crate::routes::{adbreaks, admin, analysis, catalog, portal, previews, results, service, tasks, thumbnails};
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

async fn portal_not_found() -> axum::response::Response {
    use axum::response::IntoResponse;
    crate::routes::portal::PortalError::new(axum::http::StatusCode::NOT_FOUND, "no such endpoint").into_response()
}

async fn portal_method_not_allowed() -> axum::response::Response {
    use axum::response::IntoResponse;
    crate::routes::portal::PortalError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed on this endpoint",
    )
    .into_response()
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

/// The service's router over `state`; tests call it without a socket. One router per interface
/// group, merged; the portal and the previews behind the access-token layer, the admin API nested
/// under `/admin/v1` with its own fallback.
pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(service_routes())
        .merge(portal_routes(&state))
        .nest("/admin/v1", admin_routes())
        .merge(processing_routes())
        .merge(previews_routes(&state))
        .merge(results_routes())
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

/// Health, version, the OpenAPI documents and their pages, and `/oauth/token`.
fn service_routes() -> Router<AppState> {
    Router::new()
        .route("/health", get(service::health))
        .route("/version", get(service::version))
        .route("/openapi.json", get(crate::openapi::api::openapi_json))
        .route("/docs", get(crate::openapi::api::docs))
        .route("/oauth/token", post(crate::routes::oauth::token))
        .route("/smartlists/openapi.json", get(crate::openapi::api::portal_openapi_json))
        .route("/smartlists/docs", get(crate::openapi::api::smartlist_docs))
        .route("/smartlists/docs/{*rest}", get(crate::openapi::api::smartlist_docs_any))
        .route("/portal/docs", get(crate::openapi::api::portal_docs))
        .route("/portal/docs/{*rest}", get(crate::openapi::api::portal_docs_any))
}

/// The portal: access tokens only, counted against the organisation's rate limit.
fn portal_routes(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/catalogs/", get(portal::catalogs))
        .route("/catalogs/{id}", get(portal::catalog))
        .route("/smartlists/", get(portal::smartlists))
        .route("/smartlists/{id}", get(portal::smartlist))
        .route("/smartlists/{id}/assets", get(portal::smartlist_assets))
        .route("/recipes/", get(portal::recipes))
        .route("/recipes/{id}", get(portal::recipe))
        .route("/creative-assets/", get(portal::creative_assets))
        .route("/creative-assets/{id}", get(portal::creative_asset))
        .route_layer(axum::middleware::from_fn_with_state((state.clone(), Interface::Portal), count_tokens))
}

/// The web application's management (admin API), under `/admin/v1`.
fn admin_routes() -> Router<AppState> {
    Router::new()
        .route("/orgs", get(admin::list_orgs).post(admin::create_org))
        .route("/orgs/{org}/catalogs", get(admin::list_catalogs).post(admin::create_catalog))
        .route("/orgs/{org}/catalogs/{name}", axum::routing::patch(admin::update_catalog))
        .route("/orgs/{org}/api-keys", get(admin::list_keys).post(admin::create_key))
        .route("/orgs/{org}/api-keys/{id}", axum::routing::delete(admin::revoke_key))
        .route("/orgs/{org}/clients", get(admin::list_clients).post(admin::create_client))
        .route("/orgs/{org}/clients/{id}", axum::routing::delete(admin::revoke_client))
        .route("/orgs/{org}/smartlists", get(admin::list_smartlists).post(admin::create_smartlist))
        .route("/orgs/{org}/smartlists/refresh", post(admin::refresh_smartlists))
        .route(
            "/orgs/{org}/smartlists/{id}",
            get(admin::get_smartlist).patch(admin::update_smartlist).delete(admin::delete_smartlist),
        )
        .route("/orgs/{org}/smartlists/{id}/publish", post(admin::publish_smartlist))
        .route("/orgs/{org}/smartlists/{id}/unpublish", post(admin::unpublish_smartlist))
        .route("/orgs/{org}/smartlists/{id}/assets", get(admin::smartlist_members))
        .route("/orgs/{org}/recipes", get(admin::list_recipes).post(admin::create_recipe))
        .route("/orgs/{org}/recipes/{id}", get(admin::get_recipe).patch(admin::update_recipe))
        .route("/orgs/{org}/recipes/{id}/publish", post(admin::publish_recipe))
        .route("/orgs/{org}/recipes/{id}/unpublish", post(admin::unpublish_recipe))
        .route("/orgs/{org}/recipes/{id}/run", post(admin::run_recipe))
        .route("/orgs/{org}/recipes/{id}/creative-assets", get(admin::recipe_assets))
        .route("/orgs/{org}/webhooks", get(admin::list_webhooks).post(admin::create_webhook))
        .route("/orgs/{org}/webhooks/{id}", axum::routing::delete(admin::delete_webhook))
        .route("/orgs/{org}/webhooks/{id}/enable", post(admin::enable_webhook))
        .route("/orgs/{org}/webhooks/{id}/disable", post(admin::disable_webhook))
        .route("/orgs/{org}/webhooks/{id}/test", post(admin::test_webhook))
        .route("/orgs/{org}/webhooks/{id}/deliveries", get(admin::webhook_deliveries))
        .route("/orgs/{org}/webhook-deliveries/{id}/redeliver", post(admin::redeliver))
        .fallback(portal_not_found)
        .method_not_allowed_fallback(portal_method_not_allowed)
}

/// Catalog ingestion, customer signals and tasks (API keys; the key is checked before any body
/// is read, since every handler extracts its caller before its body).
fn processing_routes() -> Router<AppState> {
    let task = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}";
    Router::new()
        .route("/catalog/v1/item", put(catalog::upsert).get(catalog::list))
        .route("/catalog/v1/item/{item_type}/{id}", get(catalog::get))
        .route("/catalog/v1/delete/{item_type}/{id}", put(catalog::delete))
        .route(
            "/analysis/v1/item/{item_type}/{id}",
            put(analysis::put_signals).layer(DefaultBodyLimit::max(analysis::MAX_SIGNALS_BYTES)),
        )
        .route(task, get(tasks::get).post(tasks::post).delete(tasks::delete))
        .route(&format!("{task}/reset"), put(tasks::reset))
        .route("/tasks/catalog-item/{inventory_id}", get(tasks::list))
}

/// Previews and thumbnails: an API key, or an access token counted against the rate limit.
fn previews_routes(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/results/jitpreviews/v2/", get(previews::list))
        .route("/results/jitpreviews/v2/info/clip_types", get(previews::clip_types))
        .route("/results/jitpreviews/v2/gen/{gen_id}/status", get(previews::generation))
        .route("/results/jitpreviews/v2/status/{inventory_id}", get(previews::status))
        .route("/results/jitpreviews/v2/{inventory_id}", get(previews::clips))
        .route("/results/jitthumbnails/v2/", get(thumbnails::list))
        .route("/results/jitthumbnails/v2/gen/{gen_id}/status", get(thumbnails::generation))
        .route("/results/jitthumbnails/v2/status/{inventory_id}", get(thumbnails::status))
        .route("/results/jitthumbnails/v2/{inventory_id}", get(thumbnails::thumbnails))
        .route_layer(axum::middleware::from_fn_with_state((state.clone(), Interface::Previews), count_tokens))
}

/// The results of every other product, and the catalog-wide scene search (API keys).
fn results_routes() -> Router<AppState> {
    Router::new()
        // scene-level retrieval
        .route("/results/semantic_scenes/v1/text-embedding", get(results::text_embedding))
        // catalog-wide scene search
        .route("/search/v1/scenes", get(crate::routes::search::scenes))
        .route("/results/semantic_scenes/v1/video-embedding", get(results::semantic_scenes_list))
        .route("/results/semantic_scenes/v1/video-embedding/{inventory_id}", get(results::semantic_scenes))
        .route("/results/semantic_scenes/v1/status/{inventory_id}", get(results::semantic_scenes_status))
        // item-level retrieval
        .route("/results/semantic/v2/video-embedding", get(results::semantic_list))
        .route("/results/semantic/v2/video-embedding/{inventory_id}", get(results::semantic))
        .route("/results/semantic/v2/status/{inventory_id}", get(results::semantic_status))
        // profanity
        .route("/results/profanity/v2/", get(results::profanity_list))
        .route("/results/profanity/v2/status/{inventory_id}", get(results::profanity_status))
        .route("/results/profanity/v2/segments/{inventory_id}", get(results::profanity_segments))
        .route("/results/profanity/v2/{inventory_id}", get(results::profanity))
        // similarity (deprecated)
        .route("/results/similar/similar/v2/movies/{inventory_id}", get(results::similar_movies))
        .route("/results/similar/similar/v2/series/{inventory_id}", get(results::similar_series))
        .route("/results/similar/similar/v2/{inventory_id}", get(results::similar_any))
        // emotions
        .route("/results/adbreaks/v2/filter/millisec/{inventory_id}", get(adbreaks::millisec))
        .route("/results/adbreaks/v2/filter/frame/{inventory_id}", get(adbreaks::frame))
        .route("/results/contextual_adbreak/v2/{inventory_id}", get(adbreaks::contextual))
        .route("/results/fingerprint/v1/status/{inventory_id}", get(results::fingerprint_status))
        .route("/results/fingerprint/v1/{inventory_id}", get(results::fingerprint))
        .route("/results/fingerprintplus/v3/", get(results::fingerprintplus_list))
        .route("/results/fingerprintplus/v3/duplicates", get(crate::routes::fingerprints::groups))
        .route("/results/fingerprintplus/v3/duplicates/{inventory_id}", get(crate::routes::fingerprints::duplicates))
        .route("/results/fingerprintplus/v3/status/{inventory_id}", get(results::fingerprintplus_status))
        .route("/results/fingerprintplus/v3/{inventory_id}", get(results::fingerprintplus))
        .route("/results/characters/v1/{inventory_id}", get(crate::routes::characters::characters))
        .route("/results/markers/v1/", get(crate::routes::markers::list))
        .route("/results/markers/v1/asset/{inventory_id}", get(crate::routes::markers::asset))
        .route("/results/nudity/v1/", get(results::nudity_list))
        .route("/results/nudity/v1/status/{inventory_id}", get(results::nudity_status))
        .route("/results/nudity/v1/{inventory_id}", get(results::nudity))
        .route("/results/scene_tags/v1/", get(results::scene_tags_list))
        .route("/results/scene_tags/v1/status/{inventory_id}", get(results::scene_tags_status))
        .route("/results/scene_tags/v1/{inventory_id}", get(results::scene_tags))
        .route("/results/content_summary/v1/", get(results::content_summary_list))
        .route("/results/content_summary/v1/status/{inventory_id}", get(results::content_summary_status))
        .route("/results/content_summary/v1/{inventory_id}", get(results::content_summary))
        .route("/results/emotions/v2/", get(results::emotions_list))
        .route("/results/emotions/v2/status/{inventory_id}", get(results::emotions_status))
        .route("/results/emotions/v2/{inventory_id}", get(results::emotions))
}
