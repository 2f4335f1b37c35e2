//! [`SegmentedIndex`]: a vector collection that changes while it is searched, the way a catalog
//! does. Vectors are keyed by item id; each item's vectors carry a [`Stamp`] (the version of the
//! data they came from), so that the index can be checked against the system of record.
//!
//! - Immutable **segments**: index files of this crate's format (an HNSW graph from
//!   [`SegmentConfig::graph_from`] vectors, else vectors only), memory-mapped.
//! - A small in-memory **delta** that takes new and changed items; once it holds
//!   [`SegmentConfig::flush_vectors`] vectors it is written as a new segment.
//! - **Deletions** (and the old copies of changed items) are marked in a bitset per segment and
//!   filtered during the search, until a **merge** rewrites the segment without them. Merges join
//!   the smallest segments when there are more than [`SegmentConfig::merge_segments`] (so sizes
//!   grow geometrically and each vector is rewritten O(log n) times), and rewrite any segment
//!   whose nodes are mostly dead.
//! - A **manifest** (`manifest.json`, replaced by rename) lists the segments and the stamp of
//!   every item each one holds. The delta lives only in memory: after a restart,
//!   [`SegmentedIndex::reconcile`] compares the stored stamps with the current ones and names the
//!   items to load again.
//!
//! Readers never wait on file I/O: a search clones an `Arc` of the current view (segments, their
//! dead bits, the delta) and works on it; updates and maintenance publish a new view under a
//! short lock, and flushes and merges write their files with no lock that a reader or writer takes.
//!
//! The module's parts, one concept each (the layout of tantivy's and qdrant's segment code):
//!
//! - `mod.rs`: the collection's types, opening it, and the updates (upsert, remove, reconcile)
//!   that publish a new view;
//! - `segment.rs`: one immutable segment file, mapped, with the bitset of its dead nodes;
//! - `manifest.rs`: the manifest file that lists the segments, and the files it does not list;
//! - `search.rs`: the read side (searches and lookups over one view);
//! - `filter.rs`: what a search may return, checked node by node during the search;
//! - `maintenance.rs`: flushing the delta, merging segments, the background thread;
//! - `merge_policy.rs`: which segments to merge.

mod filter;
mod maintenance;
mod manifest;
mod merge_policy;
mod search;
mod segment;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::vectors::distance::Metric;
use crate::vectors::format::Codes;
use crate::vectors::hnsw::{HnswParams, Precision};
use crate::vectors::set::{ItemKind, VectorSet};

pub use self::filter::SegmentFilter;
use self::manifest::Manifest;
pub use self::search::SegmentHit;
use self::segment::{Bits, Segment, mark_dead, open_segment};

/// The version of an item's vectors (any number that changes when they do, e.g. a hash of the
/// result's version and time).
pub type Stamp = u64;

/// A stored vector with its `[start_ts, end_ts]` (`[0, 0]` in an item collection).
pub type SpannedVector = ([f64; 2], Vec<f32>);

/// How a [`SegmentedIndex`] stores and maintains its vectors.
#[derive(Debug, Clone)]
pub struct SegmentConfig {
    /// Vector length.
    pub dim: usize,
    /// The metric.
    pub metric: Metric,
    /// Whether items hold many vectors with time spans (scenes) or exactly one (items).
    pub scenes: bool,
    /// The delta is written as a segment once it holds this many vectors.
    pub flush_vectors: usize,
    /// More segments than this are merged.
    pub merge_segments: usize,
    /// Segments of at least this many vectors get an HNSW graph; smaller ones are scanned.
    pub graph_from: usize,
    /// HNSW build parameters.
    pub params: HnswParams,
    /// HNSW search beam.
    pub ef: usize,
    /// What graph segments are walked with: int8 by default (when the segment file holds int8
    /// codes, as those written with `params.codes` int8 do; older files are walked over floats),
    /// the beam re-ranked with the floats. Same recall as the floats, 1.5-1.9x the speed
    /// (docs/vector-search.md).
    pub precision: Precision,
}

impl SegmentConfig {
    /// The defaults for a collection of `dim`-float vectors: flush at 4,096 vectors, merge above
    /// 4 segments, graphs from 2,048 vectors, `m` 16, `ef_construction` 100, `ef` 64 (recall@10
    /// 0.977 at 100k x 1024 in the core's measurements), int8 codes stored in graph segments
    /// (for filtered scans, read from the mapping).
    pub fn new(dim: usize, metric: Metric, scenes: bool) -> SegmentConfig {
        SegmentConfig {
            dim,
            metric,
            scenes,
            flush_vectors: 4096,
            merge_segments: 4,
            graph_from: 2048,
            params: HnswParams { m: 16, ef_construction: 100, codes: Codes::INT8 },
            ef: 64,
            precision: Precision::Int8,
        }
    }

