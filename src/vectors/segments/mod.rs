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
mod types;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};

use crate::error::{Error, Result};

pub use self::filter::SegmentFilter;
use self::manifest::Manifest;
pub use self::search::SegmentHit;
use self::segment::{Bits, Segment, mark_dead, open_segment};
use self::types::{Inner, View, lock};
pub use self::types::{ItemVectors, OpenReport, SegmentConfig, SegmentStats, SegmentedIndex, SpannedVector, Stamp};

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
