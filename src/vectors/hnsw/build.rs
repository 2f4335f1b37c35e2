//! Building the graph: parallel insertion (`insert.rs`), then two repairs: nodes that layer 0
//! cannot reach from the entry point are linked from their nearest reachable nodes, and nodes
//! that a search for their own vector does not find are linked from what it found; then the
//! graph is laid out flat for the file.

use std::collections::VecDeque;
use std::time::Instant;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::vectors::distance::Metric;
use crate::vectors::format::{Graph as FlatGraph, GraphLayer};
use crate::vectors::hnsw::insert::{BuildGraph, insert_all};
use crate::vectors::hnsw::params::{BuildProgress, BuildReport, BuildStage, HnswParams};
use crate::vectors::hnsw::search::{FloatScorer, Graph, beam, search};
use crate::vectors::set::{ItemKind, VectorSet};

struct View<'a> {
    g: &'a BuildGraph,
    set: &'a VectorSet,
}

impl Graph for View<'_> {
    fn len(&self) -> usize {
        self.set.len()
    }
    fn dim(&self) -> usize {
        self.set.dim
    }
    fn metric(&self) -> Metric {
        self.set.metric
    }
    fn num_layers(&self) -> usize {
        self.g.num_layers
    }
    fn entry(&self) -> u32 {
        self.g.entry
    }
    fn vectors(&self) -> &[f32] {
        &self.set.data
    }
    fn neighbours(&self, layer: usize, node: u32) -> &[u32] {
        self.g.adjacency.get(node as usize).and_then(|l| l.get(layer)).map_or(&[], Vec::as_slice)
    }
    fn kind(&self, _: u32) -> ItemKind {
        ItemKind::Unspecified
    }
}

pub(crate) fn check_params(params: &HnswParams) -> Result<()> {
    if !(2..=128).contains(&params.m) {
        return Err(Error::InvalidParameter { param: "m", rule: format!("must be in [2, 128] (got {})", params.m) });
    }
    if !(1..=4096).contains(&params.ef_construction) {
        return Err(Error::InvalidParameter {
            param: "ef_construction",
            rule: format!("must be in [1, 4096] (got {})", params.ef_construction),
        });
    }
    Ok(())
}

/// Marks every node layer 0 reaches from `from`, adding to `reached`.
fn flood(g: &BuildGraph, from: u32, reached: &mut [bool]) {
    let mut queue = VecDeque::from([from]);
    if let Some(r) = reached.get_mut(from as usize) {
        *r = true;
    }
    while let Some(node) = queue.pop_front() {
        for &nb in g.adjacency[node as usize].first().map_or(&[][..], Vec::as_slice) {
            if !reached[nb as usize] {
                reached[nb as usize] = true;
                queue.push_back(nb);
            }
        }
    }
}

/// Nodes layer 0 cannot reach from the entry point.
pub(crate) fn unreachable(g: &BuildGraph) -> Vec<u32> {
    let mut reached = vec![false; g.levels.len()];
    if !reached.is_empty() {
        flood(g, g.entry, &mut reached);
    }
    (0..reached.len() as u32).filter(|&v| !reached[v as usize]).collect()
}

/// Links every unreachable node from its two nearest reachable nodes (found by searching the
/// graph as it stands); returns (unreachable nodes found, links added).
pub(crate) fn repair(g: &mut BuildGraph, set: &VectorSet, ef: usize) -> (usize, usize) {
    let lost = unreachable(g);
    if lost.is_empty() {
        return (0, 0);
    }
    let mut reached = vec![true; g.levels.len()];
    lost.iter().for_each(|&v| reached[v as usize] = false);
    let mut links = 0;
    for &u in &lost {
        if reached[u as usize] {
            continue;
        }
        let Some(query) = set.vector(u) else { continue };
        let view = View { g, set };
        let entry_distance = set.metric.distance(query, set.vector(g.entry).unwrap_or(query));
        let hits = beam(&view, &FloatScorer::of(&view, query), g.entry, entry_distance, 2, ef, None);
        for hit in hits.iter().filter(|h| h.node != u) {
            if let Some(list) = g.adjacency.get_mut(hit.node as usize).and_then(|l| l.first_mut()) {
                list.push(u);
                links += 1;
            }
            if let Some(own) = g.adjacency.get_mut(u as usize).and_then(|l| l.first_mut())
                && own.is_empty()
            {
                own.push(hit.node);
                links += 1;
            }
        }
        flood(g, u, &mut reached);
    }
    (lost.len(), links)
}

/// Beam width of the self-search check: a node must be the nearest result for its own vector at
/// this ef (or any larger one in practice).
pub(crate) const SELF_CHECK_EF: usize = 16;

