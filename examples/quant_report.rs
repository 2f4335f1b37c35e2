//! Quantised search report: recall@10, single-thread queries/s and the resident memory of the
//! mapped index file when the graph is walked over the float vectors, the int8 codes or the binary
//! codes (the beam's candidates re-ranked with the floats), on seeded clustered unit vectors.
//!
//! ```text
//! cargo run --release --example quant_report -- --n 1000000 --dim 1024 --out bench-data
//! cargo run --release --example quant_report -- --n 1000000 --dim 1024 --out bench-data --reuse
//! cargo run --release --example quant_report -- --n 1000000 --dim 1024 --out bench-data --reuse \
//!     --ef 512,1024 --precision float,int8
//! cargo run --release --example quant_report -- --n 20000 --dim 256 --out /tmp/q     # quick
//! ```
//!
//! Each (precision, ef) is measured in a fresh child process, so that the resident size of the
//! mapping (the `Rss` of its entry in `/proc/self/smaps`: the pages this process touched) counts
//! only what that search touched: the queries run twice, the second pass is timed, and the
//! resident size is read after it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use kino::vectors::{Codes, ExactIndex, HnswIndex, HnswParams, Metric, Precision, VectorSet, clustered};

const K: usize = 10;
const SEED_BASE: u64 = 1;
const SEED_QUERIES: u64 = 2;
const CLUSTERS: usize = 100;

struct Options {
    n: usize,
    dim: usize,
    queries: usize,
    ef_construction: usize,
    out: PathBuf,
    reuse: bool,
    efs: Vec<usize>,
    precisions: Vec<Precision>,
    child: Option<(Precision, usize, usize)>,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let number = |name: &str, default: usize| value(name).and_then(|v| v.parse().ok()).unwrap_or(default);
    let child = value("--child").map(|spec| {
        let parts: Vec<&str> = spec.split(':').collect();
        let precision = Precision::parse(parts[0]).expect("precision");
        (precision, parts[1].parse().expect("ef"), parts[2].parse().expect("rerank"))
    });
    Options {
        n: number("--n", 1_000_000),
        dim: number("--dim", 1024),
        queries: number("--queries", 1000),
        ef_construction: number("--ef-construction", 100),
        out: PathBuf::from(value("--out").unwrap_or_else(|| "bench-data".into())),
        reuse: args.iter().any(|a| a == "--reuse"),
        efs: value("--ef")
            .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
            .unwrap_or_else(|| vec![32, 64, 128, 256]),
        precisions: value("--precision")
            .map(|v| v.split(',').filter_map(|p| Precision::parse(p).ok()).collect())
            .unwrap_or_else(|| vec![Precision::Float, Precision::Int8, Precision::Binary]),
        child,
    }
}

fn paths(o: &Options) -> (PathBuf, PathBuf) {
    let stem = format!("quant-{}x{}", o.n, o.dim);
    (o.out.join(format!("{stem}.kvx")), o.out.join(format!("{stem}-truth.u32")))
}

fn queries(o: &Options) -> Vec<f32> {
    clustered(o.queries, o.dim, CLUSTERS, SEED_QUERIES)
}

/// Resident bytes of this process's mapping of `path` (sum of `Rss` over its smaps entries).
fn mapped_rss(path: &Path) -> u64 {
    let name = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = name.to_string_lossy().to_string();
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let (mut inside, mut total) = (false, 0u64);
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            inside = line.ends_with(&name);
        } else if inside && let Some(kb) = line.strip_prefix("Rss:") {
            total += kb.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap_or(0) * 1024;
        }
    }
    total
}

/// Asks the kernel to drop the file's (clean, unmapped) pages from the page cache, so that the
/// child's searches read what they touch from the disk a page at a time (the mapping is
/// `MADV_RANDOM`: no read-ahead), and its resident size counts 4 KiB pages, not the large folios
/// that writing the file left in the cache.
fn drop_from_page_cache(path: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path)?;
    // SAFETY: a valid open descriptor; posix_fadvise only gives the kernel advice.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 { Err(std::io::Error::from_raw_os_error(rc)) } else { Ok(()) }
}

