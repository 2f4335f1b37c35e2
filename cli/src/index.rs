//! `kino index ...`: build an index from a `.npy` vectors file, signals documents or the demo
//! catalog (with a progress bar), print its header, search it, or measure recall and speed.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use kino::vectors::scenes::{best_scene_per_item, scene_set, search_scenes};
use kino::vectors::{
    BuildProgress, BuildStage, Codes, ExactIndex, HnswIndex, HnswParams, ItemKind, Metric, Precision, VectorIndex,
    VectorSet, npy,
};
use kino::{LexicalEncoder, Signals, TextEncoder};

/// Index subcommands.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Build an index file.
    Build(BuildArgs),
    /// Print an index file's header, optionally verifying its checksum.
    Info {
        /// The index file.
        index: PathBuf,
        /// Read the whole file and verify its checksum and structure.
        #[arg(long)]
        verify: bool,
    },
    /// Search an index with a text (scene indexes) or with the rows of a `.npy` file.
    Search(SearchArgs),
    /// Recall@k against exact search and single-thread queries/s, for several ef values.
    Bench(BenchArgs),
}

/// Arguments of `kino index build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Vectors to index: a 2-D float32 `.npy` file (ids are row numbers).
    #[arg(long, conflicts_with_all = ["demo", "signals"])]
    vectors: Option<PathBuf>,
    /// Index the scenes of N synthetic demo items instead (1024-d lexical scene embeddings).
    #[arg(long, conflicts_with = "signals")]
    demo: Option<usize>,
    /// Index the scenes of these signals documents (JSON or binary).
    #[arg(long, num_args = 1..)]
    signals: Vec<PathBuf>,
    /// The index file to write.
    #[arg(long, short)]
    out: PathBuf,
    /// Metric for `--vectors`: cosine, dot or l2.
    #[arg(long, default_value = "cosine")]
    metric: String,
    /// Links per node (twice as many on layer 0).
    #[arg(long, default_value_t = 16)]
    m: usize,
    /// Beam width while building.
    #[arg(long, default_value_t = 200)]
    ef_construction: usize,
    /// Write the vectors only (for exact search); no graph.
    #[arg(long)]
    exact: bool,
    /// Compressed copies of the vectors to store beside them: int8, binary, int8,binary or none
    /// (searches can then walk the graph over them with `--precision`).
    #[arg(long, default_value = "none", value_parser = Codes::parse)]
    codes: Codes,
}

/// Arguments of `kino index search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The index file.
    index: PathBuf,
    /// A text query (encoded with the lexical encoder; the index must be 1024-d scenes).
    #[arg(long, conflicts_with = "queries")]
    text: Option<String>,
    /// Query vectors: a 2-D float32 `.npy` file.
    #[arg(long)]
    queries: Option<PathBuf>,
    /// Results per query.
    #[arg(long, short, default_value_t = 10)]
    k: usize,
    /// Beam width.
    #[arg(long, default_value_t = 64)]
    ef: usize,
    /// Best scene per item.
    #[arg(long)]
    per_item: bool,
    /// Search exactly (brute force) even when the file holds a graph.
    #[arg(long)]
    exact: bool,
}

/// Arguments of `kino index bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The index file.
    index: PathBuf,
    /// Query vectors: a 2-D float32 `.npy` file.
    #[arg(long)]
    queries: PathBuf,
    /// Results per query.
    #[arg(long, short, default_value_t = 10)]
    k: usize,
    /// Beam widths to measure.
    #[arg(long, value_delimiter = ',', default_value = "16,32,64,128,256")]
    ef: Vec<usize>,
    /// Walk the graph with float, int8 or binary (codes the file must hold); the beam's
    /// candidates are re-ranked with the floats.
    #[arg(long, default_value = "float", value_parser = Precision::parse)]
    precision: Precision,
    /// With codes: how many of the beam's best to re-rank with the floats (0: all of the beam).
    #[arg(long, default_value_t = 0)]
    rerank: usize,
}

type CliResult = Result<(), Box<dyn std::error::Error>>;

/// Runs one index subcommand.
pub fn run(command: IndexCommand) -> CliResult {
    match command {
        IndexCommand::Build(args) => build(args),
        IndexCommand::Info { index, verify } => info(index, verify),
        IndexCommand::Search(args) => search(args),
        IndexCommand::Bench(args) => bench(args),
    }
}

fn demo_docs(n: usize) -> Vec<Signals> {
    (0..n)
        .map(|i| {
            let mut o =
                kino::synth::SynthOptions::new(&format!("demo-{i:05}"), 1200.0 + 60.0 * (i % 30) as f64, 1.0, i as u64);
            o.scene_embeddings = true;
            o.extras = false;
            kino::synth::generate(&o)
        })
        .collect()
}

fn demo_kind(doc: &Signals) -> ItemKind {
    if doc.inventory_id.bytes().last().is_some_and(|b| b % 3 == 0) { ItemKind::Episode } else { ItemKind::Movie }
}

