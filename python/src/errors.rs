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

use pyo3::exceptions::{PyOSError, PyValueError};
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
