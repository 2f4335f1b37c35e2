//! The OpenAPI 3.1 document of every endpoint, derived with utoipa from the handlers' path
//! attributes and the types they answer with, and a readable docs page generated from it.
//!
//! Each handler carries `#[utoipa::path]` (method, path, parameters, request body, responses,
//! security); [`ApiDoc`] lists them. Query parameters are `IntoParams` types in [`params`] (the
//! previews parameters come from the core's `ClipQuery::parameter_specs`); answers are the types the
//! handlers serialise, and request bodies that handlers read field by field are in [`schemas`]. The
//! contract test in `server/tests/server/support.rs` validates every answer of the integration tests against
//! this document.

pub mod admin_bodies;
pub mod params;
pub mod schemas;

mod docs;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{ClientCredentials, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Required};
use utoipa::{IntoParams, Modify, OpenApi};

pub use docs::docs_page;

use crate::error::{ErrorDetail, ValidationError};
use crate::routes::portal::PortalErrorBody;
use crate::routes::{admin, analysis, catalog, portal, previews, results, service, tasks};

/// The document: every operation and the schemas they refer to.
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
        crate::identity::token,
        portal::catalogs, portal::catalog, portal::smartlists, portal::smartlist, portal::smartlist_assets,
        portal::recipes, portal::recipe, portal::creative_assets, portal::creative_asset,
        admin::list_orgs, admin::create_org, admin::list_catalogs, admin::create_catalog, admin::update_catalog,
        admin::list_keys, admin::create_key, admin::revoke_key, admin::list_clients, admin::create_client,
        admin::revoke_client,
        admin::list_smartlists, admin::create_smartlist, admin::get_smartlist, admin::update_smartlist,
        admin::delete_smartlist, admin::publish_smartlist, admin::unpublish_smartlist, admin::smartlist_members,
        admin::refresh_smartlists,
        admin::list_recipes, admin::create_recipe, admin::get_recipe, admin::update_recipe, admin::publish_recipe,
        admin::unpublish_recipe, admin::run_recipe, admin::recipe_assets,
        admin::list_webhooks, admin::create_webhook, admin::delete_webhook, admin::enable_webhook,
        admin::disable_webhook, admin::test_webhook, admin::webhook_deliveries, admin::redeliver,
        catalog::upsert, catalog::list, catalog::get, catalog::delete, analysis::put_signals,
        tasks::get, tasks::post, tasks::delete, tasks::reset, tasks::list,
        previews::clips, previews::generation, previews::clip_types, previews::status, previews::list,
        crate::routes::thumbnails::thumbnails, crate::routes::thumbnails::generation,
        crate::routes::thumbnails::status, crate::routes::thumbnails::list,
        results::text_embedding, crate::routes::search::scenes, results::semantic_scenes, results::semantic_scenes_status, results::semantic_scenes_list,
        results::semantic, results::semantic_status, results::semantic_list,
        results::profanity, results::profanity_status, results::profanity_segments, results::profanity_list,
        results::similar_movies, results::similar_series, results::similar_any,
        results::emotions, results::emotions_status, results::emotions_list,
        results::content_summary, results::content_summary_status, results::content_summary_list,
        results::nudity, results::nudity_status, results::nudity_list,
        results::fingerprint, results::fingerprint_status, results::fingerprintplus, results::fingerprintplus_status,
        results::fingerprintplus_list, crate::routes::fingerprints::duplicates, crate::routes::fingerprints::groups,
        crate::routes::markers::asset, crate::routes::markers::list, crate::routes::characters::characters,
        crate::routes::adbreaks::millisec, crate::routes::adbreaks::frame, crate::routes::adbreaks::contextual,
        results::scene_tags, results::scene_tags_status, results::scene_tags_list,
        service::media_generation_file, service::media_creative_asset_file,
        service::health, service::version, service::openapi_json, service::docs, service::portal_openapi_json,
        service::smartlist_docs, service::smartlist_docs_any, service::portal_docs, service::portal_docs_any,
    ),
    components(schemas(ErrorDetail, ValidationError, PortalErrorBody)),
    modifiers(&Security, &Conventions),
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

