//! [`HnswIndex`]: an HNSW graph built in parallel (`insert.rs`), repaired, written flat into the index file and searched
//! straight from the memory map.
//!
//! Opening reads and checks the 1 KiB header and nothing else: no graph is parsed and no table
//! is loaded, so opening takes the same time for a thousand vectors as for ten million, and the
//! memory it uses is the pages the searches touch (the kernel's page cache, shared between
//! processes that open the same file).

mod build;
mod insert;
mod params;
mod search;

use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::vectors::distance::Metric;
use crate::vectors::exact::{check_batch, top_k};
use crate::vectors::filter::Filter;
use crate::vectors::format::{Codes, encode_to_vec, write_file};
use crate::vectors::index::{Hit, VectorIndex, index_metadata};
use crate::vectors::quant::rerank;
use crate::vectors::set::{ItemKind, VectorSet, prepare_query};
use crate::vectors::view::IndexData;

pub use params::{BuildProgress, BuildReport, BuildStage, HnswParams, Precision};

/// An HNSW index over one memory-mapped (or in-memory) index file. `Sync`: one opened index
/// serves searches from many threads at once.
#[derive(Debug)]
pub struct HnswIndex {
    data: IndexData,
    ef: usize,
    precision: Precision,
    rerank: usize,
}

/// Beam width [`VectorIndex::search_with`] uses unless [`HnswIndex::with_ef`] says otherwise.
const DEFAULT_EF: usize = 64;

impl HnswIndex {
    /// Builds an in-memory index over `set`; `progress` is called as the build advances.
    pub fn build(
        set: &VectorSet,
        params: &HnswParams,
        mut progress: impl FnMut(BuildProgress),
    ) -> Result<(HnswIndex, BuildReport)> {
        let (graph, report) = build::build_graph(set, params, &mut progress)?;
        let data = IndexData::from_bytes(&encode_to_vec(set, Some(&graph), params.codes)?)?;
        Ok((HnswIndex::new(data), report))
    }

    /// Builds an index over `set` and writes it to `path` (temporary file, then rename).
    pub fn build_to_file(
        set: &VectorSet,
        params: &HnswParams,
        path: impl AsRef<Path>,
        mut progress: impl FnMut(BuildProgress),
    ) -> Result<BuildReport> {
        let (graph, report) = build::build_graph(set, params, &mut progress)?;
        write_file(path.as_ref(), set, Some(&graph), params.codes)?;
        Ok(report)
    }

    /// Memory-maps an index file. Only the header is read and checked (magic, version, header
    /// checksum, sizes against the file length); [`HnswIndex::verify`] reads the rest. The file
    /// must not be modified or truncated while open: replace it by writing a new file and renaming.
    pub fn open(path: impl AsRef<Path>) -> Result<HnswIndex> {
        let data = IndexData::open(path.as_ref(), true)?;
        if data.num_layers() == 0 && data.len() > 0 {
            return Err(data.corrupt("the file holds no graph (open it with ExactIndex::open)"));
        }
        Ok(HnswIndex::new(data))
    }

    fn new(data: IndexData) -> HnswIndex {
        HnswIndex { data, ef: DEFAULT_EF, precision: Precision::Float, rerank: 0 }
    }

    /// Walks the graph with `precision` from now on (float by default); an error when the file
    /// holds no such codes.
    pub fn with_precision(mut self, precision: Precision) -> Result<HnswIndex> {
        let present = match precision {
            Precision::Float => true,
            Precision::Int8 => self.data.int8().is_some(),
            Precision::Binary => self.data.binary().is_some(),
        };
        if !present {
            return Err(Error::InvalidParameter {
                param: "precision",
                rule: format!("{precision} needs {precision} codes in the index file, which holds {}", self.codes()),
            });
        }
        self.precision = precision;
        Ok(self)
    }

    /// How many of the beam's candidates a search with codes re-ranks with the float vectors:
    /// `max(rerank, k)`, or the whole beam (`ef`) when 0 (the default).
    pub fn with_rerank(mut self, rerank: usize) -> HnswIndex {
        self.rerank = rerank;
        self
    }

    /// What searches walk the graph with.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The compressed copies of the vectors the file holds.
    pub fn codes(&self) -> Codes {
        self.data.codes()
    }

