//! Vector search: `VectorIndex` (memory-mapped HNSW) and `exact_search`.

use std::borrow::Cow;
use std::path::PathBuf;

use kino::vectors::{
    AllOf, AllowList, Codes, ExactIndex, Exclude, Filter, Hit, HnswIndex, HnswParams, ItemKind, Metric, Precision,
    VectorIndex, VectorSet,
};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::errors::IntoPyResult;

/// A float32 matrix argument (`(n, d)`), or a 1-D vector taken as one row; says what was expected
/// otherwise. The data is borrowed when the array is C-contiguous.
pub(crate) struct Matrix<'py> {
    array: MatrixArray<'py>,
    pub(crate) rows: usize,
    pub(crate) dim: usize,
    one: bool,
}

enum MatrixArray<'py> {
    Two(PyReadonlyArray2<'py, f32>),
    One(numpy::PyReadonlyArray1<'py, f32>),
}

impl<'py> Matrix<'py> {
    pub(crate) fn extract(name: &str, obj: &Bound<'py, PyAny>, allow_1d: bool) -> PyResult<Matrix<'py>> {
        if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f32>>() {
            let [rows, dim] = [a.shape()[0], a.shape()[1]];
            return Ok(Matrix { array: MatrixArray::Two(a), rows, dim, one: false });
        }
        if allow_1d && let Ok(a) = obj.extract::<numpy::PyReadonlyArray1<'py, f32>>() {
            let dim = a.len();
            return Ok(Matrix { array: MatrixArray::One(a), rows: 1, dim, one: true });
        }
        let got = crate::convert::describe(obj);
        let shape = if allow_1d { "a (d,) or (m, d)" } else { "an (n, d)" };
        Err(PyTypeError::new_err(format!(
            "{name} must be {shape} numpy array of float32 (e.g. np.asarray(x, dtype=np.float32)), got {got}"
        )))
    }

    pub(crate) fn data(&self) -> Cow<'_, [f32]> {
        match &self.array {
            MatrixArray::Two(a) => match a.as_slice() {
                Ok(s) => Cow::Borrowed(s),
                Err(_) => Cow::Owned(a.as_array().iter().copied().collect()),
            },
            MatrixArray::One(a) => crate::convert::vector_data(a),
        }
    }
}

fn precision(name: &str) -> PyResult<Precision> {
    Precision::parse(name).map_err(|e| PyValueError::new_err(format!("precision: {e}")))
}

fn metric(name: &str) -> PyResult<Metric> {
    Metric::parse(name)
        .ok_or_else(|| PyValueError::new_err(format!("metric must be 'cosine', 'dot' or 'l2', got {name:?}")))
}

fn positive(name: &str, value: usize) -> PyResult<()> {
    if value == 0 { Err(PyValueError::new_err(format!("{name} must be >= 1, got 0"))) } else { Ok(()) }
}

/// Largest result matrix (queries x k) a call may ask for: 256 Mi entries.
const MAX_RESULTS: usize = 1 << 28;

fn bounded(queries: usize, k: usize) -> PyResult<()> {
    if queries.saturating_mul(k) > MAX_RESULTS {
        return Err(PyValueError::new_err(format!(
            "k ({k}) x queries ({queries}) must be at most {MAX_RESULTS} results"
        )));
    }
    Ok(())
}

/// Results as `(ids, scores)`: one query gives a list of ids and a `(len,)` array; many give a list
/// of lists and an `(m, k)` array padded with NaN (and the id lists are simply shorter).
fn shape_results<'py, T: IntoPyObject<'py> + Clone>(
    py: Python<'py>,
    one: bool,
    k: usize,
    rows: Vec<Vec<(T, f32)>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    if one {
        let row = rows.into_iter().next().unwrap_or_default();
        let ids = PyList::new(py, row.iter().map(|(id, _)| id.clone()))?;
        let scores = PyArray1::from_vec(py, row.iter().map(|(_, s)| *s).collect());
        return Ok((ids.into_any(), scores.into_any()));
    }
    let mut flat = vec![f32::NAN; rows.len() * k];
    for (r, row) in rows.iter().enumerate() {
        for (c, (_, s)) in row.iter().enumerate() {
            flat[r * k + c] = *s;
        }
    }
    let ids = PyList::empty(py);
    for row in &rows {
        ids.append(PyList::new(py, row.iter().map(|(id, _)| id.clone()))?)?;
    }
    let scores = PyArray1::from_vec(py, flat).reshape([rows.len(), k])?;
    Ok((ids.into_any(), scores.into_any()))
}

/// An approximate nearest-neighbour index (HNSW) over float32 vectors with string ids, stored in
/// one file that is memory-mapped on open (opening is instant whatever the size).
#[pyclass(name = "VectorIndex", module = "kino", frozen)]
#[derive(Debug)]
pub struct PyVectorIndex {
    inner: HnswIndex,
}

