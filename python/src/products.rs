//! The per-item products beside clips (emotions, profanity), webhook signatures and the text
//! encoder.

use std::path::PathBuf;
use std::sync::Arc;

use kino::signals::SCENE_EMBEDDING_DIM;
use kino::thumbnail::FrameRule;
use kino::{LexicalEncoder, ProfanityOptions, TextEncoder};
use kino_models::manifest::MINILM;
use numpy::PyArray1;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView};

use crate::convert::to_py;
use crate::errors::{IntoPyResult, ModelError};
use crate::signals::PySignals;

/// The interface's emotion result (`data.emotion[]`): consecutive windows of `window` seconds
/// from 0 to the end of the analysed span (the last one may be shorter), each with
/// `start_time`, `end_time`, `emotions` (a list of single-entry `{name: mean probability}` dicts),
/// and mean `valence`, `arousal`, `dominance`. Means are time-weighted over the samples that
/// overlap the window. Raises `MissingSignalError` when the item has no emotion samples.
#[pyfunction]
#[pyo3(signature = (signals, window=None))]
pub fn emotion_windows<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    window: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let window = window.unwrap_or(kino::emotions::DEFAULT_WINDOW);
    let doc = signals.signals();
    let windows = py.detach(|| kino::emotion_windows(doc, window)).py_err(py)?;
    to_py(py, &windows)
}

/// The interface's profanity result (`data.profanity`): `{"label": "None" | "Mild" | "Moderate" |
/// "Strong", "segments": [{"start", "end", "score"}, ...]}`. Events scored below `min_score` are
/// ignored; events closer than `merge_gap` seconds merge into one segment scored with their
/// maximum; the label follows the events per hour (>= 3 Moderate, >= 12 Strong) and the severe
/// events (score >= `severe_score`) per hour (>= 1 Moderate, >= 4 Strong).
#[pyfunction]
#[pyo3(signature = (signals, merge_gap=None, min_score=None, severe_score=None))]
pub fn profanity<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    merge_gap: Option<f64>,
    min_score: Option<f64>,
    severe_score: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = ProfanityOptions::default();
    let options = ProfanityOptions {
        merge_gap: merge_gap.unwrap_or(d.merge_gap),
        min_score: min_score.unwrap_or(d.min_score),
        severe_score: severe_score.unwrap_or(d.severe_score),
    };
    let doc = signals.signals();
    let result = py.detach(|| kino::profanity(doc, &options)).py_err(py)?;
    to_py(py, &result)
}

/// The thumbnail frame inside `[start, stop)` by the frame rule the service uses (safe, well lit,
/// clear of cuts, main character on screen; relaxed in reverse order when nothing passes):
/// `{"time", "frame", "relevance", "brightness", "nudity", "blood_gore", "main_character",
/// "shot_distance", "relaxed"}`, or `None` when the span is empty.
#[pyfunction]
#[pyo3(signature = (signals, start, stop, *, min_brightness=None, max_brightness=None, max_nudity=None,
    max_blood_gore=None, shot_margin=None, main_character=None))]
#[allow(clippy::too_many_arguments)]
pub fn choose_frame<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    start: f64,
    stop: f64,
    min_brightness: Option<f64>,
    max_brightness: Option<f64>,
    max_nudity: Option<f64>,
    max_blood_gore: Option<f64>,
    shot_margin: Option<f64>,
    main_character: Option<bool>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let d = FrameRule::default();
    let rule = FrameRule {
        min_brightness: min_brightness.unwrap_or(d.min_brightness),
        max_brightness: max_brightness.unwrap_or(d.max_brightness),
        max_nudity: max_nudity.unwrap_or(d.max_nudity),
        max_blood_gore: max_blood_gore.unwrap_or(d.max_blood_gore),
        shot_margin: shot_margin.unwrap_or(d.shot_margin),
        main_character: main_character.unwrap_or(d.main_character),
    };
    let doc = signals.signals();
    let choice = py.detach(|| kino::thumbnail::choose_frame(doc, start, stop, &rule));
    choice.map(|c| to_py(py, &c)).transpose()
}

