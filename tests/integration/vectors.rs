//! Vector search end to end: recall against the exact index, self-recall, save/open/search
//! equality, concurrent searches over one mapped index, refused corrupt files, and filters.

use std::path::Path;
use std::sync::OnceLock;

use kino::vectors::{
    AllowList, Codes, ExactIndex, Filter, Hit, HnswIndex, HnswParams, ItemKind, KindFilter, Metric, Precision,
    VectorIndex, VectorSet, clustered,
};
use proptest::prelude::*;

const DIM: usize = 32;
const N: usize = 3000;
const K: usize = 10;

fn kind_of(node: usize) -> ItemKind {
    [ItemKind::Movie, ItemKind::Series, ItemKind::Episode][node % 3]
}

/// 3000 seeded clustered vectors, ids `v0`.., kinds cycling movie / series / episode.
fn set() -> &'static VectorSet {
    static SET: OnceLock<VectorSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = VectorSet::items(DIM, Metric::Cosine).unwrap();
        for (i, v) in clustered(N, DIM, 30, 11).chunks(DIM).enumerate() {
            set.push_item(&format!("v{i}"), kind_of(i), v).unwrap();
        }
        set
    })
}

/// One HNSW index over [`set`], built once and written to a temporary file.
fn index_file() -> &'static (tempfile::TempDir, std::path::PathBuf) {
    static FILE: OnceLock<(tempfile::TempDir, std::path::PathBuf)> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.kvx");
        let params = HnswParams { m: 12, ef_construction: 100, codes: Codes::ALL };
        HnswIndex::build_to_file(set(), &params, &path, |_| {}).unwrap();
        (dir, path)
    })
}

fn queries(n: usize, seed: u64) -> Vec<f32> {
    clustered(n, DIM, 30, seed)
}

fn nodes(hits: &[Hit]) -> Vec<u32> {
    hits.iter().map(|h| h.node).collect()
}

#[test]
fn recall_against_exact_is_at_least_095_at_ef_64() {
    let index = HnswIndex::open(&index_file().1).unwrap();
    let exact = ExactIndex::new(set()).unwrap();
    let qs = queries(200, 77);
    let truth = exact.search_batch(&qs, K, None).unwrap();
    let mut found = 0;
    for (q, t) in qs.chunks(DIM).zip(&truth) {
        let hits = index.search(q, K, 64).unwrap();
        found += hits.iter().filter(|h| t.iter().any(|x| x.node == h.node)).count();
    }
    let recall = found as f64 / (200 * K) as f64;
    // Stated tolerance: recall@10 >= 0.95 at ef = 64 (it is typically above 0.99 here).
    assert!(recall >= 0.95, "recall@10 at ef 64 = {recall}");
}

#[test]
fn every_point_finds_itself() {
    let index = HnswIndex::open(&index_file().1).unwrap();
    for node in 0..N as u32 {
        let hits = index.search(set().vector(node).unwrap(), K, 64).unwrap();
        assert!(hits.iter().any(|h| h.node == node), "node {node} is not among its own {K} nearest");
    }
}

#[test]
fn saved_and_reopened_indexes_answer_the_same() {
    let (index, _) =
        HnswIndex::build(set(), &HnswParams { m: 8, ef_construction: 40, ..HnswParams::default() }, |_| {}).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("saved.kvx");
    index.save(&path).unwrap();
    let opened = HnswIndex::open(&path).unwrap();
    assert!(opened.is_mapped() && !index.is_mapped());
    opened.verify().unwrap();
    for q in queries(50, 5).chunks(DIM) {
        assert_eq!(index.search(q, K, 32).unwrap(), opened.search(q, K, 32).unwrap());
    }
    assert_eq!(opened.nodes_of("v42"), vec![42]);
    assert_eq!(opened.id(42).unwrap(), "v42");
    assert_eq!(opened.kind(42), kind_of(42));
    let exact_path = dir.path().join("exact.kvx");
    ExactIndex::write(set(), &exact_path).unwrap();
    let exact = ExactIndex::open(&exact_path).unwrap();
    exact.verify().unwrap();
    assert!(HnswIndex::open(&exact_path).is_err(), "a file without a graph is not an HNSW index");
    assert!(!exact.has_graph() && ExactIndex::open(&path).unwrap().has_graph());
    let any = kino::vectors::open(&exact_path, 64).unwrap();
    assert_eq!(any.search_with(&queries(1, 6), K, None).unwrap(), exact.search(&queries(1, 6), K).unwrap());
    let q = &queries(1, 6)[..DIM];
    assert_eq!(exact.search(q, K).unwrap(), ExactIndex::new(set()).unwrap().search(q, K).unwrap());
}

