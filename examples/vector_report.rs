//! The vector-search report: recall@10 and single-thread queries/s at several ef on seeded
//! clustered data, build throughput, open time and RSS of a 1M x 256 index, and exact-search
//! bandwidth against a plain memory scan. It also writes the vectors, queries and ground truth as
//! `.npy` for `scripts/compare_ann.py`.
//!
//! ```text
//! cargo run --release --example vector_report                      # everything (long)
//! cargo run --release --example vector_report -- --quick           # 20k vectors, no 1M index
//! cargo run --release --example vector_report -- --only 256 --skip-1m --out bench-data
//! cargo run --release --example vector_report -- --reuse   # search only, over indexes built before
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use kino::vectors::{
    Codes, ExactIndex, HnswIndex, HnswParams, Metric, VectorIndex, VectorSet, clustered, distance, npy,
};
use rayon::prelude::*;

const SEED_BASE: u64 = 1;
const SEED_QUERIES: u64 = 2;
const K: usize = 10;
const EFS: [usize; 5] = [16, 32, 64, 128, 256];

struct Options {
    n: usize,
    queries: usize,
    dims: Vec<usize>,
    open_n: Option<usize>,
    out: PathBuf,
    clusters: usize,
    reuse: bool,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let quick = args.iter().any(|a| a == "--quick");
    let mut o = Options {
        n: if quick { 20_000 } else { 100_000 },
        queries: if quick { 500 } else { 1_000 },
        dims: vec![256, 1024],
        open_n: if quick { None } else { Some(1_000_000) },
        out: PathBuf::from(value("--out").unwrap_or_else(|| "bench-data".into())),
        clusters: 100,
        reuse: args.iter().any(|a| a == "--reuse"),
    };
    if let Some(d) = value("--only") {
        o.dims = d.split(',').filter_map(|x| x.parse().ok()).collect();
    }
    if let Some(n) = value("--n").and_then(|v| v.parse().ok()) {
        o.n = n;
    }
    if let Some(n) = value("--open-n").and_then(|v| v.parse().ok()) {
        o.open_n = Some(n);
    }
    if args.iter().any(|a| a == "--skip-1m") {
        o.open_n = None;
    }
    o
}

/// Resident set size of this process in bytes (Linux; 0 elsewhere).
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn normalised(mut flat: Vec<f32>, dim: usize) -> Vec<f32> {
    flat.chunks_mut(dim).for_each(|v| {
        distance::normalize(v);
    });
    flat
}

fn main() -> kino::Result<()> {
    let o = options();
    std::fs::create_dir_all(&o.out).map_err(|e| kino::Error::Io { path: o.out.clone(), source: e })?;
    let threads = rayon::current_num_threads();
    println!("# kino vector report: {threads} rayon threads, k = {K}, M = 16, ef_construction = 200");
    for &dim in &o.dims {
        recall_and_speed(&o, dim)?;
    }
    if let Some(n) = o.open_n {
        open_and_bandwidth(&o, n, 256)?;
    }
    Ok(())
}

fn recall_and_speed(o: &Options, dim: usize) -> kino::Result<()> {
    println!("\n## {} x {dim} (cosine, {} clusters, {} queries)", o.n, o.clusters, o.queries);
    let base = normalised(clustered(o.n, dim, o.clusters, SEED_BASE), dim);
    let queries = normalised(clustered(o.queries, dim, o.clusters, SEED_QUERIES), dim);
    let stem = o.out.join(format!("clustered-{}x{dim}", o.n));
    npy::write_f32(stem.with_extension("base.npy"), dim, &base)?;
    npy::write_f32(stem.with_extension("queries.npy"), dim, &queries)?;
    let set = VectorSet::from_flat(dim, Metric::Cosine, &base)?;
    let exact = ExactIndex::new(&set)?;
    let t = Instant::now();
    let truth = exact.search_batch(&queries, K, None)?;
    let exact_s = t.elapsed().as_secs_f64();
    println!(
        "exact ground truth: {:.0} queries/s on {} threads",
        o.queries as f64 / exact_s,
        rayon::current_num_threads()
    );
    let ids: Vec<f32> = truth.iter().flat_map(|hits| hits.iter().map(|h| h.node as f32)).collect();
    npy::write_f32(stem.with_extension("truth.npy"), K, &ids)?;
    let path = stem.with_extension("kvx");
    // With int8 codes, for `scripts/compare_ann.py`'s `kino-int8` (the float search ignores them).
    let params = HnswParams { m: 16, ef_construction: 200, codes: Codes::INT8 };
    if o.reuse && path.exists() {
        println!("build: reusing {}", path.display());
    } else {
        build(&set, &params, &path, o.n)?;
    }
    search_report(o, dim, &path, &queries, &truth)
}

fn build(set: &VectorSet, params: &HnswParams, path: &Path, n: usize) -> kino::Result<()> {
    let report = HnswIndex::build_to_file(set, params, path, |_| {})?;
    println!(
        "build: {:.1}s ({:.1}s inserting) on {} threads = {:.0} vectors/s, {:.0} vectors/s/core; {} layers; {} unreachable + {} not finding themselves repaired ({} links)",
        report.total_seconds,
        report.insert_seconds,
        report.threads,
        n as f64 / report.total_seconds,
        n as f64 / report.total_seconds / report.threads as f64,
        report.layers,
        report.unreachable_found,
        report.self_missed,
        report.links_added
    );
    Ok(())
}

