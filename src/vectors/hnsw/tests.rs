use super::*;
use crate::vectors::ExactIndex;
use crate::vectors::clustered as synth_clusters;
use crate::vectors::hnsw::build::{extract, insert_all, unreachable};

fn recall(found: &[Hit], truth: &[Hit]) -> usize {
    found.iter().filter(|h| truth.iter().any(|t| t.node == h.node)).count()
}

#[test]
fn mapped_search_is_as_good_as_hnsw_rs_on_the_same_graph() {
    let (dim, n) = (24, 2000);
    let flat = synth_clusters(n, dim, 20, 7);
    let set = VectorSet::from_flat(dim, Metric::Cosine, &flat).unwrap();
    let params = HnswParams { m: 8, ef_construction: 64 };
    let hnsw = insert_all(&set, &params, &mut |_| {}).unwrap();
    let graph = extract(&hnsw, n);
    assert!(unreachable(&graph).len() < n / 100);
    let exact = ExactIndex::new(&set).unwrap();
    let flat_graph = build::flatten(&graph, &params, 0);
    let ours =
        HnswIndex { data: IndexData::from_bytes(&encode_to_vec(&set, Some(&flat_graph)).unwrap()).unwrap(), ef: 16 };
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
    let (index, report) = HnswIndex::build(&set, &HnswParams { m: 8, ef_construction: 50 }, |_| {}).unwrap();
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
    HnswIndex::build(&set, &HnswParams { m: 4, ef_construction: 20 }, |p| seen.push(p)).unwrap();
    assert_eq!(seen.first().map(|p| (p.stage, p.done)), Some((BuildStage::Inserting, 0)));
    assert!(seen.iter().any(|p| p.stage == BuildStage::Inserting && p.done == 500));
    assert_eq!(seen.last().map(|p| p.stage), Some(BuildStage::Repairing));
}

#[test]
fn rare_predicate_filters_are_scanned_exactly_and_common_ones_walked() {
    let (dim, n) = (16, 4000);
    let set = VectorSet::from_flat(dim, Metric::Cosine, &synth_clusters(n, dim, 20, 5)).unwrap();
    let (index, _) = HnswIndex::build(&set, &HnswParams { m: 8, ef_construction: 64 }, |_| {}).unwrap();
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
