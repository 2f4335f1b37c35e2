//! Exact search over a memory-mapped vector file: one query split across threads (bytes/s of
//! vectors scanned) and a batch of queries in parallel (queries/s), 50,000 x 256 seeded vectors.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kino::vectors::{ExactIndex, Metric, VectorSet, clustered};

const N: usize = 50_000;
const DIM: usize = 256;

fn bench(c: &mut Criterion) {
    let set = VectorSet::from_flat(DIM, Metric::Cosine, &clustered(N, DIM, 100, 4)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exact.kvx");
    ExactIndex::write(&set, &path).unwrap();
    let index = ExactIndex::open(&path).unwrap();
    let queries = clustered(64, DIM, 100, 5);
    let mut group = c.benchmark_group("exact_search_50k_x_256");
    group.throughput(Throughput::Bytes((N * DIM * 4) as u64));
    group.bench_function("one_query", |b| b.iter(|| index.search(&queries[..DIM], 10).unwrap()));
    group.throughput(Throughput::Elements(64));
    group.bench_function("batch_64_queries", |b| b.iter(|| index.search_batch(&queries, 10, None).unwrap()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