fn build(o: &Options, path: &Path, truth: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(&o.out)?;
    if !(o.reuse && path.exists()) {
        eprintln!("generating {} x {} clustered vectors", o.n, o.dim);
        let set = {
            let flat = clustered(o.n, o.dim, CLUSTERS, SEED_BASE);
            VectorSet::from_flat(o.dim, Metric::Cosine, &flat)?
        };
        let params = HnswParams { m: 16, ef_construction: o.ef_construction, codes: Codes::ALL };
        let start = Instant::now();
        let report = HnswIndex::build_to_file(&set, &params, path, |p| {
            if p.done % 100_000 == 0 {
                eprintln!("  {:?} {}/{}", p.stage, p.done, p.total);
            }
        })?;
        println!(
            "built M 16, ef_construction {} on {} threads: {:.0} s ({:.0} vectors/s), file written after {:.0} s",
            o.ef_construction,
            report.threads,
            report.total_seconds,
            o.n as f64 / report.total_seconds,
            start.elapsed().as_secs_f64()
        );
    }
    if !(o.reuse && truth.exists()) {
        eprintln!("exact ground truth for {} queries", o.queries);
        let exact = ExactIndex::open(path)?;
        let start = Instant::now();
        let hits = exact.search_batch(&queries(o), K, None)?;
        let mut bytes = Vec::with_capacity(o.queries * K * 4);
        for row in &hits {
            for h in row {
                bytes.extend_from_slice(&h.node.to_le_bytes());
            }
        }
        std::fs::write(truth, bytes)?;
        eprintln!("  {:.0} s", start.elapsed().as_secs_f64());
    }
    Ok(())
}

/// One measurement, in this (fresh) process: prints `precision ef rerank recall qps rss_bytes`.
fn child(
    o: &Options,
    path: &Path,
    truth: &Path,
    (precision, ef, rerank): (Precision, usize, usize),
) -> Result<(), Box<dyn std::error::Error>> {
    drop_from_page_cache(path)?;
    let index = HnswIndex::open(path)?.with_precision(precision)?.with_rerank(rerank);
    let truth: Vec<u32> =
        std::fs::read(truth)?.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let qs = queries(o);
    let start = Instant::now();
    for q in qs.chunks(o.dim) {
        index.search(q, K, ef)?;
    }
    let cold = o.queries as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut found = 0;
    for (i, q) in qs.chunks(o.dim).enumerate() {
        let want = &truth[i * K..(i + 1) * K];
        found += index.search(q, K, ef)?.iter().filter(|h| want.contains(&h.node)).count();
    }
    let qps = o.queries as f64 / start.elapsed().as_secs_f64();
    let recall = found as f64 / (o.queries * K) as f64;
    println!("{precision}\t{ef}\t{rerank}\t{recall:.4}\t{qps:.0}\t{}\t{cold:.0}", mapped_rss(path));
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let o = options();
    let (path, truth) = paths(&o);
    if let Some(spec) = o.child {
        return child(&o, &path, &truth, spec);
    }
    build(&o, &path, &truth)?;
    let index = HnswIndex::open(&path)?;
    let file = index.file_len() as f64;
    let float_bytes = (o.n * o.dim * 4) as f64;
    let int8_bytes = (o.n * o.dim) as f64;
    let binary_bytes = (o.n * o.dim.div_ceil(8)) as f64;
    let float_index = file - int8_bytes - binary_bytes;
    let mib = |b: f64| b / (1u64 << 20) as f64;
    println!(
        "{} x {}: file {:.0} MiB = floats {:.0} + int8 codes {:.0} + binary codes {:.0} + graph, ids and the rest {:.0}",
        o.n,
        o.dim,
        mib(file),
        mib(float_bytes),
        mib(int8_bytes),
        mib(binary_bytes),
        mib(file - float_bytes - int8_bytes - binary_bytes)
    );
    println!("float index (the file without codes): {:.0} MiB", mib(float_index));
    println!(
        "\nprecision | ef | re-ranked | recall@10 | QPS (1 thread) | first pass QPS (from disk) | resident after 2 x {} queries | of the float index",
        o.queries
    );
    println!("---|---|---|---|---|---|---|---");
    let me = std::env::current_exe()?;
    for &precision in &o.precisions {
        for &ef in &o.efs {
            // Re-ranking only the beam's best 20 holds the recall with int8 estimates; Hamming
            // distances are too coarse for it (0.31 at 20k x 256), so binary re-ranks the beam.
            let reranks: &[usize] = if precision == Precision::Int8 { &[0, 20] } else { &[0] };
            for &rerank in reranks {
                let out = Command::new(&me)
                    .args(["--n", &o.n.to_string(), "--dim", &o.dim.to_string(), "--queries", &o.queries.to_string()])
                    .args(["--out", &o.out.to_string_lossy()])
                    .args(["--child", &format!("{precision}:{ef}:{rerank}")])
                    .output()?;
                let text = String::from_utf8_lossy(&out.stdout);
                let cols: Vec<&str> = text.trim().split('\t').collect();
                if cols.len() != 7 {
                    eprintln!("child failed: {text} {}", String::from_utf8_lossy(&out.stderr));
                    continue;
                }
                let rss: f64 = cols[5].parse().unwrap_or(0.0);
                let shown = if rerank == 0 { ef.to_string() } else { rerank.to_string() };
                println!(
                    "{} | {} | {} | {} | {} | {} | {:.0} MiB | {:.1}%",
                    cols[0],
                    ef,
                    if precision == Precision::Float { "-".to_string() } else { shown },
                    cols[3],
                    cols[4],
                    cols[6],
                    mib(rss),
                    100.0 * rss / float_index
                );
            }
        }
    }
    Ok(())
}
