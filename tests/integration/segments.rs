//! The segmented index: any sequence of upserts, removals, flushes, merges and reopenings
//! searches exactly like a brute force over the live vectors; filters; damaged and stray files;
//! searches running while the index changes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use kino::vectors::{
    Codes, ItemKind, ItemVectors, Metric, Precision, SegmentConfig, SegmentFilter, SegmentedIndex, Stamp, clustered,
};
use proptest::prelude::*;

const DIM: usize = 8;

/// An item's (span, vector) rows.
type Rows = Vec<([f64; 2], Vec<f32>)>;

/// The live items' rows by item number.
type Model = BTreeMap<usize, Rows>;

/// Small thresholds so that a few operations flush and merge; scans only (`graph_from` out of
/// reach), so results must equal the brute force exactly.
fn exact_config(scenes: bool) -> SegmentConfig {
    SegmentConfig {
        flush_vectors: 6,
        merge_segments: 3,
        graph_from: usize::MAX,
        ..SegmentConfig::new(DIM, Metric::Cosine, scenes)
    }
}

fn kind(i: usize) -> ItemKind {
    [ItemKind::Movie, ItemKind::Series, ItemKind::Episode][i % 3]
}

/// Item `i`'s scenes at version `stamp`: `1 + (i + stamp) % 3` vectors, deterministic.
fn scenes_of(config: &SegmentConfig, i: usize, stamp: Stamp) -> (ItemVectors, Rows) {
    let n = 1 + (i + stamp as usize) % 3;
    let flat = clustered(n, DIM, 2, (i as u64) * 1000 + stamp);
    let mut item = ItemVectors::new(config, &format!("t{i}"), kind(i), stamp).unwrap();
    let mut rows = Vec::new();
    for (j, v) in flat.chunks(DIM).enumerate() {
        let span = [j as f64 * 10.0, j as f64 * 10.0 + 5.0];
        item.push(span, v).unwrap();
        rows.push((span, v.to_vec()));
    }
    (item, rows)
}

fn normalised(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

/// The brute force over the model's live vectors: (id, start) of the `k` nearest, the same
/// order as the index (distance, then id, then start).
fn brute(model: &Model, q: &[f32], k: usize) -> Vec<(String, f64, f32)> {
    let q = normalised(q);
    let mut all: Vec<(String, f64, f32)> = model
        .iter()
        .flat_map(|(i, rows)| {
            let q = q.clone();
            rows.iter().map(move |(span, v)| (format!("t{i}"), span[0], Metric::Cosine.distance(&q, &normalised(v))))
        })
        .collect();
    all.sort_by(|a, b| a.2.total_cmp(&b.2).then_with(|| a.0.cmp(&b.0)).then(a.1.total_cmp(&b.1)));
    all.truncate(k);
    all
}

fn found(index: &SegmentedIndex, q: &[f32], k: usize) -> Vec<(String, f64, f32)> {
    index.search(q, k, &SegmentFilter::default()).unwrap().into_iter().map(|h| (h.id, h.span[0], h.distance)).collect()
}

fn same(a: &[(String, f64, f32)], b: &[(String, f64, f32)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0 && x.1 == y.1 && (x.2 - y.2).abs() < 1e-5)
}

#[derive(Debug, Clone)]
enum Op {
    Upsert(usize),
    Remove(usize),
    Maintain,
    Compact,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0usize..12).prop_map(Op::Upsert),
        2 => (0usize..12).prop_map(Op::Remove),
        1 => Just(Op::Maintain),
        1 => Just(Op::Compact),
        1 => Just(Op::Reopen),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever happened, a search returns exactly what a brute force over the live vectors does,
    /// and a reopened index (reconciled against the stamps of record, the missing items loaded
    /// again) too.
    #[test]
    fn any_history_searches_like_a_brute_force(ops in proptest::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        let config = exact_config(true);
        let (mut index, _) = SegmentedIndex::open(dir.path(), config.clone()).unwrap();
        let mut model: Model = BTreeMap::new();
        let mut stamps: HashMap<usize, Stamp> = HashMap::new();
        for op in ops {
            match op {
                Op::Upsert(i) => {
                    let stamp = stamps.get(&i).map_or(1, |s| s + 1);
                    stamps.insert(i, stamp);
                    let (item, rows) = scenes_of(&config, i, stamp);
                    index.upsert(item).unwrap();
                    model.insert(i, rows);
                }
                Op::Remove(i) => {
                    index.remove(&format!("t{i}"));
                    model.remove(&i);
                }
                Op::Maintain => index.maintain().unwrap(),
                Op::Compact => index.compact().unwrap(),
                Op::Reopen => {
                    drop(index);
                    let (reopened, report) = SegmentedIndex::open(dir.path(), config.clone()).unwrap();
                    prop_assert!(report.dropped.is_empty());
                    let current: HashMap<String, Stamp> =
                        model.keys().map(|i| (format!("t{i}"), stamps[i])).collect();
                    for id in reopened.reconcile(&current) {
                        let i: usize = id[1..].parse().unwrap();
                        reopened.upsert(scenes_of(&config, i, stamps[&i]).0).unwrap();
                    }
                    index = reopened;
                }
            }
            for seed in 0..3u64 {
                let q = clustered(1, DIM, 1, 77 + seed);
                let want = brute(&model, &q, 7);
                let got = found(&index, &q, 7);
                prop_assert!(same(&want, &got), "want {want:?}\n got {got:?}");
            }
            let stats = index.stats();
            prop_assert_eq!(stats.items, model.len());
            prop_assert!(stats.segments <= config.merge_segments + 1, "{stats:?}");
        }
    }
}