fn search_report(
    o: &Options,
    dim: usize,
    path: &Path,
    queries: &[f32],
    truth: &[Vec<kino::vectors::Hit>],
) -> kino::Result<()> {
    let index = HnswIndex::open(path)?;
    println!("ef\trecall@{K}\tqps (1 thread)\tmean latency (us)");
    for ef in EFS {
        if ef == EFS[0] {
            // Warm up: fault in the pages the searches touch (the mapping is opened cold).
            for q in queries.chunks(dim) {
                index.search(q, K, 64)?;
            }
        }
        let t = Instant::now();
        let results: Vec<_> = queries.chunks(dim).map(|q| index.search(q, K, ef)).collect::<kino::Result<_>>()?;
        let s = t.elapsed().as_secs_f64();
        let found: usize = results
            .iter()
            .zip(truth)
            .map(|(r, t)| r.iter().filter(|h| t.iter().any(|x| x.node == h.node)).count())
            .sum();
        let recall = found as f64 / (o.queries * K) as f64;
        println!("{ef}\t{recall:.4}\t{:.0}\t{:.1}", o.queries as f64 / s, s * 1e6 / o.queries as f64);
    }
    Ok(())
}

fn open_and_bandwidth(o: &Options, n: usize, dim: usize) -> kino::Result<()> {
    println!("\n## open time and RSS: {n} x {dim}");
    let path = o.out.join(format!("clustered-{n}x{dim}.kvx"));
    if !path.exists() {
        let set = VectorSet::from_flat(dim, Metric::Cosine, &clustered(n, dim, 1000, SEED_BASE))?;
        // ef_construction 40 to keep the build short: it changes the edges chosen, not their number
        // (M = 16), so the file has the size of an ef_construction = 200 index.
        let t = Instant::now();
        let report = HnswIndex::build_to_file(
            &set,
            &HnswParams { m: 16, ef_construction: 40, ..HnswParams::default() },
            &path,
            |p| {
                if p.done % 100_000 == 0 {
                    eprintln!("  {:?} {}/{}", p.stage, p.done, p.total);
                }
            },
        )?;
        println!(
            "built in {:.0}s ({:.0} vectors/s/core at ef_construction 40), {} repaired",
            t.elapsed().as_secs_f64(),
            n as f64 / report.insert_seconds / report.threads as f64,
            report.unreachable_found
        );
    }
    let before = rss();
    let t = Instant::now();
    let index = HnswIndex::open(&path)?;
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    let after = rss();
    let file = index.file_len();
    println!(
        "open: {open_ms:.3} ms; RSS +{:.2} MiB after open = {:.4}% of the {:.0} MiB file",
        (after.saturating_sub(before)) as f64 / 1048576.0,
        after.saturating_sub(before) as f64 * 100.0 / file as f64,
        file as f64 / 1048576.0
    );
    let queries = clustered(200, dim, 1000, SEED_QUERIES);
    let t = Instant::now();
    for q in queries.chunks(dim) {
        index.search(q, K, 64)?;
    }
    println!(
        "after 200 searches at ef 64 ({:.0} qps, pages read on first touch): RSS +{:.1} MiB",
        200.0 / t.elapsed().as_secs_f64(),
        rss().saturating_sub(before) as f64 / 1048576.0
    );
    drop(index);
    bandwidth(&path, dim)
}

/// Exact search over the mapped vectors against a plain parallel sum of the same bytes.
fn bandwidth(path: &Path, dim: usize) -> kino::Result<()> {
    let exact = ExactIndex::open(path)?;
    let bytes = (exact.len() * dim * 4) as f64;
    let query = clustered(1, dim, 1000, 99);
    let flat: Vec<&[f32]> = (0..exact.len() as u32).filter_map(|n| exact.vector(n)).collect();
    // The plain scan: read every vector once, summing their bits as integers (which the compiler
    // vectorises, unlike an ordered float sum), on the same rayon threads as the exact search.
    let scan = || {
        flat.par_iter()
            .map(|v| v.iter().fold(0u32, |acc, x| acc.wrapping_add(x.to_bits())))
            .reduce(|| 0, u32::wrapping_add)
    };
    std::hint::black_box(scan());
    std::hint::black_box(exact.search(&query, K)?);
    let reps = 5;
    let t = Instant::now();
    for _ in 0..reps {
        std::hint::black_box(scan());
    }
    let scan_gbs = bytes * reps as f64 / t.elapsed().as_secs_f64() / 1e9;
    let t = Instant::now();
    for _ in 0..reps {
        std::hint::black_box(exact.search(&query, K)?);
    }
    let exact_gbs = bytes * reps as f64 / t.elapsed().as_secs_f64() / 1e9;
    println!(
        "exact search: {exact_gbs:.2} GB/s vs plain memory scan {scan_gbs:.2} GB/s ({:.0}%), {} threads, {:.0} MiB of vectors",
        exact_gbs * 100.0 / scan_gbs,
        rayon::current_num_threads(),
        bytes / 1048576.0
    );
    Ok(())
}
