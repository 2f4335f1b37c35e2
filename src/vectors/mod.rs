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
pub mod fusion;
mod hnsw;
mod index;
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
pub use index::{Hit, VectorIndex};
pub use quant::{Int8Codes, Int8Query};
pub use segments::{
    ItemVectors, SegmentConfig, SegmentFilter, SegmentHit, SegmentStats, SegmentedIndex, SpannedVector, Stamp,
};
pub use set::{ItemKind, MAX_DIM, VectorSet};

use crate::error::Result;

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