/// `kino.DEFAULTS`: what a keyword argument left as `None` means, read from the core (never
/// restated here), by function: `{"profanity": {"merge_gap": 3.0, ...}, ...}`.
pub fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    use serde_json::json;
    let profanity = ProfanityOptions::default();
    let frame = FrameRule::default();
    let nudity = kino::visual::NudityOptions::default();
    let adbreaks = kino::adbreaks::AdbreakOptions::default();
    let contextual = kino::adbreaks::ContextualOptions::default();
    let hnsw = kino::vectors::HnswParams::default();
    let segments = kino::vectors::SegmentConfig::new(1, kino::vectors::Metric::Cosine, true);
    let all = json!({
        "emotion_windows": {"window": kino::emotions::DEFAULT_WINDOW},
        "profanity": {
            "merge_gap": profanity.merge_gap,
            "min_score": profanity.min_score,
            "severe_score": profanity.severe_score,
        },
        "choose_frame": {
            "min_brightness": frame.min_brightness,
            "max_brightness": frame.max_brightness,
            "max_nudity": frame.max_nudity,
            "max_blood_gore": frame.max_blood_gore,
            "shot_margin": frame.shot_margin,
            "main_character": frame.main_character,
        },
        "content_summary": {"max_sentences": kino::summary::SummaryOptions::default().max_sentences},
        "nudity": {"threshold": nudity.threshold, "merge_gap": nudity.merge_gap},
        "adbreaks": {
            "window": adbreaks.window,
            "separation": adbreaks.separation,
            "skip_first": adbreaks.skip_first,
            "skip_last": adbreaks.skip_last,
        },
        "contextual_adbreaks": {
            "minimum_separation": contextual.minimum_separation,
            "maximum_separation": contextual.maximum_separation,
            "skip_first": contextual.skip_first,
            "skip_last": contextual.skip_last,
        },
        "VectorIndex.build": {"m": hnsw.m, "ef_construction": hnsw.ef_construction},
        "SegmentedIndex": {
            "flush_vectors": segments.flush_vectors,
            "merge_segments": segments.merge_segments,
            "graph_from": segments.graph_from,
            "ef": segments.ef,
        },
    });
    to_py(py, &all)
}

/// A webhook secret: text (encoded as UTF-8) or raw bytes.
#[derive(FromPyObject)]
pub enum Secret {
    /// A `str` secret.
    Text(String),
    /// A `bytes` secret.
    Bytes(Vec<u8>),
}

impl AsRef<[u8]> for Secret {
    fn as_ref(&self) -> &[u8] {
        match self {
            Secret::Text(s) => s.as_bytes(),
            Secret::Bytes(b) => b,
        }
    }
}

/// The exact bytes of a webhook body: `bytes` (borrowed), `bytearray` or `memoryview` (copied).
fn body_bytes<'a>(body: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if let Ok(bytes) = body.cast::<PyBytes>() {
        return Ok(std::borrow::Cow::Borrowed(bytes.as_bytes()));
    }
    if body.is_instance_of::<PyByteArray>() || body.is_instance_of::<PyMemoryView>() {
        let copy: Vec<u8> = body.py().get_type::<PyBytes>().call1((body,))?.extract()?;
        return Ok(std::borrow::Cow::Owned(copy));
    }
    let kind = body.get_type().name()?.to_string();
    Err(PyTypeError::new_err(format!(
        "body must be the raw request bytes (bytes, bytearray or memoryview), got {kind}: sign the bytes received, not a decoded or re-serialized value"
    )))
}

/// The `X-Service-Signature` of a webhook body: HMAC-SHA256 of the exact bytes keyed with the
/// signing secret, as 64 lower-case hex characters.
#[pyfunction]
pub fn sign_webhook(py: Python<'_>, body: &Bound<'_, PyAny>, secret: Secret) -> PyResult<String> {
    let body = body_bytes(body)?;
    Ok(py.detach(|| kino::webhook::sign(&body, &secret)))
}

/// Whether `signature` (the `X-Service-Signature` header) signs `body` (the exact received bytes)
/// under `secret`. A header that is not 64 hex characters is rejected; the comparison is
/// constant-time.
#[pyfunction]
pub fn verify_webhook(py: Python<'_>, body: &Bound<'_, PyAny>, signature: &str, secret: Secret) -> PyResult<bool> {
    let body = body_bytes(body)?;
    Ok(py.detach(|| kino::webhook::verify(&body, signature, &secret)))
}

