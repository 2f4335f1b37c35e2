//! HNSW build throughput (vectors/s) on 5,000 seeded clustered 128-d vectors, M = 16,
//! ef_construction = 200, parallel insert on every rayon thread, then repair and flattening.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kino::vectors::{HnswIndex, HnswParams, Metric, VectorSet, clustered};

const N: usize = 5_000;
const DIM: usize = 128;

fn bench(c: &mut Criterion) {
    let set = VectorSet::from_flat(DIM, Metric::Cosine, &clustered(N, DIM, 50, 3)).unwrap();
    let mut group = c.benchmark_group("hnsw_build_5k_x_128");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(10);
    group.bench_function("m16_efc200", |b| {
        b.iter(|| {
            HnswIndex::build(&set, &HnswParams { m: 16, ef_construction: 200, ..HnswParams::default() }, |_| {})
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
