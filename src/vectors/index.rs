//! What every index answers ([`VectorIndex`]) and its results (a leaf: the index kinds, the
//! segments and the searches build on it).

use crate::error::Result;
use crate::vectors::distance::Metric;
use crate::vectors::filter::Filter;
use crate::vectors::set::ItemKind;

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

/// Implements the metadata methods of [`VectorIndex`] through a `data: IndexData` field.
macro_rules! index_metadata {
    () => {
        fn len(&self) -> usize {
            self.data.len()
        }
        fn dim(&self) -> usize {
            self.data.dim()
        }
        fn metric(&self) -> $crate::vectors::distance::Metric {
            self.data.metric()
        }
        fn id(&self, node: u32) -> $crate::error::Result<&str> {
            self.data.id(node)
        }
        fn nodes_of(&self, id: &str) -> Vec<u32> {
            self.data.nodes_of(id)
        }
        fn kind(&self, node: u32) -> $crate::vectors::set::ItemKind {
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