    /// The file's int8 codes, if it holds them.
    pub(crate) fn int8(&self) -> Option<crate::vectors::quant::Int8View<'_>> {
        self.data.int8()
    }

    /// The file's format version.
    pub fn format_version(&self) -> u32 {
        self.data.header.version
    }

    /// Sets the beam width used by [`VectorIndex::search_with`] (scenes, similar titles).
    pub fn with_ef(mut self, ef: usize) -> HnswIndex {
        self.ef = ef.max(1);
        self
    }

    /// Writes the index to `path` as an index file (temporary file, then rename), to be opened
    /// later with [`HnswIndex::open`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        self.data.save(path.as_ref())
    }

    /// Reads the whole file and checks its payload checksum and structure.
    pub fn verify(&self) -> Result<()> {
        self.data.verify()
    }

    /// Whether the index is a memory map of a file.
    pub fn is_mapped(&self) -> bool {
        self.data.is_mapped()
    }

    /// Size of the index file in bytes.
    pub fn file_len(&self) -> u64 {
        self.data.file_len()
    }

    /// The file's path (`<memory>` for an index built in memory).
    pub fn path(&self) -> &Path {
        self.data.path()
    }

    /// Build parameters recorded in the file, and how many repair links the build added.
    pub fn params(&self) -> (HnswParams, usize) {
        let h = &self.data.header;
        let params = HnswParams { m: h.m as usize, ef_construction: h.ef_construction as usize, codes: h.codes };
        (params, h.links_added as usize)
    }

    /// The `k` nearest nodes to `query` with a layer-0 beam of `max(ef, k)`, nearest first.
    pub fn search(&self, query: &[f32], k: usize, ef: usize) -> Result<Vec<Hit>> {
        self.search_filtered_opt(query, k, ef, None)
    }

    /// The `k` nearest nodes that `filter` allows. A filter that names its few nodes (an
    /// [`AllowList`](crate::vectors::AllowList) of at most n/50) has them scored directly; for
    /// any other, its share of the nodes is estimated from an even sample of
    /// [`SELECTIVITY_SAMPLE`] of them, and below [`scan_below`] the allowed nodes are scored
    /// exactly ([`HnswIndex::search_scan`]), above it the graph is walked with the filter applied
    /// during the beam ([`HnswIndex::search_walk`]). `examples/filtered_report.rs` measures both
    /// by selectivity; the threshold is where the scan becomes the faster of the two.
    pub fn search_filtered(&self, query: &[f32], k: usize, ef: usize, filter: &dyn Filter) -> Result<Vec<Hit>> {
        self.search_filtered_opt(query, k, ef, Some(filter))
    }

    fn search_filtered_opt(&self, query: &[f32], k: usize, ef: usize, filter: Option<&dyn Filter>) -> Result<Vec<Hit>> {
        // Neither can usefully exceed the number of vectors; capping them keeps any request's
        // allocations bounded by the index.
        let n = self.data.len().max(1);
        let (k, ef) = (k.min(n), ef.min(n));
        let q = prepare_query(query, self.data.dim(), self.data.metric())?;
        let Some(filter) = filter else { return Ok(self.walk(&q, k, ef, None)) };
        // A small allow-list: scoring its nodes beats walking a graph where most are refused.
        if let Some(nodes) = filter.candidates((self.data.len() / 50).max(k)) {
            let rows = nodes.iter().filter_map(|&n| Some((self.data.vector(n)?, n)));
            return Ok(top_k(&self.data, &q, k, Some(filter), rows));
        }
        if self.allowed_share(filter) < scan_below(ef, self.data.len()) {
            return Ok(self.scan(&q, k, filter));
        }
        Ok(self.walk(&q, k, ef, Some(filter)))
    }

    /// The graph walk at the index's precision; with codes, the beam's best `max(rerank, k)`
    /// (all `ef` of them when `rerank` is 0) are re-ranked with the float vectors.
    fn walk(&self, q: &[f32], k: usize, ef: usize, filter: Option<&dyn Filter>) -> Vec<Hit> {
        let g = &self.data;
        let short = if self.rerank == 0 { ef.max(k) } else { self.rerank.max(k) };
        let candidates = match (self.precision, g.int8(), g.binary()) {
            (Precision::Int8, Some(codes), _) => {
                search::search(g, &search::Int8Scorer { query: codes.query(q), codes }, short, ef, filter)
            }
            (Precision::Binary, _, Some(codes)) => {
                search::search(g, &search::BinaryScorer { query: codes.query(q), codes }, short, ef, filter)
            }
            _ => return search::search(g, &search::FloatScorer::of(g, q), k, ef, filter),
        };
        rerank(self, q, k, candidates.into_iter().map(|h| h.node))
    }

    /// The share of the nodes `filter` allows, from an even sample of at most
    /// [`SELECTIVITY_SAMPLE`] nodes (all of them in a smaller index).
    fn allowed_share(&self, filter: &dyn Filter) -> f64 {
        let n = self.data.len();
        if n == 0 {
            return 1.0;
        }
        let sample = n.min(SELECTIVITY_SAMPLE);
        let allowed = (0..sample)
            .map(|i| (i * n / sample) as u32)
            .filter(|&node| filter.allows(node, self.data.kind(node)))
            .count();
        allowed as f64 / sample as f64
    }

    /// The graph walk with `filter` applied during the beam, whatever its selectivity: refused
    /// nodes are expanded but never kept.
    pub fn search_walk(&self, query: &[f32], k: usize, ef: usize, filter: &dyn Filter) -> Result<Vec<Hit>> {
        let n = self.data.len().max(1);
        let q = prepare_query(query, self.data.dim(), self.data.metric())?;
        Ok(self.walk(&q, k.min(n), ef.min(n), Some(filter)))
    }

    /// The exact top `k` of the nodes `filter` allows: the filter is asked of every node, and
    /// only the allowed ones are scored.
    pub fn search_scan(&self, query: &[f32], k: usize, filter: &dyn Filter) -> Result<Vec<Hit>> {
        let q = prepare_query(query, self.data.dim(), self.data.metric())?;
        Ok(self.scan(&q, k.min(self.data.len().max(1)), filter))
    }

    fn scan(&self, q: &[f32], k: usize, filter: &dyn Filter) -> Vec<Hit> {
        let data = &self.data;
        if let (Precision::Int8, Some(codes)) = (self.precision, data.int8()) {
            // Score the allowed nodes' codes; re-rank the best with the floats.
            let nodes: Vec<u32> = (0..data.len() as u32).filter(|&node| filter.allows(node, data.kind(node))).collect();
            return codes.search(self, q, k, SCAN_SHORTLIST.max(4 * k), &nodes, None);
        }
        let rows = (0..data.len() as u32)
            .filter(|&node| filter.allows(node, data.kind(node)))
            .filter_map(|node| Some((data.vector(node)?, node)));
        top_k(data, q, k, None, rows)
    }

    /// Searches many queries (flat, a multiple of the dimension) in parallel.
    pub fn search_batch(&self, queries: &[f32], k: usize, ef: usize) -> Result<Vec<Vec<Hit>>> {
        let dim = self.data.dim();
        check_batch(queries, dim)?;
        queries.par_chunks(dim).map(|q| self.search(q, k, ef)).collect()
    }
}

