//! `kino analyze` (a video into a signals document, with a progress bar on a terminal) and
//! `kino render clip|vertical|thumbnail` (ffmpeg through kino-media).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use kino::Signals;
use kino_media::render::{self, RenderOptions, SubjectTrack};
use kino_media::{AnalysisModels, AnalyzeOptions, OutputFile, analyze_interruptible, embed};
use kino_models::ModelsDir;

use crate::interrupt;

type CliResult = Result<(), Box<dyn std::error::Error>>;

/// Arguments of `kino analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The video file.
    video: PathBuf,
    /// Write the document here (`.json`: JSON, anything else: binary); stdout (JSON) when absent.
    /// Checked before the analysis starts; written whole or not at all.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Sidecar signals document with the learned channels (default: `<video>.signals.json` when present).
    #[arg(long)]
    sidecar: Option<PathBuf>,
    /// Seconds between timeline samples.
    #[arg(long, default_value_t = 1.0)]
    step: f64,
    /// The document's inventory_id (default: the file stem).
    #[arg(long)]
    id: Option<String>,
    /// ffmpeg decoder threads (0: ffmpeg's choice).
    #[arg(long, default_value_t = 0)]
    threads: u32,
    /// Models directory (default: $KINO_MODELS, else ~/.cache/kino/models). Missing models leave
    /// their channels absent, with the reason in `analysis.reasons`.
    #[arg(long, conflicts_with = "no_models")]
    models_dir: Option<PathBuf>,
    /// Analyse without any pretrained model (spectral speech detector, no embeddings or sound
    /// events).
    #[arg(long)]
    no_models: bool,
    /// The item's catalog entry (JSON, as the service ingests it): its title, genres, keywords
    /// and description join the content in the item embedding.
    #[arg(long)]
    metadata: Option<PathBuf>,
    /// How the best moments (`timelines.relevance`) are found: `affect` (from every channel's
    /// affect, the default) or `activity` (the earlier rule: loudness, motion and cut rate),
    /// kept to compare the two.
    #[arg(long, value_enum, default_value_t = RelevanceArg::Affect)]
    relevance: RelevanceArg,
}

/// `--relevance` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RelevanceArg {
    Affect,
    Activity,
}

/// `kino render` subcommands.
#[derive(Debug, Subcommand)]
pub enum RenderCommand {
    /// Cut [start, stop) into an MP4 (stream copy on keyframes, else libx264 + AAC).
    Clip(ClipArgs),
    /// Cut [start, stop) into a 9:16 MP4 following the `vertical` track of a signals document.
    Vertical {
        #[command(flatten)]
        clip: ClipArgs,
        /// The video's signals document (with a `vertical` object).
        #[arg(long)]
        signals: PathBuf,
    },
    /// Write a JPEG of one frame: at --time, or the best frame of [--start, --stop] by --signals.
    Thumbnail(ThumbnailArgs),
}

/// A span of a video and where to write it.
#[derive(Debug, Args)]
pub struct ClipArgs {
    /// The video file.
    video: PathBuf,
    /// Start, seconds.
    #[arg(long)]
    start: f64,
    /// Stop, seconds.
    #[arg(long)]
    stop: f64,
    /// Output MP4.
    #[arg(long, short)]
    out: PathBuf,
}

/// Arguments of `kino render thumbnail`.
#[derive(Debug, Args)]
pub struct ThumbnailArgs {
    /// The video file.
    video: PathBuf,
    /// Output JPEG.
    #[arg(long, short)]
    out: PathBuf,
    /// Width in pixels (even).
    #[arg(long, default_value_t = 640)]
    width: u32,
    /// The frame's time, seconds.
    #[arg(long, conflicts_with = "signals")]
    time: Option<f64>,
    /// Choose the frame with the documented rule from this signals document...
    #[arg(long, requires_all = ["start", "stop"])]
    signals: Option<PathBuf>,
    /// ...inside [start, stop].
    #[arg(long)]
    start: Option<f64>,
    /// End of the span.
    #[arg(long)]
    stop: Option<f64>,
}

