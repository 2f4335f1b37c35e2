//! Scalar int8 codes of an index's vectors, to score many candidates with a quarter of the memory
//! traffic and re-rank the best of them with the full-precision vectors.
//!
//! Each dimension `d` is mapped from its range over the collection, `[lo_d, hi_d]`, to the codes
//! `-127..=127` around its midpoint: `x_d ≈ mid_d + c_d · step_d` with `step_d = (hi_d - lo_d) / 254`.
//! For a query `q`, `q · x ≈ Σ q_d mid_d + Σ (q_d step_d) c_d`; the weights `q_d step_d` are
//! themselves quantised to int8 with one scale per query, so the sum is an int8 dot product
//! (simsimd: VNNI or AVX2 where the CPU has them). The estimate only chooses a shortlist; the
//! distances returned are always computed from the float vectors.

use std::collections::BinaryHeap;

use simsimd::SpatialSimilarity;

use crate::error::{Error, Result};
use crate::vectors::distance::Metric;
use crate::vectors::filter::Filter;
use crate::vectors::index::{Hit, Scored, VectorIndex};

/// Per-dimension int8 codes of every vector of an index, node by node.
#[derive(Debug, Clone)]
pub struct Int8Codes {
    dim: usize,
    metric: Metric,
    mid: Vec<f32>,
    step: Vec<f32>,
    codes: Vec<i8>,
    /// Squared norms of the float vectors (L2 only: `|q - x|² = |q|² - 2 q·x + |x|²`).
    sq_norms: Vec<f32>,
}

/// Int8 codes borrowed from an [`Int8Codes`] or from the code sections of an index file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Int8View<'a> {
    pub dim: usize,
    pub metric: Metric,
    pub mid: &'a [f32],
    pub step: &'a [f32],
    pub codes: &'a [i8],
    /// Empty unless the metric is L2.
    pub sq_norms: &'a [f32],
}

/// A query prepared for [`Int8Codes::estimate`].
#[derive(Debug, Clone)]
pub struct Int8Query {
    weights: Vec<i8>,
    scale: f32,
    bias: f32,
}

impl Int8Codes {
    /// Encodes every vector of `index` (nodes `0..len`).
    pub fn encode(index: &dyn VectorIndex) -> Result<Int8Codes> {
        let n = index.len();
        let mut rows = Vec::with_capacity(n);
        for node in 0..n as u32 {
            rows.push(index.vector(node).ok_or_else(|| Error::InvalidParameter {
                param: "index",
                rule: format!("node {node} has no vector"),
            })?);
        }
        Ok(Int8Codes::from_rows(index.dim(), index.metric(), &rows))
    }

    /// Encodes the vectors of a flat, row-major slice (`dim` values per vector).
    pub(crate) fn from_flat(dim: usize, metric: Metric, flat: &[f32]) -> Int8Codes {
        let rows: Vec<&[f32]> = flat.chunks_exact(dim.max(1)).collect();
        Int8Codes::from_rows(dim, metric, &rows)
    }

    fn from_rows(dim: usize, metric: Metric, rows: &[&[f32]]) -> Int8Codes {
        let (mut lo, mut hi) = (vec![f32::INFINITY; dim], vec![f32::NEG_INFINITY; dim]);
        for v in rows {
            for (d, &x) in v.iter().enumerate() {
                lo[d] = lo[d].min(x);
                hi[d] = hi[d].max(x);
            }
        }
        let mid: Vec<f32> = lo.iter().zip(&hi).map(|(l, h)| if l <= h { (l + h) / 2.0 } else { 0.0 }).collect();
        // A constant dimension keeps a step of 1: its codes are all 0 and it adds nothing.
        let step: Vec<f32> = lo.iter().zip(&hi).map(|(l, h)| if h > l { (h - l) / 254.0 } else { 1.0 }).collect();
        let mut codes = Vec::with_capacity(rows.len() * dim);
        let mut sq_norms = Vec::new();
        for v in rows {
            codes.extend(
                v.iter().enumerate().map(|(d, &x)| ((x - mid[d]) / step[d]).round().clamp(-127.0, 127.0) as i8),
            );
            if metric_needs_norms(metric) {
                sq_norms.push(v.iter().map(|x| x * x).sum());
            }
        }
        Int8Codes { dim, metric, mid, step, codes, sq_norms }
    }