/// Candidates a filtered scan over int8 codes re-ranks with the floats (at least `4 k`).
const SCAN_SHORTLIST: usize = 40;

/// Nodes sampled to estimate a filter's selectivity.
pub const SELECTIVITY_SAMPLE: usize = 1024;

/// The share of allowed nodes below which a filtered search of `n` nodes with a beam of `ef`
/// scores the allowed nodes exactly instead of walking the graph: `sqrt(2.9 · ef / n)`. The walk
/// visits about `ef / share` nodes, the scan scores `share · n`, so they cost the same where
/// `share² ≈ α · ef / n`; α = 2.9 fits the crossovers `examples/filtered_report.rs` measured
/// (4.3% at 100k x 256 and 7.8% at 50k x 1024, ef 64; docs/vector-search.md). The dimension
/// drops out: both paths pay it per distance.
pub fn scan_below(ef: usize, n: usize) -> f64 {
    (2.9 * ef.max(1) as f64 / n.max(1) as f64).sqrt().min(0.5)
}

impl VectorIndex for HnswIndex {
    index_metadata!();

    fn search_with(&self, query: &[f32], k: usize, filter: Option<&dyn Filter>) -> Result<Vec<Hit>> {
        self.search_filtered_opt(query, k, self.ef, filter)
    }
}

impl search::Graph for IndexData {
    fn len(&self) -> usize {
        IndexData::len(self)
    }
    fn dim(&self) -> usize {
        IndexData::dim(self)
    }
    fn metric(&self) -> Metric {
        IndexData::metric(self)
    }
    fn num_layers(&self) -> usize {
        IndexData::num_layers(self)
    }
    fn entry(&self) -> u32 {
        self.header.entry
    }
    fn vectors(&self) -> &[f32] {
        IndexData::vectors(self)
    }
    fn neighbours(&self, layer: usize, node: u32) -> &[u32] {
        IndexData::neighbours(self, layer, node)
    }
    fn kind(&self, node: u32) -> ItemKind {
        IndexData::kind(self, node)
    }
    #[inline]
    fn prefetch_links(&self, node: u32) {
        crate::vectors::mmap::prefetch(IndexData::neighbours(self, 0, node));
    }
}

#[cfg(test)]
mod tests;