/// Searches every node's own vector (in parallel) and links each node that is not its own
/// nearest result from the two nearest results found, so that every point finds itself;
/// repeats for the nodes still missing (at most three rounds). Returns (missed, links added).
pub(crate) fn repair_self_recall(g: &mut BuildGraph, set: &VectorSet) -> (usize, usize) {
    let mut pending: Vec<u32> = (0..set.len() as u32).collect();
    let (mut missed, mut links) = (0, 0);
    for round in 0..3 {
        let view = View { g, set };
        let fixes: Vec<(u32, Vec<u32>)> = pending
            .par_iter()
            .filter_map(|&u| {
                let v = set.vector(u)?;
                let own = set.metric.distance(v, v);
                let scorer = FloatScorer::of(&view, v);
                // A greedy walk (a beam of 1) finds most nodes at a fraction of the cost; a node it
                // finds counts as found (a wider beam expands the same nearest-first path).
                let greedy = search(&view, &scorer, 1, 1, None);
                if round == 0 && greedy.first().is_some_and(|h| h.node == u || h.distance <= own) {
                    return None;
                }
                let hits = search(&view, &scorer, 2, SELF_CHECK_EF, None);
                let found = hits.first().is_some_and(|h| h.node == u || h.distance <= own);
                (!found).then(|| (u, hits.iter().map(|h| h.node).filter(|&n| n != u).collect()))
            })
            .collect();
        if round == 0 {
            missed = fixes.len();
        }
        for (u, from) in &fixes {
            for &n in from {
                if let Some(list) = g.adjacency.get_mut(n as usize).and_then(|l| l.first_mut())
                    && !list.contains(u)
                {
                    list.push(*u);
                    links += 1;
                }
            }
        }
        pending = fixes.into_iter().map(|(u, _)| u).collect();
        if pending.is_empty() {
            break;
        }
    }
    (missed, links)
}

/// Lays the graph out flat: layer 0 in node order, upper layers over their sorted node lists.
pub(crate) fn flatten(g: &BuildGraph, params: &HnswParams, links_added: usize) -> FlatGraph {
    let mut layers = Vec::with_capacity(g.num_layers);
    for l in 0..g.num_layers {
        let nodes: Vec<u32> = if l == 0 {
            Vec::new()
        } else {
            (0..g.levels.len() as u32).filter(|&v| g.levels[v as usize] as usize >= l).collect()
        };
        let mut offsets = vec![0u64];
        let mut neighbours = Vec::new();
        let mut push = |node: u32| {
            neighbours.extend_from_slice(g.adjacency[node as usize].get(l).map_or(&[][..], Vec::as_slice));
            offsets.push(neighbours.len() as u64);
        };
        if l == 0 {
            (0..g.levels.len() as u32).for_each(&mut push);
        } else {
            nodes.iter().copied().for_each(&mut push);
        }
        layers.push(GraphLayer { nodes, offsets, neighbours });
    }
    FlatGraph {
        layers,
        entry: g.entry,
        m: params.m as u32,
        ef_construction: params.ef_construction as u32,
        links_added: links_added.min(u32::MAX as usize) as u32,
    }
}

/// The whole build: insert, extract, repair, flatten.
pub(crate) fn build_graph(
    set: &VectorSet,
    params: &HnswParams,
    progress: &mut dyn FnMut(BuildProgress),
) -> Result<(FlatGraph, BuildReport)> {
    let start = Instant::now();
    check_params(params)?;
    if set.is_empty() {
        // An empty index has no layers.
        let g = BuildGraph { levels: Vec::new(), adjacency: Vec::new(), entry: 0, num_layers: 0 };
        let report = BuildReport {
            vectors: 0,
            layers: 0,
            unreachable_found: 0,
            self_missed: 0,
            links_added: 0,
            insert_seconds: 0.0,
            total_seconds: 0.0,
            threads: rayon::current_num_threads(),
        };
        return Ok((flatten(&g, params, 0), report));
    }
    let mut g = insert_all(set, params, progress);
    let insert_seconds = start.elapsed().as_secs_f64();
    progress(BuildProgress { stage: BuildStage::Repairing, done: 0, total: set.len() });
    let (unreachable_found, reach_links) = repair(&mut g, set, params.ef_construction.max(64));
    let (self_missed, self_links) = repair_self_recall(&mut g, set);
    let links_added = reach_links + self_links;
    progress(BuildProgress { stage: BuildStage::Repairing, done: set.len(), total: set.len() });
    let flat = flatten(&g, params, links_added);
    let report = BuildReport {
        vectors: set.len(),
        layers: g.num_layers,
        unreachable_found,
        self_missed,
        links_added,
        insert_seconds,
        total_seconds: start.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
    };
    Ok((flat, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repair_links_every_lost_node() {
        let mut set = VectorSet::items(2, Metric::L2).unwrap();
        for i in 0..6 {
            set.push_item(&i.to_string(), ItemKind::Movie, &[i as f32, 0.0]).unwrap();
        }
        // A chain 0 -> 1 -> 2 and three nodes nothing points to (4 and 5 point at each other).
        let adjacency = vec![vec![vec![1]], vec![vec![2]], vec![vec![1]], vec![vec![]], vec![vec![5]], vec![vec![4]]];
        let mut g = BuildGraph { levels: vec![0; 6], adjacency, entry: 0, num_layers: 1 };
        assert_eq!(unreachable(&g), vec![3, 4, 5]);
        let (found, links) = repair(&mut g, &set, 16);
        assert_eq!(found, 3);
        assert!(links >= 2);
        assert!(unreachable(&g).is_empty());
    }

    #[test]
    fn bad_parameters_are_errors() {
        let set = VectorSet::items(2, Metric::L2).unwrap();
        let bad = HnswParams { m: 1, ..HnswParams::default() };
        assert!(matches!(build_graph(&set, &bad, &mut |_| {}), Err(Error::InvalidParameter { param: "m", .. })));
        let bad = HnswParams { ef_construction: 0, ..HnswParams::default() };
        assert!(build_graph(&set, &bad, &mut |_| {}).is_err());
    }
}
