//! `kino.Signals`: a validated signals document, prepared for clip selection, and
//! `kino.synth_signals`.

use std::path::PathBuf;

use kino::{Prepared, Signals};
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;

use crate::convert::borrowed_array;
use crate::errors::IntoPyResult;

/// A validated signals document (format `kino.signals/1`), indexed once for clip selection.
///
/// Build one with `Signals.from_json(text)`, `Signals.load(path)` or `kino.synth_signals(...)`.
/// Instances are immutable; timelines come out as read-only numpy views without copying.
#[derive(Debug)]
#[pyclass(name = "Signals", module = "kino", frozen)]
pub struct PySignals {
    pub(crate) prepared: Prepared,
}

impl PySignals {
    pub(crate) fn signals(&self) -> &Signals {
        self.prepared.signals()
    }

    pub(crate) fn build(py: Python<'_>, signals: Signals) -> PyResult<PySignals> {
        let prepared = py.detach(|| Prepared::new(signals)).py_err(py)?;
        Ok(PySignals { prepared })
    }
}

#[pymethods]
impl PySignals {
    /// Parses and validates a JSON document; raises `InvalidSignalsError` naming the field and rule.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<PySignals> {
        let prepared = py.detach(|| Signals::from_json(text).and_then(Prepared::new)).py_err(py)?;
        Ok(PySignals { prepared })
    }

    /// Reads a document from a file (JSON, or the binary form); `OSError` when it cannot be read.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PySignals> {
        let prepared = py.detach(|| Signals::load(&path).and_then(Prepared::new)).py_err(py)?;
        Ok(PySignals { prepared })
    }

    /// Writes the document: JSON when the path ends in `.json`, the binary form otherwise.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.signals().save(&path)).py_err(py)
    }

    /// The document as compact JSON; `Signals.from_json` reads it back unchanged.
    fn to_json(&self, py: Python<'_>) -> String {
        py.detach(|| self.signals().to_json())
    }

    /// The customer's identifier of the item.
    #[getter]
    fn inventory_id(&self) -> &str {
        &self.signals().inventory_id
    }

    /// Duration in seconds.
    #[getter]
    fn duration(&self) -> f64 {
        self.signals().duration
    }

    /// Frames per second.
    #[getter]
    fn fps(&self) -> f64 {
        self.signals().fps
    }

    /// Seconds between timeline samples; sample `i` covers `[i*step, (i+1)*step)`.
    #[getter]
    fn step(&self) -> f64 {
        self.signals().step
    }

    /// Source frame size `(width, height)` in pixels.
    #[getter]
    fn frame_size(&self) -> (u32, u32) {
        (self.signals().frame_width, self.signals().frame_height)
    }

    /// Shot-boundary times in seconds.
    #[getter]
    fn shots(&self) -> Vec<f64> {
        self.signals().shots.clone()
    }

    /// Names of the clip-type timelines this item carries.
    #[getter]
    fn clip_type_timelines(&self) -> Vec<String> {
        self.signals().timelines.clip_types.keys().cloned().collect()
    }

    /// A timeline as a read-only float32 array (no copy): `relevance`, `nudity`, `blood_gore`,
    /// `profanity`, `brightness`, or a clip type name such as `Exciting`.
    fn timeline<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let t = &slf.get().signals().timelines;
        let data = match name {
            "relevance" => &t.relevance,
            "nudity" => &t.nudity,
            "blood_gore" => &t.blood_gore,
            "profanity" => &t.profanity,
            "brightness" => &t.brightness,
            other => t.clip_types.get(other).ok_or_else(|| {
                let types: Vec<&str> = t.clip_types.keys().map(String::as_str).collect();
                PyKeyError::new_err(format!(
                    "no timeline {other:?}: expected relevance, nudity, blood_gore, profanity, brightness or one of this item's clip types {types:?}"
                ))
            })?,
        };
        borrowed_array(data, slf.clone().into_any())
    }

    /// The emotion samples, or `None`: a dict with `step`, `names`, `probs` (2-D float32 array,
    /// samples x names, copied: the document stores rows) and read-only `valence`, `arousal`,
    /// `dominance` arrays (no copy).
    fn emotion_samples<'py>(slf: &Bound<'py, Self>) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        let py = slf.py();
        let Some(e) = &slf.get().signals().emotions else { return Ok(None) };
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("step", e.step)?;
        dict.set_item("names", e.names.clone())?;
        let probs = if e.probs.is_empty() {
            PyArray2::<f32>::zeros(py, [0, e.names.len()], false)
        } else {
            PyArray2::from_vec2(py, &e.probs).map_err(|err| pyo3::exceptions::PyValueError::new_err(err.to_string()))?
        };
        dict.set_item("probs", probs)?;
        let owner = slf.clone().into_any();
        dict.set_item("valence", borrowed_array(&e.valence, owner.clone())?)?;
        dict.set_item("arousal", borrowed_array(&e.arousal, owner.clone())?)?;
        dict.set_item("dominance", borrowed_array(&e.dominance, owner)?)?;
        Ok(Some(dict))
    }

    /// The 256-float item embedding as a read-only float32 array (no copy), or `None`.
    #[getter]
    fn item_embedding<'py>(slf: &Bound<'py, Self>) -> PyResult<Option<Bound<'py, PyArray1<f32>>>> {
        match &slf.get().signals().item_embedding {
            Some(v) => Ok(Some(borrowed_array(v, slf.clone().into_any())?)),
            None => Ok(None),
        }
    }

    /// Speech intervals as `(start, end)` pairs in seconds, sorted and non-overlapping.
    #[getter]
    fn speech(&self) -> Vec<(f64, f64)> {
        self.signals().speech.iter().map(|&[start, end]| (start, end)).collect()
    }

    /// Keyword, mood and environment tags: dicts with `kind`, `name`, `start`, `end`, `score`.
    #[getter]
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::convert::to_py(py, &self.signals().tags)
    }

    /// Scene spans as `(start, end)` pairs in seconds.
    #[getter]
    fn scenes(&self) -> Vec<(f64, f64)> {
        self.signals().scenes.iter().map(|s| (s.start, s.end)).collect()
    }

    /// The scene embeddings as a float32 array of shape `(scenes, 1024)` (copied: the document
    /// stores rows), or `None`.
    #[getter]
    fn scene_embeddings<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray2<f32>>>> {
        let Some(rows) = &self.signals().scene_embeddings else { return Ok(None) };
        if rows.is_empty() {
            return Ok(Some(PyArray2::<f32>::zeros(py, [0, kino::signals::SCENE_EMBEDDING_DIM], false)));
        }
        PyArray2::from_vec2(py, rows).map(Some).map_err(|err| pyo3::exceptions::PyValueError::new_err(err.to_string()))
    }

    /// Where the document came from, when an analyser recorded it: `{"analyzer": ...,
    /// "measured": [...], "absent": [...]}` (channels listed as absent are zeros, not
    /// measurements), with `"models"` (channel: the model and version that measured it) and
    /// `"reasons"` (absent channel: why) when there are any, or `None`.
    #[getter]
    fn analysis<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().analysis.as_ref().map(|a| crate::convert::to_py(py, a)).transpose()
    }

    /// What is said, when speech recognition ran: `{"language": "en", "segments": [{"start", "end",
    /// "text", "words": [{"start", "end", "word", "probability"}]}]}`, or `None`.
    #[getter]
    fn transcript<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().transcript.as_ref().map(|t| crate::convert::to_py(py, t)).transpose()
    }

    /// One face descriptor per character (unit length, in `characters` order), when faces were
    /// analysed, else `None`.
    #[getter]
    fn character_descriptors<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().character_descriptors.as_ref().map(|d| crate::convert::to_py(py, d)).transpose()
    }

    /// The soundtrack's fingerprint, when the media was analysed: `{"hop": 0.1, "hashes": [...]}`
    /// (32-bit sub-band energy hashes, 0 where silent), or `None`.
    #[getter]
    fn audio_fingerprint<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().audio_fingerprint.as_ref().map(|f| crate::convert::to_py(py, f)).transpose()
    }

    /// The picture's fingerprint, when the media was analysed: `{"hop": 0.1, "hashes": [...]}`
    /// (32-bit perceptual hashes of the frames, 0 where blank), or `None`.
    #[getter]
    fn picture_fingerprint<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().picture_fingerprint.as_ref().map(|f| crate::convert::to_py(py, f)).transpose()
    }

    /// What the picture shows, when an image classifier ran: `{"interval", "frames": [{"time",
    /// "labels": [{"name", "group", "score"}]}], "shot_types": [{"start", "end", "kind", "people",
    /// "setting"}], "scene_features", "item_feature", "cues": [{"kind", "start", "end"}]}`, or
    /// `None`.
    #[getter]
    fn visual<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().visual.as_ref().map(|v| crate::convert::to_py(py, v)).transpose()
    }

    /// People and objects on screen, when an object detector ran: `{"interval", "frames":
    /// [{"time", "boxes": [{"class", "confidence", "x", "y", "w", "h", "track"}]}], "tracks":
    /// [{"class", "start", "end", "frames", "confidence", "largest"}]}` (boxes in fractions of the
    /// frame), or `None`.
    #[getter]
    fn objects<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().objects.as_ref().map(|o| crate::convert::to_py(py, o)).transpose()
    }

    /// Who speaks when, when the voices were measured: `{"turns": [{"start", "end", "speaker",
    /// "embedding"}], "voices": [[...]], "characters": [index or None]}`, or `None`.
    #[getter]
    fn speakers<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().speakers.as_ref().map(|s| crate::convert::to_py(py, s)).transpose()
    }

    /// Each scene's channel vectors, when the sentence model ran: `{"seen", "said", "written",
    /// "heard"}`, each a list with one entry per scene (a unit vector, or `None` where the channel
    /// measured nothing in that scene), or `None`.
    #[getter]
    fn scene_channels<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.signals().scene_channels.as_ref().map(|c| crate::convert::to_py(py, c)).transpose()
    }

    /// The editorial shot type of each shot (`[(start, end, kind)]`, kind one of
    /// `extreme_close_up`, `close_up`, `medium`, `wide`, `extreme_wide`, `no_people`), empty
    /// without the picture.
    #[getter]
    fn shot_types(&self) -> Vec<(f64, f64, String)> {
        self.signals()
            .visual
            .as_ref()
            .map(|v| v.shot_types.iter().map(|s| (s.start, s.end, s.kind.clone())).collect())
            .unwrap_or_default()
    }

    fn __repr__(&self) -> String {
        let s = self.signals();
        format!("Signals(inventory_id={:?}, duration={}, fps={}, step={})", s.inventory_id, s.duration, s.fps, s.step)
    }
}

