use super::*;
use crate::vectors::clustered as synth_clusters;
use crate::vectors::exact::ExactIndex;
use hnsw_rs::anndists::dist::Distance;
use hnsw_rs::hnsw::Hnsw;

use crate::vectors::distance::dot;
use crate::vectors::format::MAX_LAYERS;
use crate::vectors::hnsw::build::unreachable;
use crate::vectors::hnsw::insert::BuildGraph;

/// The distance hnsw_rs builds with. hnsw_rs needs distances >= 0, so the dot metric is shifted
/// by the largest squared norm (order unchanged, since every build query is a stored vector).
#[derive(Debug, Clone, Copy)]
struct BuildDistance {
    metric: Metric,
    shift: f32,
}

impl Distance<f32> for BuildDistance {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        match self.metric {
            Metric::Dot => (self.shift - dot(a, b)).max(0.0),
            m => m.distance(a, b).max(0.0),
        }
    }
}

/// Inserts every vector of `set` into a new hnsw_rs graph (the builder kino used before its own), in parallel chunks, reporting progress.
fn hnsw_rs_insert(
    set: &VectorSet,
    params: &HnswParams,
    progress: &mut dyn FnMut(BuildProgress),
) -> Hnsw<'static, f32, BuildDistance> {
    let shift = set.data.chunks_exact(set.dim).map(|v| dot(v, v)).fold(0.0f32, f32::max);
    let dist = BuildDistance { metric: set.metric, shift };
    let n = set.len();
    let hnsw = Hnsw::new(params.m, n.max(1), MAX_LAYERS, params.ef_construction, dist);
    let rows: Vec<(&[f32], usize)> = set.data.chunks_exact(set.dim).enumerate().map(|(i, v)| (v, i)).collect();
    let step = (n / 100).max(2000);
    let mut done = 0;
    progress(BuildProgress { stage: BuildStage::Inserting, done, total: n });
    for chunk in rows.chunks(step) {
        hnsw.parallel_insert_slice(&chunk.to_vec());
        done += chunk.len();
        progress(BuildProgress { stage: BuildStage::Inserting, done, total: n });
    }
    hnsw
}

/// Copies the graph out of hnsw_rs (node = the id given at insert).
fn extract(hnsw: &Hnsw<'static, f32, BuildDistance>, n: usize) -> BuildGraph {
    let mut levels = vec![0u8; n];
    // Every node has a layer-0 list, even one hnsw_rs would not report.
    let mut adjacency = vec![vec![Vec::new()]; n];
    let mut entry = (0u32, 0u8);
    for point in hnsw.get_point_indexation() {
        let node = point.get_origin_id();
        let level = point.get_point_id().0.min(MAX_LAYERS as u8 - 1);
        if node >= n {
            continue;
        }
        levels[node] = level;
        if level > entry.1 || (level == entry.1 && (node as u32) < entry.0) {
            entry = (node as u32, level);
        }
        adjacency[node] = point
            .get_neighborhood_id()
            .into_iter()
            .take(level as usize + 1)
            .map(|layer| {
                layer.into_iter().map(|nb| nb.d_id as u32).filter(|&v| v as usize != node && (v as usize) < n).collect()
            })
            .collect();
        adjacency[node].resize(level as usize + 1, Vec::new());
    }
    BuildGraph { levels, adjacency, entry: entry.0, num_layers: if n == 0 { 0 } else { entry.1 as usize + 1 } }
}

fn recall(found: &[Hit], truth: &[Hit]) -> usize {
    found.iter().filter(|h| truth.iter().any(|t| t.node == h.node)).count()
}

