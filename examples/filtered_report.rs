//! Filtered search by selectivity: recall@10 and single-thread queries/s of the graph walk (the
//! filter applied during the beam) at several ef, and of the exact scan over the allowed nodes,
//! for predicate filters that allow 50% down to 0.2% of the nodes, on seeded clustered data. The
//! crossover it prints is where `HnswIndex::search_filtered` switches from the walk to the scan.
//!
//! ```text
//! cargo run --release --example filtered_report                 # 100k x 256
//! cargo run --release --example filtered_report -- --n 20000 --dim 256
//! ```

use std::time::Instant;

use kino::vectors::{ExactIndex, HnswIndex, HnswParams, ItemKind, Metric, VectorSet, clustered};

const K: usize = 10;

fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok())
}

/// A node's place in `0..1_000_000`, uncorrelated with the clusters (a fixed mix of its number).
fn rank(node: u32) -> u64 {
    let mut x = u64::from(node).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x ^ (x >> 32)) % 1_000_000
}

fn recall(got: &[kino::vectors::Hit], truth: &[kino::vectors::Hit]) -> f64 {
    let want: std::collections::HashSet<u32> = truth.iter().map(|h| h.node).collect();
    got.iter().filter(|h| want.contains(&h.node)).count() as f64 / truth.len().max(1) as f64
}

fn main() -> kino::Result<()> {
    let n = arg("--n").unwrap_or(100_000);
    let dim = arg("--dim").unwrap_or(256);
    let queries_n = arg("--queries").unwrap_or(300);
    let base = clustered(n, dim, 100, 1);
    let queries = clustered(queries_n, dim, 100, 2);
    let set = VectorSet::from_flat(dim, Metric::Cosine, &base)?;
    let exact = ExactIndex::new(&set)?;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("index.kvx");
    let started = Instant::now();
    HnswIndex::build_to_file(
        &set,
        &HnswParams { m: 16, ef_construction: 200, ..HnswParams::default() },
        &path,
        |_| {},
    )?;
    eprintln!("built {n} x {dim} in {:.1} s", started.elapsed().as_secs_f64());
    let index = HnswIndex::open(&path)?;
    println!("| allowed | method | ef | recall@10 | QPS (1 thread) |");
    println!("|---|---|---|---|---|");
    for per_million in [500_000_u64, 200_000, 100_000, 50_000, 20_000, 10_000, 5_000, 2_000] {
        let filter = move |node: u32, _: ItemKind| rank(node) < per_million;
        let truth: Vec<_> =
            queries.chunks(dim).map(|q| exact.search_filtered(q, K, &filter)).collect::<kino::Result<_>>()?;
        let share = format!("{:.1}%", per_million as f64 / 10_000.0);
        for ef in [64, 128, 256, 512] {
            let started = Instant::now();
            let mut total = 0.0;
            for (q, t) in queries.chunks(dim).zip(&truth) {
                total += recall(&index.search_walk(q, K, ef, &filter)?, t);
            }
            let qps = queries_n as f64 / started.elapsed().as_secs_f64();
            println!("| {share} | walk | {ef} | {:.4} | {qps:.0} |", total / queries_n as f64);
        }
        let started = Instant::now();
        let mut total = 0.0;
        for (q, t) in queries.chunks(dim).zip(&truth) {
            total += recall(&index.search_scan(q, K, &filter)?, t);
        }
        let qps = queries_n as f64 / started.elapsed().as_secs_f64();
        println!("| {share} | scan | – | {:.4} | {qps:.0} |", total / queries_n as f64);
        let started = Instant::now();
        let mut total = 0.0;
        for (q, t) in queries.chunks(dim).zip(&truth) {
            total += recall(&index.search_filtered(q, K, 64, &filter)?, t);
        }
        let qps = queries_n as f64 / started.elapsed().as_secs_f64();
        println!("| {share} | search_filtered (chosen) | 64 | {:.4} | {qps:.0} |", total / queries_n as f64);
    }
    Ok(())
}