    pub(crate) fn view(&self) -> Int8View<'_> {
        Int8View {
            dim: self.dim,
            metric: self.metric,
            mid: &self.mid,
            step: &self.step,
            codes: &self.codes,
            sq_norms: &self.sq_norms,
        }
    }

    /// The per-dimension midpoints and steps, then the codes and the squared norms (L2 only),
    /// as the index file stores them.
    pub(crate) fn parts(&self) -> (&[f32], &[f32], &[i8], &[f32]) {
        (&self.mid, &self.step, &self.codes, &self.sq_norms)
    }

    /// Number of encoded vectors.
    pub fn len(&self) -> usize {
        self.codes.len() / self.dim.max(1)
    }

    /// Whether no vector is encoded.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Bytes held (codes, per-dimension ranges, norms).
    pub fn memory_bytes(&self) -> usize {
        self.codes.len() + 4 * (self.mid.len() + self.step.len() + self.sq_norms.len())
    }

    /// Prepares `query` (already normalised for cosine, as the index's own searches do).
    pub fn query(&self, query: &[f32]) -> Int8Query {
        self.view().query(query)
    }

    /// The estimated distance of `node` to the prepared query (comparable between nodes of this
    /// index, not with float distances); `+inf` for a node that is not encoded.
    #[inline]
    pub fn estimate(&self, query: &Int8Query, node: u32) -> f32 {
        self.view().estimate(query, node)
    }

    /// The `k` nodes of `nodes` (in any order) nearest to `query` that `filter` allows, nearest
    /// first, with their float distances: the `shortlist` best by estimate (at least `k`) are re-ranked with
    /// the vectors of `index` (the index these codes were made from).
    pub fn search(
        &self,
        index: &dyn VectorIndex,
        query: &[f32],
        k: usize,
        shortlist: usize,
        nodes: &[u32],
        filter: Option<&dyn Filter>,
    ) -> Vec<Hit> {
        self.view().search(index, query, k, shortlist, nodes, filter)
    }
}

impl Int8View<'_> {
    pub(crate) fn query(&self, query: &[f32]) -> Int8Query {
        let w: Vec<f32> = query.iter().zip(self.step).map(|(q, s)| q * s).collect();
        let max = w.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        Int8Query {
            weights: w.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect(),
            scale,
            bias: query.iter().zip(self.mid).map(|(q, m)| q * m).sum(),
        }
    }

    /// The codes of `node`, if it is encoded.
    #[inline]
    pub(crate) fn row(&self, node: u32) -> Option<&[i8]> {
        let start = node as usize * self.dim;
        self.codes.get(start..start + self.dim)
    }

    #[inline]
    pub(crate) fn estimate(&self, query: &Int8Query, node: u32) -> f32 {
        let Some(code) = self.row(node) else {
            return f32::INFINITY;
        };
        let sum = <i8 as SpatialSimilarity>::dot(&query.weights, code).unwrap_or(0.0) as f32;
        let dot = query.bias + query.scale * sum;
        match self.metric {
            Metric::Cosine => 1.0 - dot,
            Metric::Dot => -dot,
            // |q|² is the same for every node: the order needs only |x|² - 2 q·x.
            Metric::L2 => self.sq_norms.get(node as usize).copied().unwrap_or(f32::INFINITY) - 2.0 * dot,
        }
    }

    pub(crate) fn search(
        &self,
        index: &dyn VectorIndex,
        query: &[f32],
        k: usize,
        shortlist: usize,
        nodes: &[u32],
        filter: Option<&dyn Filter>,
    ) -> Vec<Hit> {
        if k == 0 || nodes.is_empty() {
            return Vec::new();
        }
        let size = shortlist.max(k).min(nodes.len());
        let prepared = self.query(query);
        let mut best = BinaryHeap::<Scored>::with_capacity(size + 1);
        for &node in nodes {
            let d = self.estimate(&prepared, node);
            // Ties go to the lower node, so the answer does not depend on the order of `nodes`.
            let candidate = Scored { distance: d, node };
            if best.len() == size && best.peek().is_some_and(|worst| candidate >= *worst) {
                continue;
            }
            if filter.is_some_and(|f| !f.allows(node, index.kind(node))) {
                continue;
            }
            best.push(candidate);
            if best.len() > size {
                best.pop();
            }
        }
        rerank(index, query, k, best.into_iter().map(|s| s.node))
    }
}

