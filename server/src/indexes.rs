//! The organisations' vector indexes and the searches over them (a domain module: no HTTP here).
//!
//! Each organisation has two collections, each a [`SegmentedIndex`] (the core's segments of
//! memory-mapped HNSW files and an in-memory delta) under `<index dir>/org-<id>/<collection>/`:
//! item embeddings from `similar` results (similar titles) and scene embeddings from
//! `semantic_scenes` results (catalog-wide scene search). An index is opened on first use and
//! checked against the database: every live item's latest successful result has a [`Stamp`]
//! (a hash of its version and time), stored copies of other stamps are dropped, and missing
//! items are loaded. After that, [`Indexes::sync_item`] keeps it current item by item (a finished
//! job, an upsert, a deletion): no rebuild of the collection, and flushes and merges run in the
//! background.

use crate::vocabulary::Product;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use kino::TextEncoder;
use kino::vectors::{
    ItemKind, ItemVectors, Metric, SegmentConfig, SegmentFilter, SegmentedIndex, SpannedVector, Stamp,
};

use crate::store::{ItemRow, OrgId, ResultRow, ResultStamp, ResultStatus, Store, StoreError};

/// The vector collections kept per organisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collection {
    /// 256-float item embeddings (similar titles), from `similar` results.
    Items,
    /// 1024-float scene embeddings with their spans, from `semantic_scenes` results.
    Scenes,
}

impl Collection {
    /// Both collections.
    pub const ALL: [Collection; 2] = [Collection::Items, Collection::Scenes];

