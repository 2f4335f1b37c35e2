//! Media analysis and rendering for kino: turns a video file into a signals document
//! (`kino.signals/1`) and cuts clips, vertical clips and thumbnails. ffmpeg and ffprobe run as
//! subprocesses; the `kino` core stays free of media code.
//!
//! ```no_run
//! use kino_media::{AnalyzeOptions, analyze};
//!
//! let signals = analyze("movie.mp4", &AnalyzeOptions::default(), |done, total| {
//!     eprintln!("{done:.0}/{total:.0} s");
//! })?;
//! let t = kino_media::render::best_frame(&signals, 10.0, 40.0);
//! kino_media::render::thumbnail("movie.mp4", t, "thumb.jpg", 640)?;
//! # Ok::<(), kino_media::Error>(())
//! ```
//!
//! How each detector works, its parameters and what is measured: `docs/media.md`.

mod analyze;
mod error;
pub mod frame;
mod output;
mod probe;
pub mod relevance;
pub mod render;
pub mod shots;
mod sidecar;
pub mod speech;
pub mod timeline;
mod tool;

pub use analyze::{AnalyzeOptions, MEASURED_CHANNELS, analyze, analyze_interruptible};
pub use error::{Error, Result};
pub use output::OutputFile;
pub use probe::{MediaInfo, keyframes, probe};
pub use sidecar::learned_channels;