#[test]
fn one_opened_index_serves_many_threads() {
    let index = HnswIndex::open(&index_file().1).unwrap();
    let qs = queries(64, 8);
    let sequential: Vec<Vec<Hit>> = qs.chunks(DIM).map(|q| index.search(q, K, 48).unwrap()).collect();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (index, qs, sequential) = (&index, &qs, &sequential);
            scope.spawn(move || {
                for round in 0..4 {
                    for (i, q) in qs.chunks(DIM).enumerate().skip((t + round) % 3) {
                        assert_eq!(&index.search(q, K, 48).unwrap(), &sequential[i]);
                    }
                }
            });
        }
    });
    assert_eq!(index.search_batch(&qs, K, 48).unwrap(), sequential);
}

fn assert_refused(path: &Path, expect: &str) {
    match HnswIndex::open(path) {
        Err(e) => assert!(e.to_string().contains(expect), "error {e:?} does not mention {expect:?}"),
        Ok(_) => panic!("opened a broken file; expected an error mentioning {expect:?}"),
    }
}

/// Rewrites the header checksum after a deliberate header edit.
fn patch_header(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
    bytes[76..80].fill(0);
    let crc = crc32fast::hash(&bytes[..1024]);
    bytes[76..80].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn wrong_version_dimension_truncation_and_garbage_are_clear_errors() {
    let good = std::fs::read(&index_file().1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.kvx");
    let mut bytes = good.clone();
    patch_header(&mut bytes, 8, &3u32.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    assert_refused(&path, "format version 3");
    let mut bytes = good.clone();
    patch_header(&mut bytes, 336, &4u32.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    assert_refused(&path, "unknown code kinds");
    let mut bytes = good.clone();
    patch_header(&mut bytes, 20, &(DIM as u32 + 1).to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    assert_refused(&path, "bytes");
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    assert_refused(&path, "truncated");
    std::fs::write(&path, &good[..100]).unwrap();
    assert_refused(&path, "truncated");
    std::fs::write(&path, b"not an index").unwrap();
    assert_refused(&path, "not a kino index file");
    let mut bytes = good.clone();
    bytes[30] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert_refused(&path, "header checksum");
    let missing = dir.path().join("missing.kvx");
    assert!(matches!(HnswIndex::open(&missing), Err(kino::Error::Io { .. })));
    let index = HnswIndex::open(&index_file().1).unwrap();
    assert!(matches!(index.search(&[1.0; 3], K, 16), Err(kino::Error::WrongVectorDimension { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Any changed byte, or a cut anywhere, is refused by `open` or by `verify`; and an opened
    /// damaged file never panics when searched.
    #[test]
    fn mutated_files_are_errors_never_panics(at in 0usize..1 << 30, xor in 1u8..=255, cut in proptest::bool::weighted(0.2)) {
        static GOOD: OnceLock<Vec<u8>> = OnceLock::new();
        let good = GOOD.get_or_init(|| std::fs::read(&index_file().1).unwrap());
        let mut bytes = good.clone();
        let at = at % bytes.len();
        if cut { bytes.truncate(at) } else { bytes[at] ^= xor }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.kvx");
        std::fs::write(&path, &bytes).unwrap();
        match HnswIndex::open(&path) {
            Err(e) => prop_assert!(matches!(e, kino::Error::IndexFile { .. }), "{e:?}"),
            Ok(index) => {
                for q in queries(5, 9).chunks(DIM) {
                    let hits = index.search(q, K, 32).unwrap();
                    prop_assert!(hits.iter().all(|h| (h.node as usize) < N));
                }
                // The walks over the (possibly damaged) codes neither panic nor invent nodes.
                for precision in [Precision::Int8, Precision::Binary] {
                    let coded = HnswIndex::open(&path).unwrap().with_precision(precision).unwrap();
                    for q in queries(3, 9).chunks(DIM) {
                        let hits = coded.search(q, K, 32).unwrap();
                        prop_assert!(hits.iter().all(|h| (h.node as usize) < N));
                    }
                }
                let _ = index.id(0);
                let _ = index.nodes_of("v7");
                prop_assert!(index.verify().is_err(), "a changed byte at {at} passed verify");
            }
        }
    }

    /// Filters are applied during the search: nothing they refuse is ever returned, and when at
    /// least `k` nodes are allowed, `k` are returned.
    #[test]
    fn filters_never_return_a_refused_node(allowed in proptest::collection::vec(0u32..N as u32, 0..300), seed in 0u64..1000, kind in 0usize..3) {
        static INDEX: OnceLock<HnswIndex> = OnceLock::new();
        let index = INDEX.get_or_init(|| HnswIndex::open(&index_file().1).unwrap());
        let exact = ExactIndex::new(set()).unwrap();
        let q = queries(1, seed);
        let list = AllowList::new(allowed.iter().copied());
        let kinds = KindFilter::only(&[kind_of(kind)]);
        let not_first = |node: u32, _: ItemKind| node != allowed.first().copied().unwrap_or(0);
        let filters: [&dyn Filter; 3] = [&list, &kinds, &not_first];
        for filter in filters {
            let hnsw_hits = index.search_filtered(&q, K, 32, filter).unwrap();
            let exact_hits = exact.search_filtered(&q, K, filter).unwrap();
            for h in hnsw_hits.iter().chain(&exact_hits) {
                prop_assert!(filter.allows(h.node, index.kind(h.node)), "node {} was refused", h.node);
            }
            prop_assert_eq!(exact_hits.len(), hnsw_hits.len());
        }
        if list.len() <= N / 50 {
            // A small allow-list is scored exactly, so the results are the exact ones.
            prop_assert_eq!(nodes(&index.search_filtered(&q, K, 32, &list).unwrap()), nodes(&exact.search_filtered(&q, K, &list).unwrap()));
        }
    }
}

#[test]
fn scene_collections_from_signals_answer_text_queries_from_a_mapped_file() {
    use kino::vectors::scenes::{scene_set, search_text};
    let docs: Vec<kino::Signals> = (0..6)
        .map(|i| {
            let mut o = kino::synth::SynthOptions::new(&format!("item{i}"), 600.0, 1.0, i);
            o.scene_embeddings = true;
            o.extras = false;
            kino::synth::generate(&o)
        })
        .collect();
    let set =
        scene_set(&docs, |d| if d.inventory_id.ends_with('0') { ItemKind::Series } else { ItemKind::Movie }).unwrap();
    assert_eq!(set.len(), docs.iter().map(|d| d.scenes.len()).sum::<usize>());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenes.kvx");
    HnswIndex::build_to_file(&set, &HnswParams::default(), &path, |_| {}).unwrap();
    let index = HnswIndex::open(&path).unwrap().with_ef(128);
    let encoder = kino::LexicalEncoder::default();
    let tag = &docs[3].tags[0].name;
    let per_item = search_text(&index, &encoder, tag, 4, true, None).unwrap();
    let items: std::collections::HashSet<&str> = per_item.iter().map(|h| h.item_id.as_str()).collect();
    assert_eq!(items.len(), per_item.len(), "one scene per item");
    for hit in &per_item {
        let doc = docs.iter().find(|d| d.inventory_id == hit.item_id).unwrap();
        assert!(doc.scenes.iter().any(|s| s.start == hit.start_ts && s.end == hit.end_ts));
    }
    let movies_only = KindFilter::only(&[ItemKind::Movie]);
    let scenes = search_text(&index, &encoder, tag, 20, false, Some(&movies_only)).unwrap();
    assert_eq!(scenes.len(), 20);
    assert!(scenes.iter().all(|h| h.item_id != "item0"));
}

#[test]
fn similar_titles_over_a_mapped_item_index() {
    use kino::vectors::similar::{SimilarQuery, similar};
    let index = HnswIndex::open(&index_file().1).unwrap();
    let query = SimilarQuery { skip: 2, count: 5, max_score: Some(0.99), kind: Some(ItemKind::Movie) };
    let list = similar(&index, "v10", &query).unwrap();
    assert_eq!(list.len(), 5);
    assert!(
        list.iter().all(|s| s.inventory_id != "v10" && s.kind == ItemKind::Movie && s.score <= 0.99 && s.score >= 0.0)
    );
    assert!(list.windows(2).all(|w| w[0].score >= w[1].score));
    let exact = ExactIndex::new(set()).unwrap();
    let truth = similar(&exact, "v10", &query).unwrap();
    let common = list.iter().filter(|s| truth.iter().any(|t| t.inventory_id == s.inventory_id)).count();
    assert!(common >= 4, "HNSW similar list shares {common} of 5 with the exact one");
}

/// Format compatibility: a version-1 file committed when the format was introduced
/// (`data/vectors-v1.kvx`: 64 random 8-d cosine vectors, ids "0".."63", M = 4,
/// ef_construction = 16) must keep opening and answering in every later version.
#[test]
fn format_version_1_files_keep_opening() {
    let path = crate::support::manifest_dir().join("data/vectors-v1.kvx");
    let index = HnswIndex::open(&path).unwrap();
    index.verify().unwrap();
    assert_eq!((index.len(), index.dim(), index.metric()), (64, 8, Metric::Cosine));
    assert_eq!(index.params().0, HnswParams { m: 4, ef_construction: 16, codes: Codes::NONE });
    assert_eq!((index.format_version(), index.codes()), (1, Codes::NONE));
    let exact = ExactIndex::open(&path).unwrap();
    for node in 0..64u32 {
        assert_eq!(index.id(node).unwrap(), node.to_string());
        let v = exact.vector(node).unwrap().to_vec();
        assert_eq!(index.search(&v, 1, 16).unwrap()[0].node, node);
        assert_eq!(nodes(&index.search(&v, 5, 64).unwrap()), nodes(&exact.search(&v, 5).unwrap()));
    }
}
