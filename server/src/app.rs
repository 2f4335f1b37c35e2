//! The router: every path of the processing and results interfaces.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post, put};

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
    if is_portal(uri.path()) {
        crate::routes::portal::PortalError::new(axum::http::StatusCode::NOT_FOUND, "no such endpoint").into_response()
    } else {
        crate::error::AppError::NotFound("no such endpoint".into()).into_response()
    }
}

async fn method_not_allowed(uri: axum::http::Uri) -> axum::response::Response {
    use axum::response::IntoResponse;
    let status = axum::http::StatusCode::METHOD_NOT_ALLOWED;
    if is_portal(uri.path()) {
        crate::routes::portal::PortalError::new(status, "method not allowed on this endpoint").into_response()
    } else {
        let body = crate::error::ErrorDetail { detail: "Method Not Allowed".into() };
        (status, axum::Json(body)).into_response()
    }
}

/// The service's router over `state`; tests call it without a socket.
pub fn app(state: AppState) -> Router {
    let task = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}";
    Router::new()
        .route("/health", get(service::health))
        .route("/version", get(service::version))
        .route("/openapi.json", get(service::openapi_json))
        .route("/docs", get(service::docs))
        // identity and portal
        .route("/oauth/token", post(crate::identity::token))
        .route("/catalogs/", get(portal::catalogs))
        .route("/catalogs/{id}", get(portal::catalog))
        .route("/smartlists/", get(portal::smartlists))
        .route("/smartlists/{id}", get(portal::smartlist))
        .route("/smartlists/{id}/assets", get(portal::smartlist_assets))
        .route("/recipes/", get(portal::recipes))
        .route("/recipes/{id}", get(portal::recipe))
        .route("/creative-assets/", get(portal::creative_assets))
        .route("/creative-assets/{id}", get(portal::creative_asset))
        .route("/smartlists/openapi.json", get(service::portal_openapi_json))
        .route("/smartlists/docs", get(service::smartlist_docs))
        .route("/smartlists/docs/{*rest}", get(service::smartlist_docs_any))
        .route("/portal/docs", get(service::portal_docs))
        .route("/portal/docs/{*rest}", get(service::portal_docs_any))
        // the web application's management (admin API)
        .route("/admin/v1/orgs", get(admin::list_orgs).post(admin::create_org))
        .route("/admin/v1/orgs/{org}/catalogs", get(admin::list_catalogs).post(admin::create_catalog))
        .route("/admin/v1/orgs/{org}/catalogs/{name}", axum::routing::patch(admin::update_catalog))
        .route("/admin/v1/orgs/{org}/api-keys", get(admin::list_keys).post(admin::create_key))
        .route("/admin/v1/orgs/{org}/api-keys/{id}", axum::routing::delete(admin::revoke_key))
        .route("/admin/v1/orgs/{org}/clients", get(admin::list_clients).post(admin::create_client))
        .route("/admin/v1/orgs/{org}/clients/{id}", axum::routing::delete(admin::revoke_client))
        .route("/admin/v1/orgs/{org}/smartlists", get(admin::list_smartlists).post(admin::create_smartlist))
        .route("/admin/v1/orgs/{org}/smartlists/refresh", post(admin::refresh_smartlists))
        .route(
            "/admin/v1/orgs/{org}/smartlists/{id}",
            get(admin::get_smartlist).patch(admin::update_smartlist).delete(admin::delete_smartlist),
        )
        .route("/admin/v1/orgs/{org}/smartlists/{id}/publish", post(admin::publish_smartlist))
        .route("/admin/v1/orgs/{org}/smartlists/{id}/unpublish", post(admin::unpublish_smartlist))
        .route("/admin/v1/orgs/{org}/smartlists/{id}/assets", get(admin::smartlist_members))
        .route("/admin/v1/orgs/{org}/recipes", get(admin::list_recipes).post(admin::create_recipe))
        .route("/admin/v1/orgs/{org}/recipes/{id}", get(admin::get_recipe).patch(admin::update_recipe))
        .route("/admin/v1/orgs/{org}/recipes/{id}/publish", post(admin::publish_recipe))
        .route("/admin/v1/orgs/{org}/recipes/{id}/unpublish", post(admin::unpublish_recipe))
        .route("/admin/v1/orgs/{org}/recipes/{id}/run", post(admin::run_recipe))
        .route("/admin/v1/orgs/{org}/recipes/{id}/creative-assets", get(admin::recipe_assets))
        .route("/admin/v1/orgs/{org}/webhooks", get(admin::list_webhooks).post(admin::create_webhook))
        .route("/admin/v1/orgs/{org}/webhooks/{id}", axum::routing::delete(admin::delete_webhook))
        .route("/admin/v1/orgs/{org}/webhooks/{id}/enable", post(admin::enable_webhook))
        .route("/admin/v1/orgs/{org}/webhooks/{id}/disable", post(admin::disable_webhook))
        .route("/admin/v1/orgs/{org}/webhooks/{id}/test", post(admin::test_webhook))
        .route("/admin/v1/orgs/{org}/webhooks/{id}/deliveries", get(admin::webhook_deliveries))
        .route("/admin/v1/orgs/{org}/webhook-deliveries/{id}/redeliver", post(admin::redeliver))
        // catalog ingestion
        .route("/catalog/v1/item", put(catalog::upsert).get(catalog::list))
        .route("/catalog/v1/item/{item_type}/{id}", get(catalog::get))
        .route("/catalog/v1/delete/{item_type}/{id}", put(catalog::delete))
        .route(
            "/analysis/v1/item/{item_type}/{id}",
            put(analysis::put_signals).layer(DefaultBodyLimit::max(analysis::MAX_SIGNALS_BYTES)),
        )
        // tasks
        .route(task, get(tasks::get).post(tasks::post).delete(tasks::delete))
        .route(&format!("{task}/reset"), put(tasks::reset))
        .route("/tasks/catalog-item/{inventory_id}", get(tasks::list))
        // previews
        .route("/results/jitpreviews/v2/", get(previews::list))
        .route("/results/jitpreviews/v2/info/clip_types", get(previews::clip_types))
        .route("/results/jitpreviews/v2/gen/{gen_id}/status", get(previews::generation))
        .route("/results/jitpreviews/v2/status/{inventory_id}", get(previews::status))
        .route("/results/jitpreviews/v2/{inventory_id}", get(previews::clips))
        .route("/results/jitthumbnails/v2/", get(thumbnails::list))
        .route("/results/jitthumbnails/v2/gen/{gen_id}/status", get(thumbnails::generation))
        .route("/results/jitthumbnails/v2/status/{inventory_id}", get(thumbnails::status))
        .route("/results/jitthumbnails/v2/{inventory_id}", get(thumbnails::thumbnails))
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
        // rendered clips and thumbnails (the bucket), read-only
        .nest_service("/media", tower_http::services::ServeDir::new(&state.config.bucket_root))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), crate::routes::credential_before_body))
        .layer(axum::middleware::map_response(crate::error::json_errors))
        .with_state(state)
}
