//! Catalog ingestion (`/catalog/v1`).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use super::{ApiCaller, ApiCredential, blocking};
use crate::catalog::{self, CatalogError, CatalogItem, ItemType};
use crate::error::{AppError, Detail};
use crate::openapi::params::{ItemGetQuery, ItemListQuery};
use crate::query::Collect;
use crate::state::AppState;

fn check_type(item_type: &str) -> Result<ItemType, AppError> {
    if let Some(kind) = ItemType::parse(item_type) {
        return Ok(kind);
    }
    Err(AppError::invalid(Detail {
        kind: "enum".into(),
        loc: vec!["path".into(), "item_type".into()],
        msg: "Input should be 'standalone', 'series', 'season' or 'episode'".into(),
        input: json!(item_type),
        ctx: json!({"expected": "'standalone', 'series', 'season' or 'episode'"}),
    }))
}

impl From<CatalogError> for AppError {
    fn from(e: CatalogError) -> Self {
        match e {
            CatalogError::Invalid(issues) => AppError::Validation(issues),
            CatalogError::NotFound(id) => AppError::item_not_found(&id),
            CatalogError::Store(e) => e.into(),
            CatalogError::Index(e) => e.into(),
            unreadable @ CatalogError::Unreadable { .. } => AppError::Internal(unreadable.to_string()),
        }
    }
}

/// The responses of the catalog endpoints besides success.
#[derive(Debug)]
pub struct CatalogErrors;

impl utoipa::IntoResponses for CatalogErrors {
    fn responses() -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::response::Response>> {
        crate::openapi::error_responses(&[400, 401, 404, 422])
    }
}

/// Creates an item or replaces its data; completes its episodic hierarchy (missing series and
/// seasons become virtual items) and applies `operations`. Answers `null`.
#[utoipa::path(
    put,
    operation_id = "upsert_item",
    path = "/catalog/v1/item",
    tag = "catalog",
    request_body = CatalogItem,
    responses(
        (status = 200, description = "Stored", body = Null),
        (status = 413, description = "The body is larger than 2 MiB", body = crate::error::ErrorDetail),
        CatalogErrors,
    ),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn upsert(
    State(state): State<AppState>,
    ApiCaller { org, .. }: ApiCaller,
    body: Bytes,
) -> Result<Json<Null>, AppError> {
    let item = CatalogItem::parse(&body)?;
    let s = state.clone();
    blocking(move || catalog::upsert(&s.store, &s.effects, org, item).map_err(AppError::from)).await?;
    Ok(Json(Null))
}

/// One item as last stored (deleted items only with `allow_deleted=true`).
#[utoipa::path(
    get,
    operation_id = "get_item",
    path = "/catalog/v1/item/{item_type}/{id}",
    tag = "catalog",
    params(crate::openapi::TypedItem, ItemGetQuery),
    responses((status = 200, description = "The item", body = CatalogItem), CatalogErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn get(
    State(state): State<AppState>,
    Path((item_type, id)): Path<(String, String)>,
    credential: ApiCredential,
) -> Result<Json<Value>, AppError> {
    blocking(move || {
        let ApiCaller { org, params, .. } = credential.check(&state.store)?;
        let kind = check_type(&item_type)?;
        let mut c = Collect::default();
        let allow_deleted = c.take(params.bool("allow_deleted", false), false);
        let asset_model = c.take(params.bool("asset_model", false), false);
        c.finish()?;
        let item = catalog::get(&state.store, org, kind, &id, allow_deleted)?;
        if asset_model && item.item_type == ItemType::Episode {
            return Ok(Json(catalog::asset_model(&state.store, org, &item)?));
        }
        Ok(Json(item.body))
    })
    .await
}

/// An entry of the item list.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct ItemListEntry {
    /// The customer's item id.
    pub id: String,
    /// The service's own item id.
    pub service_id: String,
    /// `standalone`, `series`, `season` or `episode`.
    #[serde(rename = "type")]
    #[schema(value_type = crate::catalog::ItemType)]
    pub item_type: String,
}

/// A page of the organisation's items, in creation order.
#[utoipa::path(
    get,
    operation_id = "list_items",
    path = "/catalog/v1/item",
    tag = "catalog",
    params(ItemListQuery),
    responses((status = 200, description = "A page of items", body = Vec<ItemListEntry>), CatalogErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn list(
    State(state): State<AppState>,
    credential: ApiCredential,
) -> Result<Json<Vec<ItemListEntry>>, AppError> {
    blocking(move || {
        let ApiCaller { org, params, .. } = credential.check(&state.store)?;
        let mut c = Collect::default();
        let page_num = c.take(params.int("page_num", 0, 0), 0);
        let page_size = c.take(params.int("page_size", 500, 1), 500);
        let allow_deleted = c.take(params.bool("allow_deleted", false), false);
        c.finish()?;
        let items = state.store.items(org, allow_deleted, page_num.saturating_mul(page_size), page_size)?;
        Ok(Json(
            items
                .into_iter()
                .map(|i| ItemListEntry {
                    id: i.id,
                    service_id: i.service_id,
                    item_type: i.item_type.as_str().to_string(),
                })
                .collect(),
        ))
    })
    .await
}

/// Deletes an item, keeping its data (a series takes its seasons and episodes along, a season
/// its episodes). Answers `null`.
#[utoipa::path(
    put,
    operation_id = "delete_item",
    path = "/catalog/v1/delete/{item_type}/{id}",
    tag = "catalog",
    params(crate::openapi::TypedItem),
    responses((status = 200, description = "Deleted", body = Null), CatalogErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn delete(
    State(state): State<AppState>,
    Path((item_type, id)): Path<(String, String)>,
    credential: ApiCredential,
) -> Result<Json<Null>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let kind = check_type(&item_type)?;
        catalog::delete(&state.store, &state.effects, org, kind, &id)?;
        Ok(Json(Null))
    })
    .await
}

/// The answer of the catalog writes: JSON `null`, as the interface answers.
#[derive(Debug, Clone, Copy)]
pub struct Null;

impl serde::Serialize for Null {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

impl utoipa::PartialSchema for Null {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new().schema_type(Type::Null).description(Some("`null`")).into()
    }
}

impl utoipa::ToSchema for Null {}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing as on;
    axum::Router::new()
        .route("/catalog/v1/item", on::put(upsert).get(list))
        .route("/catalog/v1/item/{item_type}/{id}", on::get(get))
        .route("/catalog/v1/delete/{item_type}/{id}", on::put(delete))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(upsert, list, get, delete))]
pub struct Api;
