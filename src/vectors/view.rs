//! [`IndexData`]: typed, bounds-checked access to an index file's sections, shared by the exact
//! and the HNSW index. Nothing here trusts the file: every read is checked, so a corrupted file
//! gives an error (or, for bytes only `verify` can judge, wrong numbers), never a panic.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::vectors::distance::Metric;
use crate::vectors::format::{Codes, HEADER_LEN, Header, Layout};
use crate::vectors::mmap::Region;
use crate::vectors::quant::{BinaryView, Int8View, binary_bytes};
use crate::vectors::set::ItemKind;

/// An opened index file (mapped or in memory) with its decoded header.
#[derive(Debug)]
pub(crate) struct IndexData {
    region: Region,
    path: PathBuf,
    pub(crate) header: Header,
    layout: Layout,
}

impl IndexData {
    /// Maps and checks the file at `path` (header, checksum of the header, sizes).
    pub(crate) fn open(path: &Path, random: bool) -> Result<IndexData> {
        IndexData::from_region(Region::map(path, random)?, path.to_path_buf())
    }

    /// Checks an index held in memory.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<IndexData> {
        IndexData::from_region(Region::owned(bytes), PathBuf::from("<memory>"))
    }

    fn from_region(region: Region, path: PathBuf) -> Result<IndexData> {
        let header = Header::decode(region.bytes()).map_err(|rule| Error::IndexFile { path: path.clone(), rule })?;
        let layout = header
            .layout()
            .ok_or_else(|| Error::IndexFile { path: path.clone(), rule: "section sizes overflow".into() })?;
        let data = IndexData { region, path, header, layout };
        if data.vectors().len() != data.len() * data.dim() {
            return Err(data.corrupt("the vector section cannot be read"));
        }
        if data.codes().int8 && data.int8().is_none() {
            return Err(data.corrupt("the int8 code sections cannot be read"));
        }
        if data.codes().binary && data.binary().is_none() {
            return Err(data.corrupt("the binary code sections cannot be read"));
        }
        Ok(data)
    }

    /// Writes the index's bytes to `path` (temporary file, then rename).
    pub(crate) fn save(&self, path: &Path) -> Result<()> {
        crate::vectors::format::write_bytes(path, self.region.bytes())
    }

    pub(crate) fn corrupt(&self, rule: impl Into<String>) -> Error {
        Error::IndexFile { path: self.path.clone(), rule: rule.into() }
    }

    /// The file's path (`<memory>` for an in-memory index).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn is_mapped(&self) -> bool {
        self.region.is_mapped()
    }

    pub(crate) fn len(&self) -> usize {
        self.header.count
    }

    pub(crate) fn dim(&self) -> usize {
        self.header.dim
    }

    pub(crate) fn metric(&self) -> Metric {
        self.header.metric
    }

    pub(crate) fn num_layers(&self) -> usize {
        self.header.layers.len()
    }

    pub(crate) fn file_len(&self) -> u64 {
        self.header.file_len
    }

    /// Every vector, row-major.
    #[inline]
    pub(crate) fn vectors(&self) -> &[f32] {
        self.region.slice(self.layout.vectors, self.header.count * self.header.dim).unwrap_or(&[])
    }

    /// The compressed copies of the vectors the file holds.
    pub(crate) fn codes(&self) -> Codes {
        self.header.codes
    }

    /// The int8 codes, when the file holds them (and their sections can be read).
    pub(crate) fn int8(&self) -> Option<Int8View<'_>> {
        let at = self.layout.int8?;
        let (n, dim) = (self.header.count, self.header.dim);
        let norms = if self.header.metric == Metric::L2 { n } else { 0 };
        Some(Int8View {
            dim,
            metric: self.header.metric,
            mid: self.region.slice(at.mid, dim)?,
            step: self.region.slice(at.step, dim)?,
            codes: self.region.slice(at.codes, n * dim)?,
            sq_norms: self.region.slice(at.norms, norms)?,
        })
    }

    /// The binary codes, when the file holds them.
    pub(crate) fn binary(&self) -> Option<BinaryView<'_>> {
        let at = self.layout.binary?;
        let dim = self.header.dim;
        Some(BinaryView {
            dim,
            centre: self.region.slice(at.centre, dim)?,
            bits: self.region.slice(at.bits, self.header.count * binary_bytes(dim))?,
        })
    }

    /// The vector of `node`, if it exists.
    #[inline]
    pub(crate) fn vector(&self, node: u32) -> Option<&[f32]> {
        let dim = self.header.dim;
        self.vectors().get(node as usize * dim..(node as usize + 1) * dim)
    }

    /// Neighbours of `node` in `layer`; empty when the node is not in the layer, or when the
    /// file's offsets for it are inconsistent (which `verify` reports).
    #[inline]
    pub(crate) fn neighbours(&self, layer: usize, node: u32) -> &[u32] {
        let (Some(counts), Some(at)) = (self.header.layers.get(layer), self.layout.layers.get(layer)) else {
            return &[];
        };
        let row = if layer == 0 {
            if node as usize >= counts.nodes {
                return &[];
            }
            node as usize
        } else {
            let nodes: &[u32] = self.region.slice(at.nodes, counts.nodes).unwrap_or(&[]);
            match nodes.binary_search(&node) {
                Ok(i) => i,
                Err(_) => return &[],
            }
        };
        let offsets: &[u64] = self.region.slice(at.offsets + 8 * row, 2).unwrap_or(&[]);
        let &[start, end] = offsets else {
            return &[];
        };
        if start > end || end > counts.edges as u64 {
            return &[];
        }
        self.region.slice(at.neighbours + 4 * start as usize, (end - start) as usize).unwrap_or(&[])
    }

    /// The customer id of `node`.
    pub(crate) fn id(&self, node: u32) -> Result<&str> {
        let n = node as usize;
        let offsets: &[u64] = self.region.slice(self.layout.id_offsets + 8 * n, 2).unwrap_or(&[]);
        let &[start, end] = offsets else {
            return Err(self.corrupt(format!("no id for node {node}")));
        };
        if start > end || end > self.header.id_bytes as u64 {
            return Err(self.corrupt(format!("id offsets of node {node} are out of order")));
        }
        let base = self.layout.id_bytes;
        let raw = self
            .region
            .bytes()
            .get(base + start as usize..base + end as usize)
            .ok_or_else(|| self.corrupt(format!("id of node {node} is out of bounds")))?;
        std::str::from_utf8(raw).map_err(|_| self.corrupt(format!("id of node {node} is not UTF-8")))
    }

    fn sorted(&self) -> &[u32] {
        self.region.slice(self.layout.sorted, self.header.count).unwrap_or(&[])
    }

    /// Every node whose id is `id` (one for item indexes, one per scene for scene indexes), in
    /// node order. Binary search over the sorted-id table: no table is loaded at open.
    pub(crate) fn nodes_of(&self, id: &str) -> Vec<u32> {
        let sorted = self.sorted();
        let key = |node: &u32| self.id(*node).unwrap_or("");
        let first = sorted.partition_point(|n| key(n) < id);
        let mut out: Vec<u32> = sorted[first..].iter().take_while(|n| key(n) == id).copied().collect();
        out.sort_unstable();
        out
    }

    /// The kind of `node` ([`ItemKind::Unspecified`] when out of range).
    #[inline]
    pub(crate) fn kind(&self, node: u32) -> ItemKind {
        let kinds: &[u8] = self.region.slice(self.layout.kinds, self.header.count).unwrap_or(&[]);
        kinds.get(node as usize).map_or(ItemKind::Unspecified, |k| ItemKind::from_code(*k))
    }

    /// The `[start_ts, end_ts]` span of `node` (`[0, 0]` for items).
    pub(crate) fn span(&self, node: u32) -> [f64; 2] {
        let spans: &[f64] = self.region.slice(self.layout.spans + 16 * node as usize, 2).unwrap_or(&[]);
        match spans {
            &[a, b] => [a, b],
            _ => [0.0, 0.0],
        }
    }

    /// Reads the whole file: the payload checksum, then every structural rule (offsets in order,
    /// neighbours and layer nodes in range, ids UTF-8 and sorted), so that a file with a valid
    /// checksum but inconsistent content is also refused.
    pub(crate) fn verify(&self) -> Result<()> {
        let bytes = self.region.bytes();
        if crc32fast::hash(bytes.get(HEADER_LEN..).unwrap_or(&[])) != self.header.payload_crc {
            return Err(self.corrupt("payload checksum mismatch: the file is corrupted"));
        }
        let n = self.len();
        for (l, (counts, at)) in self.header.layers.iter().zip(&self.layout.layers).enumerate() {
            let offsets: &[u64] = self.region.slice(at.offsets, counts.nodes + 1).unwrap_or(&[]);
            let ordered = offsets.first() == Some(&0) && offsets.windows(2).all(|w| w[0] <= w[1]);
            if !ordered || offsets.last() != Some(&(counts.edges as u64)) {
                return Err(self.corrupt(format!("graph layer {l}: CSR offsets are not in order")));
            }
            let neighbours: &[u32] = self.region.slice(at.neighbours, counts.edges).unwrap_or(&[]);
            if neighbours.iter().any(|&v| v as usize >= n) {
                return Err(self.corrupt(format!("graph layer {l}: a neighbour is not a node")));
            }
            if l > 0 {
                let nodes: &[u32] = self.region.slice(at.nodes, counts.nodes).unwrap_or(&[]);
                if !nodes.windows(2).all(|w| w[0] < w[1]) || nodes.last().is_some_and(|&v| v as usize >= n) {
                    return Err(self.corrupt(format!("graph layer {l}: node list not sorted or out of range")));
                }
            }
        }
        let sorted = self.sorted();
        let mut seen = vec![false; n];
        for &node in sorted {
            match seen.get_mut(node as usize) {
                Some(s) if !*s => *s = true,
                _ => return Err(self.corrupt("sorted-id table is not a permutation of the nodes")),
            }
        }
        let mut previous = "";
        for &node in sorted {
            let id = self.id(node)?;
            if id < previous {
                return Err(self.corrupt("sorted-id table is not in id order"));
            }
            previous = id;
        }
        Ok(())
    }
}