/// Runs `kino analyze`.
pub fn run_analyze(args: AnalyzeArgs) -> CliResult {
    // Before any analysis: an output that cannot be written fails now, not after the work.
    let output = args.out.as_deref().map(OutputFile::create).transpose()?;
    let item_text = match &args.metadata {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read --metadata {}: {e}", path.display()))?;
            let item: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| format!("--metadata {}: not JSON ({e})", path.display()))?;
            if !item.is_object() {
                return Err(format!("--metadata {}: must be a JSON object (a catalog item)", path.display()).into());
            }
            Some(embed::item_text_from_catalog(&item).ok_or_else(|| {
                format!("--metadata {}: has no title, genres, keywords or description to embed", path.display())
            })?)
        }
        None => None,
    };
    let options = AnalyzeOptions {
        inventory_id: args.id,
        step: args.step,
        sidecar: args.sidecar.map_or(kino_media::Sidecar::Discover, kino_media::Sidecar::File),
        threads: args.threads,
        item_text,
        relevance: match args.relevance {
            RelevanceArg::Affect => kino_media::Relevance::Affect,
            RelevanceArg::Activity => kino_media::Relevance::Activity,
        },
        ..AnalyzeOptions::default()
    };
    let models = if args.no_models {
        AnalysisModels::none()
    } else {
        AnalysisModels::load(&ModelsDir::resolve(args.models_dir.as_deref())?, 1)
    };
    report_models(&models, args.no_models);
    let terminal = std::io::stderr().is_terminal();
    let bar = if terminal {
        ProgressBar::new(0).with_style(
            ProgressStyle::with_template("{spinner} analysing [{bar:40}] {pos}/{len} s ({eta} left)")
                .expect("valid template")
                .progress_chars("=> "),
        )
    } else {
        ProgressBar::hidden()
    };
    let started = Instant::now();
    let mut announced = terminal;
    let progress = |done: f64, total: f64| {
        if !announced {
            // Without a terminal (logs, pipes) one line says the analysis is under way.
            eprintln!("analysing {} ({total:.1} s of video)", args.video.display());
            announced = true;
        }
        bar.set_length(total.ceil() as u64);
        bar.set_position(done.floor() as u64);
    };
    let doc = analyze_interruptible(&args.video, &options, &models, progress, &interrupt::INTERRUPTED)?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "analysed {:.1} s of video in {seconds:.2} s ({:.1}x real time): {}, {}, {}",
        doc.duration,
        doc.duration / seconds.max(1e-9),
        shot_summary(doc.shots.len()),
        count(doc.scenes.len(), "scene", "scenes"),
        count(doc.speech.len(), "speech interval", "speech intervals"),
    );
    if let Some(v) = &doc.visual {
        let close = v.shot_types.iter().filter(|s| s.kind.ends_with("close_up")).count();
        let tags: Vec<&str> = v.tags.iter().map(|t| t.name.as_str()).take(8).collect();
        eprintln!(
            "the picture: {} frames labelled, {} close-up shots of {}, {}; seen: {}",
            v.frames.len(),
            close,
            v.shot_types.len(),
            count(v.cues.len(), "technical cue", "technical cues"),
            if tags.is_empty() { "nothing confidently".to_string() } else { tags.join(", ") }
        );
    }
    match output {
        Some(output) => {
            doc.save(output.path()).map_err(|e| format!("cannot write {}: {e}", output.target().display()))?;
            output.persist()?;
        }
        None => println!("{}", doc.to_json_pretty()),
    }
    Ok(())
}

/// Says on stderr which models the analysis uses and, for each missing one, why and how to fetch it.
fn report_models(models: &AnalysisModels, disabled: bool) {
    if disabled {
        eprintln!("models: none (--no-models): spectral speech detector, no embeddings or sound events");
        return;
    }
    let loaded = models.loaded();
    eprintln!("models: {}", if loaded.is_empty() { "none".to_string() } else { loaded.join(", ") });
    for state in models.states().iter().filter(|s| !s.loaded) {
        eprintln!("  missing {}: {}", state.label(), state.reason.as_deref().unwrap_or("not loaded"));
    }
}

/// `shots` in a signals document are the cuts between shots: n cuts make n + 1 shots.
fn shot_summary(cuts: usize) -> String {
    format!("{} ({})", count(cuts + 1, "shot", "shots"), count(cuts, "cut", "cuts"))
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Runs `kino render ...`.
pub fn run_render(command: RenderCommand) -> CliResult {
    let o = RenderOptions::default();
    match command {
        RenderCommand::Clip(c) => {
            let method = render::cut_clip(&c.video, c.start, c.stop, &c.out, &o)?;
            eprintln!("wrote {} ({method:?})", c.out.display());
        }
        RenderCommand::Vertical { clip: c, signals } => {
            let doc = Signals::load(&signals)?;
            let v = doc.vertical.as_ref().ok_or("the signals document has no `vertical` object")?;
            let track = SubjectTrack { step: v.step, x_center: &v.x_center, blackbars: v.blackbars };
            render::cut_vertical(&c.video, c.start, c.stop, track, &c.out, &o)?;
            eprintln!("wrote {}", c.out.display());
        }
        RenderCommand::Thumbnail(t) => {
            let time = match (t.time, &t.signals, t.start, t.stop) {
                (Some(time), _, _, _) => time,
                (None, Some(path), Some(start), Some(stop)) => render::best_frame(&Signals::load(path)?, start, stop),
                _ => return Err("give --time, or --signals with --start and --stop".into()),
            };
            let (w, h) = render::thumbnail(&t.video, time, &t.out, t.width)?;
            eprintln!("wrote {} ({w}x{h}, frame at {time:.3} s)", t.out.display());
        }
    }
    Ok(())
}
