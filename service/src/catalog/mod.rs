//! The catalog, as a domain: the item of the ingestion interface with its validation and episodic
//! rules (`item`), and the operations on an organisation's stored catalog: upsert (completing the
//! hierarchy, applying `operations`), deletion with its cascade, reading an item (as stored or in
//! the asset-structured form). Each change reaches what depends on the catalog: the vector
//! indexes, the season's markers, the smartlists. Errors are the domain's own ([`CatalogError`]);
//! the routes turn them into HTTP answers.

mod item;
pub mod season;
pub mod text;

pub use item::*;
use serde_json::Value;

use crate::changes::{Change, Effects};
use crate::error::Detail;
use crate::indexes::SearchError;
use crate::store::{ItemRow, OrgId, Store, StoreError};

use season::season_id;

/// Why a catalog operation failed.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The item broke rules (every problem, with where it is).
    #[error("invalid item: {}", .0.iter().map(|d| format!("{}: {}", d.loc.join("."), d.msg)).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<Detail>),
    /// No such item (or one of another organisation, or of another type: indistinguishable).
    #[error("item {0:?} not found")]
    NotFound(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The item's vectors could not be brought into the organisation's indexes.
    #[error(transparent)]
    Index(#[from] SearchError),
    /// A stored item could not be read back.
    #[error("stored item {id:?} is unreadable: {reason}")]
    Unreadable {
        /// The item.
        id: String,
        /// What was wrong.
        reason: String,
    },
}

/// Stores an item or replaces its data: checks it against the stored catalog, creates its missing
/// series and season as virtual items, applies its `operations`, and brings the indexes, the
/// season's markers and the smartlists up to date.
pub fn upsert(store: &Store, fx: &Effects, org: OrgId, item: CatalogItem) -> Result<(), CatalogError> {
    let kind = item.checked_kind()?;
    item.check_hierarchy(|id| store.item(org, id))?;
    if matches!(kind, ItemType::Season | ItemType::Episode)
        && let Some(series) = item.series_id()
        && store.item(org, series)?.is_none()
    {
        let parent = CatalogItem::virtual_parent(series, ItemType::Series, None);
        store.upsert_item(org, series, ItemType::Series, &body_of(&parent), false)?;
    }
    if kind == ItemType::Episode
        && let (Some(season), Some(series)) = (item.season_id(), item.series_id())
        && store.item(org, season)?.is_none()
    {
        let parent = CatalogItem::virtual_parent(season, ItemType::Season, Some(series));
        store.upsert_item(org, season, ItemType::Season, &body_of(&parent), false)?;
    }
    let before = store.item(org, &item.id)?.and_then(|old| season_id(&old));
    store.upsert_item(org, &item.id, kind, &body_of(&item), false)?;
    // An item that was deleted is searchable again (and its type may have changed); an episode
    // that joins a season (or moves between seasons) changes their markers.
    let after = store.item(org, &item.id)?.and_then(|new| season_id(&new));
    let seasons: Vec<String> = if before != after { before.into_iter().chain(after).collect() } else { Vec::new() };
    fx.apply(store, Change::Item { org, item_id: &item.id, seasons: &seasons })?;
    if item.operations.deleted {
        delete_cascade(store, fx, org, &item.id)?;
    }
    if item.operations.force_asset_reprocess {
        for task in store.tasks(org, &item.id)?.into_iter().filter(|t| t.active) {
            store.reprocess(org, &item.id, task.product, &task.version)?;
        }
    }
    fx.apply(store, Change::Catalog { org })?;
    Ok(())
}

/// The stored form of an item (serializing a `CatalogItem` cannot fail: its maps have string keys).
fn body_of(item: &CatalogItem) -> Value {
    serde_json::to_value(item).unwrap_or(Value::Null)
}

/// Deletes the item `id` of type `item_type`, keeping its data (a series takes its seasons and
/// episodes along, a season its episodes).
pub fn delete(store: &Store, fx: &Effects, org: OrgId, item_type: ItemType, id: &str) -> Result<(), CatalogError> {
    match store.item(org, id)? {
        Some(item) if item.item_type == item_type => delete_cascade(store, fx, org, id),
        _ => Err(CatalogError::NotFound(id.to_string())),
    }
}

/// Marks an item deleted, and with a series its seasons and episodes, with a season its episodes.
fn delete_cascade(store: &Store, fx: &Effects, org: OrgId, id: &str) -> Result<(), CatalogError> {
    let mut pending = vec![id.to_string()];
    while let Some(next) = pending.pop() {
        let Some(item) = store.item(org, &next)? else { continue };
        store.mark_deleted(org, &next)?;
        let seasons: Vec<String> = season_id(&item).into_iter().collect();
        fx.apply(store, Change::Item { org, item_id: &item.id, seasons: &seasons })?;
        if matches!(item.item_type, ItemType::Series | ItemType::Season) {
            pending.extend(store.children(org, &next)?.into_iter().filter(|c| !c.deleted).map(|c| c.id));
        }
    }
    fx.apply(store, Change::Catalog { org })?;
    Ok(())
}

/// The item `id` of type `item_type` as last stored (a deleted one only with `allow_deleted`).
pub fn get(
    store: &Store,
    org: OrgId,
    item_type: ItemType,
    id: &str,
    allow_deleted: bool,
) -> Result<ItemRow, CatalogError> {
    match store.item(org, id)? {
        Some(item) if item.item_type == item_type && (allow_deleted || !item.deleted) => Ok(item),
        _ => Err(CatalogError::NotFound(id.to_string())),
    }
}

/// The asset-structured form of an episode's stored body: `extended_episodic_info` complete, with
/// its series' and season's titles.
pub fn asset_model(store: &Store, org: OrgId, item: &ItemRow) -> Result<Value, CatalogError> {
    let unreadable = |e: serde_json::Error| CatalogError::Unreadable { id: item.id.clone(), reason: e.to_string() };
    let mut episode: CatalogItem = serde_json::from_value(item.body.clone()).map_err(unreadable)?;
    let title_of = |id: Option<&str>| -> Result<Option<String>, StoreError> {
        Ok(match id {
            Some(id) => store.item(org, id)?.and_then(|i| i.title().map(String::from)),
            None => None,
        })
    };
    let info = episode.episodic_info.take().unwrap_or_default();
    let ext = episode.extended_episodic_info.take().unwrap_or_default();
    let series_id = ext.series_id.clone().or(info.series_id);
    let season_id = ext.season_id.clone().or(info.season_id);
    episode.extended_episodic_info = Some(ExtendedEpisodicInfo {
        series_title: ext.series_title.clone().or(title_of(series_id.as_deref())?),
        season_title: ext.season_title.clone().or(title_of(season_id.as_deref())?),
        series_id,
        season_id,
        season_number: ext.season_number.or(info.season_number),
        episode_number: ext.episode_number.or(info.episode_number),
    });
    serde_json::to_value(episode).map_err(unreadable)
}
