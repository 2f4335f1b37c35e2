//! Vector search: exact and HNSW indexes over one memory-mappable file format, with filters
//! evaluated during the search, scene collections and similar titles.
//!
//! - [`distance`]: dot, cosine and squared L2 through simsimd; [`Metric`].
//! - [`VectorSet`]: vectors with string ids, [`ItemKind`]s and scene spans, to build from.
//! - [`ExactIndex`]: brute force over the mapped vectors, parallel over queries; the ground truth
//!   and the fallback for small collections.
//! - [`HnswIndex`]: built in parallel, repaired so every node is reachable, written flat and
//!   searched straight from the memory map (no deserialisation at open).
//! - [`SegmentedIndex`]: a changing collection of segments and an in-memory delta, with
//!   deletions filtered during search and merges in the background (the service's indexes).
//! - [`Int8Codes`]: per-dimension int8 codes to score many candidates cheaply, re-ranked with
//!   the float vectors (the segments' filtered scans).
//! - [`Filter`]s, [`scenes`] (search scenes, best scene per item, text queries) and
//!   [`similar`] (the deprecated similar-titles product).
//!
//! ```
//! use kino::vectors::{ExactIndex, HnswIndex, HnswParams, ItemKind, Metric, VectorIndex, VectorSet};
//!
//! let mut set = VectorSet::items(3, Metric::Cosine)?;
//! set.push_item("tt1", ItemKind::Movie, &[1.0, 0.0, 0.0])?;
//! set.push_item("tt2", ItemKind::Series, &[0.9, 0.1, 0.0])?;
//! set.push_item("tt3", ItemKind::Movie, &[0.0, 0.0, 1.0])?;
//! let (hnsw, _report) = HnswIndex::build(&set, &HnswParams::default(), |_| {})?;
//! let hits = hnsw.search(&[1.0, 0.05, 0.0], 2, 64)?;
//! assert_eq!(hnsw.id(hits[0].node)?, "tt1");
//! let exact = ExactIndex::new(&set)?;
//! assert_eq!(exact.search(&[1.0, 0.05, 0.0], 2)?, hits);
//! # Ok::<(), kino::Error>(())
//! ```

mod clustered;
pub mod distance;
mod exact;
mod filter;
mod format;
mod hnsw;
mod mmap;
pub mod npy;
mod quant;
pub mod scenes;
pub mod segments;
mod set;
pub mod similar;
mod view;

pub use clustered::clustered;
pub use distance::Metric;
pub use exact::ExactIndex;
pub use filter::{AllOf, AllowList, Exclude, Filter, KindFilter};
pub use format::{Codes, INDEX_FORMAT_VERSION, INDEX_MAGIC, OLDEST_INDEX_FORMAT_VERSION};
pub use hnsw::{BuildProgress, BuildReport, BuildStage, HnswIndex, HnswParams, Precision};
pub use quant::{Int8Codes, Int8Query};
pub use segments::{
    ItemVectors, SegmentConfig, SegmentFilter, SegmentHit, SegmentStats, SegmentedIndex, SpannedVector, Stamp,
};
pub use set::{ItemKind, MAX_DIM, VectorSet};

use crate::error::Result;

/// One search result: a node (dense number; see `id`) and its distance to the query (lower is
/// nearer; [`Metric::similarity`] turns it into a similarity).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The node's dense number in the index.
    pub node: u32,
    /// Distance to the query under the index's metric.
    pub distance: f32,
}

/// A distance and a node, ordered by distance then node (a total order, NaN-safe).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub distance: f32,
    pub node: u32,
}

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.distance.total_cmp(&other.distance).then(self.node.cmp(&other.node))
    }
}

/// What scene search and similar titles need of an index; implemented by [`ExactIndex`] and
/// [`HnswIndex`], so both products work over either.
pub trait VectorIndex: Sync {
    /// Number of vectors.
    fn len(&self) -> usize;
    /// Whether the index holds no vectors.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Vector length.
    fn dim(&self) -> usize;
    /// The metric.
    fn metric(&self) -> Metric;
    /// The customer id of `node`.
    fn id(&self, node: u32) -> Result<&str>;
    /// Every node whose id is `id`, ascending (binary search over the mapped id table).
    fn nodes_of(&self, id: &str) -> Vec<u32>;
    /// The kind of `node`.
    fn kind(&self, node: u32) -> ItemKind;
    /// The `[start_ts, end_ts]` of `node` (scenes); `[0, 0]` for items.
    fn span(&self, node: u32) -> [f64; 2];
    /// The stored vector of `node` (normalised, for cosine).
    fn vector(&self, node: u32) -> Option<&[f32]>;
    /// The `k` nearest nodes to `query` that `filter` allows, nearest first.
    fn search_with(&self, query: &[f32], k: usize, filter: Option<&dyn Filter>) -> Result<Vec<Hit>>;
}

/// Opens any index file: an [`HnswIndex`] (searching with `ef`) when the file holds a graph, an
/// [`ExactIndex`] when it holds vectors only (small collections need no graph).
pub fn open(path: impl AsRef<std::path::Path>, ef: usize) -> Result<Box<dyn VectorIndex>> {
    let exact = ExactIndex::open(path.as_ref())?;
    if exact.has_graph() {
        drop(exact);
        return Ok(Box::new(HnswIndex::open(path)?.with_ef(ef)));
    }
    Ok(Box::new(exact))
}

/// Implements the metadata methods of [`VectorIndex`] through a `data: IndexData` field.
macro_rules! index_metadata {
    () => {
        fn len(&self) -> usize {
            self.data.len()
        }
        fn dim(&self) -> usize {
            self.data.dim()
        }
        fn metric(&self) -> $crate::vectors::Metric {
            self.data.metric()
        }
        fn id(&self, node: u32) -> $crate::error::Result<&str> {
            self.data.id(node)
        }
        fn nodes_of(&self, id: &str) -> Vec<u32> {
            self.data.nodes_of(id)
        }
        fn kind(&self, node: u32) -> $crate::vectors::ItemKind {
            self.data.kind(node)
        }
        fn span(&self, node: u32) -> [f64; 2] {
            self.data.span(node)
        }
        fn vector(&self, node: u32) -> Option<&[f32]> {
            self.data.vector(node)
        }
    };
}
pub(crate) use index_metadata;