#[test]
fn mapped_search_is_as_good_as_hnsw_rs_on_the_same_graph() {
    let (dim, n) = (24, 2000);
    let flat = synth_clusters(n, dim, 20, 7);
    let set = VectorSet::from_flat(dim, Metric::Cosine, &flat).unwrap();
    let params = HnswParams { m: 8, ef_construction: 64, ..HnswParams::default() };
    let hnsw = hnsw_rs_insert(&set, &params, &mut |_| {});
    let graph = extract(&hnsw, n);
    assert!(unreachable(&graph).len() < n / 100);
    let exact = ExactIndex::new(&set).unwrap();
    let flat_graph = build::flatten(&graph, &params, 0);
    let ours =
        HnswIndex::new(IndexData::from_bytes(&encode_to_vec(&set, Some(&flat_graph), Codes::NONE).unwrap()).unwrap())
            .with_ef(16);
    let queries = synth_clusters(200, dim, 20, 99);
    let (mut theirs_total, mut ours_total) = (0, 0);
    for q in queries.chunks(dim) {
        let truth = exact.search(q, 10).unwrap();
        let mut qn = q.to_vec();
        crate::vectors::distance::normalize(&mut qn);
        let theirs: Vec<Hit> =
            hnsw.search(&qn, 10, 16).iter().map(|n| Hit { node: n.d_id as u32, distance: n.distance }).collect();
        theirs_total += recall(&theirs, &truth);
        ours_total += recall(&ours.search(q, 10, 16).unwrap(), &truth);
    }
    // Same graph, same ef: the mapped search must be at least as good, within 1% of the hits.
    assert!(ours_total + 20 >= theirs_total, "ours {ours_total} vs hnsw_rs {theirs_total} of 2000");
}

#[test]
fn every_point_finds_itself() {
    let (dim, n) = (16, 1500);
    let set = VectorSet::from_flat(dim, Metric::L2, &synth_clusters(n, dim, 10, 3)).unwrap();
    let (index, report) =
        HnswIndex::build(&set, &HnswParams { m: 8, ef_construction: 50, ..HnswParams::default() }, |_| {}).unwrap();
    assert_eq!(report.vectors, n);
    // The parallel build's graph differs from run to run, and a beam of 32 is approximate: almost
    // every node finds itself. With a beam as wide as the index, the search visits every node
    // reachable from the entry point, and the repair stage makes every node reachable: then
    // each one must find itself, whatever graph the build made.
    let mut missed = Vec::new();
    for node in 0..n as u32 {
        let query = set.vector(node).unwrap();
        if index.search(query, 1, 32).unwrap()[0].distance != 0.0 {
            missed.push(node);
        }
        let hits = index.search(query, 1, n).unwrap();
        assert_eq!(hits[0].distance, 0.0, "node {node} is unreachable");
    }
    assert!(missed.len() <= n / 100, "{} of {n} nodes missed themselves with ef 32: {missed:?}", missed.len());
}