#[pymethods]
impl PyVectorIndex {
    /// Builds an index over the rows of `vectors` (float32, shape `(n, d)`), one string id per row.
    /// `metric`: `"cosine"` (vectors normalised on the way in), `"dot"` or `"l2"`. `codes`:
    /// compressed copies to store beside the floats, `"int8"`, `"binary"` or `"int8,binary"`;
    /// `precision`: what searches walk the graph with, `"float"` (default) or a stored code
    /// (the beam's candidates are then re-ranked with the floats).
    #[staticmethod]
    #[pyo3(signature = (vectors, ids, metric = "cosine", m = None, ef_construction = None, codes = "none", precision = "float"))]
    #[allow(clippy::too_many_arguments)]
    fn build(
        py: Python<'_>,
        vectors: &Bound<'_, PyAny>,
        ids: Vec<String>,
        metric: &str,
        m: Option<usize>,
        ef_construction: Option<usize>,
        codes: &str,
        precision: &str,
    ) -> PyResult<PyVectorIndex> {
        let metric = self::metric(metric)?;
        let codes = Codes::parse(codes).map_err(|e| PyValueError::new_err(format!("codes: {e}")))?;
        let precision = self::precision(precision)?;
        let matrix = Matrix::extract("vectors", vectors, false)?;
        if ids.len() != matrix.rows {
            return Err(PyValueError::new_err(format!(
                "ids must have one id per row of vectors ({} rows), got {} ids",
                matrix.rows,
                ids.len()
            )));
        }
        let (dim, data) = (matrix.dim, matrix.data());
        let d = HnswParams::default();
        let params =
            HnswParams { m: m.unwrap_or(d.m), ef_construction: ef_construction.unwrap_or(d.ef_construction), codes };
        let inner = py
            .detach(|| {
                let mut set = VectorSet::items(dim, metric)?;
                for (id, row) in ids.iter().zip(data.chunks_exact(dim.max(1))) {
                    set.push_item(id, ItemKind::Unspecified, row)?;
                }
                HnswIndex::build(&set, &params, |_| {})?.0.with_precision(precision)
            })
            .py_err(py)?;
        Ok(PyVectorIndex { inner })
    }

    /// Memory-maps an index file written by `save`. Only the header is read; `verify()` checks the
    /// whole file. `precision`: `"float"`, or `"int8"` / `"binary"` when the file holds those
    /// codes (then the graph is walked over the codes, and the best `rerank` candidates, the whole
    /// beam when 0, are re-ranked with the floats).
    #[staticmethod]
    #[pyo3(signature = (path, precision = "float", rerank = 0))]
    fn open(py: Python<'_>, path: PathBuf, precision: &str, rerank: usize) -> PyResult<PyVectorIndex> {
        let precision = self::precision(precision)?;
        let inner = py
            .detach(|| HnswIndex::open(&path)?.with_precision(precision).map(|i| i.with_rerank(rerank)))
            .py_err(py)?;
        Ok(PyVectorIndex { inner })
    }

    /// The compressed copies the file holds: `"none"`, `"int8"`, `"binary"` or `"int8,binary"`.
    #[getter]
    fn codes(&self) -> String {
        self.inner.codes().to_string()
    }

    /// What searches walk the graph with: `"float"`, `"int8"` or `"binary"`.
    #[getter]
    fn precision(&self) -> String {
        self.inner.precision().to_string()
    }

