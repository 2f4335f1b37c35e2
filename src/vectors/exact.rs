//! [`ExactIndex`]: brute-force top-k over the (memory-mapped) vectors. The ground truth for the
//! HNSW index and the right choice for small collections.

use std::collections::BinaryHeap;
use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::vectors::filter::Filter;
use crate::vectors::format::{Codes, encode_to_vec, write_file};
use crate::vectors::index::{Hit, Scored, VectorIndex, index_metadata};
use crate::vectors::set::{VectorSet, prepare_query};
use crate::vectors::view::IndexData;

/// Vectors per parallel work unit of a single-query scan (~1 MiB at 256 dimensions).
const CHUNK: usize = 1024;

/// Exact nearest-neighbour search over an index file's vectors (any kino index file, with or
/// without a graph) or over an in-memory [`VectorSet`].
#[derive(Debug)]
pub struct ExactIndex {
    data: IndexData,
}

impl ExactIndex {
    /// An in-memory index over `set`.
    pub fn new(set: &VectorSet) -> Result<ExactIndex> {
        Ok(ExactIndex { data: IndexData::from_bytes(&encode_to_vec(set, None, Codes::NONE)?)? })
    }

    /// Writes `set` as an index file without a graph (temporary file, then rename).
    pub fn write(set: &VectorSet, path: impl AsRef<Path>) -> Result<()> {
        write_file(path.as_ref(), set, None, Codes::NONE)
    }

    /// Memory-maps an index file (an HNSW file works too: its graph is ignored). The header is
    /// checked; the payload checksum is left to [`ExactIndex::verify`]. The file must not be
    /// modified or truncated while open (write a new file and rename it instead).
    pub fn open(path: impl AsRef<Path>) -> Result<ExactIndex> {
        Ok(ExactIndex { data: IndexData::open(path.as_ref(), false)? })
    }

    /// Writes the index to `path` as an index file (temporary file, then rename), to be opened
    /// later with [`ExactIndex::open`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        self.data.save(path.as_ref())
    }

    /// Whether the file also holds an HNSW graph (see [`crate::vectors::open`]).
    pub fn has_graph(&self) -> bool {
        self.data.num_layers() > 0
    }

    /// Reads the whole file and checks its payload checksum and structure.
    pub fn verify(&self) -> Result<()> {
        self.data.verify()
    }

    /// The `k` nearest nodes to `query`, nearest first; one query is split across threads.
    pub fn search(&self, query: &[f32], k: usize) -> Result<Vec<Hit>> {
        self.search_with(query, k, None)
    }

    /// The `k` nearest nodes that `filter` allows.
    pub fn search_filtered(&self, query: &[f32], k: usize, filter: &dyn Filter) -> Result<Vec<Hit>> {
        self.search_with(query, k, Some(filter))
    }

    /// Searches many queries (`queries.len()` must be a multiple of the dimension), in parallel
    /// over the queries; one result list per query.
    pub fn search_batch(&self, queries: &[f32], k: usize, filter: Option<&dyn Filter>) -> Result<Vec<Vec<Hit>>> {
        let dim = self.data.dim();
        check_batch(queries, dim)?;
        queries
            .par_chunks(dim)
            .map(|q| {
                let q = prepare_query(q, dim, self.data.metric())?;
                Ok(self.scan(&q, k, filter, 0..self.data.len()))
            })
            .collect()
    }

    /// Top-k of `query` over nodes `range`.
    fn scan(&self, query: &[f32], k: usize, filter: Option<&dyn Filter>, range: std::ops::Range<usize>) -> Vec<Hit> {
        let dim = self.data.dim();
        let rows = self.data.vectors().get(range.start * dim..range.end * dim).unwrap_or(&[]);
        let start = range.start as u32;
        top_k(&self.data, query, k, filter, rows.chunks_exact(dim).zip(start..))
    }
}

/// The `k` nodes of `rows` (vector, node) nearest to `query` that `filter` allows, nearest first.
pub(crate) fn top_k<'a>(
    data: &IndexData,
    query: &[f32],
    k: usize,
    filter: Option<&dyn Filter>,
    rows: impl Iterator<Item = (&'a [f32], u32)>,
) -> Vec<Hit> {
    if k == 0 {
        return Vec::new();
    }
    let metric = data.metric();
    // `k` may be anything a caller asked for; never reserve more than the index holds.
    let mut best = BinaryHeap::<Scored>::with_capacity(k.min(data.len()).saturating_add(1));
    for (v, node) in rows {
        let d = metric.distance(query, v);
        if best.len() == k && best.peek().is_some_and(|w| d >= w.distance) {
            continue;
        }
        if filter.is_some_and(|f| !f.allows(node, data.kind(node))) {
            continue;
        }
        best.push(Scored { distance: d, node });
        if best.len() > k {
            best.pop();
        }
    }
    best.into_sorted_vec().into_iter().map(|s| Hit { node: s.node, distance: s.distance }).collect()
}

