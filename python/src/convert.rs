//! Values crossing into Python: serde results as dicts and lists, slices as numpy arrays.

use numpy::ndarray::ArrayView1;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::Serialize;
use serde_json::Value;

/// Builds the Python value of a JSON value: dicts, lists, str, int, float, bool, None.
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py)?,
            (None, Some(u)) => u.into_bound_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        Value::String(s) => s.into_bound_py_any(py)?,
        Value::Array(items) => {
            let items = items.iter().map(|x| json_to_py(py, x)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, x) in map {
                dict.set_item(k, json_to_py(py, x)?)?;
            }
            dict.into_any()
        }
    })
}

/// A serializable core result as Python objects, with the interface's field names as keys.
pub fn to_py<'py, T: Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_value(value)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("cannot convert result: {e}")))?;
    json_to_py(py, &json)
}

/// A read-only numpy view of `data`, kept alive by `owner` (no copy).
///
/// `owner` must be a frozen object that owns `data` and never changes or frees it while alive:
/// the array holds a reference to `owner`, so the memory outlives the array.
pub fn borrowed_array<'py>(data: &[f32], owner: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let view = ArrayView1::from(data);
    // SAFETY: `data` belongs to `owner`, a frozen pyclass whose buffers are never mutated or
    // reallocated after construction; the new array keeps `owner` alive through its base object,
    // and is marked read-only below so Python cannot write through it either.
    let array = unsafe { PyArray1::borrow_from_array(&view, owner) };
    array.getattr("flags")?.setattr("writeable", false)?;
    Ok(array)
}

/// What an argument is, for error messages: `an array of dtype float64 and shape (3,)` or its type.
pub fn describe(obj: &Bound<'_, PyAny>) -> String {
    match (obj.getattr("dtype"), obj.getattr("shape")) {
        (Ok(dtype), Ok(shape)) => format!("an array of dtype {dtype} and shape {shape}"),
        _ => obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into()),
    }
}

/// A 1-D float32 numpy array argument, or a `TypeError` that says what was expected.
pub fn float32_vector<'a, 'py>(name: &str, obj: &'a Bound<'py, PyAny>) -> PyResult<PyReadonlyArray1<'py, f32>> {
    obj.extract::<PyReadonlyArray1<'py, f32>>().map_err(|_| {
        let got = describe(obj);
        PyTypeError::new_err(format!(
            "{name} must be a 1-D numpy array of float32 (e.g. np.asarray(x, dtype=np.float32)), got {got}"
        ))
    })
}

/// The contiguous data of a float32 vector (copied only when the array is strided).
pub fn vector_data<'a>(array: &'a PyReadonlyArray1<'_, f32>) -> std::borrow::Cow<'a, [f32]> {
    match array.as_slice() {
        Ok(slice) => std::borrow::Cow::Borrowed(slice),
        Err(_) => std::borrow::Cow::Owned(array.as_array().iter().copied().collect()),
    }
}