/// A text encoder whose unit-length float32 vectors are comparable (by dot product) with scene
/// embeddings. `kind="lexical"` (the default): deterministic feature hashing of words, word pairs
/// and character trigrams, so "car chase" finds scenes described with those words; any `dim`.
/// `kind="semantic"`: the all-MiniLM-L6-v2 sentence model lifted into the 1024-float scene space
/// (the space `kino.analyze` embeds scenes in when the model is loaded), so "car chase" also finds
/// "vehicles racing through streets"; it needs the model (`kino models fetch`) in `models_dir`
/// (default `KINO_MODELS`, else `~/.cache/kino/models`) and raises `ModelError` naming the missing
/// model otherwise.
#[derive(Debug)]
#[pyclass(name = "TextEncoder", module = "kino", frozen)]
pub struct PyTextEncoder {
    inner: Arc<dyn TextEncoder>,
    kind: &'static str,
}

#[pymethods]
impl PyTextEncoder {
    /// A lexical encoder producing `dim`-float vectors (1024 matches scene embeddings), or the
    /// semantic one (`dim` must then be 1024 or omitted).
    #[new]
    #[pyo3(signature = (dim=None, *, kind="lexical", models_dir=None))]
    fn new(py: Python<'_>, dim: Option<usize>, kind: &str, models_dir: Option<PathBuf>) -> PyResult<Self> {
        let invalid = |name: &'static str, rule: String| Err(kino::Error::InvalidArgument { name, rule }).py_err(py);
        match kind {
            "lexical" => {
                let dim = dim.unwrap_or(SCENE_EMBEDDING_DIM);
                if dim == 0 {
                    return invalid("dim", "must be >= 1 (got 0)".into());
                }
                if models_dir.is_some() {
                    return invalid(
                        "models_dir",
                        "is only for kind=\"semantic\" (the lexical encoder has no model)".into(),
                    );
                }
                Ok(PyTextEncoder { inner: Arc::new(LexicalEncoder::with_dim(dim)), kind: "lexical" })
            }
            "semantic" => {
                if let Some(dim) = dim.filter(|d| *d != SCENE_EMBEDDING_DIM) {
                    return invalid("dim", format!("must be {SCENE_EMBEDDING_DIM} for kind=\"semantic\" (got {dim})"));
                }
                let models = crate::media::shared_models(py, models_dir.as_deref())?;
                if models.sentence_encoder().is_none() {
                    let reason = models.state(MINILM.id).and_then(|s| s.reason.clone()).unwrap_or_default();
                    return Err(ModelError::new_err(format!(
                        "the semantic text encoder needs {}: {reason}",
                        MINILM.label()
                    )));
                }
                Ok(PyTextEncoder { inner: models.scene_text_encoder(), kind: "semantic" })
            }
            other => invalid("kind", format!("must be \"lexical\" or \"semantic\" (got {other:?})")),
        }
    }

    /// Encodes `text` into a unit-length float32 array of `dim` values; `ValueError` when the
    /// text holds no words.
    fn encode<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let v = py.detach(|| self.inner.encode(text)).py_err(py)?;
        Ok(PyArray1::from_vec(py, v))
    }

    /// Length of the vectors produced.
    #[getter]
    fn dim(&self) -> usize {
        self.inner.dim()
    }

    /// `"lexical"` or `"semantic"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// Identifier of the model (the service reports it as `version_id`): `lexical-1`, or the
    /// sentence model and the map into the scene space, e.g. `all-minilm-l6-v2 1.0.0 (lift-1024)`.
    #[getter]
    fn version(&self) -> &str {
        self.inner.version()
    }

    fn __repr__(&self) -> String {
        format!("TextEncoder(kind={:?}, dim={}, version={:?})", self.kind, self.inner.dim(), self.inner.version())
    }
}

/// The content summary of an analysed document (`data.content_summary` of the service):
/// `{"language", "text", "sentences": [{"start", "end", "text", "score"}], "sentence_count",
/// "encoder", "emotional_arc"}`, the `max_sentences` (1 to 50) sentences of the transcript most
/// central to what is said, in time order, and the title's emotional arc (`kino::arc`; absent
/// without emotions). `encoder` is a `TextEncoder` (the semantic one, as the service uses, or the
/// lexical default). A title without a transcript but with an arc gets the arc and no sentences.
/// Raises `MissingSignalError` when the document has neither.
#[pyfunction]
#[pyo3(signature = (signals, max_sentences=None, encoder=None))]
pub fn content_summary<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    max_sentences: Option<usize>,
    encoder: Option<PyRef<'py, PyTextEncoder>>,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = signals.signals();
    if doc.transcript.is_none() && kino::emotional_arc(doc).is_none() {
        return Err(crate::errors::MissingSignalError::new_err(
            "the document has no transcript and no emotional arc: analyse the video with the speech recognition \
             model (`kino models fetch`)",
        ));
    }
    let encoder: Arc<dyn TextEncoder> = match encoder {
        Some(e) => e.inner.clone(),
        None => Arc::new(LexicalEncoder::default()),
    };
    let options = kino::summary::SummaryOptions {
        max_sentences: max_sentences.unwrap_or(kino::summary::SummaryOptions::default().max_sentences),
    };
    let summary = py.detach(|| kino::summary::content_summary(doc, encoder.as_ref(), &options)).py_err(py)?;
    to_py(py, &summary)
}

