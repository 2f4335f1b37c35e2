//! The organisations' vector indexes and the searches over them (a domain module: no HTTP here).
//!
//! Each organisation has two collections, each a [`SegmentedIndex`] (the core's segments of
//! memory-mapped HNSW files and an in-memory delta) under `<index dir>/org-<id>/<collection>/`:
//! item embeddings from `similar` results (similar titles) and scene embeddings from
//! `semantic_scenes` results (catalog-wide scene search), and four scene-channel collections
//! (what is seen, said, written and heard in each scene, from the signals' `scene_channels`, at
//! the stamp of the same `semantic_scenes` result) that a text search scores at query time and
//! fuses with the scene embeddings (`kino::vectors::fusion`). An index is opened on first use and
//! checked against the database: every live item's latest successful result has a [`Stamp`]
//! (a hash of its version and time), stored copies of other stamps are dropped, and missing
//! items are loaded. After that, [`Indexes::sync_item`] keeps it current item by item (a finished
//! job, an upsert, a deletion): no rebuild of the collection, and flushes and merges run in the
//! background.

use crate::vocabulary::Product;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use kino::vectors::{ItemKind, ItemVectors, Metric, SegmentConfig, SegmentedIndex, Stamp};

use crate::store::{ItemRow, OrgId, ResultRow, ResultStamp, ResultStatus, Store, StoreError};

/// The vector collections kept per organisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collection {
    /// 256-float item embeddings (similar titles), from `similar` results.
    Items,
    /// 1024-float scene embeddings with their spans, from `semantic_scenes` results.
    Scenes,
    /// One channel's vectors of each scene (`SceneChannels::NAMES[k]`: seen, said, written,
    /// heard), with the scenes' spans, from the signals of items with a `semantic_scenes` result.
    Channel(u8),
}

impl Collection {
    /// Every collection.
    pub const ALL: [Collection; 6] = [
        Collection::Items,
        Collection::Scenes,
        Collection::Channel(0),
        Collection::Channel(1),
        Collection::Channel(2),
        Collection::Channel(3),
    ];

    /// The four scene-channel collections, in the order of `SceneChannels::NAMES`.
    pub const CHANNELS: [Collection; 4] =
        [Collection::Channel(0), Collection::Channel(1), Collection::Channel(2), Collection::Channel(3)];

    /// The collection's directory name.
    pub fn name(self) -> &'static str {
        match self {
            Collection::Items => "items",
            Collection::Scenes => "scenes",
            Collection::Channel(0) => "scenes-seen",
            Collection::Channel(1) => "scenes-said",
            Collection::Channel(2) => "scenes-written",
            Collection::Channel(_) => "scenes-heard",
        }
    }

    /// The product whose results feed the collection (or, for a channel, whose result's stamp
    /// its vectors are kept at).
    pub fn product(self) -> Product {
        match self {
            Collection::Items => Product::Similar,
            Collection::Scenes | Collection::Channel(_) => Product::SemanticScenes,
        }
    }

    /// The collection whose vectors `product`'s results carry.
    pub fn of_product(product: Product) -> Option<Collection> {
        Collection::ALL.into_iter().find(|c| c.product() == product)
    }

    fn config(self) -> SegmentConfig {
        match self {
            Collection::Items => SegmentConfig::new(kino::signals::ITEM_EMBEDDING_DIM, Metric::Cosine, false),
            Collection::Scenes => SegmentConfig::new(kino::signals::SCENE_EMBEDDING_DIM, Metric::Cosine, true),
            Collection::Channel(_) => SegmentConfig::new(kino_models::SENTENCE_DIM, Metric::Cosine, true),
        }
    }
}

/// Why a search or an index operation failed; `routes/` turns it into an HTTP answer.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The index or the query vector failed (an invalid query vector is the caller's fault).
    #[error(transparent)]
    Index(#[from] kino::Error),
    /// Something the request names does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A request field broke a rule that only the search can check.
    #[error("`{field}` {rule}")]
    Invalid {
        /// The query parameter.
        field: &'static str,
        /// The rule, e.g. `must not be empty`.
        rule: String,
    },
}