/// The `k` of `nodes` nearest to `query` by their float vectors in `index`, nearest first (ties
/// to the lower node); nodes without a vector are skipped.
pub(crate) fn rerank(index: &dyn VectorIndex, query: &[f32], k: usize, nodes: impl Iterator<Item = u32>) -> Vec<Hit> {
    let metric = index.metric();
    let mut hits: Vec<Hit> =
        nodes.filter_map(|node| Some(Hit { node, distance: metric.distance(query, index.vector(node)?) })).collect();
    hits.sort_by(|a, b| a.distance.total_cmp(&b.distance).then(a.node.cmp(&b.node)));
    hits.truncate(k);
    hits
}

/// One bit per dimension, set where the vector is above the collection's mean in that
/// dimension: `dim / 8` bytes a vector (128 for 1024 dimensions, 1/32 of the floats). Two codes
/// are compared by their Hamming distance, which only chooses candidates: the distances
/// returned are always the float ones.
#[derive(Debug, Clone)]
pub(crate) struct BinaryCodes {
    centre: Vec<f32>,
    bits: Vec<u8>,
}

/// Binary codes borrowed from a [`BinaryCodes`] or from an index file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BinaryView<'a> {
    pub dim: usize,
    pub centre: &'a [f32],
    pub bits: &'a [u8],
}

/// Bytes of one vector's binary code.
pub(crate) fn binary_bytes(dim: usize) -> usize {
    dim.div_ceil(8)
}

fn set_bits(dim: usize, centre: &[f32], v: &[f32], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + binary_bytes(dim), 0);
    for (d, (&x, &c)) in v.iter().zip(centre).enumerate() {
        if x > c {
            out[start + d / 8] |= 1 << (d % 8);
        }
    }
}

impl BinaryCodes {
    /// Encodes the vectors of a flat, row-major slice (`dim` values per vector).
    pub(crate) fn from_flat(dim: usize, flat: &[f32]) -> BinaryCodes {
        let dim1 = dim.max(1);
        let n = flat.len() / dim1;
        let mut centre = vec![0f64; dim];
        for v in flat.chunks_exact(dim1) {
            for (c, &x) in centre.iter_mut().zip(v) {
                *c += f64::from(x);
            }
        }
        let centre: Vec<f32> = centre.iter().map(|c| (c / n.max(1) as f64) as f32).collect();
        let mut bits = Vec::with_capacity(n * binary_bytes(dim));
        for v in flat.chunks_exact(dim1) {
            set_bits(dim, &centre, v, &mut bits);
        }
        BinaryCodes { centre, bits }
    }

    pub(crate) fn parts(&self) -> (&[f32], &[u8]) {
        (&self.centre, &self.bits)
    }
}

impl BinaryView<'_> {
    /// The query's own code.
    pub(crate) fn query(&self, query: &[f32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(binary_bytes(self.dim));
        set_bits(self.dim, self.centre, query, &mut out);
        out
    }

    #[inline]
    pub(crate) fn row(&self, node: u32) -> Option<&[u8]> {
        let width = binary_bytes(self.dim);
        let start = node as usize * width;
        self.bits.get(start..start + width)
    }

    /// Differing bits between the query's code and `node`'s; `+inf` for a node not encoded.
    #[inline]
    pub(crate) fn estimate(&self, query: &[u8], node: u32) -> f32 {
        match self.row(node) {
            Some(code) => <u8 as simsimd::BinarySimilarity>::hamming(query, code).unwrap_or(f64::INFINITY) as f32,
            None => f32::INFINITY,
        }
    }
}