/// The nudity product (`data.nudity` of the service): `{"step", "timeline", "segments": [{"start",
/// "end", "score"}], "threshold", "max", "mean"}`; segments are runs of samples at or above
/// `threshold` merged across gaps under `merge_gap` seconds. Raises `MissingSignalError` when the
/// document says nudity was not measured.
#[pyfunction]
#[pyo3(signature = (signals, threshold=None, merge_gap=None))]
pub fn nudity<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    threshold: Option<f64>,
    merge_gap: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = signals.signals();
    let d = kino::visual::NudityOptions::default();
    let options = kino::visual::NudityOptions {
        threshold: threshold.unwrap_or(d.threshold),
        merge_gap: merge_gap.unwrap_or(d.merge_gap),
    };
    let result = py.detach(|| kino::visual::nudity(doc, &options)).py_err(py)?;
    to_py(py, &result)
}

/// The scene tags product (`data.scene_tags` of the service): per scene `{"start", "end",
/// "keywords", "moods", "environments"}`, each a list of `{"name", "score"}`, best first. Raises
/// `MissingSignalError` when the document says tags were not measured.
#[pyfunction]
pub fn scene_tags<'py>(py: Python<'py>, signals: PyRef<'py, PySignals>) -> PyResult<Bound<'py, PyAny>> {
    let doc = signals.signals();
    let result = py.detach(|| kino::visual::scene_tags(doc)).py_err(py)?;
    to_py(py, &result)
}

/// Ad breaks by window (the `adbreaks` product, in seconds): per window of `window` minutes from
/// `skip_first` to `skip_last` minutes before the end, `{"rank", "candidates": [{"time", "score"}]}`
/// with the chosen break first, at least `separation` minutes after the previous one.
#[pyfunction]
#[pyo3(signature = (signals, window=None, separation=None, skip_first=None, skip_last=None))]
pub fn adbreaks<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    window: Option<f64>,
    separation: Option<f64>,
    skip_first: Option<f64>,
    skip_last: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = signals.signals();
    let d = kino::adbreaks::AdbreakOptions::default();
    let options = kino::adbreaks::AdbreakOptions {
        window: window.unwrap_or(d.window),
        separation: separation.unwrap_or(d.separation),
        skip_first: skip_first.unwrap_or(d.skip_first),
        skip_last: skip_last.unwrap_or(d.skip_last),
    };
    let result = py.detach(|| kino::adbreaks::adbreaks(doc, &options)).py_err(py)?;
    to_py(py, &result)
}

/// Contextual ad breaks (the `contextual_adbreak` product): a sequence of breaks between
/// `minimum_separation` and `maximum_separation` minutes apart, each `{"timestamp",
/// "frame_number", "rank", "score", "contains_nudity", "contains_profanity", "keyword",
/// "mood_tag"}` (`None` for a channel the analysis did not measure).
#[pyfunction]
#[pyo3(signature = (signals, minimum_separation=None, maximum_separation=None, skip_first=None, skip_last=None))]
pub fn contextual_adbreaks<'py>(
    py: Python<'py>,
    signals: PyRef<'py, PySignals>,
    minimum_separation: Option<f64>,
    maximum_separation: Option<f64>,
    skip_first: Option<f64>,
    skip_last: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = signals.signals();
    let d = kino::adbreaks::ContextualOptions::default();
    let options = kino::adbreaks::ContextualOptions {
        minimum_separation: minimum_separation.unwrap_or(d.minimum_separation),
        maximum_separation: maximum_separation.unwrap_or(d.maximum_separation),
        skip_first: skip_first.unwrap_or(d.skip_first),
        skip_last: skip_last.unwrap_or(d.skip_last),
    };
    let result = py.detach(|| kino::adbreaks::contextual_adbreaks(doc, &options)).py_err(py)?;
    to_py(py, &result)
}

