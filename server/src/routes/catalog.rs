//! Catalog ingestion (`/catalog/v1`).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use super::ApiCaller;
use crate::catalog::{CatalogItem, ExtendedEpisodicInfo, ITEM_TYPES};
use crate::error::{AppError, Detail};
use crate::openapi::params::{ItemGetQuery, ItemListQuery};
use crate::query::Collect;
use crate::state::AppState;
use crate::store::OrgId;

fn check_type(item_type: &str) -> Result<(), AppError> {
    if ITEM_TYPES.contains(&item_type) {
        return Ok(());
    }
    Err(AppError::invalid(Detail {
        kind: "enum".into(),
        loc: vec!["path".into(), "item_type".into()],
        msg: "Input should be 'standalone', 'series', 'season' or 'episode'".into(),
        input: json!(item_type),
        ctx: json!({"expected": "'standalone', 'series', 'season' or 'episode'"}),
    }))
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
    tokio::task::spawn_blocking(move || apply_upsert(&s, org, item))
        .await
        .map_err(|e| AppError::Internal(e.to_string()))??;
    state.wake.notify_waiters();
    Ok(Json(Null))
}

/// Stores an item, completes its episodic hierarchy, applies its operations.
pub fn apply_upsert(state: &AppState, org: OrgId, item: CatalogItem) -> Result<(), AppError> {
    let store = &state.store;
    item.check_hierarchy(|id| Ok(store.item(org, id)?))?;
    if matches!(item.item_type.as_str(), "season" | "episode")
        && let Some(series) = item.series_id()
        && store.item(org, series)?.is_none()
    {
        let parent = CatalogItem::virtual_parent(series, "series", None);
        store.upsert_item(org, series, "series", &serde_json::to_value(&parent).expect("serializable"), false)?;
    }
    if item.item_type == "episode"
        && let (Some(season), Some(series)) = (item.season_id(), item.series_id())
        && store.item(org, season)?.is_none()
    {
        let parent = CatalogItem::virtual_parent(season, "season", Some(series));
        store.upsert_item(org, season, "season", &serde_json::to_value(&parent).expect("serializable"), false)?;
    }
    let body = serde_json::to_value(&item).map_err(|e| AppError::Internal(e.to_string()))?;
    let before = store.item(org, &item.id)?.and_then(|old| crate::products::season_id(&old));
    store.upsert_item(org, &item.id, &item.item_type, &body, false)?;
    // An item that was deleted is searchable again (and its type may have changed).
    state.indexes.sync_item(store, org, &item.id)?;
    // An episode that joins a season (or moves between seasons) changes their markers.
    let after = store.item(org, &item.id)?.and_then(|new| crate::products::season_id(&new));
    if before != after {
        for season in before.iter().chain(after.iter()) {
            crate::products::season_changed(state, org, season, &item.id)?;
        }
    }
    if item.operations.deleted {
        delete_cascade(state, org, &item.id)?;
    }
    if item.operations.force_asset_reprocess {
        for task in store.tasks(org, &item.id)?.into_iter().filter(|t| t.active) {
            store.reprocess(org, &item.id, &task.product, &task.version)?;
        }
    }
    crate::portal::smartlists::catalog_changed(state, org);
    Ok(())
}

/// Marks an item deleted, and with a series its seasons and episodes, with a season its episodes.
pub fn delete_cascade(state: &AppState, org: OrgId, id: &str) -> Result<(), AppError> {
    for deleted in delete_items(state, org, id)? {
        state.indexes.sync_item(&state.store, org, &deleted)?;
    }
    crate::portal::smartlists::catalog_changed(state, org);
    Ok(())
}

/// Marks `id` and its descendants deleted; returns their ids.
fn delete_items(state: &AppState, org: OrgId, id: &str) -> Result<Vec<String>, AppError> {
    let store = &state.store;
    let mut deleted = Vec::new();
    let mut pending = vec![id.to_string()];
    while let Some(next) = pending.pop() {
        let Some(item) = store.item(org, &next)? else { continue };
        store.mark_deleted(org, &next)?;
        deleted.push(next.clone());
        if let Some(season) = crate::products::season_id(&item) {
            crate::products::season_changed(state, org, &season, &item.id)?;
        }
        if matches!(item.item_type.as_str(), "series" | "season") {
            for child in store.children(org, &next)? {
                if !child.deleted {
                    pending.push(child.id);
                }
            }
        }
    }
    Ok(deleted)
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
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<Value>, AppError> {
    check_type(&item_type)?;
    let mut c = Collect::default();
    let allow_deleted = c.take(params.bool("allow_deleted", false), false);
    let asset_model = c.take(params.bool("asset_model", false), false);
    c.finish()?;
    let item = match state.store.item(org, &id)? {
        Some(item) if item.item_type == item_type && (allow_deleted || !item.deleted) => item,
        _ => return Err(AppError::item_not_found(&id)),
    };
    let mut body = item.body.clone();
    if asset_model && item.item_type == "episode" {
        body = to_asset_model(&state, org, body)?;
    }
    Ok(Json(body))
}

/// The asset-structured form of an episode: `extended_episodic_info` with series and season titles.
fn to_asset_model(state: &AppState, org: OrgId, body: Value) -> Result<Value, AppError> {
    let mut item: CatalogItem = serde_json::from_value(body).map_err(|e| AppError::Internal(e.to_string()))?;
    let title_of = |id: Option<&str>| -> Result<Option<String>, AppError> {
        Ok(match id {
            Some(id) => {
                state.store.item(org, id)?.and_then(|i| i.body.get("title").and_then(Value::as_str).map(String::from))
            }
            None => None,
        })
    };
    let info = item.episodic_info.take().unwrap_or_default();
    let ext = item.extended_episodic_info.take().unwrap_or_default();
    let series_id = ext.series_id.clone().or(info.series_id);
    let season_id = ext.season_id.clone().or(info.season_id);
    item.extended_episodic_info = Some(ExtendedEpisodicInfo {
        series_title: ext.series_title.clone().or(title_of(series_id.as_deref())?),
        season_title: ext.season_title.clone().or(title_of(season_id.as_deref())?),
        series_id,
        season_id,
        season_number: ext.season_number.or(info.season_number),
        episode_number: ext.episode_number.or(info.episode_number),
    });
    serde_json::to_value(item).map_err(|e| AppError::Internal(e.to_string()))
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
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<Vec<ItemListEntry>>, AppError> {
    let mut c = Collect::default();
    let page_num = c.take(params.int("page_num", 0, 0), 0);
    let page_size = c.take(params.int("page_size", 500, 1), 500);
    let allow_deleted = c.take(params.bool("allow_deleted", false), false);
    c.finish()?;
    let items = state.store.items(org, allow_deleted, page_num.saturating_mul(page_size), page_size)?;
    Ok(Json(
        items
            .into_iter()
            .map(|i| ItemListEntry { id: i.id, service_id: i.service_id, item_type: i.item_type })
            .collect(),
    ))
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
    ApiCaller { org, .. }: ApiCaller,
) -> Result<Json<Null>, AppError> {
    check_type(&item_type)?;
    match state.store.item(org, &id)? {
        Some(item) if item.item_type == item_type => delete_cascade(&state, org, &id)?,
        _ => return Err(AppError::item_not_found(&id)),
    }
    Ok(Json(Null))
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
