//! `SegmentedIndex`: the changing collection the service keeps per organisation (segments of
//! memory-mapped HNSW files, an in-memory delta, deletions filtered until a merge), for notebooks
//! that maintain a catalog's scenes or titles themselves.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use kino::vectors::{ItemKind, ItemVectors, SegmentConfig, SegmentFilter, SegmentedIndex, Stamp};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::IntoPyResult;
use crate::vectors::Matrix;

fn kind(name: &str) -> PyResult<ItemKind> {
    Ok(match name {
        "movie" => ItemKind::Movie,
        "series" => ItemKind::Series,
        "episode" => ItemKind::Episode,
        "other" => ItemKind::Other,
        "unspecified" => ItemKind::Unspecified,
        _ => {
            return Err(PyValueError::new_err(format!(
                "kind must be 'movie', 'series', 'episode', 'other' or 'unspecified', got {name:?}"
            )));
        }
    })
}

/// A vector collection that changes item by item: vectors grouped by item id (one per item, or
/// many scenes with their ``(start_ts, end_ts)``), each item at a version ``stamp``; new and
/// changed items go to an in-memory delta, written as a segment file under ``path`` once it holds
/// ``flush_vectors`` vectors; removals are filtered during searches until ``maintain()`` merges
/// them away. The delta lives in memory: after reopening, ``reconcile({id: stamp})`` names the
/// items to upsert again.
#[pyclass(name = "SegmentedIndex", module = "kino", frozen)]
#[derive(Debug)]
pub struct PySegmentedIndex {
    inner: SegmentedIndex,
}

#[pymethods]
impl PySegmentedIndex {
    /// Opens (creating when absent) the collection stored in the directory ``path``.
    /// ``scenes``: many vectors per item, each with a span (else one vector per item).
    #[new]
    #[pyo3(signature = (path, dim, scenes = true, metric = "cosine", flush_vectors = None, merge_segments = None, graph_from = None, ef = None))]
    #[allow(clippy::too_many_arguments)] // the constructor's keyword arguments
    fn new(
        py: Python<'_>,
        path: PathBuf,
        dim: usize,
        scenes: bool,
        metric: &str,
        flush_vectors: Option<usize>,
        merge_segments: Option<usize>,
        graph_from: Option<usize>,
        ef: Option<usize>,
    ) -> PyResult<PySegmentedIndex> {
        let metric = kino::vectors::Metric::parse(metric)
            .ok_or_else(|| PyValueError::new_err(format!("metric must be 'cosine', 'dot' or 'l2', got {metric:?}")))?;
        let d = SegmentConfig::new(dim, metric, scenes);
        let config = SegmentConfig {
            flush_vectors: flush_vectors.unwrap_or(d.flush_vectors),
            merge_segments: merge_segments.unwrap_or(d.merge_segments),
            graph_from: graph_from.unwrap_or(d.graph_from),
            ef: ef.unwrap_or(d.ef),
            ..d
        };
        let (inner, _report) = py.detach(|| SegmentedIndex::open(&path, config)).py_err(py)?;
        Ok(PySegmentedIndex { inner })
    }

    /// Adds an item's vectors (float32 ``(n, d)``, or ``(d,)`` for one), or replaces the ones it
    /// has; a no-op when ``stamp`` is the one stored. ``spans``: one ``(start_ts, end_ts)`` per
    /// row in a scene collection. Flushes and merges when due.
    #[pyo3(signature = (id, vectors, spans = None, kind = "unspecified", stamp = 0))]
    fn upsert(
        &self,
        py: Python<'_>,
        id: &str,
        vectors: &Bound<'_, PyAny>,
        spans: Option<Vec<(f64, f64)>>,
        kind: &str,
        stamp: Stamp,
    ) -> PyResult<()> {
        let config = self.inner.config();
        let matrix = Matrix::extract("vectors", vectors, true)?;
        if config.scenes && spans.as_ref().is_none_or(|s| s.len() != matrix.rows) {
            return Err(PyValueError::new_err(format!(
                "spans must give one (start_ts, end_ts) per vector in a scene collection ({} vectors)",
                matrix.rows
            )));
        }
        let mut item = ItemVectors::new(config, id, self::kind(kind)?, stamp).py_err(py)?;
        let data = matrix.data();
        for (i, v) in data.chunks(matrix.dim.max(1)).enumerate() {
            let span = spans.as_ref().and_then(|s| s.get(i)).map_or([0.0, 0.0], |(a, b)| [*a, *b]);
            item.push(span, v).py_err(py)?;
        }
        py.detach(|| {
            self.inner.upsert(item)?;
            if self.inner.needs_maintenance() { self.inner.maintain() } else { Ok(()) }
        })
        .py_err(py)
    }