/// Every scene of a small catalog, with items `t0..t{n}`.
fn filled(dir: &std::path::Path, config: &SegmentConfig, n: usize) -> (SegmentedIndex, Model) {
    let (index, _) = SegmentedIndex::open(dir, config.clone()).unwrap();
    let mut model = BTreeMap::new();
    for i in 0..n {
        let (item, rows) = scenes_of(config, i, 1);
        index.upsert(item).unwrap();
        model.insert(i, rows);
    }
    (index, model)
}

#[test]
fn filters_by_ids_kinds_time_window_and_the_query_item() {
    let dir = tempfile::tempdir().unwrap();
    let config = exact_config(true);
    let (index, _) = filled(dir.path(), &config, 12);
    index.compact().unwrap();
    index.upsert(scenes_of(&config, 12, 1).0).unwrap(); // one in the delta too
    let q = clustered(1, DIM, 1, 5);
    let ids: HashSet<String> = ["t1", "t4", "t12"].iter().map(|s| s.to_string()).collect();
    let hits = index.search(&q, 100, &SegmentFilter { ids: Some(&ids), ..SegmentFilter::default() }).unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| ids.contains(&h.id)), "{hits:?}");
    assert!(hits.iter().any(|h| h.id == "t12"), "the delta is searched too");
    let kinds = [ItemKind::Series];
    let hits = index.search(&q, 100, &SegmentFilter { kinds: Some(&kinds), ..SegmentFilter::default() }).unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h.kind == ItemKind::Series), "{hits:?}");
    let window = Some([0.0, 9.0]);
    let hits = index.search(&q, 100, &SegmentFilter { window, ..SegmentFilter::default() }).unwrap();
    assert_eq!(hits.len(), 13, "only each item's first scene lies within [0, 9]");
    assert!(hits.iter().all(|h| h.span == [0.0, 5.0]));
    let hits = index.search(&q, 100, &SegmentFilter { exclude: Some("t3"), ..SegmentFilter::default() }).unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h.id != "t3"));
    // Distances ascend.
    assert!(hits.windows(2).all(|w| w[0].distance <= w[1].distance));
}

