//! The web application under `/app`: sign-in for an organisation's users, API keys and OAuth
//! clients, webhooks with their delivery log, the catalog with what kino measured of each title
//! drawn on a shared time axis and its preview clips playable in the page, smartlists, recipes and
//! creative assets, and an interactive viewer of the OpenAPI document.
//!
//! Pages are rendered on the server (maud) and work without script; the one script (`app.js`)
//! adds copy buttons and clip players that stop at a clip's end. Every script, style and the
//! OpenAPI viewer's assets are served by kino itself (no CDN). Forms carry a CSRF token: the
//! session's own once signed in, a double-submit cookie's before; every state change is a POST
//! that checks it. Handlers stay thin: the operations are the admin API's domain functions
//! ([`crate::auth`], [`crate::identity`], [`crate::webhooks`], the portal), scoped to the signed-in
//! user's organisation exactly as the API scopes a credential's.

pub mod account;
mod catalog;
mod common;
mod library;
mod settings;
pub mod timeline;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use crate::state::AppState;

pub(crate) use common::page_error;
use common::*;

/// The application's routes, under `/app`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/app", get(home))
        .route("/app/", get(home))
        .route("/app/sign-in", get(settings::sign_in_page).post(settings::sign_in))
        .route("/app/setup", get(settings::setup_page).post(settings::setup))
        .route("/app/sign-out", post(settings::sign_out))
        .route("/app/keys", get(settings::keys).post(settings::create_key))
        .route("/app/keys/revoke", post(settings::revoke_key))
        .route("/app/clients", post(settings::create_client))
        .route("/app/clients/revoke", post(settings::revoke_client))
        .route("/app/users", get(settings::users).post(settings::add_user))
        .route("/app/users/{id}/remove", post(settings::remove_user))
        .route("/app/webhooks", get(settings::webhooks).post(settings::create_webhook))
        .route("/app/webhooks/{id}", get(settings::webhook))
        .route("/app/webhooks/{id}/{action}", post(settings::webhook_action))
        .route("/app/deliveries/{id}", get(settings::delivery))
        .route("/app/deliveries/{id}/redeliver", post(settings::redeliver))
        .route("/app/catalog", get(catalog::items))
        .route("/app/catalog/{id}", get(catalog::item))
        .route("/app/catalog/{id}/render", post(catalog::render))
        .route("/app/smartlists", get(library::smartlists))
        .route("/app/smartlists/{id}", get(library::smartlist))
        .route("/app/recipes", get(library::recipes))
        .route("/app/recipes/{id}", get(library::recipe))
        .route("/app/creative-assets", get(library::creative_assets))
        .route("/app/static/{file}", get(asset))
        .merge(api_viewer())
        // its own error pages: any other path under `/app`, or a method a page does not take
        .nest("/app", Router::new().fallback(no_such_page))
        .method_not_allowed_fallback(wrong_method)
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn(refuse_cross_site))
}

async fn no_such_page() -> Response {
    page_error(StatusCode::NOT_FOUND, "there is no such page")
}

async fn wrong_method() -> Response {
    page_error(StatusCode::METHOD_NOT_ALLOWED, "this page does not take that method")
}

/// The OpenAPI viewer (Swagger UI, its assets embedded in the `utoipa-swagger-ui` crate) at
/// `/app/api/`, reading the service's `/openapi.json`.
fn api_viewer() -> Router<AppState> {
    let config = utoipa_swagger_ui::Config::new(["/openapi.json"])
        .try_it_out_enabled(true)
        .display_request_duration(true)
        .persist_authorization(false);
    Router::from(utoipa_swagger_ui::SwaggerUi::new("/app/api").config(config))
}

async fn home(session: Option<Signed>) -> Redirect {
    Redirect::to(if session.is_some() { "/app/catalog" } else { "/app/sign-in" })
}

/// The static files, compiled in.
async fn asset(axum::extract::Path(file): axum::extract::Path<String>) -> Response {
    let (body, kind): (&'static str, &'static str) = match file.as_str() {
        "app.css" => (include_str!("assets/app.css"), "text/css; charset=utf-8"),
        "app.js" => (include_str!("assets/app.js"), "text/javascript; charset=utf-8"),
        _ => return page_error(StatusCode::NOT_FOUND, "no such file"),
    };
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "public, max-age=3600")], body).into_response()
}

/// Headers of every page: a content security policy that allows only the service's own scripts,
/// styles and media (the OpenAPI viewer, whose page sets its own styles inline, gets the same
/// policy with inline styles allowed), no framing, no sniffing, and no caching of pages that
/// show secrets.
async fn security_headers(uri: axum::http::Uri, mut res: Response) -> Response {
    let viewer = uri.path().starts_with("/app/api");
    let csp = if viewer {
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; form-action 'self'"
    } else {
        "default-src 'self'; img-src 'self' data:; media-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    };
    let h = res.headers_mut();
    h.insert("content-security-policy", HeaderValue::from_static(csp));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

/// Refuses a state change that a browser says comes from another site (`Sec-Fetch-Site:
/// cross-site`), before any handler runs; the forms' CSRF tokens are checked besides.
async fn refuse_cross_site(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let cross_site = req.headers().get("sec-fetch-site").is_some_and(|v| v.as_bytes() == b"cross-site");
    if req.method() != axum::http::Method::GET && req.method() != axum::http::Method::HEAD && cross_site {
        return page_error(StatusCode::FORBIDDEN, "a form of another site cannot change anything here");
    }
    next.run(req).await
}
