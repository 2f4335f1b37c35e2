//! The segmented index's types and state (a leaf of the segments module: the manifest, the
//! search, the maintenance and the merge policy build on it).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use serde::Serialize;

use super::segment::{Bits, Segment};
use crate::error::{Error, Result};
use crate::vectors::distance::Metric;
use crate::vectors::format::Codes;
use crate::vectors::hnsw::{HnswParams, Precision};
use crate::vectors::set::{ItemKind, VectorSet};

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

    pub(super) fn empty_set(&self) -> Result<VectorSet> {
        if self.scenes { VectorSet::scenes(self.dim, self.metric) } else { VectorSet::items(self.dim, self.metric) }
    }
}

/// One item's vectors, as given to [`SegmentedIndex::upsert`]: checked and normalised on the way
/// in. An item collection takes one vector per item; a scene collection any number, each with its
/// `[start_ts, end_ts]`.
#[derive(Debug, Clone)]
pub struct ItemVectors {
    pub(super) id: String,
    pub(super) kind: ItemKind,
    pub(super) stamp: Stamp,
    pub(super) set: VectorSet,
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
    pub(super) dir: PathBuf,
    pub(super) config: SegmentConfig,
    pub(super) inner: Mutex<Inner>,
    pub(super) view: RwLock<Arc<View>>,
    /// Held by the one flush or merge in progress (never by readers or by upserts).
    pub(super) maintenance: Mutex<()>,
    /// Whether a background maintenance thread is scheduled.
    pub(super) scheduled: AtomicBool,
}

#[derive(Debug, Default)]
pub(super) struct Inner {
    pub(super) segments: Vec<Arc<Segment>>,
    /// Parallel to `segments`.
    pub(super) dead: Vec<Arc<Bits>>,
    pub(super) delta: BTreeMap<String, Arc<ItemVectors>>,
    /// The current stamp of every live item.
    pub(super) live: HashMap<String, Stamp>,
    pub(super) next_file: u64,
}

#[derive(Debug, Default)]
pub(super) struct View {
    pub(super) segments: Vec<(Arc<Segment>, Arc<Bits>)>,
    pub(super) delta: Vec<Arc<ItemVectors>>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
