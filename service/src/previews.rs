//! What a previews request (clips, thumbnails) selects from, as a domain: the live item, its
//! prepared signals and the search text's embedding, read in one database call on a warm cache.

use crate::error::ServiceError;
use crate::signals::SignalsCache;
use crate::store::{OrgId, Store};

/// What a per-request selection (clips, thumbnails) reads: the item, its prepared signals, and
/// the embedding of the search text when there is one.
#[derive(Debug)]
pub struct Selection {
    /// The live item.
    pub item: crate::store::ItemRow,
    /// Its prepared signals.
    pub prepared: std::sync::Arc<kino::Prepared>,
    /// The `search_query`'s embedding.
    pub embedding: Option<Vec<f32>>,
}

impl Selection {
    /// The item `id` with its signals (404 without either), and `search_query` encoded.
    pub fn of(
        store: &Store,
        cache: &SignalsCache,
        encoder: &dyn kino::TextEncoder,
        org: OrgId,
        id: &str,
        search_query: Option<&str>,
    ) -> Result<Selection, ServiceError> {
        // One database call for both: the item and its signals' version.
        let (item, version) = match store.item_and_signals_version(org, id)? {
            Some((item, version)) if !item.deleted => (item, version),
            _ => return Err(ServiceError::item_not_found(id)),
        };
        let Some(prepared) = crate::signals::prepared_at(store, cache, org, id, version)? else {
            return Err(ServiceError::NotFound(format!("item {id:?} has no analysis signals yet")));
        };
        let embedding = match search_query {
            Some(text) => Some(encoder.encode(text)?),
            None => None,
        };
        Ok(Selection { item, prepared, embedding })
    }

    /// The `version_id` of `product` at `version`: the version, then the models the signals
    /// came from.
    pub fn version_id(&self, product: crate::products::Product, version: &str) -> String {
        let models = crate::products::models_of(product, self.prepared.signals());
        if models.is_empty() { version.to_string() } else { format!("{version}+{models}") }
    }
}
