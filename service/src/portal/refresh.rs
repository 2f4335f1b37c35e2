//! Coordination of smartlist membership refreshes (a leaf module: the state holds it, the
//! smartlists module drives it).

use std::collections::HashSet;
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::store::OrgId;

/// Coordination of membership refreshes: one at a time, and organisations whose catalog changed.
#[derive(Debug, Default)]
pub struct Refresher {
    pub(crate) running: Mutex<()>,
    pub(crate) dirty: Mutex<HashSet<OrgId>>,
    pub(crate) wake: Notify,
}

impl Refresher {
    /// Notes that an organisation's catalog changed; the refresher recomputes its smartlists soon
    /// (in the background: the request that changed the catalog does not wait for it).
    pub fn catalog_changed(&self, org: OrgId) {
        self.dirty.lock().unwrap_or_else(|e| e.into_inner()).insert(org);
        self.wake.notify_one();
    }
}