fn metric_needs_norms(metric: Metric) -> bool {
    metric == Metric::L2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::clustered::clustered;
    use crate::vectors::exact::ExactIndex;
    use crate::vectors::set::{ItemKind, VectorSet};

    fn index(n: usize, dim: usize, metric: Metric) -> ExactIndex {
        let flat = clustered(n, dim, 20, 3);
        let mut set = VectorSet::items(dim, metric).unwrap();
        for (i, v) in flat.chunks_exact(dim).enumerate() {
            set.push_item(&format!("i{i:05}"), ItemKind::Movie, v).unwrap();
        }
        ExactIndex::new(&set).unwrap()
    }

    #[test]
    fn estimates_follow_the_float_distances() {
        for metric in [Metric::Cosine, Metric::Dot, Metric::L2] {
            let index = index(2000, 64, metric);
            let codes = Int8Codes::encode(&index).unwrap();
            assert_eq!(codes.len(), 2000);
            assert_eq!(codes.memory_bytes(), 2000 * 64 + 4 * (128 + if metric == Metric::L2 { 2000 } else { 0 }));
            let query = index.vector(17).unwrap().to_vec();
            let prepared = codes.query(&query);
            // The estimate of a node is within 1% of |q| |x| of its float distance (up to the
            // constant |q|² for L2).
            let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            let offset = if metric == Metric::L2 { norm(&query).powi(2) } else { 0.0 };
            for node in (0..2000).step_by(37) {
                let v = index.vector(node).unwrap();
                let exact = metric.distance(&query, v);
                let estimate = codes.estimate(&prepared, node) + offset;
                let bound = 0.01 * norm(&query) * norm(v);
                assert!((exact - estimate).abs() < bound, "{metric:?} {node}: {exact} {estimate} (bound {bound})");
            }
        }
    }

    #[test]
    fn a_shortlisted_search_matches_the_exact_search() {
        let index = index(3000, 96, Metric::Cosine);
        let codes = Int8Codes::encode(&index).unwrap();
        let nodes: Vec<u32> = (0..3000).filter(|n| n % 3 != 0).collect();
        let allowed = |node: u32, _: ItemKind| node % 3 != 0;
        let (mut hit, mut total) = (0, 0);
        for q in 0..50u32 {
            let query = index.vector(q * 59 % 3000).unwrap().to_vec();
            let want = index.search_with(&query, 10, Some(&allowed)).unwrap();
            let got = codes.search(&index, &query, 10, 80, &nodes, Some(&allowed));
            assert_eq!(got.len(), 10);
            // Distances are the float ones, nearest first.
            for h in &got {
                assert_eq!(h.distance, Metric::Cosine.distance(&query, index.vector(h.node).unwrap()));
                assert!(h.node % 3 != 0);
            }
            assert!(got.windows(2).all(|w| w[0].distance <= w[1].distance));
            hit += got.iter().filter(|g| want.iter().any(|w| w.node == g.node)).count();
            total += want.len();
        }
        assert!(hit as f64 / total as f64 >= 0.99, "recall {}", hit as f64 / total as f64);
        // The order of the candidates does not matter.
        let query = index.vector(11).unwrap().to_vec();
        let reversed: Vec<u32> = nodes.iter().rev().copied().collect();
        assert_eq!(
            codes.search(&index, &query, 10, 80, &nodes, Some(&allowed)),
            codes.search(&index, &query, 10, 80, &reversed, Some(&allowed))
        );
        // A shortlist as long as the candidates is the exact search.
        let query = index.vector(5).unwrap().to_vec();
        let all = codes.search(&index, &query, 10, nodes.len(), &nodes, Some(&allowed));
        assert_eq!(all, index.search_with(&query, 10, Some(&allowed)).unwrap());
    }

    #[test]
    fn degenerate_inputs_neither_panic_nor_invent_nodes() {
        let index = index(10, 8, Metric::Cosine);
        let codes = Int8Codes::encode(&index).unwrap();
        let query = index.vector(0).unwrap().to_vec();
        assert!(codes.search(&index, &query, 0, 10, &[1, 2], None).is_empty());
        assert!(codes.search(&index, &query, 5, 10, &[], None).is_empty());
        assert_eq!(codes.estimate(&codes.query(&query), 99), f32::INFINITY);
        assert_eq!(codes.search(&index, &query, 5, 10, &[3, 4], None).len(), 2);
        // A zero query scores every node alike and still returns float distances.
        let zero = vec![0.0; 8];
        assert_eq!(codes.search(&index, &zero, 3, 3, &[1, 2, 3, 4], None).len(), 3);
    }
}
