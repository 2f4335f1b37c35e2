//! Search over a layered graph, shared by the memory-mapped index and the build (repair): greedy
//! descent through the upper layers, then an ef-bounded beam search on layer 0 (Malkov and
//! Yashunin, algorithms 2 and 5), with the filter applied to the results as the beam walks.
//! Distances come from a [`Scorer`]: the float vectors, or the int8 or binary codes of an index
//! file (whose candidates the caller then re-ranks with the floats).

use std::cell::RefCell;
use std::collections::BinaryHeap;

use crate::vectors::distance::Metric;
use crate::vectors::filter::Filter;
use crate::vectors::index::{Hit, Scored};
use crate::vectors::mmap::prefetch;
use crate::vectors::quant::{BinaryView, Int8Query, Int8View};
use crate::vectors::set::ItemKind;

/// What the search needs of a graph.
pub(crate) trait Graph {
    fn len(&self) -> usize;
    fn dim(&self) -> usize;
    fn metric(&self) -> Metric;
    fn num_layers(&self) -> usize;
    fn entry(&self) -> u32;
    /// Every vector, row-major (`len * dim` values).
    fn vectors(&self) -> &[f32];
    fn neighbours(&self, layer: usize, node: u32) -> &[u32];
    fn kind(&self, node: u32) -> ItemKind;
    /// Hints that `node`'s layer-0 links will soon be read (a CPU prefetch; no effect on results).
    fn prefetch_links(&self, node: u32) {
        let _ = node;
    }
}

/// Distances of nodes to one query.
pub(crate) trait Scorer {
    /// The distance of `node` (lower is nearer); `+inf` for a node that has no row.
    fn distance(&self, node: u32) -> f32;
    /// Hints that `node`'s row will soon be scored (its first cache line).
    fn prefetch(&self, node: u32);
    /// Hints that the rest of `node`'s row is needed next (up to its first 512 bytes).
    fn prefetch_rest(&self, node: u32) {
        let _ = node;
    }
}

/// Asks for the first cache line of `row`.
#[inline]
fn prefetch_head<T>(row: Option<&[T]>) {
    if let Some(r) = row {
        prefetch(r);
    }
}

/// Asks for cache lines 2 to 8 of `row` (its first 512 bytes in all, with the head).
#[inline]
fn prefetch_tail<T>(row: Option<&[T]>) {
    if let Some(r) = row {
        r.chunks(64 / size_of::<T>().max(1)).skip(1).take(7).for_each(prefetch);
    }
}

/// Scores with the float vectors.
pub(crate) struct FloatScorer<'a> {
    pub query: &'a [f32],
    pub vectors: &'a [f32],
    pub dim: usize,
    pub metric: Metric,
}

impl FloatScorer<'_> {
    pub(crate) fn of<'a, G: Graph>(g: &'a G, query: &'a [f32]) -> FloatScorer<'a> {
        FloatScorer { query, vectors: g.vectors(), dim: g.dim(), metric: g.metric() }
    }
}

impl Scorer for FloatScorer<'_> {
    #[inline]
    fn distance(&self, node: u32) -> f32 {
        row(self.vectors, self.dim, node).map_or(f32::INFINITY, |v| self.metric.distance(self.query, v))
    }
    #[inline]
    fn prefetch(&self, node: u32) {
        prefetch_head(row(self.vectors, self.dim, node));
    }
    #[inline]
    fn prefetch_rest(&self, node: u32) {
        prefetch_tail(row(self.vectors, self.dim, node));
    }
}

/// Scores with int8 codes (estimates, to be re-ranked).
pub(crate) struct Int8Scorer<'a> {
    pub codes: Int8View<'a>,
    pub query: Int8Query,
}

impl Scorer for Int8Scorer<'_> {
    #[inline]
    fn distance(&self, node: u32) -> f32 {
        self.codes.estimate(&self.query, node)
    }
    #[inline]
    fn prefetch(&self, node: u32) {
        prefetch_head(self.codes.row(node));
    }
    #[inline]
    fn prefetch_rest(&self, node: u32) {
        prefetch_tail(self.codes.row(node));
    }
}

/// Scores with binary codes (Hamming distances, to be re-ranked).
pub(crate) struct BinaryScorer<'a> {
    pub codes: BinaryView<'a>,
    pub query: Vec<u8>,
}

impl Scorer for BinaryScorer<'_> {
    #[inline]
    fn distance(&self, node: u32) -> f32 {
        self.codes.estimate(&self.query, node)
    }
    #[inline]
    fn prefetch(&self, node: u32) {
        prefetch_head(self.codes.row(node));
    }
    #[inline]
    fn prefetch_rest(&self, node: u32) {
        prefetch_tail(self.codes.row(node));
    }
}

/// Per-thread search state, reused across queries so that a search allocates nothing: visit
/// marks stamped with a generation number (cleared only when it wraps) and the two heaps.
#[derive(Default)]
struct Scratch {
    marks: Vec<u32>,
    generation: u32,
    candidates: BinaryHeap<std::cmp::Reverse<Scored>>,
    best: BinaryHeap<Scored>,
    fresh: Vec<u32>,
}