#[test]
fn hnsw_segments_find_what_the_brute_force_finds() {
    // Walked over the int8 codes the segment files hold (the default), and over the floats.
    for precision in [Precision::Int8, Precision::Float] {
        hnsw_segments_find_what_the_brute_force_finds_at(precision);
    }
}

fn hnsw_segments_find_what_the_brute_force_finds_at(precision: Precision) {
    let dir = tempfile::tempdir().unwrap();
    let config = SegmentConfig {
        flush_vectors: 400,
        merge_segments: 2,
        graph_from: 300,
        precision,
        ..SegmentConfig::new(DIM, Metric::Cosine, false)
    };
    assert_eq!(SegmentConfig::new(DIM, Metric::Cosine, false).precision, Precision::Int8);
    assert_eq!(config.params.codes, Codes::INT8);
    let (index, _) = SegmentedIndex::open(dir.path(), config.clone()).unwrap();
    let flat = clustered(2000, DIM, 20, 3);
    let mut model = BTreeMap::new();
    for (i, v) in flat.chunks(DIM).enumerate() {
        let mut item = ItemVectors::new(&config, &format!("t{i}"), kind(i), 1).unwrap();
        item.push([0.0, 0.0], v).unwrap();
        index.upsert(item).unwrap();
        model.insert(i, vec![([0.0, 0.0], v.to_vec())]);
        if index.needs_maintenance() {
            index.maintain().unwrap();
        }
    }
    let stats = index.stats();
    assert!(stats.graphs >= 1, "{stats:?}");
    // Remove a tenth: they never come back.
    for i in (0..2000).step_by(10) {
        index.remove(&format!("t{i}"));
        model.remove(&i);
    }
    let (mut hit, mut total) = (0, 0);
    for seed in 0..50 {
        let q = clustered(1, DIM, 1, 900 + seed);
        let want: HashSet<String> = brute(&model, &q, 10).into_iter().map(|w| w.0).collect();
        let got = found(&index, &q, 10);
        assert!(
            got.iter().all(|g| model.contains_key(&g.0[1..].parse::<usize>().unwrap())),
            "a removed item was found"
        );
        hit += got.iter().filter(|g| want.contains(&g.0)).count();
        total += want.len();
    }
    let recall = hit as f64 / total as f64;
    assert!(recall >= 0.9, "{precision}: recall@10 {recall}");

    // A filter that names a seventh of the items: their nodes are scored by int8 code and the
    // shortlist re-ranked with the floats, so the answer is the brute force's over the allowed
    // items, with float distances, and never a removed or unnamed item.
    let allowed: HashSet<String> = (0..2000).step_by(7).map(|i| format!("t{i}")).collect();
    let filtered: Model =
        model.iter().filter(|(i, _)| allowed.contains(&format!("t{i}"))).map(|(i, r)| (*i, r.clone())).collect();
    let (mut hit, mut total) = (0, 0);
    for seed in 0..50 {
        let q = clustered(1, DIM, 1, 950 + seed);
        let want = brute(&filtered, &q, 10);
        let got: Vec<(String, f64, f32)> = index
            .search(&q, 10, &SegmentFilter { ids: Some(&allowed), ..SegmentFilter::default() })
            .unwrap()
            .into_iter()
            .map(|h| (h.id, h.span[0], h.distance))
            .collect();
        assert_eq!(got.len(), 10);
        for g in &got {
            assert!(filtered.contains_key(&g.0[1..].parse::<usize>().unwrap()), "{} is not allowed", g.0);
            let (_, v) = &filtered[&g.0[1..].parse::<usize>().unwrap()][0];
            assert!((g.2 - Metric::Cosine.distance(&normalised(&q), &normalised(v))).abs() < 1e-5, "a float distance");
        }
        hit += got.iter().filter(|g| want.iter().any(|w| w.0 == g.0)).count();
        total += want.len();
    }
    let recall = hit as f64 / total as f64;
    assert!(recall >= 0.99, "filtered recall@10 {recall}");
}

