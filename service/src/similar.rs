//! Similar titles: the nearest items of an organisation by item embedding, titles of equal score
//! ordered by how closely their emotional arcs follow the item's.

use kino::vectors::similar::SimilarQuery;

use crate::error::ServiceError;
use crate::indexes::{Collection, Indexes};
use crate::signals::SignalsCache;
use crate::store::{OrgId, ResultStatus, Store};
use crate::vocabulary::Product;

/// Titles similar to an item (deprecated interface).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct SimilarTitles {
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = crate::vocabulary::ResultType)]
    pub item_type: &'static str,
    /// The service's own item id.
    pub service_id: String,
    /// When the item's similarity data was computed (RFC 3339).
    #[schema(format = DateTime)]
    pub last_updated: String,
    /// The similarity version.
    pub version_id: String,
    /// The similar titles, most similar first.
    pub similar: Vec<SimilarTitle>,
}

/// One similar title.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct SimilarTitle {
    /// The customer's item id.
    pub inventory_id: String,
    /// Its result type.
    #[serde(rename = "type")]
    #[schema(value_type = crate::vocabulary::ResultType)]
    pub item_type: &'static str,
    /// The service's own item id.
    pub service_id: String,
    /// `(cos + 1) / 2` of the item embeddings, 0 to 1.
    pub score: f64,
}

/// The titles most similar to the live item `id` (`query`: the page, the score bound, the kind);
/// not found when the item has no successful `similar` result. An item whose result is newer
/// than the index (stored, not yet synced by its job) is synced first. `version` is the version
/// the answer reports (the result's `version_id` when `None`).
pub fn similar_titles(
    store: &Store,
    signals: &SignalsCache,
    indexes: &Indexes,
    org: OrgId,
    id: &str,
    query: &SimilarQuery,
    version: Option<&str>,
) -> Result<SimilarTitles, ServiceError> {
    let item = match store.item(org, id)? {
        Some(item) if !item.deleted => item,
        _ => return Err(ServiceError::item_not_found(id)),
    };
    let mine = store.result(org, id, Product::Similar, None)?.filter(|r| r.status == ResultStatus::Success);
    let not_found = || ServiceError::NotFound(format!("no similar result for item {id:?}"));
    let Some(mine) = mine else { return Err(not_found()) };
    let index = indexes.get(store, org, Collection::Items)?;
    if !index.contains(id) {
        // The result is newer than the index (stored, not yet synced by its job): sync now.
        indexes.sync_item(store, org, id)?;
    }
    if !index.contains(id) {
        return Err(not_found());
    }
    // Titles the embedding cannot tell apart (equal scores) are ordered by how closely their
    // emotional arcs follow this title's: the same story shape first.
    let arc_of =
        |item: &str| crate::signals::read_with(store, signals, org, item, kino::emotional_arc).ok().flatten().flatten();
    let own_arc = std::cell::OnceCell::new();
    let tie_break = |other: &str| Some(own_arc.get_or_init(|| arc_of(id)).as_ref()?.distance_to(&arc_of(other)?));
    let found = kino::vectors::similar::similar_in_by(&index, id, query, &tie_break)?;
    // One query for the page's items; one deleted since the index saw it is left out.
    let ids: Vec<&str> = found.iter().map(|f| f.inventory_id.as_str()).collect();
    let items: std::collections::HashMap<String, crate::store::ItemRow> =
        store.live_items(org, &ids)?.into_iter().map(|i| (i.id.clone(), i)).collect();
    let similar = found
        .iter()
        .filter_map(|f| {
            let other = items.get(&f.inventory_id)?;
            Some(SimilarTitle {
                inventory_id: other.id.clone(),
                item_type: other.item_type.result_type(),
                service_id: other.service_id.clone(),
                score: f.score,
            })
        })
        .collect();
    Ok(SimilarTitles {
        inventory_id: item.id,
        item_type: item.item_type.result_type(),
        service_id: item.service_id,
        version_id: version.map_or_else(|| mine.version_id(), str::to_string),
        last_updated: mine.updated_at,
        similar,
    })
}