    /// Writes the index to `path` (a temporary file, then a rename).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.inner.save(&path)).py_err(py)
    }

    /// Reads the whole file and checks its checksum and structure.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.inner.verify()).py_err(py)
    }

    /// The `k` nearest ids to each query, nearest first, with their similarity scores (cosine or
    /// dot product; for `"l2"` the negated squared distance). `queries`: float32 `(d,)` for one
    /// query, or `(m, d)` for many (searched in parallel). `exclude`: an id or ids never returned
    /// (filtered during the search). `allow`: an id or ids, the only ones returned (a few are
    /// scored directly, a rare subset exactly, a common one during the graph walk). `ef`: the
    /// search beam (higher: better recall, slower).
    #[pyo3(signature = (queries, k = 10, ef = 64, exclude = None, allow = None))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: usize,
        ef: usize,
        exclude: Option<&Bound<'py, PyAny>>,
        allow: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        positive("k", k)?;
        positive("ef", ef)?;
        let matrix = Matrix::extract("queries", queries, true)?;
        bounded(matrix.rows, k)?;
        if matrix.dim != self.inner.dim() {
            return Err(PyValueError::new_err(format!(
                "queries must have {} columns (the index's dimension), got {}",
                self.inner.dim(),
                matrix.dim
            )));
        }
        let excluded = id_list("exclude", exclude)?;
        let allowed = allow.map(|a| id_list("allow", Some(a))).transpose()?;
        let data = matrix.data();
        let (index, dim) = (&self.inner, matrix.dim);
        let hits: Vec<Vec<Hit>> = py
            .detach(|| {
                let exclude = Exclude(excluded.iter().flat_map(|id| index.nodes_of(id)).collect());
                let allow = allowed.as_ref().map(|ids| AllowList::new(ids.iter().flat_map(|id| index.nodes_of(id))));
                let both;
                let filter: Option<&dyn Filter> = match (&allow, excluded.is_empty()) {
                    (None, true) => None,
                    (None, false) => Some(&exclude),
                    (Some(a), true) => Some(a),
                    (Some(a), false) => {
                        both = AllOf(vec![a as &dyn Filter, &exclude]);
                        Some(&both)
                    }
                };
                use rayon::prelude::*;
                data.par_chunks(dim)
                    .map(|q| match filter {
                        Some(f) => index.search_filtered(q, k, ef, f),
                        None => index.search(q, k, ef),
                    })
                    .collect::<kino::Result<Vec<_>>>()
            })
            .py_err(py)?;
        let metric = index.metric();
        let rows = hits
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|h| Ok((index.id(h.node)?.to_string(), metric.similarity(h.distance))))
                    .collect::<kino::Result<Vec<_>>>()
            })
            .collect::<kino::Result<Vec<_>>>()
            .py_err(py)?;
        shape_results(py, matrix.one, k, rows)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Vector length.
    #[getter]
    fn dim(&self) -> usize {
        self.inner.dim()
    }

    /// `"cosine"`, `"dot"` or `"l2"`.
    #[getter]
    fn metric(&self) -> &'static str {
        self.inner.metric().as_str()
    }

    /// The file the index is mapped from, or None for an index built in memory and not saved.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.inner.is_mapped().then(|| self.inner.path().to_path_buf())
    }

    fn __repr__(&self) -> String {
        format!(
            "VectorIndex(len={}, dim={}, metric={:?})",
            self.inner.len(),
            self.inner.dim(),
            self.inner.metric().as_str()
        )
    }
}

/// The ids of an `exclude` or `allow` argument: one id (str) or a list of ids.
fn id_list(name: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    match obj {
        None => Ok(Vec::new()),
        Some(obj) if obj.is_instance_of::<PyString>() => Ok(vec![obj.extract()?]),
        Some(obj) => {
            obj.extract().map_err(|_| PyTypeError::new_err(format!("{name} must be an id (str) or a list of ids")))
        }
    }
}

/// Brute-force top-`k` of each query among the rows of `vectors` (both float32), in parallel:
/// the ground truth for approximate search. Returns `(indices, scores)`: row numbers (int64) and
/// similarities (float32), shaped `(k,)` for a `(d,)` query and `(m, k)` for `(m, d)` queries;
/// padded with -1 / NaN when there are fewer than `k` rows.
#[pyfunction]
#[pyo3(signature = (vectors, queries, k = 10, metric = "cosine"))]
pub fn exact_search<'py>(
    py: Python<'py>,
    vectors: &Bound<'py, PyAny>,
    queries: &Bound<'py, PyAny>,
    k: usize,
    metric: &str,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    positive("k", k)?;
    let metric = self::metric(metric)?;
    let base = Matrix::extract("vectors", vectors, false)?;
    let q = Matrix::extract("queries", queries, true)?;
    bounded(q.rows, k)?;
    if base.dim != q.dim {
        return Err(PyValueError::new_err(format!(
            "queries must have as many columns as vectors ({}), got {}",
            base.dim, q.dim
        )));
    }
    let (base_data, query_data, dim) = (base.data(), q.data(), base.dim);
    let hits = py
        .detach(|| {
            let set = VectorSet::from_flat(dim, metric, &base_data)?;
            ExactIndex::new(&set)?.search_batch(&query_data, k, None)
        })
        .py_err(py)?;
    let m = hits.len();
    let mut indices = vec![-1i64; m * k];
    let mut scores = vec![f32::NAN; m * k];
    for (r, row) in hits.iter().enumerate() {
        for (c, h) in row.iter().enumerate() {
            indices[r * k + c] = i64::from(h.node);
            scores[r * k + c] = metric.similarity(h.distance);
        }
    }
    if q.one {
        return Ok((PyArray1::from_vec(py, indices).into_any(), PyArray1::from_vec(py, scores).into_any()));
    }
    let indices: Bound<'py, PyArray2<i64>> = PyArray1::from_vec(py, indices).reshape([m, k])?;
    let scores: Bound<'py, PyArray2<f32>> = PyArray1::from_vec(py, scores).reshape([m, k])?;
    Ok((indices.into_any(), scores.into_any()))
}
