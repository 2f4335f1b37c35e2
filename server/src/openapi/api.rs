//! The one place where the document is assembled: every route module's own `Api`, the security
//! schemes and the conventions, merged into the OpenAPI 3.1 document; and the handlers that
//! serve it (`/openapi.json`, `/docs` and the portal's documentation addresses).

use axum::Json;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use serde_json::Value;
use utoipa::openapi::security::{ClientCredentials, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::*;
use crate::routes;
use crate::routes::portal::PortalErrorBody;

/// The document's own part: its description, tags and shared schemas, and the operations of this
/// module (the document and the docs pages). [`document`] merges every route module's `Api` into
/// it, then applies the security schemes and the conventions.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "kino",
        description = "Content intelligence for video catalogs: the processing and results interfaces (catalog \
            ingestion, analysis input, tasks, previews, retrieval, profanity, similar titles, emotions), the \
            portal interface (smartlists, catalogs, recipes, creative assets) with its OAuth 2.0 token endpoint, \
            the admin API, and the rendered media. Errors of the processing and results interfaces are \
            `{\"detail\": ...}` (422: a list of pydantic-style problems); errors of the portal and the admin API \
            are `{error, message, statusCode}`.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    paths(
        openapi_json, docs, portal_openapi_json, smartlist_docs, smartlist_docs_any, portal_docs, portal_docs_any,
    ),
    components(schemas(ErrorDetail, ValidationError, PortalErrorBody)),
    tags(
        (name = "identity", description = "OAuth 2.0 client credentials for the portal"),
        (name = "portal", description = "Smartlists, catalogs, recipes and creative assets (bearer token, rate limited)"),
        (name = "admin", description = "The web application's management: organisations, credentials, smartlists, recipes, webhooks (admin token)"),
        (name = "catalog", description = "Catalog ingestion and analysis input (API key)"),
        (name = "tasks", description = "Processing tasks per item, product and version (API key)"),
        (name = "previews", description = "Preview clips chosen per request, and their generation (API key or bearer; `catalog` required)"),
        (name = "thumbnails", description = "Thumbnails chosen per request in the best clips, and their images (API key or bearer; `catalog` required)"),
        (name = "retrieval", description = "Scene- and item-level embeddings and text embeddings (API key)"),
        (name = "profanity", description = "Profanity classification and segments (API key)"),
        (name = "content_summary", description = "Extractive summaries of what is said (API key)"),
        (name = "adbreaks", description = "Ad breaks by window and in context (API key)"),
        (name = "characters", description = "Characters and their identities across a series (API key)"),
        (name = "markers", description = "Binge markers: intro, recap and end credits of episodes (API key)"),
        (name = "fingerprints", description = "Audio fingerprints, title profiles and the duplicate search (API key)"),
        (name = "nudity", description = "Nudity timelines and segments measured on the frames (API key)"),
        (name = "scene_tags", description = "Keywords, moods and environments per scene (API key)"),
        (name = "similar", description = "Similar titles (deprecated by the interface; API key)"),
        (name = "emotions", description = "Emotion windows (API key)"),
        (name = "media", description = "Rendered clips and thumbnails (the bucket)"),
        (name = "service", description = "Health, version and models, documentation"),
    ),
)]
#[derive(Debug)]
pub struct ApiDoc;

/// The document as JSON: this module's part, every route module's operations, the security
/// schemes and the conventions.
pub fn document() -> Value {
    let mut doc = ApiDoc::openapi();
    for part in [
        routes::oauth::Api::openapi(),
        routes::portal::Api::openapi(),
        routes::admin::Api::openapi(),
        routes::catalog::Api::openapi(),
        routes::analysis::Api::openapi(),
        routes::tasks::Api::openapi(),
        routes::previews::Api::openapi(),
        routes::thumbnails::Api::openapi(),
        routes::results::Api::openapi(),
        routes::search::Api::openapi(),
        routes::fingerprints::Api::openapi(),
        routes::markers::Api::openapi(),
        routes::characters::Api::openapi(),
        routes::adbreaks::Api::openapi(),
        routes::service::Api::openapi(),
    ] {
        doc.merge(part);
    }
    Security.modify(&mut doc);
    Conventions.modify(&mut doc);
    serde_json::to_value(doc).expect("the OpenAPI model serialises")
}