/// Aligns the audio fingerprints of two analysed titles (`kino::fingerprint::compare`):
/// `{"offset", "bit_error_rate", "overlap", "similarity", "same_title"}` (`offset`: seconds to add
/// to a time of `a` to find the same sound in `b`), or `None` when nothing aligns. Raises
/// `MissingSignalError` when either has no fingerprint.
#[pyfunction]
pub fn compare_fingerprints<'py>(
    py: Python<'py>,
    a: PyRef<'py, PySignals>,
    b: PyRef<'py, PySignals>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let missing = || kino::Error::MissingSignal { field: "audio_fingerprint", needed_by: "compare_fingerprints" };
    let fa = a.signals().audio_fingerprint.as_ref().ok_or_else(missing).py_err(py)?;
    let fb = b.signals().audio_fingerprint.as_ref().ok_or_else(missing).py_err(py)?;
    let found = py.detach(|| kino::fingerprint::compare(fa, fb));
    found.map(|m| to_py(py, &m)).transpose()
}

/// Groups titles that are the same film (`kino::fingerprint::DuplicateIndex::groups`): `titles`
/// maps ids to analysed `Signals`; the result is a list of groups of two or more ids, largest
/// first. Titles without a fingerprint are left out.
#[pyfunction]
pub fn duplicate_groups(
    py: Python<'_>,
    titles: std::collections::BTreeMap<String, PyRef<'_, PySignals>>,
) -> Vec<Vec<String>> {
    let prints: Vec<(String, &kino::signals::AudioFingerprint)> =
        titles.iter().filter_map(|(id, s)| s.signals().audio_fingerprint.as_ref().map(|f| (id.clone(), f))).collect();
    py.detach(|| kino::fingerprint::DuplicateIndex::new(prints).groups())
}

/// The fingerprint+ product (`data` of `/results/fingerprintplus/v3/`): `{"fingerprint",
/// "fingerprint_hop", "mood", "genre", "keyword", "mood_tag", "language": {"main"}}`. Raises
/// `MissingSignalError` without an audio fingerprint.
#[pyfunction]
pub fn fingerprint_profile<'py>(py: Python<'py>, signals: PyRef<'py, PySignals>) -> PyResult<Bound<'py, PyAny>> {
    let profile = kino::fingerprint::profile(signals.signals()).py_err(py)?;
    to_py(py, &profile)
}

/// Binge markers of a season's episodes (`kino::markers::season_markers`): `episodes` in any order,
/// `numbers` their episode numbers (for recaps; `None` entries or no list: no recap). One dict per
/// episode, in the given order: `intro_start`, `intro_end`, `recap_start`, `recap_end`,
/// `credit_start`, `credit_end`, `post_credits_start`, `post_credits_end`, `mid_credits_start`,
/// `mid_credits_end` (seconds or `None`),
/// `credits_cue` (`"text"`, `"picture"` (pictures of text, or a roll), `"season"` or `None`: which
/// cue found the credits) and
/// `episodes_compared`.
#[pyfunction]
#[pyo3(signature = (episodes, numbers=None))]
pub fn season_markers<'py>(
    py: Python<'py>,
    episodes: Vec<PyRef<'py, PySignals>>,
    numbers: Option<Vec<Option<i64>>>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(n) = &numbers
        && n.len() != episodes.len()
    {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "numbers must have one entry per episode ({}), not {}",
            episodes.len(),
            n.len()
        )));
    }
    let list: Vec<kino::markers::Episode<'_>> = episodes
        .iter()
        .enumerate()
        .map(|(i, s)| kino::markers::Episode { number: numbers.as_ref().and_then(|n| n[i]), signals: s.signals() })
        .collect();
    let markers = py.detach(|| kino::markers::season_markers(&list));
    to_py(py, &markers)
}

/// Links the characters of several titles (the episodes of a series, in order) into identities
/// across them (`kino::characters::link`): one list per title of `{"rank", "screen_seconds",
/// "series_identity"}` (the same number for the same person in every title; `None` for a
/// character without a face descriptor).
#[pyfunction]
pub fn link_characters<'py>(py: Python<'py>, titles: Vec<PyRef<'py, PySignals>>) -> PyResult<Bound<'py, PyAny>> {
    let docs: Vec<&kino::Signals> = titles.iter().map(|s| s.signals()).collect();
    let linked = py.detach(|| kino::characters::link(&docs));
    to_py(py, &linked)
}
