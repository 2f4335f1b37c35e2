//! The one place where core errors become Python exceptions.
//!
//! | core error | Python exception |
//! |---|---|
//! | `InvalidQuery`, `MissingQueryEmbedding`, `WrongVectorDimension` | `InvalidQueryError(ValueError)`, with `.issues` |
//! | `InvalidSignals`, `SignalsJson`, `SignalsBinary` | `InvalidSignalsError(ValueError)` |
//! | `MissingSignal` | `MissingSignalError(ValueError)` |
//! | `IndexFile` (truncated, corrupted, foreign or wrong-version index file) | `OSError` |
//! | `InvalidArgument`, `EmptyText`, `InvalidVector`, `InvalidParameter`, `DuplicateId`, `UnknownId`, anything newer | `ValueError` |
//! | `Io` | `OSError` (the subclass Python picks from the errno, e.g. `FileNotFoundError`), with `.filename` |
//!
//! | media error (`kino_media::Error`, from `kino.analyze`) | Python exception |
//! |---|---|
//! | `MissingMedia` | `FileNotFoundError`, with `.filename` |
//! | `ToolNotFound` (no ffmpeg or ffprobe on `PATH`), `ToolFailed`, `Probe`, `Interrupted`, `InvalidOutput` | `MediaError(OSError)`, with `.filename` when a file is at fault |
//! | `Model` (a loaded model failed while analysing) | `ModelError(OSError)` |
//! | `Sidecar` | `InvalidSignalsError` |
//! | `InvalidArgument`, anything newer | `ValueError` |
//! | `Io` | `OSError` from the errno, with `.filename` |
//!
//! | model error (`kino_models::Error`) | Python exception |
//! |---|---|
//! | every variant (a model not fetched, a runtime that does not load, inference failing) | `ModelError(OSError)` |

use std::path::Path;

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::convert::json_to_py;

pyo3::create_exception!(
    kino,
    InvalidQueryError,
    PyValueError,
    "A clip-search parameter broke a rule. `issues` lists every problem as a dict with `loc`, `msg`, `type` (the service's 422 body)."
);
pyo3::create_exception!(
    kino,
    InvalidSignalsError,
    PyValueError,
    "A signals document is malformed or breaks a rule of signals.md; the message names the field and the rule."
);
pyo3::create_exception!(
    kino,
    MissingSignalError,
    PyValueError,
    "The request needs a part of the signals document (e.g. `emotions`) that this item lacks."
);

pyo3::create_exception!(
    kino,
    MediaError,
    PyOSError,
    "Media analysis failed: ffmpeg or ffprobe is missing or failed on the file, the file is not usable media, or the work was interrupted. The message names the file and the rule; `filename` is the file when one is at fault."
);
pyo3::create_exception!(
    kino,
    ModelError,
    PyOSError,
    "A pretrained model is not available (not fetched: the message names it and says to run `kino models fetch`) or failed while running."
);

/// Converts a core error into the matching Python exception (see the module table).
pub fn to_py_err(py: Python<'_>, e: kino::Error) -> PyErr {
    let message = e.to_string();
    match e {
        kino::Error::InvalidQuery { issues } => {
            let err = InvalidQueryError::new_err(message);
            let detail: Vec<serde_json::Value> = issues
                .iter()
                .map(|i| serde_json::json!({"loc": ["query", i.param], "msg": i.message, "type": i.kind.as_str()}))
                .collect();
            attach(py, &err, "issues", &serde_json::Value::Array(detail));
            err
        }
        kino::Error::MissingQueryEmbedding | kino::Error::WrongVectorDimension { .. } => {
            let err = InvalidQueryError::new_err(message);
            attach(py, &err, "issues", &serde_json::json!([]));
            err
        }
        kino::Error::InvalidSignals { .. } | kino::Error::SignalsJson { .. } | kino::Error::SignalsBinary { .. } => {
            InvalidSignalsError::new_err(message)
        }
        kino::Error::MissingSignal { .. } => MissingSignalError::new_err(message),
        kino::Error::Io { path, source } => {
            let errno = source.raw_os_error().unwrap_or(0);
            PyOSError::new_err((errno, source.to_string(), path.display().to_string()))
        }
        kino::Error::IndexFile { .. } => PyOSError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// Converts a media-analysis error into the matching Python exception (see the module table).
pub fn media_err(py: Python<'_>, e: kino_media::Error) -> PyErr {
    let message = e.to_string();
    let with_file = |err: PyErr, path: &Path| {
        let _ = err.value(py).setattr("filename", path.display().to_string());
        err
    };
    match e {
        kino_media::Error::MissingMedia { path } => {
            PyFileNotFoundError::new_err((ENOENT, message, path.display().to_string()))
        }
        kino_media::Error::ToolNotFound { .. } => MediaError::new_err(message),
        kino_media::Error::ToolFailed { path, .. }
        | kino_media::Error::Probe { path, .. }
        | kino_media::Error::Interrupted { path, .. }
        | kino_media::Error::InvalidOutput { path, .. } => with_file(MediaError::new_err(message), &path),
        kino_media::Error::Model { path, .. } => with_file(ModelError::new_err(message), &path),
        kino_media::Error::Sidecar { path, .. } => with_file(InvalidSignalsError::new_err(message), &path),
        kino_media::Error::Io { path, source } => {
            let errno = source.raw_os_error().unwrap_or(0);
            PyOSError::new_err((errno, source.to_string(), path.display().to_string()))
        }
        _ => PyValueError::new_err(message),
    }
}

/// Converts a model error into `ModelError`.
pub fn model_err(e: kino_models::Error) -> PyErr {
    ModelError::new_err(e.to_string())
}

/// `ENOENT` (2 on Linux, macOS and in the Windows C runtime): Python picks `FileNotFoundError`
/// for it.
const ENOENT: i32 = 2;

/// Sets an attribute on the exception instance; an exception value always accepts attributes.
fn attach(py: Python<'_>, err: &PyErr, name: &str, value: &serde_json::Value) {
    if let Ok(value) = json_to_py(py, value) {
        let _ = err.value(py).setattr(name, value);
    }
}

/// Registers the exception classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidQueryError", py.get_type::<InvalidQueryError>())?;
    m.add("InvalidSignalsError", py.get_type::<InvalidSignalsError>())?;
    m.add("MissingSignalError", py.get_type::<MissingSignalError>())?;
    m.add("MediaError", py.get_type::<MediaError>())?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    Ok(())
}

/// Extension for `Result<T, kino::Error>`: `.py_err(py)?` maps through [`to_py_err`].
pub trait IntoPyResult<T> {
    /// Maps the error into the matching Python exception.
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for kino::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py_err(py, e))
    }
}

/// `TypeError` for a keyword argument the function does not take, naming all of them.
pub fn unexpected_kwargs(function: &str, names: &[String]) -> PyErr {
    let list = names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
    pyo3::exceptions::PyTypeError::new_err(format!("{function}() got unexpected keyword argument(s): {list}"))
}