    fn empty_set(&self) -> Result<VectorSet> {
        if self.scenes { VectorSet::scenes(self.dim, self.metric) } else { VectorSet::items(self.dim, self.metric) }
    }
}

/// One item's vectors, as given to [`SegmentedIndex::upsert`]: checked and normalised on the way
/// in. An item collection takes one vector per item; a scene collection any number, each with its
/// `[start_ts, end_ts]`.
#[derive(Debug, Clone)]
pub struct ItemVectors {
    id: String,
    kind: ItemKind,
    stamp: Stamp,
    set: VectorSet,
}

impl ItemVectors {
    /// No vectors yet of item `id` (of `kind`) at version `stamp`, for the collection `config`
    /// describes.
    pub fn new(config: &SegmentConfig, id: &str, kind: ItemKind, stamp: Stamp) -> Result<ItemVectors> {
        if id.is_empty() {
            return Err(Error::InvalidParameter { param: "id", rule: "must not be empty".into() });
        }
        Ok(ItemVectors { id: id.to_string(), kind, stamp, set: config.empty_set()? })
    }

    /// Adds a vector; `span` is the scene's `[start_ts, end_ts]` (ignored by an item collection,
    /// which takes one vector).
    pub fn push(&mut self, span: [f64; 2], vector: &[f32]) -> Result<()> {
        if self.set.unique_ids {
            self.set.push_item(&self.id, self.kind, vector)?;
        } else {
            self.set.push_scene(&self.id, self.kind, span[0], span[1], vector)?;
        }
        Ok(())
    }

    /// The item id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether it holds no vector.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

/// Figures of a [`SegmentedIndex`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SegmentStats {
    /// Segment files.
    pub segments: usize,
    /// Of which with an HNSW graph.
    pub graphs: usize,
    /// Vectors in segments, dead ones included.
    pub segment_vectors: usize,
    /// Dead vectors in segments (deleted or replaced, not yet merged away).
    pub dead_vectors: usize,
    /// Vectors in the in-memory delta.
    pub delta_vectors: usize,
    /// Live items.
    pub items: usize,
}

/// What [`SegmentedIndex::open`] found.
#[derive(Debug, Clone, Default)]
pub struct OpenReport {
    /// Segments listed by the manifest that could not be used (file, reason); their items are
    /// named by [`SegmentedIndex::reconcile`] to be loaded again.
    pub dropped: Vec<(String, String)>,
    /// Files in the directory that no manifest lists (left by a crash), removed.
    pub removed: Vec<String>,
}

/// A vector collection of immutable segments and an in-memory delta; see the module docs.
#[derive(Debug)]
pub struct SegmentedIndex {
    dir: PathBuf,
    config: SegmentConfig,
    inner: Mutex<Inner>,
    view: RwLock<Arc<View>>,
    /// Held by the one flush or merge in progress (never by readers or by upserts).
    maintenance: Mutex<()>,
    /// Whether a background maintenance thread is scheduled.
    scheduled: AtomicBool,
}

#[derive(Debug, Default)]
struct Inner {
    segments: Vec<Arc<Segment>>,
    /// Parallel to `segments`.
    dead: Vec<Arc<Bits>>,
    delta: BTreeMap<String, Arc<ItemVectors>>,
    /// The current stamp of every live item.
    live: HashMap<String, Stamp>,
    next_file: u64,
}