    /// The collection's directory name.
    pub fn name(self) -> &'static str {
        match self {
            Collection::Items => "items",
            Collection::Scenes => "scenes",
        }
    }

    /// The product whose results feed the collection.
    pub fn product(self) -> Product {
        match self {
            Collection::Items => Product::Similar,
            Collection::Scenes => Product::SemanticScenes,
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
    fn narrows(&self) -> bool {
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
            release_year: item.body["release_year"].as_i64(),
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
            .result_stamps(org, c.product().as_str())?
            .iter()
            .map(|s| (s.item_id.clone(), stamp_of(&s.version, &s.updated_at)))
            .collect();
        let missing = index.reconcile(&current);
        for id in &missing {
            if let Some(item) = store.item(org, id)?
                && let Some(stamp) = store.result_stamp(org, id, c.product().as_str())?
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
                Some(_) => store.result_stamp(org, item_id, c.product().as_str())?,
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
        let Some(row) = store.result(org, &item.id, c.product().as_str(), Some(&stamp.version))? else {
            return Ok(None);
        };
        Ok(vectors_of(&self.config(c), c, item, &row))
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
            tokio::task::spawn_blocking(move || (i.refresh_all(&s), i.publish_all(&s))).await.unwrap_or((0, 0));
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

fn maintain(index: &Arc<SegmentedIndex>, c: Collection) {
    if index.needs_maintenance() {
        index.maintain_in_background(move |e| {
            tracing::error!(collection = c.name(), error = %e, "index flush or merge failed; it stays as it was")
        });
    }
}

/// The query of a catalog-wide scene search.
#[derive(Debug, Clone)]
pub enum SceneQuery {
    /// Scenes that match a text (encoded with the service's text encoder).
    Text(String),
    /// Scenes like one scene of an item (the scene starting nearest `start_ts`, within a second).
    Scene {
        /// The item.
        item_id: String,
        /// The scene's start, seconds.
        start_ts: f64,
    },
    /// Scenes like an item as a whole (the mean of its scenes).
    Item(String),
    /// Scenes that look like a picture: its scene-space query
    /// ([`kino_media::example::picture_query`]).
    Picture(Vec<f32>),
}

/// A catalog-wide scene search.
#[derive(Debug, Clone)]
pub struct SceneSearch {
    /// What to look for.
    pub query: SceneQuery,
    /// Which items may be returned (catalog, series, release years).
    pub criteria: ItemCriteria,
    /// Item types; empty: any.
    pub types: Vec<crate::vocabulary::ItemType>,
    /// Only scenes within `[from, to]` seconds of their title.
    pub window: Option<[f64; 2]>,
    /// Results to skip.
    pub skip: usize,
    /// Results to return.
    pub count: usize,
}

/// One scene found.
#[derive(Debug, Clone)]
pub struct SceneMatch {
    /// The item.
    pub item: ItemRow,
    /// Scene start, seconds.
    pub start_ts: f64,
    /// Scene end, seconds.
    pub end_ts: f64,
    /// `(cos + 1) / 2` between the query and the scene, 0 to 1.
    pub score: f64,
}

/// The most deep a search pages: `skip + count` at most this.
pub const MAX_SEARCH_DEPTH: usize = 1000;

/// The best scenes across the organisation's catalog for `search`, best first.
pub fn search_scenes(
    indexes: &Indexes,
    store: &Store,
    encoder: &dyn TextEncoder,
    org: OrgId,
    search: &SceneSearch,
) -> Result<Vec<SceneMatch>, SearchError> {
    let depth = search.skip.saturating_add(search.count);
    if depth > MAX_SEARCH_DEPTH {
        return Err(SearchError::Invalid {
            field: "skip",
            rule: format!("skip + count must be at most {MAX_SEARCH_DEPTH} (got {depth})"),
        });
    }
    if let Some(catalog) = search.criteria.catalog_id
        && !store.has_catalog_id(org, catalog)?
    {
        return Err(SearchError::NotFound(format!("catalog {catalog} not found")));
    }
    let index = indexes.get(store, org, Collection::Scenes)?;
    let (vector, exclude) = match &search.query {
        SceneQuery::Text(text) => {
            if text.trim().is_empty() {
                return Err(SearchError::Invalid { field: "text", rule: "must hold at least one word".into() });
            }
            (encoder.encode(text)?, None)
        }
        SceneQuery::Scene { item_id, start_ts } => {
            let (span, vector) = index.nearest_scene(item_id, *start_ts).ok_or_else(|| no_scenes(item_id))?;
            if (span[0] - start_ts).abs() > 1.0 {
                return Err(SearchError::NotFound(format!("item {item_id:?} has no scene starting at {start_ts} s")));
            }
            (vector, Some(item_id.as_str()))
        }
        SceneQuery::Picture(vector) => {
            if vector.len() != index.config().dim {
                return Err(SearchError::Invalid {
                    field: "body",
                    rule: format!(
                        "a picture's query has {} floats, the scene index {}",
                        vector.len(),
                        index.config().dim
                    ),
                });
            }
            (vector.clone(), None)
        }
        SceneQuery::Item(item_id) => {
            let scenes = own_scenes(&index, item_id)?;
            let mut mean = vec![0f32; index.config().dim];
            for (_, v) in &scenes {
                mean.iter_mut().zip(v).for_each(|(m, x)| *m += x);
            }
            (mean, Some(item_id.as_str()))
        }
    };
    let criteria = &search.criteria;
    let ids: Option<HashSet<String>> = if criteria.narrows() {
        let members: Option<HashSet<String>> = match criteria.catalog_id {
            Some(catalog) => Some(store.catalog_members(org, catalog)?.into_iter().collect()),
            None => None,
        };
        let meta = indexes.meta.read().unwrap_or_else(|e| e.into_inner());
        Some(
            meta.get(&org)
                .into_iter()
                .flatten()
                .filter(|(id, m)| members.as_ref().is_none_or(|s| s.contains(*id)) && m.meets(criteria))
                .map(|(id, _)| id.clone())
                .collect(),
        )
    } else {
        None
    };
    let kinds: Vec<ItemKind> = search.types.iter().map(|&t| kind_of(t)).collect();
    let filter = SegmentFilter {
        ids: ids.as_ref(),
        kinds: (!kinds.is_empty()).then_some(&kinds[..]),
        window: search.window,
        exclude,
    };
    let hits = index.search(&vector, depth, &filter).map_err(|e| match e {
        // The mean of an item's scenes can cancel out; anything else is the index's fault.
        kino::Error::InvalidVector { rule, .. } => SearchError::Invalid { field: "item_id", rule: rule.to_string() },
        other => SearchError::Index(other),
    })?;
    let page: Vec<_> = hits.into_iter().skip(search.skip).collect();
    let ids: Vec<&str> = page.iter().map(|h| h.id.as_str()).collect();
    let items: HashMap<String, ItemRow> =
        store.live_items(org, &ids)?.into_iter().map(|item| (item.id.clone(), item)).collect();
    let metric = index.config().metric;
    Ok(page
        .iter()
        // An item deleted since the hit was indexed is left out (its removal is on its way).
        .filter_map(|hit| {
            Some(SceneMatch {
                item: items.get(&hit.id)?.clone(),
                start_ts: hit.span[0],
                end_ts: hit.span[1],
                score: kino::vectors::similar::score(metric, hit.distance),
            })
        })
        .collect())
}

/// The indexed scenes of an item (404 when it has none: not live, or no scene embeddings yet).
fn own_scenes(index: &SegmentedIndex, item_id: &str) -> Result<Vec<SpannedVector>, SearchError> {
    let scenes = index.vectors_of(item_id);
    if scenes.is_empty() {
        return Err(no_scenes(item_id));
    }
    Ok(scenes)
}

fn no_scenes(item_id: &str) -> SearchError {
    SearchError::NotFound(format!(
        "item {item_id:?} not found, or without scene embeddings (no successful semantic_scenes task)"
    ))
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