fn build(args: BuildArgs) -> CliResult {
    let set = if let Some(path) = &args.vectors {
        let metric =
            Metric::parse(&args.metric).ok_or_else(|| format!("unknown metric {:?} (cosine, dot, l2)", args.metric))?;
        let (_, dim, values) = npy::read_f32(path)?;
        VectorSet::from_flat(dim, metric, &values)?
    } else if let Some(n) = args.demo {
        scene_set(&demo_docs(n), demo_kind)?
    } else if !args.signals.is_empty() {
        let docs = args.signals.iter().map(Signals::load).collect::<kino::Result<Vec<_>>>()?;
        scene_set(&docs, |_| ItemKind::Unspecified)?
    } else {
        return Err("give --vectors FILE.npy, --demo N or --signals FILES".into());
    };
    eprintln!("{} vectors of dimension {} ({})", set.len(), set.dim(), set.metric().as_str());
    let start = Instant::now();
    if args.exact {
        ExactIndex::write(&set, &args.out)?;
    } else {
        let bar = ProgressBar::new(set.len() as u64).with_style(
            ProgressStyle::default_bar()
                .template("{msg:>10} [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})")?
                .progress_chars("=> "),
        );
        let params = HnswParams { m: args.m, ef_construction: args.ef_construction, codes: args.codes };
        let report = HnswIndex::build_to_file(&set, &params, &args.out, |p: BuildProgress| {
            bar.set_message(match p.stage {
                BuildStage::Inserting => "inserting",
                BuildStage::Repairing => "repairing",
            });
            bar.set_position(p.done as u64);
        })?;
        bar.finish_and_clear();
        eprintln!(
            "built {} layers in {:.1}s on {} threads ({:.0} vectors/s/core); {} unreachable and {} not finding themselves repaired with {} links",
            report.layers,
            report.total_seconds,
            report.threads,
            report.vectors as f64 / report.insert_seconds.max(1e-9) / report.threads as f64,
            report.unreachable_found,
            report.self_missed,
            report.links_added
        );
    }
    eprintln!("wrote {} in {:.1}s", args.out.display(), start.elapsed().as_secs_f64());
    Ok(())
}

fn info(path: PathBuf, verify: bool) -> CliResult {
    let exact = ExactIndex::open(&path)?;
    println!("file:    {}", path.display());
    println!("vectors: {} x {} ({})", exact.len(), exact.dim(), exact.metric().as_str());
    if let Ok(hnsw) = HnswIndex::open(&path) {
        let (params, links) = hnsw.params();
        println!("graph:   M = {}, ef_construction = {}, repair links = {links}", params.m, params.ef_construction);
        println!("codes:   {} (format version {})", hnsw.codes(), hnsw.format_version());
    } else {
        println!("graph:   none (exact search only)");
    }
    if verify {
        exact.verify()?;
        println!("verify:  ok");
    }
    Ok(())
}

fn open_any(path: &PathBuf, exact: bool, ef: usize) -> Result<Box<dyn VectorIndex>, Box<dyn std::error::Error>> {
    Ok(if exact { Box::new(ExactIndex::open(path)?) } else { kino::vectors::open(path, ef)? })
}

fn search(args: SearchArgs) -> CliResult {
    let index = open_any(&args.index, args.exact, args.ef)?;
    let queries: Vec<Vec<f32>> = if let Some(text) = &args.text {
        vec![LexicalEncoder::with_dim(index.dim()).encode(text)?]
    } else if let Some(path) = &args.queries {
        let (_, dim, values) = npy::read_f32(path)?;
        values.chunks(dim).map(<[f32]>::to_vec).collect()
    } else {
        return Err("give --text or --queries".into());
    };
    for (qi, query) in queries.iter().enumerate() {
        let hits = if args.per_item {
            best_scene_per_item(index.as_ref(), query, args.k, None)?
        } else {
            search_scenes(index.as_ref(), query, args.k, None)?
        };
        for hit in hits {
            println!("{qi}\t{}\t{:.3}\t{:.3}\t{:.4}", hit.item_id, hit.start_ts, hit.end_ts, hit.score);
        }
    }
    Ok(())
}

fn bench(args: BenchArgs) -> CliResult {
    let hnsw = HnswIndex::open(&args.index)?.with_precision(args.precision)?.with_rerank(args.rerank);
    let exact = ExactIndex::open(&args.index)?;
    let (_, dim, queries) = npy::read_f32(&args.queries)?;
    let truth = exact.search_batch(&queries, args.k, None)?;
    // Warm up: fault in the pages the searches touch, so the first ef is not timed cold.
    for q in queries.chunks(dim) {
        hnsw.search(q, args.k, args.ef.first().copied().unwrap_or(64))?;
    }
    println!("ef\trecall@{}\tqps_1thread", args.k);
    for &ef in &args.ef {
        let start = Instant::now();
        let results = queries.chunks(dim).map(|q| hnsw.search(q, args.k, ef)).collect::<kino::Result<Vec<_>>>()?;
        let seconds = start.elapsed().as_secs_f64();
        let found: usize = results
            .iter()
            .zip(&truth)
            .map(|(r, t)| r.iter().filter(|h| t.iter().any(|x| x.node == h.node)).count())
            .sum();
        let n = truth.len().max(1);
        println!("{ef}\t{:.4}\t{:.0}", found as f64 / (n * args.k) as f64, n as f64 / seconds);
    }
    Ok(())
}
