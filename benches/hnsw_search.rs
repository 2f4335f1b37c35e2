//! HNSW search over a memory-mapped index: single-thread queries/s at several ef, on 20,000
//! seeded clustered 256-d vectors (M = 16, ef_construction = 200). The index is built once into
//! a temporary directory; recall@10 against the exact index is printed beside each ef.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kino::vectors::{ExactIndex, HnswIndex, HnswParams, Metric, VectorSet, clustered};

const N: usize = 20_000;
const DIM: usize = 256;
const QUERIES: usize = 200;

fn bench(c: &mut Criterion) {
    let set = VectorSet::from_flat(DIM, Metric::Cosine, &clustered(N, DIM, 100, 1)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.kvx");
    HnswIndex::build_to_file(&set, &HnswParams { m: 16, ef_construction: 200, ..HnswParams::default() }, &path, |_| {})
        .unwrap();
    let index = HnswIndex::open(&path).unwrap();
    let queries = clustered(QUERIES, DIM, 100, 2);
    let truth = ExactIndex::new(&set).unwrap().search_batch(&queries, 10, None).unwrap();
    let mut group = c.benchmark_group("hnsw_search_20k_x_256");
    group.throughput(Throughput::Elements(QUERIES as u64));
    for ef in [16, 32, 64, 128, 256] {
        let found: usize = queries
            .chunks(DIM)
            .zip(&truth)
            .map(|(q, t)| {
                index.search(q, 10, ef).unwrap().iter().filter(|h| t.iter().any(|x| x.node == h.node)).count()
            })
            .sum();
        eprintln!("ef {ef}: recall@10 = {:.4}", found as f64 / (QUERIES * 10) as f64);
        group.bench_with_input(BenchmarkId::new("ef", ef), &ef, |b, &ef| {
            b.iter(|| {
                for q in queries.chunks(DIM) {
                    std::hint::black_box(index.search(q, 10, ef).unwrap());
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
