//! `kino.analyze` (a video file into a signals document) and `kino.models` (which pretrained
//! models analysis uses), over `kino_media`.
//!
//! Models are loaded once per models directory per process (loading the runtime and the sentence
//! model takes a few tenths of a second) and shared by every analysis and semantic `TextEncoder`.
//! A directory whose set of fetched models changed since (e.g. `kino models fetch` ran in a
//! terminal beside a notebook) is loaded again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kino_media::{AnalysisModels, AnalyzeOptions};
use kino_models::ModelsDir;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{media_err, model_err};
use crate::signals::PySignals;

/// Least time between two calls of the progress callback.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// Least time between two checks for Ctrl-C (each takes the GIL for a moment), so that an
/// analysis stops within a twentieth of a second of it.
const SIGNAL_INTERVAL: Duration = Duration::from_millis(50);

/// A loaded set of models and which models' files were present when it was loaded.
struct Loaded {
    present: Vec<bool>,
    models: Arc<AnalysisModels>,
}

static LOADED: Mutex<Option<HashMap<PathBuf, Loaded>>> = Mutex::new(None);

/// Which models of the manifest have all their files in `dir`.
fn present(dir: &ModelsDir) -> Vec<bool> {
    dir.list().iter().map(|status| status.present()).collect()
}

/// The models of `models_dir` (else `KINO_MODELS`, else `~/.cache/kino/models`), loaded on first
/// use and kept for the process. Runs without the GIL.
pub(crate) fn shared_models(py: Python<'_>, models_dir: Option<&Path>) -> PyResult<Arc<AnalysisModels>> {
    let dir = ModelsDir::resolve(models_dir).map_err(model_err)?;
    Ok(py.detach(|| {
        let now = present(&dir);
        let mut cache = LOADED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let cache = cache.get_or_insert_with(HashMap::new);
        match cache.get(dir.path()) {
            Some(loaded) if loaded.present == now => loaded.models.clone(),
            _ => {
                let models = Arc::new(AnalysisModels::load(&dir, 1));
                cache.insert(dir.path().to_path_buf(), Loaded { present: now, models: models.clone() });
                models
            }
        }
    }))
}

/// The catalog item `metadata` (a dict) as JSON, through Python's `json` module.
fn metadata_json(py: Python<'_>, metadata: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if !metadata.is_instance_of::<PyDict>() {
        let kind = metadata.get_type().name()?.to_string();
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "metadata must be a dict (a catalog item: title, metadata.genres, metadata.keywords, metadata.short_description), got {kind}"
        )));
    }
    let text: String = py.import("json")?.call_method1("dumps", (metadata,))?.extract()?;
    serde_json::from_str(&text)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("metadata is not JSON-like: {e}")))
}

