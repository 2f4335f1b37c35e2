//! `kino`: command-line tools over the kino core. Today: building, inspecting and searching
//! vector indexes (`kino index build|info|search|bench`).

mod index;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Index(command) => index::run(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