/// The lock held while one index is opened.
type OpenLock = Arc<Mutex<()>>;

/// The open indexes of every organisation.
#[derive(Debug)]
pub struct Indexes {
    dir: PathBuf,
    open: RwLock<HashMap<(OrgId, Collection), Arc<SegmentedIndex>>>,
    /// One lock per index being opened and checked against the database, so that it happens
    /// once, without making other organisations' first searches wait.
    opening: Mutex<HashMap<(OrgId, Collection), OpenLock>>,
    /// What the search filters read of the items in the scene indexes, by organisation: kept in
    /// memory so that a filtered search asks the database nothing per item.
    meta: RwLock<HashMap<OrgId, HashMap<String, ItemMeta>>>,
    /// Overrides of the segment settings (tests, benchmarks).
    tune: Option<fn(SegmentConfig) -> SegmentConfig>,
    /// The object store the index files are shared through ([`crate::index_files`]), when the
    /// service has one.
    bucket: Option<Arc<crate::bucket::Bucket>>,
    /// What this process last published of each index.
    published: Mutex<HashMap<(OrgId, Collection), crate::index_files::Published>>,
    /// Items found without vectors for a collection at a result's stamp (signals analysed before
    /// scene channels existed), so that each refresh does not read their signals again.
    empty: Mutex<HashSet<(OrgId, Collection, String, Stamp)>>,
    /// The last item's scenes and channel vectors, by its signals' version ([`Indexes::channels_of`]).
    last_channels: Mutex<Option<(SignalsKey, Arc<ChannelScenes>)>>,
}

/// An item's stored signals at one version: organisation, item, version.
type SignalsKey = (OrgId, String, i64);

/// An item's scenes and their channel vectors, as its signals hold them.
#[derive(Debug)]
struct ChannelScenes {
    scenes: Vec<kino::signals::Scene>,
    channels: kino::signals::SceneChannels,
}

/// Which items a catalog search may return; every given criterion must hold.
#[derive(Debug, Clone, Default)]
pub struct ItemCriteria {
    /// Members of a smartlist of this catalog.
    pub catalog_id: Option<i64>,
    /// The series' episodes.
    pub series_id: Option<String>,
    /// `release_year` at least this.
    pub year_from: Option<i64>,
    /// `release_year` at most this.
    pub year_to: Option<i64>,
}

impl ItemCriteria {
    /// Whether any criterion is set.
    pub fn narrows(&self) -> bool {
        self.catalog_id.is_some() || self.series_id.is_some() || self.year_from.is_some() || self.year_to.is_some()
    }
}

/// What the filters read of an item.
#[derive(Debug, Clone, PartialEq)]
struct ItemMeta {
    series_id: Option<String>,
    release_year: Option<i64>,
}

impl ItemMeta {
    fn of(item: &ItemRow) -> ItemMeta {
        ItemMeta {
            series_id: item.episodic("series_id").and_then(serde_json::Value::as_str).map(str::to_string),
            release_year: item.release_year(),
        }
    }

    fn meets(&self, c: &ItemCriteria) -> bool {
        c.series_id.as_ref().is_none_or(|s| self.series_id.as_ref() == Some(s))
            && c.year_from.is_none_or(|y| self.release_year.is_some_and(|r| r >= y))
            && c.year_to.is_none_or(|y| self.release_year.is_some_and(|r| r <= y))
    }
}

