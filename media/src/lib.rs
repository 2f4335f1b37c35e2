//! Media analysis and rendering for kino: turns a video file into a signals document
//! (`kino.signals/1`) and cuts clips, vertical clips and thumbnails. ffmpeg and ffprobe run as
//! subprocesses; the `kino` core stays free of media code.
//!
//! ```no_run
//! use kino_media::{AnalysisModels, AnalyzeOptions, analyze};
//!
//! // The models that were fetched (`kino models fetch`); a missing one leaves its channels absent.
//! let models = AnalysisModels::load(&kino_models::ModelsDir::resolve(None)?, 1);
//! let signals = analyze("movie.mp4", &AnalyzeOptions::default(), &models, |done, total| {
//!     eprintln!("{done:.0}/{total:.0} s");
//! })?;
//! let t = kino_media::render::best_frame(&signals, 10.0, 40.0);
//! kino_media::render::thumbnail("movie.mp4", t, "thumb.jpg", 640)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! How each detector works, its parameters and what is measured: `docs/media.md`.

pub mod affect;
mod analyze;
pub mod embed;
mod error;
pub mod example;
pub mod faces;
pub mod fingerprint;
pub mod frame;
mod models;
pub mod objects;
mod output;
pub mod picture;
pub mod picture_fingerprint;
mod probe;
pub mod relevance;
pub mod render;
pub mod scroll;
pub mod see;
pub mod shots;

mod sidecar;
pub mod sound;
pub mod speech;
mod spilled;
pub mod timeline;
mod tool;
mod vision;
pub mod voices;

pub use analyze::{
    AFFECT_CHANNELS, AnalyzeOptions, MEASURED_CHANNELS, PENDING_TRANSCRIPTION, Relevance, SPEECH_STAGE_CHANNELS,
    Sidecar, analyze, analyze_interruptible, analyze_staged, transcribe,
};
pub use error::{Error, Result};
pub use models::{AnalysisModels, ModelState};
pub use output::OutputFile;
pub use probe::{MediaInfo, keyframes, probe};
pub use sidecar::learned_channels;
pub use tool::MEDIA_FORMATS;