/// This module's routes: the documents and their pages (merged in `app.rs`). The portal's are
/// part of the portal: a method they do not take, or another path under `/portal`, gets the
/// portal's error body (the portal's router answers the rest of `/smartlists`).
pub fn router() -> axum::Router<crate::state::AppState> {
    use axum::routing::get;
    let portal = axum::Router::new()
        .route("/smartlists/openapi.json", get(portal_openapi_json))
        .route("/smartlists/docs", get(smartlist_docs))
        .route("/smartlists/docs/{*rest}", get(smartlist_docs_any))
        .route("/portal/docs", get(portal_docs))
        .route("/portal/docs/{*rest}", get(portal_docs_any));
    axum::Router::new()
        .route("/openapi.json", get(openapi_json))
        .route("/docs", get(docs))
        .merge(crate::routes::portal_error::with_portal_fallbacks(portal, &["/portal/"]))
}

/// The security schemes.
#[derive(Debug)]
struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{ApiKey, ApiKeyValue};
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
                "key",
                "An API key of the organisation (`kino-server admin create-key ORG`).",
            ))),
        );
        components.add_security_scheme(
            "api_key_header",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "The same API key in a header (deprecated by the interface: use the query parameter `key`).",
            ))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("An access token from `/oauth/token`, or an API key of the organisation."))
                    .build(),
            ),
        );
        let scopes = Scopes::from_iter(crate::identity::SCOPES.iter().map(|&scope| {
            let grants = match scope {
                "read:smartlist:published" => "Read published smartlists and the catalogs",
                "read:recipe:published" => "Read published recipes",
                "read:creative-asset:published" => "Read creative assets of published recipes",
                other => other,
            };
            (scope, grants)
        }));
        components.add_security_scheme(
            "oauth2",
            SecurityScheme::OAuth2(OAuth2::with_description(
                [Flow::ClientCredentials(ClientCredentials::new("/oauth/token", scopes))],
                "OAuth 2.0 client credentials: `POST /oauth/token`, then `Authorization: Bearer <access_token>` \
                 (HS256 JWT, 3600 s).",
            )),
        );
        components.add_security_scheme(
            "client_basic",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Basic)
                    .description(Some(
                        "HTTP Basic client authentication at the token endpoint (RFC 6749 2.3.1): \
                         `urlencode(client_id):urlencode(client_secret)`.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "admin_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The admin token (`--admin-token`, `KINO_ADMIN_TOKEN`, or `<data-dir>/admin.token`).",
                    ))
                    .build(),
            ),
        );
    }
}

/// What the path attributes cannot say on their own: the similar-titles operations are deprecated
/// by the interface, and every portal answer carries the rate-limit headers.
#[derive(Debug)]
struct Conventions;

impl Modify for Conventions {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::Deprecated;
        use utoipa::openapi::header::HeaderBuilder;
        for (path, item) in doc.paths.paths.iter_mut() {
            for op in
                [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch].into_iter().flatten()
            {
                if path.starts_with("/results/similar/") {
                    op.deprecated = Some(Deprecated::True);
                }
                if op.tags.as_ref().is_some_and(|t| t.iter().any(|t| t == "portal")) {
                    for response in op.responses.responses.values_mut() {
                        if let RefOr::T(r) = response {
                            for (name, what) in [
                                ("ratelimit-limit", "Requests per hour of the organisation"),
                                ("ratelimit-remaining", "Requests left in this hour"),
                                ("ratelimit-reset", "Seconds until the hour restarts"),
                            ] {
                                let header = HeaderBuilder::new()
                                    .schema(Some(ObjectBuilder::new().schema_type(Type::Integer)))
                                    .description(Some(what))
                                    .build();
                                r.headers.insert(name.to_string(), RefOr::T(header));
                            }
                        }
                    }
                }
            }
        }
    }
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
    Json(document())
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
    Json(document())
}

/// A readable page of every endpoint, its parameters and answers.
#[utoipa::path(
    get,
    path = "/docs",
    tag = "service",
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn docs() -> Response {
    docs_page()
}

/// The docs page, at the portal's documentation addresses.
#[utoipa::path(
    get,
    path = "/portal/docs",
    tag = "service",
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn portal_docs() -> Response {
    docs_page()
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
pub async fn portal_docs_any() -> Response {
    docs_page()
}

/// The docs page, at the smartlists' documentation address.
#[utoipa::path(
    get,
    path = "/smartlists/docs",
    tag = "service",
    responses((status = 200, description = "HTML", body = String, content_type = "text/html")),
    security(()),
)]
pub async fn smartlist_docs() -> Response {
    docs_page()
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
pub async fn smartlist_docs_any() -> Response {
    docs_page()
}

/// The docs page with the headers of every page of the web application: a content security
/// policy (no script at all; the page's own inline styles), no framing, no sniffing.
fn docs_page() -> Response {
    let csp =
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
    (
        [
            (header::CONTENT_SECURITY_POLICY, csp),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::REFERRER_POLICY, "same-origin"),
        ],
        Html(super::docs::docs_page(&document())),
    )
        .into_response()
}