/// FNV-1a of a result's version and time: changes whenever the result is rewritten.
fn stamp_of(version: &str, updated_at: &str) -> Stamp {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in version.bytes().chain([b'@']).chain(updated_at.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The index kind of a catalog item type.
pub fn kind_of(item_type: crate::vocabulary::ItemType) -> ItemKind {
    use crate::vocabulary::ItemType;
    match item_type {
        ItemType::Standalone => ItemKind::Movie,
        ItemType::Series => ItemKind::Series,
        ItemType::Episode => ItemKind::Episode,
        ItemType::Season => ItemKind::Other,
    }
}

impl Indexes {
    /// Indexes under `dir` with the default segment settings.
    pub fn new(dir: PathBuf) -> Indexes {
        Indexes {
            dir,
            open: RwLock::default(),
            opening: Mutex::default(),
            meta: RwLock::default(),
            tune: None,
            bucket: None,
            published: Mutex::default(),
            empty: Mutex::default(),
            last_channels: Mutex::default(),
        }
    }

    /// These indexes, sharing their files through `bucket`'s object store when it has one
    /// ([`crate::index_files`]).
    pub fn shared_through(self, bucket: Arc<crate::bucket::Bucket>) -> Indexes {
        Indexes { bucket: bucket.is_remote().then_some(bucket), ..self }
    }

    /// Indexes whose segment settings `tune` adjusts (e.g. tiny flush sizes in tests).
    pub fn tuned(dir: PathBuf, tune: fn(SegmentConfig) -> SegmentConfig) -> Indexes {
        Indexes { tune: Some(tune), ..Indexes::new(dir) }
    }

    fn config(&self, c: Collection) -> SegmentConfig {
        let config = c.config();
        match self.tune {
            Some(tune) => tune(config),
            None => config,
        }
    }

    /// The index if it is open.
    pub fn loaded(&self, org: OrgId, c: Collection) -> Option<Arc<SegmentedIndex>> {
        self.open.read().unwrap_or_else(|e| e.into_inner()).get(&(org, c)).cloned()
    }

    /// The organisation's index of `c`, opened and checked against the database on first use.
    pub fn get(&self, store: &Store, org: OrgId, c: Collection) -> Result<Arc<SegmentedIndex>, SearchError> {
        if let Some(index) = self.loaded(org, c) {
            return Ok(index);
        }
        let key_lock = self.opening.lock().unwrap_or_else(|e| e.into_inner()).entry((org, c)).or_default().clone();
        let _one = key_lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = self.loaded(org, c) {
            return Ok(index);
        }
        // The whole-collection files of versions before segments.
        let _ = std::fs::remove_file(self.dir.join(format!("org-{}-{}.kvx", org.0, c.name())));
        let dir = self.dir.join(format!("org-{}", org.0)).join(c.name());
        if let Some(bucket) = &self.bucket
            && !dir.join("manifest.json").exists()
        {
            match crate::index_files::seed(bucket, org, c, &dir) {
                Ok(0) => {}
                Ok(n) => tracing::info!(
                    org = org.0,
                    collection = c.name(),
                    segments = n,
                    "index files fetched from the object store"
                ),
                Err(e) => {
                    tracing::warn!(org = org.0, collection = c.name(), error = %e, "cannot fetch the index files from the object store; building the index from the database")
                }
            }
        }
        let (index, report) = SegmentedIndex::open(&dir, self.config(c))?;
        for (file, reason) in &report.dropped {
            tracing::warn!(file, reason, "index segment unusable; its items are loaded again");
        }
        let loaded = self.bring_up_to_date(store, org, c, &index)?;
        let index = Arc::new(index);
        if loaded > 0 {
            tracing::info!(org = org.0, collection = c.name(), loaded, "index brought up to date");
        }
        maintain(&index, c);
        self.open.write().unwrap_or_else(|e| e.into_inner()).insert((org, c), index.clone());
        Ok(index)
    }

    /// Checks `index` against the database: items whose stored vectors are not their current
    /// result's (or that are deleted) are dropped, current ones it lacks are loaded, and for scenes
    /// the filter metadata of every live item is read again. Returns how many items were loaded.
    fn bring_up_to_date(
        &self,
        store: &Store,
        org: OrgId,
        c: Collection,
        index: &SegmentedIndex,
    ) -> Result<usize, SearchError> {
        let current: HashMap<String, Stamp> = store
            .result_stamps(org, c.product())?
            .iter()
            .map(|s| (s.item_id.clone(), stamp_of(&s.version, &s.updated_at)))
            .collect();
        let missing = index.reconcile(&current);
        for id in &missing {
            if current.get(id).is_some_and(|s| self.known_empty(org, c, id, *s)) {
                continue;
            }
            if let Some(item) = store.item(org, id)?
                && let Some(stamp) = store.result_stamp(org, id, c.product())?
                && let Some(vectors) = self.vectors(store, org, c, &item, &stamp)?
            {
                index.upsert(vectors)?;
            }
        }
        if c == Collection::Scenes {
            let mut meta = HashMap::new();
            for item in store.items(org, false, 0, i64::MAX)? {
                if index.stamp(&item.id).is_some() {
                    meta.insert(item.id.clone(), ItemMeta::of(&item));
                }
            }
            self.meta.write().unwrap_or_else(|e| e.into_inner()).insert(org, meta);
        }
        Ok(missing.len())
    }

    /// Checks every open index against the database, for what other processes on the same
    /// database (replicas) changed: this process keeps its own changes current item by item
    /// ([`Indexes::sync_item`]), but learns of another's only here. `kino-server` runs it every
    /// `--index-refresh` seconds. Returns how many items were loaded.
    pub fn refresh_all(&self, store: &Store) -> usize {
        let open: Vec<((OrgId, Collection), Arc<SegmentedIndex>)> =
            self.open.read().unwrap_or_else(|e| e.into_inner()).iter().map(|(k, v)| (*k, v.clone())).collect();
        let mut loaded = 0;
        for ((org, c), index) in open {
            match self.bring_up_to_date(store, org, c, &index) {
                Ok(n) => {
                    loaded += n;
                    maintain(&index, c);
                }
                Err(e) => tracing::error!(org = org.0, collection = c.name(), error = %e, "cannot refresh an index"),
            }
        }
        loaded
    }

    /// Publishes the files of every open index whose files changed to the object store, when
    /// there is one ([`crate::index_files`]); `kino-server` does it every `--index-refresh`
    /// seconds. Returns how many were published.
    pub fn publish_all(&self, store: &Store) -> usize {
        let Some(bucket) = &self.bucket else { return 0 };
        let open: Vec<(OrgId, Collection)> =
            self.open.read().unwrap_or_else(|e| e.into_inner()).keys().copied().collect();
        let mut published = 0;
        for (org, c) in open {
            let dir = self.dir.join(format!("org-{}", org.0)).join(c.name());
            let mut last =
                self.published.lock().unwrap_or_else(|e| e.into_inner()).remove(&(org, c)).unwrap_or_default();
            match crate::index_files::publish(bucket, store.owner(), org, c, &dir, &mut last) {
                Ok(true) => published += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(org = org.0, collection = c.name(), error = %e, "cannot publish the index files; trying again later")
                }
            }
            self.published.lock().unwrap_or_else(|e| e.into_inner()).insert((org, c), last);
        }
        published
    }

    /// Opens every organisation's indexes (at start, in the background), so that the first
    /// search of each does not wait for its index to be checked against the database.
    pub fn open_all(&self, store: &Store) {
        let orgs = match store.orgs() {
            Ok(orgs) => orgs,
            Err(e) => {
                tracing::error!(error = %e, "cannot list the organisations to open their indexes");
                return;
            }
        };
        for (org, _) in orgs {
            for c in Collection::ALL {
                if let Err(e) = self.get(store, org, c) {
                    tracing::error!(org = org.0, collection = c.name(), error = %e, "cannot open an index");
                }
            }
        }
    }

    /// The index if it is open, or once it is, when it is being opened now: an open that began
    /// before this item's result was stored may have read the stamps without it, so a change must
    /// wait for that open to finish and then apply itself. (An open that begins later reads the
    /// stamps after the result, which was stored before this is called.)
    fn loaded_or_opened(&self, org: OrgId, c: Collection) -> Option<Arc<SegmentedIndex>> {
        if let Some(index) = self.loaded(org, c) {
            return Some(index);
        }
        let opening = self.opening.lock().unwrap_or_else(|e| e.into_inner()).get(&(org, c)).cloned()?;
        drop(opening.lock().unwrap_or_else(|e| e.into_inner()));
        self.loaded(org, c)
    }

    /// Brings `item_id` up to date in the organisation's open indexes: its current vectors
    /// when it is live with a successful result, else none. An index not yet open needs nothing:
    /// it is checked against the database when it opens.
    pub fn sync_item(&self, store: &Store, org: OrgId, item_id: &str) -> Result<(), SearchError> {
        for c in Collection::ALL {
            let Some(index) = self.loaded_or_opened(org, c) else { continue };
            let item = store.item(org, item_id)?.filter(|i| !i.deleted);
            if c == Collection::Scenes {
                let mut meta = self.meta.write().unwrap_or_else(|e| e.into_inner());
                let org_meta = meta.entry(org).or_default();
                match &item {
                    Some(item) => org_meta.insert(item_id.to_string(), ItemMeta::of(item)),
                    None => org_meta.remove(item_id),
                };
            }
            let stamp = match &item {
                Some(_) => store.result_stamp(org, item_id, c.product())?,
                None => None,
            };
            match (item, stamp) {
                (Some(item), Some(stamp)) => {
                    if index.stamp(item_id) == Some(stamp_of(&stamp.version, &stamp.updated_at)) {
                        continue;
                    }
                    match self.vectors(store, org, c, &item, &stamp)? {
                        Some(vectors) => index.upsert(vectors)?,
                        None => index.remove(item_id),
                    }
                }
                _ => index.remove(item_id),
            }
            maintain(&index, c);
        }
        Ok(())
    }

    /// The vectors of `item`'s result `stamp` names (`None` when the result has none that can be
    /// indexed: a payload without embeddings is skipped rather than failing the collection).
    fn vectors(
        &self,
        store: &Store,
        org: OrgId,
        c: Collection,
        item: &ItemRow,
        stamp: &ResultStamp,
    ) -> Result<Option<ItemVectors>, SearchError> {
        let Some(row) = store.result(org, &item.id, c.product(), Some(&stamp.version))? else {
            return Ok(None);
        };
        let found = match c {
            Collection::Channel(k) => self
                .channels_of(store, org, &item.id)?
                .and_then(|scenes| channel_vectors_of(&self.config(c), k, item, &row, &scenes)),
            _ => vectors_of(&self.config(c), c, item, &row),
        };
        if found.is_none() {
            let key = (org, c, item.id.clone(), stamp_of(&row.version, &row.updated_at));
            self.empty.lock().unwrap_or_else(|e| e.into_inner()).insert(key);
        }
        Ok(found)
    }

    /// The organisation's items in the scene index that meet `criteria` (and are among `members`,
    /// when given), from the metadata kept in memory: a filtered search asks the database nothing
    /// per item.
    pub fn items_meeting(
        &self,
        org: OrgId,
        criteria: &ItemCriteria,
        members: Option<&HashSet<String>>,
    ) -> HashSet<String> {
        let meta = self.meta.read().unwrap_or_else(|e| e.into_inner());
        meta.get(&org)
            .into_iter()
            .flatten()
            .filter(|(id, m)| members.is_none_or(|s| s.contains(*id)) && m.meets(criteria))
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// An item's scenes and their channel vectors from its stored signals (`None` without
    /// signals, or signals without channels). The four channel collections ask for the same item
    /// one after the other ([`Indexes::sync_item`]): the last item's are kept, so its signals are
    /// read and decoded once, not four times.
    fn channels_of(&self, store: &Store, org: OrgId, id: &str) -> Result<Option<Arc<ChannelScenes>>, SearchError> {
        let Some(version) = store.signals_version(org, id)? else { return Ok(None) };
        let key = (org, id.to_string(), version);
        {
            let last = self.last_channels.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((at, scenes)) = last.as_ref()
                && *at == key
            {
                return Ok(Some(scenes.clone()));
            }
        }
        // Read and decoded outside the lock: other items' syncs do not wait on this one's I/O.
        let Some((bytes, version)) = store.signals(org, id)? else { return Ok(None) };
        let Some(scenes) = kino::Signals::from_binary(&bytes)
            .ok()
            .and_then(|s| Some(Arc::new(ChannelScenes { channels: s.scene_channels?, scenes: s.scenes })))
        else {
            return Ok(None);
        };
        *self.last_channels.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(((org, id.to_string(), version), scenes.clone()));
        Ok(Some(scenes))
    }

    /// Whether `id` was found without vectors for `c` at `stamp` (see [`Indexes::vectors`]).
    fn known_empty(&self, org: OrgId, c: Collection, id: &str, stamp: Stamp) -> bool {
        self.empty.lock().unwrap_or_else(|e| e.into_inner()).contains(&(org, c, id.to_string(), stamp))
    }
}

/// Runs [`Indexes::refresh_all`] and [`Indexes::publish_all`] every `every` (on the blocking pool) until `shutdown` turns true.
pub async fn run_refresher(
    indexes: Arc<Indexes>,
    store: Arc<Store>,
    every: std::time::Duration,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            break;
        }
        let (i, s) = (indexes.clone(), store.clone());
        let (loaded, published) =
            crate::blocking::in_background("the index refresh", move || (i.refresh_all(&s), i.publish_all(&s)))
                .await
                .unwrap_or((0, 0));
        if loaded > 0 {
            tracing::info!(loaded, "indexes refreshed with changes made by other processes");
        }
        if published > 0 {
            tracing::debug!(published, "index files published to the object store");
        }
    }
}

