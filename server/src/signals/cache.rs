//! Prepared signals by (organisation, item), built on first use (a leaf module: the state
//! holds it, [`super`] fills it).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use kino::Prepared;

use crate::store::OrgId;

/// An item's prepared signals and the version they were stored as.
type Versioned = (i64, Arc<Prepared>);

/// Prepared signals by (organisation, item) with the version they were stored as, built on first
/// use.
#[derive(Debug, Default)]
pub struct SignalsCache {
    prepared: RwLock<HashMap<(OrgId, String), Versioned>>,
}

impl SignalsCache {
    /// The cached signals of an item when they are of `version`.
    pub(crate) fn get(&self, org: OrgId, item_id: &str, version: i64) -> Option<Arc<Prepared>> {
        let cache = self.prepared.read().unwrap_or_else(|e| e.into_inner());
        cache.get(&(org, item_id.to_string())).filter(|(v, _)| *v == version).map(|(_, p)| p.clone())
    }

    /// Caches `prepared` as `version` unless a newer version is cached already.
    pub(crate) fn insert(&self, org: OrgId, item_id: &str, version: i64, prepared: Arc<Prepared>) {
        let mut cache = self.prepared.write().unwrap_or_else(|e| e.into_inner());
        let entry = cache.entry((org, item_id.to_string())).or_insert_with(|| (version, prepared.clone()));
        if entry.0 <= version {
            *entry = (version, prepared);
        }
    }
}
