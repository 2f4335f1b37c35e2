//! Parallel HNSW insertion (Malkov and Yashunin, algorithms 1, 2 and 4), written for this crate
//! after hnsw_rs's insertion measured 3-4 times slower than hnswlib's on the same data and
//! threads (docs/vector-search.md). The design follows hnswlib's: every node's neighbour lists
//! sit behind the node's own lock, an insertion reads a neighbour list by copying it out under
//! that lock, links the new node both ways and shrinks a list that overflows with the same
//! neighbour-selection heuristic; one lock guards the entry point, taken only by a node that
//! rises above the top layer. Levels come from a seeded hash of the node number, so they do not
//! depend on the threads; the graph itself does (the order insertions see each other in), which
//! is why the build's repairs (reachability, self-recall) run after it.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Mutex, MutexGuard, RwLock};

use rayon::prelude::*;

use crate::vectors::distance::Metric;
use crate::vectors::format::MAX_LAYERS;
use crate::vectors::hnsw::params::{BuildProgress, BuildStage, HnswParams};
use crate::vectors::index::Scored;
use crate::vectors::mmap::prefetch;
use crate::vectors::quant::{Int8Codes, Int8Query};
use crate::vectors::set::VectorSet;

/// The graph while it is built: per node, its level and its neighbour list per layer.
#[derive(Debug)]
pub(crate) struct BuildGraph {
    pub levels: Vec<u8>,
    pub adjacency: Vec<Vec<Vec<u32>>>,
    pub entry: u32,
    pub num_layers: usize,
}

/// The neighbour lists of one node, one per layer it is in.
type Links = Vec<Vec<u32>>;

struct Builder<'a> {
    vectors: &'a [f32],
    /// Int8 codes of the vectors: the searches of an insertion score them (a quarter of the
    /// bytes, an int8 dot product), and what they find is re-scored with the floats before the
    /// neighbours are chosen.
    codes: Int8Codes,
    dim: usize,
    metric: Metric,
    m: usize,
    ef: usize,
    levels: Vec<u8>,
    links: Vec<Mutex<Links>>,
    /// The entry node and the top layer.
    entry: RwLock<(u32, usize)>,
}

