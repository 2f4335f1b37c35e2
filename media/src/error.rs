//! The crate's one error type.

use std::path::PathBuf;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while analysing or rendering media. Every variant names the file
/// (or argument) at fault and the rule it broke; failures of ffmpeg carry the tail of its stderr.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input media file does not exist (or is not a file).
    #[error("media file {path} does not exist or is not a regular file")]
    MissingMedia {
        /// The path given.
        path: PathBuf,
    },
    /// ffmpeg or ffprobe is not installed (not found on `PATH`).
    #[error("`{tool}` was not found on PATH: install ffmpeg (e.g. `apt-get install ffmpeg`)")]
    ToolNotFound {
        /// `ffmpeg` or `ffprobe`.
        tool: &'static str,
    },
    /// ffmpeg or ffprobe ran and failed.
    #[error("{tool} failed on {path} ({status}): {stderr_tail}")]
    ToolFailed {
        /// `ffmpeg` or `ffprobe`.
        tool: &'static str,
        /// The media file it was working on.
        path: PathBuf,
        /// Its exit status, as text.
        status: String,
        /// The last lines of its standard error.
        stderr_tail: String,
    },
    /// The work was stopped by a signal (Ctrl-C, `kill`): ffmpeg or ffprobe was terminated by
    /// one (ffmpeg exits with status 255 after SIGINT or SIGTERM), or the caller's interrupt flag
    /// was set ([`crate::analyze_interruptible`]).
    #[error("interrupted while processing {path}{}", signal.map(|s| format!(" (signal {s})")).unwrap_or_default())]
    Interrupted {
        /// The media file being processed.
        path: PathBuf,
        /// The signal that terminated the tool, when it died of one.
        signal: Option<i32>,
    },
    /// An output path cannot be written (checked before any work is done).
    #[error("cannot write {path}: {rule}")]
    OutputPath {
        /// The output path given.
        path: PathBuf,
        /// What is wrong with it, e.g. "the directory out/ does not exist".
        rule: String,
    },
    /// ffprobe's description of a file lacks something analysis needs, or holds a bad value.
    #[error("unusable media {path}: `{field}` {rule}")]
    Probe {
        /// The media file.
        path: PathBuf,
        /// The ffprobe field at fault, e.g. `streams[0].avg_frame_rate`.
        field: String,
        /// The rule it broke.
        rule: String,
    },
    /// An argument is out of its range.
    #[error("invalid argument `{name}`: {rule}")]
    InvalidArgument {
        /// The argument's name, e.g. `start`.
        name: &'static str,
        /// The rule it broke.
        rule: String,
    },
    /// Reading or writing a file failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The sidecar signals document could not be read, or does not fit the video.
    #[error("sidecar signals {path}: {reason}")]
    Sidecar {
        /// The sidecar file.
        path: PathBuf,
        /// Why it was rejected (the core's validation message, or the mismatch).
        reason: String,
    },
    /// A pretrained model failed while analysing (it loaded, so this is not a missing model: those
    /// are reported in `analysis.absent` and do not fail the analysis).
    #[error("model failed on {path}: {source}")]
    Model {
        /// The media file analysed.
        path: PathBuf,
        /// The model's error, naming the model.
        source: kino_models::Error,
    },
    /// The document produced by analysis broke a rule of the core (a bug in this crate).
    #[error("analysis of {path} produced invalid signals: {source}")]
    InvalidOutput {
        /// The media file analysed.
        path: PathBuf,
        /// The core's validation error.
        source: kino::Error,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }

    pub(crate) fn argument(name: &'static str, rule: impl Into<String>) -> Error {
        Error::InvalidArgument { name, rule: rule.into() }
    }
}
