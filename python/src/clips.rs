//! `kino.select_clips`, `kino.select_many`, `kino.clip_types`: the previews endpoint in Python.
//!
//! Keyword arguments are turned into the strings a query string would carry and parsed by
//! `ClipQuery::from_pairs`, the parser the service uses, so every rule and message is the same.

use std::borrow::Cow;

use kino::{ClipQuery, LexicalEncoder, Prepared, TextEncoder};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::convert::{float32_vector, to_py, vector_data};
use crate::errors::{IntoPyResult, unexpected_kwargs};
use crate::signals::PySignals;

/// The query-string form of one keyword argument; `None` when the value is `None` (not given).
fn param_string(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if value.is_none() {
        return Ok(None);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(Some(value.extract::<bool>()?.to_string()));
    }
    if value.is_instance_of::<PyString>() || value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
        return Ok(Some(value.str()?.to_string()));
    }
    if value.extract::<f64>().is_ok() {
        // numpy scalars and other numbers: their str() is the query-string form.
        return Ok(Some(value.str()?.to_string()));
    }
    if name == "character_list"
        && let Ok(ranks) = value.extract::<Vec<i64>>()
    {
        return Ok(Some(ranks.iter().map(i64::to_string).collect::<Vec<_>>().join(",")));
    }
    if name == "shot_type"
        && let Ok(kinds) = value.extract::<Vec<String>>()
    {
        return Ok(Some(kinds.join(",")));
    }
    let kind = value.get_type().name()?.to_string();
    let list = match name {
        "character_list" => ", or a list of ints",
        "shot_type" => ", or a list of strs",
        _ => "",
    };
    Err(PyTypeError::new_err(format!("{name} must be a str, int, float or bool{list} (got {kind})")))
}

/// Parses keyword arguments into a query, rejecting names the endpoint does not have.
fn parse_query(py: Python<'_>, function: &str, params: &Option<Bound<'_, PyDict>>) -> PyResult<ClipQuery> {
    ClipQuery::from_pairs(query_pairs(function, params, &[])?).py_err(py)
}

/// The query-string pairs of keyword arguments: the clip search's parameters and `extra` names.
fn query_pairs(function: &str, params: &Option<Bound<'_, PyDict>>, extra: &[&str]) -> PyResult<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    let mut unknown = Vec::new();
    if let Some(params) = params {
        for (key, value) in params.iter() {
            let key: String = key.extract()?;
            if !ClipQuery::PARAMETERS.contains(&key.as_str()) && !extra.contains(&key.as_str()) {
                unknown.push(key);
                continue;
            }
            if let Some(v) = param_string(&key, &value)? {
                pairs.push((key, v));
            }
        }
    }
    if !unknown.is_empty() {
        return Err(unexpected_kwargs(function, &unknown));
    }
    Ok(pairs)
}

/// The query embedding: the given array, or the default encoder's embedding of `search_query`.
fn query_embedding<'a>(
    py: Python<'_>,
    query: &ClipQuery,
    given: Option<&'a numpy::PyReadonlyArray1<'_, f32>>,
) -> PyResult<Option<Cow<'a, [f32]>>> {
    match (given, &query.search_query) {
        (Some(array), _) => Ok(Some(vector_data(array))),
        (None, Some(text)) => {
            let encoded = py.detach(|| LexicalEncoder::default().encode(text)).py_err(py)?;
            Ok(Some(Cow::Owned(encoded)))
        }
        (None, None) => Ok(None),
    }
}

/// Selects preview clips for one item, as `GET /results/jitpreviews/v2/{inventory_id}` does.
///
/// Every parameter of the endpoint is a keyword argument under its interface name
/// (`number_of_top_candidates=3`, `clip_type="Exciting"`, `max_nudity=0.2`, `character_list=[0, 2]`);
/// `None` means "not given". Returns one dict per clip with the interface's field names.
/// `query_embedding` (1024 float32) goes with `search_query`; without it the `search_query` is
/// encoded with the default `TextEncoder`. Raises `InvalidQueryError` (a `ValueError`) with the
/// service's messages, `TypeError` for an unknown keyword.
#[pyfunction]
#[pyo3(signature = (signals, query_embedding=None, **params))]
pub fn select_clips<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    query_embedding: Option<Bound<'py, PyAny>>,
    params: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let query = parse_query(py, "select_clips", &params)?;
    let array = query_embedding.as_ref().map(|e| float32_vector("query_embedding", e)).transpose()?;
    let embedding = self::query_embedding(py, &query, array.as_ref())?;
    let prepared = &signals.prepared;
    let clips = py.detach(|| kino::select(prepared, &query, embedding.as_deref())).py_err(py)?;
    to_py(py, &clips)
}

/// `select_clips` over many items in parallel (the GIL released); one list of clips per item.
/// The first item that fails raises its error.
#[pyfunction]
#[pyo3(signature = (items, query_embedding=None, **params))]
pub fn select_many<'py>(
    py: Python<'py>,
    items: Vec<PyRef<'py, PySignals>>,
    query_embedding: Option<Bound<'py, PyAny>>,
    params: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let query = parse_query(py, "select_many", &params)?;
    let array = query_embedding.as_ref().map(|e| float32_vector("query_embedding", e)).transpose()?;
    let embedding = self::query_embedding(py, &query, array.as_ref())?;
    let prepared: Vec<&Prepared> = items.iter().map(|s| &s.prepared).collect();
    let results = py.detach(|| kino::select_many(&prepared, &query, embedding.as_deref()));
    let out = PyList::empty(py);
    for result in results {
        out.append(to_py(py, &result.py_err(py)?)?)?;
    }
    Ok(out.into_any())
}

/// Thumbnails of one item, as `GET /results/jitthumbnails/v2/{inventory_id}` does: the best
/// clips by the clip search's keyword arguments, then in each the frame the thumbnail rule chooses
/// (`shot_margin=0.5` seconds from every cut, `main_character=True`; the clip bounds narrow the
/// rule's brightness and safety thresholds where stricter). One dict per thumbnail: the clip it
/// was chosen in (`clip_index`, `clip_start_time`, `clip_stop_time`), the frame (`time`,
/// `frame`), its scores and the rules it had to relax (`relaxed`).
#[pyfunction]
#[pyo3(signature = (signals, query_embedding=None, **params))]
pub fn select_thumbnails<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    query_embedding: Option<Bound<'py, PyAny>>,
    params: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let extra = kino::thumbnail::ThumbnailQuery::PARAMETERS.map(|(name, _)| name);
    let pairs = query_pairs("select_thumbnails", &params, &extra)?;
    let query = kino::thumbnail::ThumbnailQuery::from_pairs(pairs).py_err(py)?;
    let array = query_embedding.as_ref().map(|e| float32_vector("query_embedding", e)).transpose()?;
    let embedding = self::query_embedding(py, &query.clips, array.as_ref())?;
    let prepared = &signals.prepared;
    let found = py.detach(|| kino::thumbnail::jit_thumbnails(prepared, &query, embedding.as_deref())).py_err(py)?;
    to_py(py, &found)
}

/// The clip types of a previews version (the newest when `None`):
/// `{"version": ..., "clip_types": [...]}`.
#[pyfunction]
#[pyo3(signature = (version=None))]
pub fn clip_types<'py>(py: Python<'py>, version: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let info = kino::clip_types_info(version).py_err(py)?;
    to_py(py, &info)
}
