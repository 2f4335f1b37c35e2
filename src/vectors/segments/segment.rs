//! One immutable segment: an index file of this crate's format, memory-mapped (an HNSW graph or
//! vectors only), with the stamps and nodes of the items it holds, and the bitset of its dead
//! nodes (deleted or replaced items, filtered during the search until a merge drops them).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::types::{SegmentConfig, Stamp};
use crate::error::{Error, Result};
use crate::vectors::exact::ExactIndex;
use crate::vectors::hnsw::{HnswIndex, Precision};
use crate::vectors::index::VectorIndex;
use crate::vectors::quant::{Int8Codes, Int8View};

#[derive(Debug)]
pub(super) enum SegmentIndex {
    Exact(ExactIndex),
    Hnsw(HnswIndex),
}

impl SegmentIndex {
    pub(super) fn get(&self) -> &dyn VectorIndex {
        match self {
            SegmentIndex::Exact(i) => i,
            SegmentIndex::Hnsw(i) => i,
        }
    }
}

#[derive(Debug)]
pub(super) struct Segment {
    pub(super) file: String,
    pub(super) index: SegmentIndex,
    /// The stamp of every item it holds.
    pub(super) stamps: HashMap<String, Stamp>,
    /// The nodes of every item it holds, ascending.
    pub(super) nodes: NodesOf,
    /// Int8 codes of a graph segment's vectors, for scans of many allowed nodes, when its file
    /// holds none (a file written before format version 2): encoded in memory at open.
    own_codes: Option<Int8Codes>,
}

impl Segment {
    pub(super) fn new(file: String, index: SegmentIndex, stamps: HashMap<String, Stamp>) -> Result<Segment> {
        let own_codes = match &index {
            SegmentIndex::Hnsw(hnsw) if hnsw.int8().is_none() => Some(Int8Codes::encode(hnsw)?),
            _ => None,
        };
        let mut nodes = NodesOf::with_capacity(stamps.len());
        let all = index.get();
        for node in 0..all.len() as u32 {
            nodes.entry(all.id(node)?.to_string()).or_default().push(node);
        }
        Ok(Segment { file, index, stamps, nodes, own_codes })
    }

    /// The int8 codes of a graph segment: its file's, or those encoded at open.
    pub(super) fn codes(&self) -> Option<Int8View<'_>> {
        match &self.index {
            SegmentIndex::Hnsw(hnsw) => hnsw.int8().or_else(|| self.own_codes.as_ref().map(Int8Codes::view)),
            SegmentIndex::Exact(_) => None,
        }
    }

    pub(super) fn nodes_of(&self, id: &str) -> &[u32] {
        self.nodes.get(id).map_or(&[], Vec::as_slice)
    }
}

/// Dead nodes of one segment.
#[derive(Debug, Clone, Default)]
pub(super) struct Bits {
    words: Vec<u64>,
    pub(super) count: usize,
}

impl Bits {
    pub(super) fn new(len: usize) -> Bits {
        Bits { words: vec![0; len.div_ceil(64)], count: 0 }
    }
    pub(super) fn get(&self, i: u32) -> bool {
        self.words.get(i as usize / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    pub(super) fn set(&mut self, i: u32) {
        if let Some(w) = self.words.get_mut(i as usize / 64)
            && *w & (1 << (i % 64)) == 0
        {
            *w |= 1 << (i % 64);
            self.count += 1;
        }
    }
}

/// Marks `id`'s nodes of `segment` dead (copy on write: readers keep the bits they hold).
pub(super) fn mark_dead(dead: &mut Arc<Bits>, segment: &Segment, id: &str) {
    let nodes = segment.nodes_of(id);
    if nodes.iter().any(|&n| !dead.get(n)) {
        let bits = Arc::make_mut(dead);
        for &n in nodes {
            bits.set(n);
        }
    }
}

pub(super) fn mark_dead_bits(dead: &mut Bits, segment: &Segment, id: &str) {
    for &n in segment.nodes_of(id) {
        dead.set(n);
    }
}

/// Opens a graph segment at the configured beam and precision (floats when the file holds no
/// codes for it).
pub(super) fn open_graph(path: &Path, config: &SegmentConfig) -> Result<HnswIndex> {
    let index = HnswIndex::open(path)?.with_ef(config.ef);
    let has = match config.precision {
        Precision::Float => true,
        Precision::Int8 => index.codes().int8,
        Precision::Binary => index.codes().binary,
    };
    if has { index.with_precision(config.precision) } else { Ok(index) }
}

pub(super) fn open_segment(dir: &Path, file: &str, config: &SegmentConfig) -> Result<SegmentIndex> {
    let path = dir.join(file);
    let exact = ExactIndex::open(&path)?;
    exact.verify()?;
    if exact.dim() != config.dim || exact.metric() != config.metric {
        return Err(Error::IndexFile { path, rule: "another dimension or metric than the collection's".into() });
    }
    if exact.has_graph() {
        drop(exact);
        return Ok(SegmentIndex::Hnsw(open_graph(&path, config)?));
    }
    Ok(SegmentIndex::Exact(exact))
}

/// A segment's nodes of each item it holds.
pub(super) type NodesOf = HashMap<String, Vec<u32>>;