/// An item's vectors from its stored result (`None` without usable embeddings).
fn vectors_of(config: &SegmentConfig, c: Collection, item: &ItemRow, row: &ResultRow) -> Option<ItemVectors> {
    let data = row.data.as_ref().filter(|_| row.status == ResultStatus::Success)?;
    let mut vectors =
        ItemVectors::new(config, &item.id, kind_of(item.item_type), stamp_of(&row.version, &row.updated_at)).ok()?;
    match c {
        Collection::Items => {
            let v: Vec<f32> = serde_json::from_value(data["embedding"].clone()).ok()?;
            vectors.push([0.0, 0.0], &v).ok()?;
        }
        // A channel's vectors come from the signals (`channel_vectors_of`).
        Collection::Channel(_) => return None,
        Collection::Scenes => {
            for scene in data["scene_embeddings"].as_array().into_iter().flatten() {
                let (Some(start), Some(end)) = (scene["start_ts"].as_f64(), scene["end_ts"].as_f64()) else { continue };
                let Ok(v) = serde_json::from_value::<Vec<f32>>(scene["embedding"].clone()) else { continue };
                // One bad scene (zero vector, reversed span) is left out, not the whole item.
                let _ = vectors.push([start, end], &v);
            }
        }
    }
    (!vectors.is_empty()).then_some(vectors)
}