/// Analyses the video at `path` into a `Signals` document: shots, scenes, speech, brightness,
/// relevance, vertical crop, and with the pretrained models (`kino models fetch`) the neural speech
/// detector and semantic scene and item embeddings. A missing model is not an error: its channels
/// are listed in `signals.analysis["absent"]` with the reason in `signals.analysis["reasons"]`.
///
/// The work runs without the GIL. `progress(done_seconds, total_seconds)` is called a few times a
/// second at most, and once at the end with `done == total`; an exception it raises stops the
/// analysis and is raised here, as is `KeyboardInterrupt` (Ctrl-C). `models=False` analyses
/// without models; `models_dir` is where they are (default `KINO_MODELS`, else
/// `~/.cache/kino/models`). `metadata` is the item's catalog entry (`title`, `metadata.genres`,
/// `metadata.keywords`, `metadata.short_description`), embedded with the content into the item
/// embedding. `sidecar` is a signals document whose learned channels override the measured ones
/// (`<video>.signals.json` beside the video is used when present).
#[pyfunction]
#[pyo3(signature = (path, *, models_dir=None, models=true, step=1.0, inventory_id=None, sidecar=None,
    metadata=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn analyze(
    py: Python<'_>,
    path: PathBuf,
    models_dir: Option<PathBuf>,
    models: bool,
    step: f64,
    inventory_id: Option<String>,
    sidecar: Option<PathBuf>,
    metadata: Option<Bound<'_, PyAny>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PySignals> {
    let item_text = match metadata {
        Some(m) => kino_media::embed::item_text_from_catalog(&metadata_json(py, &m)?),
        None => None,
    };
    let sidecar = sidecar.map_or(kino_media::Sidecar::Discover, kino_media::Sidecar::File);
    let options = AnalyzeOptions { inventory_id, step, sidecar, item_text, ..AnalyzeOptions::default() };
    let models = if models { shared_models(py, models_dir.as_deref())? } else { Arc::new(AnalysisModels::none()) };

    let interrupted = AtomicBool::new(false);
    let mut raised: Option<PyErr> = None;
    let mut last_call: Option<Instant> = None;
    let mut last_check: Option<Instant> = None;
    let result = py.detach(|| {
        let on_progress = |done: f64, total: f64| {
            if raised.is_some() {
                return;
            }
            let finished = done >= total;
            let due = |last: Option<Instant>, every| finished || last.is_none_or(|t: Instant| t.elapsed() >= every);
            let (call, check) =
                (progress.is_some() && due(last_call, PROGRESS_INTERVAL), due(last_check, SIGNAL_INTERVAL));
            if !call && !check {
                return;
            }
            last_check = Some(Instant::now());
            if call {
                last_call = last_check;
            }
            let outcome = Python::attach(|py| {
                py.check_signals()?;
                match &progress {
                    Some(callback) if call => callback.call1(py, (done, total)).map(drop),
                    _ => Ok(()),
                }
            });
            if let Err(err) = outcome {
                raised = Some(err);
                interrupted.store(true, Ordering::Relaxed);
            }
        };
        kino_media::analyze_interruptible(&path, &options, &models, on_progress, &interrupted)
    });
    match (result, raised) {
        // The callback's exception (or KeyboardInterrupt) stopped the work, or was raised by the
        // final call after it ended: either way the caller sees it.
        (_, Some(err)) => Err(err),
        (Ok(signals), None) => PySignals::build(py, signals),
        (Err(e @ kino_media::Error::Interrupted { .. }), None) => {
            // ffmpeg died of a signal: Ctrl-C in a terminal reaches the whole process group.
            py.check_signals()?;
            Err(media_err(py, e))
        }
        (Err(e), None) => Err(media_err(py, e)),
    }
}

/// The pretrained models analysis knows of, each as a dict: `id`, `version`, `summary`, `loaded`
/// (whether analysis and the semantic `TextEncoder` use it) and `reason` (why not, e.g. the
/// command that fetches it; `None` when loaded). `models_dir` as for `analyze`.
#[pyfunction]
#[pyo3(signature = (models_dir=None))]
pub fn models<'py>(py: Python<'py>, models_dir: Option<PathBuf>) -> PyResult<Bound<'py, PyList>> {
    let loaded = shared_models(py, models_dir.as_deref())?;
    let rows = loaded
        .states()
        .iter()
        .map(|s| {
            let row = PyDict::new(py);
            row.set_item("id", s.id)?;
            row.set_item("version", s.version)?;
            row.set_item("summary", s.summary)?;
            row.set_item("loaded", s.loaded)?;
            row.set_item("reason", s.reason.as_deref())?;
            Ok(row)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, rows)
}

/// Transcribes what is said in the video at `path`: the speech intervals (Silero VAD) recognised by
/// Whisper base (`kino models fetch`), as a dict `{"language": "en", "segments": [{"start", "end",
/// "text", "words": [{"start", "end", "word", "probability"}]}]}` with times in seconds, the form
/// of `Signals.transcript`. `language` is an ISO 639-1 code (default: detected). Raises
/// `RuntimeError` naming the reason when the model is missing. Runs without the GIL.
#[pyfunction]
#[pyo3(signature = (path, *, models_dir=None, language=None))]
pub fn transcribe<'py>(
    py: Python<'py>,
    path: PathBuf,
    models_dir: Option<PathBuf>,
    language: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let models = shared_models(py, models_dir.as_deref())?;
    let result = py.detach(|| kino_media::transcribe(&path, &models, language.as_deref()));
    let transcript = result.map_err(|e| media_err(py, e))?;
    let text = serde_json::to_string(&transcript)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("transcript: {e}")))?;
    py.import("json")?.call_method1("loads", (text,))
}