/// Generates a deterministic, realistic signals document (the same arguments always give the same
/// document): timelines, shots, speech, characters, tags, scenes, emotions and profanity events.
/// `scene_embeddings=True` adds one embedding per scene (built from its tags with the default
/// `TextEncoder`), which `search_query` needs.
#[pyfunction]
#[pyo3(signature = (inventory_id, duration, step=1.0, seed=0, scene_embeddings=false))]
pub fn synth_signals(
    py: Python<'_>,
    inventory_id: &str,
    duration: f64,
    step: f64,
    seed: u64,
    scene_embeddings: bool,
) -> PyResult<PySignals> {
    let check = |name: &'static str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(kino::Error::InvalidArgument { name, rule: format!("must be finite and > 0 (got {v})") })
        }
    };
    check("duration", duration).and_then(|()| check("step", step)).py_err(py)?;
    let samples = kino::signals::sample_count(duration, step);
    if samples > kino::signals::MAX_SAMPLES || inventory_id.is_empty() {
        let (name, rule) = if inventory_id.is_empty() {
            ("inventory_id", "must have length >= 1".to_string())
        } else {
            ("step", format!("gives {samples} samples, more than the supported {}", kino::signals::MAX_SAMPLES))
        };
        return Err(kino::Error::InvalidArgument { name, rule }).py_err(py);
    }
    let mut options = kino::synth::SynthOptions::new(inventory_id, duration, step, seed);
    options.scene_embeddings = scene_embeddings;
    let signals = py.detach(|| kino::synth::generate(&options));
    PySignals::build(py, signals)
}