/// Channel `k`'s vectors of an item's scenes (`signals.scene_channels`), at the stamp of its
/// `semantic_scenes` result `row` (`None` when the signals have none: analysed before channels).
fn channel_vectors_of(
    config: &SegmentConfig,
    k: u8,
    item: &ItemRow,
    row: &ResultRow,
    signals: &ChannelScenes,
) -> Option<ItemVectors> {
    let list = signals.channels.lists()[usize::from(k).min(3)];
    let mut vectors =
        ItemVectors::new(config, &item.id, kind_of(item.item_type), stamp_of(&row.version, &row.updated_at)).ok()?;
    for (scene, v) in signals.scenes.iter().zip(list) {
        if let Some(v) = v {
            let _ = vectors.push([scene.start, scene.end], v);
        }
    }
    (!vectors.is_empty()).then_some(vectors)
}

fn maintain(index: &Arc<SegmentedIndex>, c: Collection) {
    if index.needs_maintenance() {
        index.maintain_in_background(move |e| {
            tracing::error!(collection = c.name(), error = %e, "index flush or merge failed; it stays as it was")
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_changes_with_the_version_and_the_time() {
        let a = stamp_of("1.0.0", "2026-01-01T00:00:00.000Z");
        assert_eq!(a, stamp_of("1.0.0", "2026-01-01T00:00:00.000Z"));
        assert_ne!(a, stamp_of("1.0.1", "2026-01-01T00:00:00.000Z"));
        assert_ne!(a, stamp_of("1.0.0", "2026-01-01T00:00:00.001Z"));
    }
}