/// The document as JSON.
pub fn document() -> Value {
    serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI model serialises")
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

/// The standard answers of the processing and results interfaces for `codes`, with their bodies.
pub fn error_responses(codes: &[u16]) -> BTreeMap<String, RefOr<Response>> {
    codes
        .iter()
        .map(|&code| {
            let (what, schema) = match code {
                400 => ("Bad request: a path segment that is not UTF-8, an unreadable body, a reset of a task that is not failed", ErrorDetail::NAME),
                401 => ("No, unknown or revoked credential", ErrorDetail::NAME),
                403 => ("The access token lacks the `read:previews` scope (`insufficient_scope`)", ErrorDetail::NAME),
                404 => ("Not found (another organisation's items look missing too)", ErrorDetail::NAME),
                413 => ("The body is too large", ErrorDetail::NAME),
                422 => ("Validation error: every problem, in parameter order", ValidationError::NAME),
                429 => (
                    "Too much work queued, or an access token's hourly rate limit reached; try again after `Retry-After`",
                    ErrorDetail::NAME,
                ),
                _ => ("Error", ErrorDetail::NAME),
            };
            (code.to_string(), RefOr::T(json_response(what, schema)))
        })
        .collect()
}

/// The portal's and the admin API's answers for `codes`, with the portal error body.
pub fn portal_error_responses(codes: &[u16]) -> BTreeMap<String, RefOr<Response>> {
    codes
        .iter()
        .map(|&code| {
            let what = match code {
                400 => "A parameter or field breaks a rule (the message names it)",
                401 => "No, invalid or expired token (`WWW-Authenticate` says which)",
                403 => "The token lacks the scope",
                404 => "Not found",
                409 => "The resource is busy (a recipe run in progress)",
                429 => "Rate limit exceeded; try again after `Retry-After`",
                _ => "Error",
            };
            (code.to_string(), RefOr::T(json_response(what, PortalErrorBody::NAME)))
        })
        .collect()
}

fn json_response(description: &str, schema: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", ContentBuilder::new().schema(Some(Ref::from_schema_name(schema))).build())
        .build()
}

/// Names of the error schemas, as registered in the components.
trait Named {
    const NAME: &'static str;
}

impl Named for ErrorDetail {
    const NAME: &'static str = "ErrorDetail";
}

impl Named for ValidationError {
    const NAME: &'static str = "ValidationError";
}

impl Named for PortalErrorBody {
    const NAME: &'static str = "PortalError";
}

/// Declares a type whose `IntoResponses` are the given error answers.
macro_rules! error_set {
    ($name:ident, $builder:ident, [$($code:literal),*], $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug)]
        pub struct $name;

        impl utoipa::IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<Response>> {
                $builder(&[$($code),*])
            }
        }
    };
}

error_set!(
    PreviewsErrors,
    error_responses,
    [400, 401, 403, 404, 422, 429],
    "The errors of the previews endpoints (403 and the rate limit's 429 answer access tokens)."
);
error_set!(PortalErrors, portal_error_responses, [400, 401, 403, 404, 429], "The errors of the portal endpoints.");
error_set!(AdminErrors, portal_error_responses, [400, 401, 404, 409], "The errors of the admin API.");

/// Declares a path parameter type.
macro_rules! path_param {
    ($name:ident, $param:literal, $doc:literal, $schema:expr, $example:expr) => {
        #[doc = $doc]
        #[derive(Debug)]
        pub struct $name;

        impl IntoParams for $name {
            fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
                vec![path_parameter($param, $doc, $schema, $example)]
            }
        }
    };
}

fn path_parameter(name: &str, description: &str, schema: ObjectBuilder, example: Value) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(description))
        .schema(Some(schema))
        .example(Some(example))
        .build()
}

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

path_param!(InventoryId, "inventory_id", "The customer's item id.", string(), serde_json::json!("tt-demo-001"));
path_param!(
    ProductVersion,
    "version",
    "The product version (for example `1.0.0`).",
    string(),
    serde_json::json!("1.0.0")
);
path_param!(
    ProductPath,
    "product",
    "The product (every product of the interface is accepted; a product this deployment does not compute ends `failed`).",
    string().enum_values(Some(crate::products::PRODUCTS)),
    serde_json::json!("profanity")
);
path_param!(
    CatalogId,
    "id",
    "The catalog id.",
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(-(crate::routes::portal::MAX_SAFE_INTEGER as f64)))
        .maximum(Some(crate::routes::portal::MAX_SAFE_INTEGER as f64)),
    serde_json::json!(1)
);
path_param!(
    PortalId,
    "id",
    "The resource's UUID (another form answers 400, a UUID of no published resource 404).",
    string().pattern(Some(schemas::UUID_PATTERN)),
    serde_json::json!("00000000-0000-0000-0000-000000000000")
);
path_param!(OrgPath, "org", "The organisation's name.", string(), serde_json::json!("demo"));
path_param!(
    ResourceId,
    "id",
    "The resource's id (a UUID).",
    string().format(Some(utoipa::openapi::SchemaFormat::Custom("uuid".into()))),
    serde_json::json!("00000000-0000-0000-0000-000000000000")
);
path_param!(CatalogName, "name", "The catalog's name.", string(), serde_json::json!("demo"));

/// The item type and id of the typed item paths.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TypedItem {
    /// `standalone`, `series`, `season` or `episode`.
    #[param(inline, example = "standalone")]
    pub item_type: crate::catalog::ItemType,
    /// The customer's item id.
    #[param(example = "tt-demo-001")]
    pub id: String,
}

#[cfg(test)]
mod tests;