/// Checks that a flat batch of queries is a whole number of `dim`-float rows.
pub(crate) fn check_batch(queries: &[f32], dim: usize) -> Result<()> {
    if queries.len() % dim != 0 {
        return Err(Error::WrongVectorDimension {
            what: "queries (length must be a multiple of the dimension)",
            expected: dim,
            received: queries.len() % dim,
        });
    }
    Ok(())
}

impl VectorIndex for ExactIndex {
    index_metadata!();

    fn search_with(&self, query: &[f32], k: usize, filter: Option<&dyn Filter>) -> Result<Vec<Hit>> {
        let q = prepare_query(query, self.data.dim(), self.data.metric())?;
        let n = self.data.len();
        if n <= 4 * CHUNK {
            return Ok(self.scan(&q, k, filter, 0..n));
        }
        let partial: Vec<Vec<Hit>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| self.scan(&q, k, filter, c * CHUNK..((c + 1) * CHUNK).min(n)))
            .collect();
        let mut best: Vec<Scored> =
            partial.into_iter().flatten().map(|h| Scored { distance: h.distance, node: h.node }).collect();
        best.sort_unstable();
        best.truncate(k);
        Ok(best.into_iter().map(|s| Hit { node: s.node, distance: s.distance }).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::distance::Metric;
    use crate::vectors::filter::KindFilter;
    use crate::vectors::set::ItemKind;

    fn naive(set: &VectorSet, q: &[f32], k: usize) -> Vec<u32> {
        let mut all: Vec<Scored> = (0..set.len() as u32)
            .map(|n| Scored { distance: set.metric().distance(q, set.vector(n).unwrap()), node: n })
            .collect();
        all.sort();
        all.into_iter().take(k).map(|s| s.node).collect()
    }

    fn set(n: usize, dim: usize, metric: Metric) -> VectorSet {
        let flat: Vec<f32> = (0..n * dim).map(|i| ((i * 7919 % 1000) as f32 / 500.0) - 1.0).collect();
        let mut set = VectorSet::items(dim, metric).unwrap();
        for (i, v) in flat.chunks(dim).enumerate() {
            let kind = if i % 3 == 0 { ItemKind::Series } else { ItemKind::Movie };
            set.push_item(&format!("id{i}"), kind, v).unwrap();
        }
        set
    }

    #[test]
    fn matches_a_naive_scan_for_every_metric() {
        for metric in [Metric::Cosine, Metric::Dot, Metric::L2] {
            let s = set(5000, 8, metric);
            let index = ExactIndex::new(&s).unwrap();
            let mut q = vec![0.3, -0.2, 0.5, 0.1, 0.0, 0.9, -0.4, 0.2];
            let hits = index.search(&q, 7).unwrap();
            if metric == Metric::Cosine {
                crate::vectors::distance::normalize(&mut q);
            }
            assert_eq!(hits.iter().map(|h| h.node).collect::<Vec<_>>(), naive(&s, &q, 7), "{metric:?}");
            assert!(hits.windows(2).all(|w| w[0].distance <= w[1].distance));
        }
    }

    #[test]
    fn batch_filters_and_errors() {
        let s = set(300, 4, Metric::L2);
        let index = ExactIndex::new(&s).unwrap();
        let series = KindFilter::only(&[ItemKind::Series]);
        let out = index.search_batch(&[0.1, 0.2, 0.3, 0.4, -0.1, 0.0, 0.5, 0.2], 5, Some(&series)).unwrap();
        assert_eq!(out.len(), 2);
        assert!(out.iter().flatten().all(|h| h.node % 3 == 0));
        assert!(matches!(index.search(&[1.0], 3), Err(Error::WrongVectorDimension { .. })));
        assert!(index.search_batch(&[1.0; 5], 3, None).is_err());
        assert!(index.search(&[0.0; 4], 0).unwrap().is_empty());
        assert_eq!(index.search(&[0.0; 4], 1000).unwrap().len(), 300);
        assert_eq!(index.id(4).unwrap(), "id4");
        assert_eq!(index.nodes_of("id42"), vec![42]);
        assert!(index.nodes_of("nope").is_empty());
        index.verify().unwrap();
    }
}