    /// Removes an item (nothing when absent).
    fn remove(&self, id: &str) {
        self.inner.remove(id);
    }

    /// Checks the stored items against the stamps of record: stored copies of other stamps, and
    /// items not in ``current``, are dropped. Returns the ids (sorted) to upsert again.
    fn reconcile(&self, current: HashMap<String, Stamp>) -> Vec<String> {
        self.inner.reconcile(&current)
    }

    /// The ``k`` nearest vectors to ``query`` (float32 ``(d,)``), best first, as dicts
    /// ``{id, kind, start_ts, end_ts, score}`` (``score``: the cosine or dot product). Filters,
    /// applied during the search: ``ids`` (only these items), ``kinds``, ``window`` (only spans
    /// within ``(from, to)`` seconds) and ``exclude`` (never this item).
    #[pyo3(signature = (query, k = 10, ids = None, kinds = None, window = None, exclude = None))]
    #[allow(clippy::too_many_arguments)] // the search's keyword arguments
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, PyAny>,
        k: usize,
        ids: Option<Vec<String>>,
        kinds: Option<Vec<String>>,
        window: Option<(f64, f64)>,
        exclude: Option<String>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let kinds: Option<Vec<ItemKind>> =
            kinds.map(|names| names.iter().map(|n| self::kind(n)).collect()).transpose()?;
        if let Some((from, to)) = window
            && !(from.is_finite() && to.is_finite() && from <= to)
        {
            return Err(PyValueError::new_err(format!(
                "window must be (from, to) with from <= to, got ({from}, {to})"
            )));
        }
        let ids: Option<HashSet<String>> = ids.map(|ids| ids.into_iter().collect());
        let filter = SegmentFilter {
            ids: ids.as_ref(),
            kinds: kinds.as_deref(),
            window: window.map(|(a, b)| [a, b]),
            exclude: exclude.as_deref(),
        };
        let matrix = Matrix::extract("query", query, true)?;
        if matrix.rows != 1 {
            return Err(PyValueError::new_err(format!("query must be one vector (d,), got {} rows", matrix.rows)));
        }
        let query = matrix.data();
        let hits = py.detach(|| self.inner.search(&query, k, &filter)).py_err(py)?;
        let metric = self.inner.config().metric;
        hits.into_iter()
            .map(|h| {
                let d = PyDict::new(py);
                d.set_item("id", h.id)?;
                d.set_item("kind", h.kind.as_str())?;
                d.set_item("start_ts", h.span[0])?;
                d.set_item("end_ts", h.span[1])?;
                d.set_item("score", metric.similarity(h.distance))?;
                Ok(d)
            })
            .collect()
    }

    /// Writes the delta when it is large enough and merges segments while a merge is due.
    fn maintain(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.inner.maintain()).py_err(py)
    }

    /// Writes the whole delta and merges everything into one segment without dead vectors.
    fn compact(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.inner.compact()).py_err(py)
    }

    /// ``{segments, graphs, segment_vectors, dead_vectors, delta_vectors, items}``.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.stats();
        let d = PyDict::new(py);
        d.set_item("segments", s.segments)?;
        d.set_item("graphs", s.graphs)?;
        d.set_item("segment_vectors", s.segment_vectors)?;
        d.set_item("dead_vectors", s.dead_vectors)?;
        d.set_item("delta_vectors", s.delta_vectors)?;
        d.set_item("items", s.items)?;
        Ok(d)
    }

    /// The stamp stored for ``id``, or ``None`` when it is not searchable.
    fn stamp(&self, id: &str) -> Option<Stamp> {
        self.inner.stamp(id)
    }

    /// Live items.
    fn __len__(&self) -> usize {
        self.inner.stats().items
    }
}
