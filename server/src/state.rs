//! Shared state: the store, a cache of prepared signals, the text encoder, configuration.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use kino::vectors::{ExactIndex, ItemKind, Metric, VectorSet};
use kino::{LexicalEncoder, Prepared, Signals};
use tokio::sync::Notify;

use crate::error::AppError;
use crate::store::{OrgId, Store};

/// Settings the handlers and workers need.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where `asset_info.file_uri` paths are resolved (sidecar `<video>.signals.json` files).
    pub media_root: PathBuf,
    /// Where per-organisation vector index files live.
    pub index_dir: PathBuf,
    /// The HS256 key file of access tokens (created when absent).
    pub token_key: PathBuf,
    /// Portal requests per organisation per hour.
    pub rate_limit_per_hour: u32,
}

/// Prepared signals by (organisation, item).
type PreparedCache = RwLock<HashMap<(OrgId, String), Arc<Prepared>>>;

/// Item-embedding indexes by organisation (for similar titles).
type IndexCache = RwLock<HashMap<OrgId, Arc<ExactIndex>>>;

/// Cheap to clone: everything behind `Arc`s.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The database.
    pub store: Arc<Store>,
    /// Prepared signals by (organisation, item), built on first use.
    prepared: Arc<PreparedCache>,
    /// Item-embedding indexes, swapped whole when rebuilt.
    item_indexes: Arc<IndexCache>,
    /// The text encoder of search queries.
    pub encoder: Arc<LexicalEncoder>,
    /// Settings.
    pub config: Arc<Config>,
    /// Wakes the workers when work is queued.
    pub wake: Arc<Notify>,
    /// Keys of the access tokens.
    pub tokens: Arc<crate::identity::TokenKeys>,
    /// Portal request counters.
    pub limiter: Arc<crate::ratelimit::RateLimiter>,
}

impl AppState {
    /// State over an opened store; creates the token key file when absent.
    pub fn new(store: Store, config: Config) -> std::io::Result<AppState> {
        let tokens = crate::identity::TokenKeys::load_or_create(&config.token_key)?;
        Ok(AppState {
            tokens: Arc::new(tokens),
            limiter: Arc::new(crate::ratelimit::RateLimiter::new(config.rate_limit_per_hour, 3600)),
            store: Arc::new(store),
            prepared: Arc::default(),
            item_indexes: Arc::default(),
            encoder: Arc::new(LexicalEncoder::default()),
            config: Arc::new(config),
            wake: Arc::new(Notify::new()),
        })
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

    fn item_index_path(&self, org: OrgId) -> PathBuf {
        self.config.index_dir.join(format!("org-{}-items.kvx", org.0))
    }

    /// The organisation's item-embedding index (memory-mapped), built on first use.
    pub fn item_index(&self, org: OrgId) -> Result<Option<Arc<ExactIndex>>, AppError> {
        if let Some(index) = self.item_indexes.read().unwrap_or_else(|e| e.into_inner()).get(&org) {
            return Ok(Some(index.clone()));
        }
        let path = self.item_index_path(org);
        if path.exists() {
            if let Ok(index) = ExactIndex::open(&path) {
                let index = Arc::new(index);
                self.item_indexes.write().unwrap_or_else(|e| e.into_inner()).insert(org, index.clone());
                return Ok(Some(index));
            }
        }
        self.rebuild_item_index(org)
    }

    /// Rebuilds the organisation's item-embedding index from its `similar` results (live items
    /// only): a new file is written and renamed into place, then the mapping is swapped, so a
    /// reader sees the old index or the new one, never a half-built one.
    pub fn rebuild_item_index(&self, org: OrgId) -> Result<Option<Arc<ExactIndex>>, AppError> {
        let mut set = VectorSet::items(kino::signals::ITEM_EMBEDDING_DIM, Metric::Cosine)?;
        for r in self.store.all_results(org, "similar")? {
            let Some(item) = self.store.item(org, &r.item_id)? else { continue };
            if item.deleted {
                continue;
            }
            let Some(v) = r.data.as_ref().and_then(|d| serde_json::from_value::<Vec<f32>>(d["embedding"].clone()).ok())
            else {
                continue;
            };
            let kind = match item.item_type.as_str() {
                "standalone" => ItemKind::Movie,
                "series" => ItemKind::Series,
                "episode" => ItemKind::Episode,
                _ => ItemKind::Other,
            };
            set.push_item(&item.id, kind, &v)?;
        }
        let mut cache = self.item_indexes.write().unwrap_or_else(|e| e.into_inner());
        if set.is_empty() {
            cache.remove(&org);
            return Ok(None);
        }
        std::fs::create_dir_all(&self.config.index_dir).map_err(|e| AppError::Internal(format!("index dir: {e}")))?;
        let path = self.item_index_path(org);
        ExactIndex::write(&set, &path)?;
        let index = Arc::new(ExactIndex::open(&path)?);
        cache.insert(org, index.clone());
        Ok(Some(index))
    }
}