#[derive(Debug, Default)]
struct View {
    segments: Vec<(Arc<Segment>, Arc<Bits>)>,
    delta: Vec<Arc<ItemVectors>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SegmentedIndex {
    /// Opens the collection stored in `dir` (created when absent): reads the manifest, maps and
    /// verifies its segments (a damaged one is dropped and reported), and removes files no
    /// manifest lists. Call [`SegmentedIndex::reconcile`] next when the stamps of record are known.
    pub fn open(dir: impl AsRef<Path>, config: SegmentConfig) -> Result<(SegmentedIndex, OpenReport)> {
        let dir = dir.as_ref().to_path_buf();
        if config.flush_vectors == 0 || config.merge_segments < 2 || config.ef == 0 {
            return Err(Error::InvalidParameter {
                param: "SegmentConfig",
                rule: "flush_vectors and ef must be >= 1, merge_segments >= 2".into(),
            });
        }
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let manifest = Manifest::read(&dir)?;
        let mut report = OpenReport::default();
        let mut inner = Inner { next_file: manifest.next_file, ..Inner::default() };
        for m in manifest.segments {
            match open_segment(&dir, &m.file, &config) {
                Ok(index) => {
                    let segment = Segment::new(m.file, index, m.stamps.into_iter().collect())?;
                    // Later segments hold the newer copy of an item stored twice.
                    for (id, stamp) in &segment.stamps {
                        inner.live.insert(id.clone(), *stamp);
                    }
                    inner.dead.push(Arc::new(Bits::new(segment.index.get().len())));
                    inner.segments.push(Arc::new(segment));
                }
                Err(e) => report.dropped.push((m.file, e.to_string())),
            }
        }
        // Older copies of items stored twice are dead.
        for s in 0..inner.segments.len() {
            let segment = inner.segments[s].clone();
            for (id, stamp) in &segment.stamps {
                if inner.live.get(id) != Some(stamp)
                    || inner.segments[s + 1..].iter().any(|later| later.stamps.contains_key(id))
                {
                    mark_dead(&mut inner.dead[s], &segment, id);
                }
            }
        }
        let listed: HashSet<&str> = inner.segments.iter().map(|s| s.file.as_str()).collect();
        manifest::remove_unlisted(&dir, &listed, &mut report.removed)?;
        let index = SegmentedIndex {
            dir,
            config,
            view: RwLock::new(Arc::new(View::default())),
            inner: Mutex::new(inner),
            maintenance: Mutex::new(()),
            scheduled: AtomicBool::new(false),
        };
        index.publish(&lock(&index.inner));
        Ok((index, report))
    }

    /// The collection's settings.
    pub fn config(&self) -> &SegmentConfig {
        &self.config
    }

    /// Checks the stored items against `current`, the stamp of record of every item that should
    /// be searchable: stored copies of other stamps, and items absent from `current`, become dead.
    /// Returns the ids (sorted) whose current vectors are not stored, to load and
    /// [`upsert`](SegmentedIndex::upsert).
    pub fn reconcile(&self, current: &HashMap<String, Stamp>) -> Vec<String> {
        let mut inner = lock(&self.inner);
        let stale: Vec<String> =
            inner.live.iter().filter(|(id, stamp)| current.get(*id) != Some(stamp)).map(|(id, _)| id.clone()).collect();
        for id in &stale {
            inner.remove(id);
        }
        let mut missing: Vec<String> = current.keys().filter(|id| !inner.live.contains_key(*id)).cloned().collect();
        missing.sort();
        self.publish(&inner);
        missing
    }

    /// Adds an item's vectors, or replaces the ones it has (no-op when the same stamp is stored).
    /// An item given no vectors is removed.
    pub fn upsert(&self, item: ItemVectors) -> Result<()> {
        if item.set.dim != self.config.dim || item.set.unique_ids == self.config.scenes {
            return Err(Error::InvalidParameter {
                param: "item",
                rule: "its vectors were made for another collection (ItemVectors::new with this index's config)".into(),
            });
        }
        let mut inner = lock(&self.inner);
        if item.is_empty() {
            inner.remove(&item.id);
        } else if inner.live.get(&item.id) != Some(&item.stamp) {
            inner.remove(&item.id);
            inner.live.insert(item.id.clone(), item.stamp);
            inner.delta.insert(item.id.clone(), Arc::new(item));
        }
        self.publish(&inner);
        Ok(())
    }

    /// Removes an item (no-op when absent).
    pub fn remove(&self, id: &str) {
        let mut inner = lock(&self.inner);
        if inner.remove(id) {
            self.publish(&inner);
        }
    }

    /// Whether `id` is searchable, and at which stamp.
    pub fn stamp(&self, id: &str) -> Option<Stamp> {
        lock(&self.inner).live.get(id).copied()
    }

    fn view(&self) -> Arc<View> {
        self.view.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn publish(&self, inner: &Inner) {
        let view = View {
            segments: inner.segments.iter().cloned().zip(inner.dead.iter().cloned()).collect(),
            delta: inner.delta.values().cloned().collect(),
        };
        *self.view.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(view);
    }
}

impl Inner {
    fn delta_vectors(&self) -> usize {
        self.delta.values().map(|d| d.len()).sum()
    }

    /// Drops every stored copy of `id`; whether there was one.
    fn remove(&mut self, id: &str) -> bool {
        let mut found = self.live.remove(id).is_some();
        found |= self.delta.remove(id).is_some();
        for s in 0..self.segments.len() {
            if self.segments[s].stamps.contains_key(id) {
                let segment = self.segments[s].clone();
                mark_dead(&mut self.dead[s], &segment, id);
            }
        }
        found
    }
}
