//! The OpenAPI 3.1 document of every endpoint, derived with utoipa from the handlers' path
//! attributes and the types they answer with, and a readable docs page generated from it.
//!
//! Each handler carries `#[utoipa::path]` (method, path, parameters, request body, responses,
//! security); each route module lists its own in its `Api`, and [`api::document`] merges them. Query parameters are `IntoParams` types in [`params`] (the
//! previews parameters come from the core's `ClipQuery::parameter_specs`); answers are the types the
//! handlers serialise, and request bodies that handlers read field by field are in [`schemas`]. The
//! contract test in `server/tests/server/support.rs` validates every answer of the integration tests against
//! this document.

pub mod admin_bodies;
pub mod params;
pub mod schemas;

pub mod api;
pub mod docs;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Required};

use crate::error::{ErrorDetail, PortalErrorBody, ValidationError};

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
    string().enum_values(Some(crate::vocabulary::Product::ALL.iter().map(|p| p.as_str()))),
    serde_json::json!("profanity")
);
path_param!(
    CatalogId,
    "id",
    "The catalog id.",
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(-(crate::portal::MAX_SAFE_INTEGER as f64)))
        .maximum(Some(crate::portal::MAX_SAFE_INTEGER as f64)),
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
