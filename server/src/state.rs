//! Shared state: the store, a cache of prepared signals, the text encoder, configuration.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use kino::{LexicalEncoder, Prepared, Signals};
use tokio::sync::Notify;

use crate::error::AppError;
use crate::store::{OrgId, Store};

/// Settings the handlers and workers need.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where `asset_info.file_uri` paths are resolved (sidecar `<video>.signals.json` files).
    pub media_root: PathBuf,
}

/// Prepared signals by (organisation, item).
type PreparedCache = RwLock<HashMap<(OrgId, String), Arc<Prepared>>>;

/// Cheap to clone: everything behind `Arc`s.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The database.
    pub store: Arc<Store>,
    /// Prepared signals by (organisation, item), built on first use.
    prepared: Arc<PreparedCache>,
    /// The text encoder of search queries.
    pub encoder: Arc<LexicalEncoder>,
    /// Settings.
    pub config: Arc<Config>,
    /// Wakes the workers when work is queued.
    pub wake: Arc<Notify>,
}

impl AppState {
    /// State over an opened store.
    pub fn new(store: Store, config: Config) -> AppState {
        AppState {
            store: Arc::new(store),
            prepared: Arc::default(),
            encoder: Arc::new(LexicalEncoder::default()),
            config: Arc::new(config),
            wake: Arc::new(Notify::new()),
        }
    }

    /// The prepared signals of an item, when it has any.
    pub fn prepared(&self, org: OrgId, item_id: &str) -> Result<Option<Arc<Prepared>>, AppError> {
        let key = (org, item_id.to_string());
        if let Some(p) = self.prepared.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(Some(p.clone()));
        }
        let Some(bytes) = self.store.signals(org, item_id)? else { return Ok(None) };
        let signals = Signals::from_binary(&bytes)
            .map_err(|e| AppError::Internal(format!("stored signals of {item_id}: {e}")))?;
        let prepared = Arc::new(Prepared::new(signals).map_err(|e| AppError::Internal(e.to_string()))?);
        self.prepared.write().unwrap_or_else(|e| e.into_inner()).insert(key, prepared.clone());
        Ok(Some(prepared))
    }

    /// Stores an item's signals and refreshes the cache.
    pub fn put_signals(&self, org: OrgId, item_id: &str, signals: Signals) -> Result<(), AppError> {
        self.store.put_signals(org, item_id, &signals.to_binary())?;
        let prepared = Arc::new(Prepared::new(signals)?);
        self.prepared.write().unwrap_or_else(|e| e.into_inner()).insert((org, item_id.to_string()), prepared);
        self.wake.notify_waiters();
        Ok(())
    }
}