impl Scratch {
    fn reset(&mut self, n: usize) {
        if self.marks.len() < n {
            self.marks.resize(n, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill(0);
            self.generation = 1;
        }
        self.candidates.clear();
        self.best.clear();
    }

    /// Marks `node` visited; returns whether it already was.
    #[inline]
    fn visit(&mut self, node: u32) -> bool {
        match self.marks.get_mut(node as usize) {
            Some(mark) if *mark == self.generation => true,
            Some(mark) => {
                *mark = self.generation;
                false
            }
            None => true,
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

#[inline]
fn row(vectors: &[f32], dim: usize, node: u32) -> Option<&[f32]> {
    vectors.get(node as usize * dim..(node as usize + 1) * dim)
}

/// The `k` nearest allowed nodes to the scorer's query, searching layer 0 with a beam of
/// `max(ef, k)`; sorted nearest first.
pub(crate) fn search<G: Graph, S: Scorer>(
    g: &G,
    scorer: &S,
    k: usize,
    ef: usize,
    filter: Option<&dyn Filter>,
) -> Vec<Hit> {
    if g.len() == 0 || g.num_layers() == 0 || k == 0 {
        return Vec::new();
    }
    let mut entry = g.entry();
    let mut entry_distance = scorer.distance(entry);
    if entry_distance == f32::INFINITY {
        return Vec::new();
    }
    for layer in (1..g.num_layers()).rev() {
        let mut changed = true;
        while changed {
            changed = false;
            for &nb in g.neighbours(layer, entry) {
                let d = scorer.distance(nb);
                if d < entry_distance {
                    (entry, entry_distance, changed) = (nb, d, true);
                }
            }
        }
    }
    beam(g, scorer, entry, entry_distance, k, ef.max(k), filter)
}

/// Beam search on layer 0 from `entry`. Nodes the filter refuses are expanded but never kept.
pub(crate) fn beam<G: Graph, S: Scorer>(
    g: &G,
    scorer: &S,
    entry: u32,
    entry_distance: f32,
    k: usize,
    ef: usize,
    filter: Option<&dyn Filter>,
) -> Vec<Hit> {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => beam_with(&mut scratch, g, scorer, (entry, entry_distance), k, ef, filter),
        // Re-entered from inside a filter: use a fresh scratch rather than fail.
        Err(_) => beam_with(&mut Scratch::default(), g, scorer, (entry, entry_distance), k, ef, filter),
    })
}

fn beam_with<G: Graph, S: Scorer>(
    s: &mut Scratch,
    g: &G,
    scorer: &S,
    (entry, entry_distance): (u32, f32),
    k: usize,
    ef: usize,
    filter: Option<&dyn Filter>,
) -> Vec<Hit> {
    let allowed = |node: u32| filter.is_none_or(|f| f.allows(node, g.kind(node)));
    s.reset(g.len());
    s.visit(entry);
    let first = Scored { distance: entry_distance, node: entry };
    s.candidates.push(std::cmp::Reverse(first));
    if allowed(entry) {
        s.best.push(first);
    }
    while let Some(std::cmp::Reverse(current)) = s.candidates.pop() {
        if s.best.len() >= ef && s.best.peek().is_some_and(|worst| current.distance > worst.distance) {
            break;
        }
        // The next candidate's links are read right after this one's neighbours are scored.
        if let Some(std::cmp::Reverse(next)) = s.candidates.peek() {
            g.prefetch_links(next.node);
        }
        // First the unvisited neighbours, asking the CPU to fetch their vectors; then score them.
        let mut fresh = std::mem::take(&mut s.fresh);
        fresh.clear();
        for &nb in g.neighbours(0, current.node) {
            if !s.visit(nb) && (nb as usize) < g.len() {
                scorer.prefetch(nb);
                fresh.push(nb);
            }
        }
        for (i, &nb) in fresh.iter().enumerate() {
            // Fetch the next row's following cache lines (its first 512 bytes in all) while
            // this one is scored; the hardware prefetcher streams what comes after.
            if let Some(&next) = fresh.get(i + 1) {
                scorer.prefetch_rest(next);
            }
            let d = scorer.distance(nb);
            if d == f32::INFINITY {
                continue;
            }
            let bound =
                if s.best.len() < ef { f32::INFINITY } else { s.best.peek().map_or(f32::INFINITY, |w| w.distance) };
            if d < bound {
                let scored = Scored { distance: d, node: nb };
                s.candidates.push(std::cmp::Reverse(scored));
                if allowed(nb) {
                    s.best.push(scored);
                    if s.best.len() > ef {
                        s.best.pop();
                    }
                }
            }
        }
        s.fresh = fresh;
    }
    let mut hits: Vec<Hit> = s.best.drain().map(|c| Hit { node: c.node, distance: c.distance }).collect();
    hits.sort_by(|a, b| a.distance.total_cmp(&b.distance).then(a.node.cmp(&b.node)));
    hits.truncate(k);
    hits
}