#[test]
fn stray_files_go_and_a_damaged_segment_is_reported_and_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    let config = exact_config(false);
    let (index, _) = SegmentedIndex::open(dir.path(), config.clone()).unwrap();
    let mut current = HashMap::new();
    for i in 0..10 {
        let mut item = ItemVectors::new(&config, &format!("t{i}"), kind(i), 1).unwrap();
        item.push([0.0, 0.0], &clustered(1, DIM, 1, i as u64)).unwrap();
        index.upsert(item).unwrap();
        current.insert(format!("t{i}"), 1);
        index.maintain().unwrap();
    }
    index.compact().unwrap();
    assert_eq!(index.stats().segments, 1);
    drop(index);
    std::fs::write(dir.path().join("seg-99999999.kvx"), b"left by a crash").unwrap();
    let (index, report) = SegmentedIndex::open(dir.path(), config.clone()).unwrap();
    assert_eq!(report.removed, vec!["seg-99999999.kvx".to_string()]);
    assert!(index.reconcile(&current).is_empty(), "everything is stored");
    // A changed stamp of record: the stored copy is stale.
    current.insert("t3".into(), 2);
    assert_eq!(index.reconcile(&current), vec!["t3".to_string()]);
    assert_eq!(index.stamp("t3"), None);
    drop(index);
    // Damage the segment: it is dropped, and everything must be loaded again.
    let seg = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("seg-"))
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&seg).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&seg, bytes).unwrap();
    let (index, report) = SegmentedIndex::open(dir.path(), config).unwrap();
    assert_eq!(report.dropped.len(), 1, "{report:?}");
    assert_eq!(index.reconcile(&current).len(), 10);
}

#[test]
fn the_wrong_vectors_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (index, _) = SegmentedIndex::open(dir.path(), exact_config(true)).unwrap();
    let items = exact_config(false);
    let mut item = ItemVectors::new(&items, "t1", ItemKind::Movie, 1).unwrap();
    item.push([0.0, 0.0], &[1.0; DIM]).unwrap();
    assert!(index.upsert(item).is_err(), "an item vector in a scene collection");
    assert!(ItemVectors::new(&items, "", ItemKind::Movie, 1).is_err());
    let mut item = ItemVectors::new(&items, "t1", ItemKind::Movie, 1).unwrap();
    assert!(item.push([0.0, 0.0], &[1.0; DIM + 1]).is_err());
    assert!(item.push([0.0, 0.0], &[0.0; DIM]).is_err(), "cosine needs a direction");
    assert!(index.search(&[1.0; 3], 5, &SegmentFilter::default()).is_err());
}

/// Searches run while another thread upserts, removes and merges; none fails, each is sorted, and
/// an item removed before the searches began is never found.
#[test]
fn searches_run_while_the_index_changes() {
    let dir = tempfile::tempdir().unwrap();
    let config = exact_config(true);
    let (index, _) = filled(dir.path(), &config, 30);
    index.remove("t0");
    let index = Arc::new(index);
    let writer = {
        let index = index.clone();
        let config = config.clone();
        std::thread::spawn(move || {
            for round in 2..40u64 {
                for i in 1..30 {
                    if (i as u64 + round) % 4 == 0 {
                        index.upsert(scenes_of(&config, i, round).0).unwrap();
                    }
                }
                index.remove(&format!("t{}", 1 + round % 29));
                index.maintain().unwrap();
            }
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|r| {
            let index = index.clone();
            std::thread::spawn(move || {
                for seed in 0..300u64 {
                    let hits =
                        index.search(&clustered(1, DIM, 1, seed * 2 + r), 10, &SegmentFilter::default()).unwrap();
                    assert!(hits.iter().all(|h| h.id != "t0"));
                    assert!(hits.windows(2).all(|w| w[0].distance <= w[1].distance));
                }
            })
        })
        .collect();
    writer.join().unwrap();
    for r in readers {
        r.join().unwrap();
    }
    // Background maintenance settles too.
    index.maintain_in_background(|e| panic!("{e}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while index.needs_maintenance() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!index.needs_maintenance());
}