/// Visit marks and heaps reused by one thread's insertions.
#[derive(Default)]
struct Scratch {
    marks: Vec<u32>,
    generation: u32,
    buffer: Vec<u32>,
    fresh: Vec<u32>,
    candidates: BinaryHeap<Reverse<Scored>>,
    best: BinaryHeap<Scored>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

fn lock(m: &Mutex<Links>) -> MutexGuard<'_, Links> {
    // A panic while a list was locked cannot leave it half-written in a way that matters to
    // the graph (a list is replaced whole), so a poisoned lock is still used.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The level of `node`: `floor(-ln(u) / ln(m))` for `u` uniform in (0, 1], from a seeded hash.
fn level_of(node: u32, m: usize) -> u8 {
    let mut x = u64::from(node).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    let u = ((x >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    let level = (-u.ln() / (m as f64).ln()).floor();
    level.min((MAX_LAYERS - 1) as f64) as u8
}

impl Builder<'_> {
    #[inline]
    fn row(&self, node: u32) -> &[f32] {
        &self.vectors[node as usize * self.dim..(node as usize + 1) * self.dim]
    }

    #[inline]
    fn distance(&self, a: u32, b: u32) -> f32 {
        self.metric.distance(self.row(a), self.row(b))
    }

    fn max_links(&self, layer: usize) -> usize {
        if layer == 0 { 2 * self.m } else { self.m }
    }

    /// Copies `node`'s neighbours on `layer` into `out`.
    fn neighbours_into(&self, node: u32, layer: usize, out: &mut Vec<u32>) {
        out.clear();
        if let Some(list) = lock(&self.links[node as usize]).get(layer) {
            out.extend_from_slice(list);
        }
    }

    /// Greedy descent on `layer` from `entry` towards `q` (distances estimated from the codes).
    fn greedy(&self, s: &mut Scratch, q: &Int8Query, mut entry: Scored, layer: usize) -> Scored {
        let mut buffer = std::mem::take(&mut s.buffer);
        let mut changed = true;
        while changed {
            changed = false;
            self.neighbours_into(entry.node, layer, &mut buffer);
            for &nb in &buffer {
                let d = self.codes.estimate(q, nb);
                if d < entry.distance {
                    entry = Scored { distance: d, node: nb };
                    changed = true;
                }
            }
        }
        s.buffer = buffer;
        entry
    }

    /// The `ef` nearest nodes to `node` found on `layer` from `entry` (algorithm 2), by the
    /// codes' estimates; returned with their float distances, nearest first.
    fn search_layer(&self, s: &mut Scratch, node: u32, q: &Int8Query, entry: Scored, layer: usize) -> Vec<Scored> {
        if s.marks.len() < self.levels.len() {
            s.marks.resize(self.levels.len(), 0);
        }
        s.generation = s.generation.wrapping_add(1);
        if s.generation == 0 {
            s.marks.fill(0);
            s.generation = 1;
        }
        let generation = s.generation;
        let mut buffer = std::mem::take(&mut s.buffer);
        let mut fresh = std::mem::take(&mut s.fresh);
        let (mut candidates, mut best) = (std::mem::take(&mut s.candidates), std::mem::take(&mut s.best));
        candidates.clear();
        best.clear();
        candidates.push(Reverse(entry));
        best.push(entry);
        s.marks[entry.node as usize] = generation;
        s.marks[node as usize] = generation;
        while let Some(Reverse(current)) = candidates.pop() {
            if best.len() >= self.ef && best.peek().is_some_and(|w| current.distance > w.distance) {
                break;
            }
            self.neighbours_into(current.node, layer, &mut buffer);
            fresh.clear();
            for &nb in &buffer {
                let mark = &mut s.marks[nb as usize];
                if *mark != generation {
                    *mark = generation;
                    if let Some(code) = self.codes.view().row(nb) {
                        prefetch(code);
                    }
                    fresh.push(nb);
                }
            }
            for &nb in &fresh {
                let d = self.codes.estimate(q, nb);
                if best.len() < self.ef || best.peek().is_some_and(|w| d < w.distance) {
                    let scored = Scored { distance: d, node: nb };
                    candidates.push(Reverse(scored));
                    best.push(scored);
                    if best.len() > self.ef {
                        best.pop();
                    }
                }
            }
        }
        s.buffer = buffer;
        s.fresh = fresh;
        s.candidates = candidates;
        let mut found: Vec<Scored> =
            best.drain().map(|c| Scored { distance: self.distance(node, c.node), node: c.node }).collect();
        s.best = best;
        found.sort_unstable();
        found
    }

    /// Algorithm 4's heuristic (hnswlib's `getNeighborsByHeuristic2`): from `candidates`
    /// (nearest first), keep one only if it is nearer to the base than to every one kept, up to
    /// `limit`.
    fn select(&self, candidates: &[Scored], limit: usize) -> Vec<u32> {
        let mut kept: Vec<Scored> = Vec::with_capacity(limit);
        for &c in candidates {
            if kept.len() >= limit {
                break;
            }
            if kept.iter().all(|k| self.distance(c.node, k.node) > c.distance) {
                kept.push(c);
            }
        }
        kept.into_iter().map(|k| k.node).collect()
    }

    /// Adds `node` to `to`'s list on `layer`, shrinking the list with the heuristic if it
    /// overflows.
    fn link_back(&self, to: u32, node: u32, layer: usize) {
        let limit = self.max_links(layer);
        let mut links = lock(&self.links[to as usize]);
        let Some(list) = links.get_mut(layer) else { return };
        if list.contains(&node) {
            return;
        }
        if list.len() < limit {
            list.push(node);
            return;
        }
        let mut all: Vec<Scored> =
            list.iter().chain([&node]).map(|&v| Scored { distance: self.distance(to, v), node: v }).collect();
        all.sort_unstable();
        *list = self.select(&all, limit);
    }

    fn insert(&self, s: &mut Scratch, node: u32) {
        let level = self.levels[node as usize] as usize;
        // A node rising above the top layer holds the entry lock for its whole insertion, so
        // that no other node takes it as the entry before its lists exist (hnswlib does the same).
        let rising = self.entry.read().unwrap_or_else(|e| e.into_inner()).1 < level;
        let mut guard = rising.then(|| self.entry.write().unwrap_or_else(|e| e.into_inner()));
        let (entry, top) = match &guard {
            Some(g) => **g,
            None => *self.entry.read().unwrap_or_else(|e| e.into_inner()),
        };
        let q = self.codes.query(self.row(node));
        let mut current = Scored { distance: self.codes.estimate(&q, entry), node: entry };
        for layer in (level + 1..=top).rev() {
            current = self.greedy(s, &q, current, layer);
        }
        for layer in (0..=level.min(top)).rev() {
            let found = self.search_layer(s, node, &q, current, layer);
            let chosen = self.select(&found, self.m);
            if let Some(list) = lock(&self.links[node as usize]).get_mut(layer) {
                list.clone_from(&chosen);
            }
            for &nb in &chosen {
                self.link_back(nb, node, layer);
            }
            if let Some(nearest) = found.first() {
                current = Scored { distance: self.codes.estimate(&q, nearest.node), node: nearest.node };
            }
        }
        if let Some(g) = guard.as_mut()
            && level > g.1
        {
            **g = (node, level);
        }
    }
}

/// Inserts every vector of `set` into a new graph, in parallel, reporting progress.
pub(crate) fn insert_all(set: &VectorSet, params: &HnswParams, progress: &mut dyn FnMut(BuildProgress)) -> BuildGraph {
    let n = set.len();
    let levels: Vec<u8> = (0..n as u32).map(|v| level_of(v, params.m)).collect();
    let links = levels.iter().map(|&l| Mutex::new(vec![Vec::new(); l as usize + 1])).collect();
    let b = Builder {
        vectors: &set.data,
        codes: Int8Codes::from_flat(set.dim, set.metric, &set.data),
        dim: set.dim,
        metric: set.metric,
        m: params.m,
        ef: params.ef_construction.max(params.m),
        entry: RwLock::new((0, levels.first().copied().unwrap_or(0) as usize)),
        levels,
        links,
    };
    let step = (n / 100).max(2000);
    progress(BuildProgress { stage: BuildStage::Inserting, done: 0, total: n });
    let mut done = 1.min(n);
    while done < n {
        let end = (done + step).min(n);
        (done as u32..end as u32).into_par_iter().for_each(|node| {
            SCRATCH.with(|cell| match cell.try_borrow_mut() {
                Ok(mut s) => b.insert(&mut s, node),
                Err(_) => b.insert(&mut Scratch::default(), node),
            })
        });
        done = end;
        progress(BuildProgress { stage: BuildStage::Inserting, done, total: n });
    }
    let (entry, top) = b.entry.into_inner().unwrap_or_else(|e| e.into_inner());
    let adjacency = b.links.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    BuildGraph { levels: b.levels, adjacency, entry, num_layers: if n == 0 { 0 } else { top + 1 } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_the_geometric_law() {
        let n = 200_000u32;
        let mut counts = [0usize; MAX_LAYERS];
        for v in 0..n {
            counts[level_of(v, 16) as usize] += 1;
        }
        // P(level >= l) = 16^-l: about 1/16 of the nodes on layer 1 or above, 1/256 on 2.
        let above1: usize = counts[1..].iter().sum();
        let above2: usize = counts[2..].iter().sum();
        assert!((11_000..14_000).contains(&above1), "{above1}");
        assert!((600..960).contains(&above2), "{above2}");
        assert_eq!(level_of(7, 16), level_of(7, 16));
    }
}