#[test]
fn empty_and_tiny_sets() {
    let set = VectorSet::items(4, Metric::Cosine).unwrap();
    let (index, _) = HnswIndex::build(&set, &HnswParams::default(), |_| {}).unwrap();
    assert!(index.search(&[1.0, 0.0, 0.0, 0.0], 3, 10).unwrap().is_empty());
    let mut set = VectorSet::items(4, Metric::Cosine).unwrap();
    set.push_item("only", ItemKind::Movie, &[0.0, 1.0, 0.0, 0.0]).unwrap();
    let (index, _) = HnswIndex::build(&set, &HnswParams::default(), |_| {}).unwrap();
    let hits = index.search(&[1.0, 1.0, 0.0, 0.0], 3, 10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(index.id(hits[0].node).unwrap(), "only");
}

#[test]
fn progress_is_reported() {
    let set = VectorSet::from_flat(8, Metric::L2, &synth_clusters(500, 8, 4, 1)).unwrap();
    let mut seen = Vec::new();
    HnswIndex::build(&set, &HnswParams { m: 4, ef_construction: 20, ..HnswParams::default() }, |p| seen.push(p))
        .unwrap();
    assert_eq!(seen.first().map(|p| (p.stage, p.done)), Some((BuildStage::Inserting, 0)));
    assert!(seen.iter().any(|p| p.stage == BuildStage::Inserting && p.done == 500));
    assert_eq!(seen.last().map(|p| p.stage), Some(BuildStage::Repairing));
}

#[test]
fn rare_predicate_filters_are_scanned_exactly_and_common_ones_walked() {
    let (dim, n) = (16, 4000);
    let set = VectorSet::from_flat(dim, Metric::Cosine, &synth_clusters(n, dim, 20, 5)).unwrap();
    let (index, _) =
        HnswIndex::build(&set, &HnswParams { m: 8, ef_construction: 64, ..HnswParams::default() }, |_| {}).unwrap();
    let exact = ExactIndex::new(&set).unwrap();
    // every 100th node (1%), and every other node (50%): predicates, so no allow-list shortcut
    let rare = |node: u32, _: ItemKind| node % 100 == 7;
    let common = |node: u32, _: ItemKind| node % 2 == 0;
    assert!(index.allowed_share(&rare) < scan_below(16, n));
    assert!(index.allowed_share(&common) > scan_below(64, n));
    let queries = synth_clusters(50, dim, 20, 77);
    let (mut rare_hits, mut common_hits) = (0, 0);
    for q in queries.chunks(dim) {
        let truth = exact.search_filtered(q, 10, &rare).unwrap();
        let found = index.search_filtered(q, 10, 16, &rare).unwrap();
        assert_eq!(found, index.search_scan(q, 10, &rare).unwrap(), "the rare filter is scanned");
        rare_hits += recall(&found, &truth);
        let truth = exact.search_filtered(q, 10, &common).unwrap();
        let found = index.search_filtered(q, 10, 64, &common).unwrap();
        assert!(found.iter().all(|h| h.node % 2 == 0));
        assert_eq!(found, index.search_walk(q, 10, 64, &common).unwrap(), "the common filter is walked");
        common_hits += recall(&found, &truth);
    }
    assert_eq!(rare_hits, 500, "an exact scan finds every allowed neighbour");
    // the measured crossovers (docs/vector-search.md)
    assert!((scan_below(64, 100_000) - 0.043).abs() < 0.002);
    assert!((0.055..0.08).contains(&scan_below(64, 50_000)));
    assert!(common_hits >= 475, "recall {common_hits} of 500");
}

#[test]
fn codes_walk_the_graph_and_the_floats_rank_the_answer() {
    let (dim, n) = (64, 4000);
    for metric in [Metric::Cosine, Metric::Dot, Metric::L2] {
        let set = VectorSet::from_flat(dim, metric, &synth_clusters(n, dim, 20, 21)).unwrap();
        let params = HnswParams { m: 12, ef_construction: 80, codes: Codes::ALL };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.kvx");
        HnswIndex::build_to_file(&set, &params, &path, |_| {}).unwrap();
        let float = HnswIndex::open(&path).unwrap();
        float.verify().unwrap();
        assert_eq!((float.format_version(), float.codes(), float.params().0), (2, Codes::ALL, params));
        let int8 = HnswIndex::open(&path).unwrap().with_precision(Precision::Int8).unwrap();
        let binary = HnswIndex::open(&path).unwrap().with_precision(Precision::Binary).unwrap();
        assert_eq!(int8.precision(), Precision::Int8);
        let exact = ExactIndex::new(&set).unwrap();
        let (mut int8_hits, mut binary_hits, mut total) = (0, 0, 0);
        for q in synth_clusters(60, dim, 20, 22).chunks(dim) {
            let truth = exact.search(q, 10).unwrap();
            let found = int8.search(q, 10, 64).unwrap();
            // The distances returned are the float ones, nearest first.
            assert_eq!(found.len(), 10);
            for h in &found {
                let own = float.search(exact.vector(h.node).unwrap(), 1, 64).unwrap()[0];
                assert_eq!(own.node, h.node, "{metric:?}: node {} finds itself", h.node);
                let want = metric.distance(&prepared(q, metric), exact.vector(h.node).unwrap());
                assert!((h.distance - want).abs() <= 1e-5 * want.abs().max(1.0), "{metric:?}: {h:?} vs {want}");
            }
            assert!(found.windows(2).all(|w| w[0].distance <= w[1].distance));
            int8_hits += recall(&found, &truth);
            binary_hits += recall(&binary.search(q, 10, 128).unwrap(), &truth);
            total += truth.len();
        }
        let (int8_recall, binary_recall) = (int8_hits as f64 / total as f64, binary_hits as f64 / total as f64);
        assert!(int8_recall >= 0.95, "{metric:?}: int8 recall {int8_recall}");
        assert!(binary_recall >= 0.8, "{metric:?}: binary recall {binary_recall}");
        // A filter applies to the walk over codes too.
        let even = |node: u32, _: ItemKind| node % 2 == 0;
        let q = &synth_clusters(1, dim, 20, 23);
        let found = int8.search_filtered(q, 10, 64, &even).unwrap();
        assert_eq!(found.len(), 10);
        assert!(found.iter().all(|h| h.node % 2 == 0));
        // A rare filter is scanned over the codes and re-ranked: the exact answer here.
        let rare = |node: u32, _: ItemKind| node % 50 == 3;
        assert_eq!(int8.search_filtered(q, 5, 64, &rare).unwrap(), exact.search_filtered(q, 5, &rare).unwrap());
        // Re-ranking fewer candidates than the beam still returns k, the float distances.
        let short = HnswIndex::open(&path).unwrap().with_precision(Precision::Int8).unwrap().with_rerank(12);
        assert_eq!(short.search(q, 10, 64).unwrap().len(), 10);
    }
}

fn prepared(q: &[f32], metric: Metric) -> Vec<f32> {
    crate::vectors::set::prepare_query(q, q.len(), metric).unwrap()
}

#[test]
fn a_precision_the_file_has_no_codes_for_is_refused_by_name() {
    let set = VectorSet::from_flat(8, Metric::Cosine, &synth_clusters(300, 8, 4, 1)).unwrap();
    let (index, _) =
        HnswIndex::build(&set, &HnswParams { codes: Codes::INT8, ..HnswParams::default() }, |_| {}).unwrap();
    assert_eq!(index.codes(), Codes::INT8);
    let err = index.with_precision(Precision::Binary).unwrap_err().to_string();
    assert!(err.contains("precision") && err.contains("binary") && err.contains("int8"), "{err}");
    let (plain, _) = HnswIndex::build(&set, &HnswParams::default(), |_| {}).unwrap();
    assert_eq!(plain.codes(), Codes::NONE);
    assert!(plain.with_precision(Precision::Int8).is_err());
    assert_eq!(Codes::parse("int8, binary").unwrap(), Codes::ALL);
    assert_eq!(Codes::parse("none").unwrap(), Codes::NONE);
    assert!(Codes::parse("int4").unwrap_err().contains("int4"));
    assert_eq!(Precision::parse("binary").unwrap(), Precision::Binary);
    assert!(Precision::parse("fp16").unwrap_err().contains("fp16"));
    assert_eq!(Codes::ALL.to_string(), "int8,binary");
}

#[test]
fn the_own_builder_makes_a_graph_as_good_as_hnsw_rs() {
    let (dim, n) = (32, 4000);
    let set = VectorSet::from_flat(dim, Metric::Cosine, &synth_clusters(n, dim, 25, 31)).unwrap();
    let params = HnswParams { m: 12, ef_construction: 100, ..HnswParams::default() };
    let exact = ExactIndex::new(&set).unwrap();
    let theirs = extract(&hnsw_rs_insert(&set, &params, &mut |_| {}), n);
    let ours = crate::vectors::hnsw::insert::insert_all(&set, &params, &mut |_| {});
    assert!(ours.adjacency.iter().all(|layers| layers.first().is_some_and(|l| l.len() <= 2 * params.m)));
    assert!(unreachable(&ours).len() < n / 100, "{} unreachable", unreachable(&ours).len());
    let index = |g: &BuildGraph| {
        let flat = build::flatten(g, &params, 0);
        HnswIndex::new(IndexData::from_bytes(&encode_to_vec(&set, Some(&flat), Codes::NONE).unwrap()).unwrap())
    };
    let (ours, theirs) = (index(&ours), index(&theirs));
    let (mut ours_total, mut theirs_total) = (0, 0);
    for q in synth_clusters(200, dim, 25, 32).chunks(dim) {
        let truth = exact.search(q, 10).unwrap();
        ours_total += recall(&ours.search(q, 10, 24).unwrap(), &truth);
        theirs_total += recall(&theirs.search(q, 10, 24).unwrap(), &truth);
    }
    eprintln!("recall@10 at ef 24 before repairs: own builder {ours_total}, hnsw_rs {theirs_total} of 2000");
    // Before any repair, searched the same way at the same small ef: within 2% of the hits.
    assert!(ours_total + 40 >= theirs_total, "ours {ours_total} vs hnsw_rs {theirs_total} of 2000");
}
