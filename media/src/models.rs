//! The pretrained models analysis may use ([`AnalysisModels`]): loaded once, shared by every
//! analysis of a process, and never required. A model that is missing (not fetched, the runtime
//! library absent, a file that does not load) is recorded with the reason, the channels it would
//! have measured are reported absent with that reason, and the model-free path runs instead.
//!
//! The models that keep state while they run (the ONNX sessions take `&mut self`, and the voice
//! activity detector and the sound tagger follow a stream) are not shared but lent: an analysis
//! takes a loaded instance from the spares (loading another only when every one is in use by a
//! concurrent analysis) and gives it back when it has finished with it. The instance loaded to
//! check a model is the first spare, so a process loads each model once per concurrent analysis,
//! not once per analysis.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use kino::TextEncoder;
use kino_models::manifest::{
    DLIB_FACES, EFFICIENTNET_LITE0, FER_EXPRESSION, MINILM, ONNXRUNTIME, OPEN_NSFW, PPOCR, SILERO_VAD, VOICE_DVECTOR,
    WHISPER_BASE, YAMNET, YOLOV3_TINY,
};
use kino_models::{
    ExpressionModel, FaceAnalyzer, ImageLabeler, Model, ModelsDir, NsfwClassifier, ObjectDetector, Runtime,
    SentenceEncoder, SileroVad, SoundTagger, SpeakerEmbedder, TextReader, VadParams, Whisper,
};

/// One model as the analysis sees it: loaded (with its `id version` label) or missing (with why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelState {
    /// The model's short name, e.g. `silero-vad`.
    pub id: &'static str,
    /// The pinned version of the package that carries it.
    pub version: &'static str,
    /// What it is for, in a few words.
    pub summary: &'static str,
    /// Whether analysis uses it.
    pub loaded: bool,
    /// Why it is not used, when it is not: a missing file and the command that fetches it, a
    /// load failure, or models being disabled.
    pub reason: Option<String>,
}

impl ModelState {
    /// `id version`, the form used in provenance and `version_id`s.
    pub fn label(&self) -> String {
        format!("{} {}", self.id, self.version)
    }
}

/// The models an analysis may use. Build it once with [`AnalysisModels::load`] (or
/// [`AnalysisModels::none`] for the model-free analysis) and share it (`Arc`) between analyses.
pub struct AnalysisModels {
    dir: Option<ModelsDir>,
    runtime: Option<Runtime>,
    text: Option<Arc<SentenceEncoder>>,
    whisper: Option<Arc<Whisper>>,
    expression: Option<Arc<ExpressionModel>>,
    states: Vec<ModelState>,
    spares: Spares,
}

impl std::fmt::Debug for AnalysisModels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisModels").field("dir", &self.dir).field("states", &self.states).finish()
    }
}

/// Loaded instances of the lent models that no analysis is using.
#[derive(Default)]
pub(crate) struct Spares {
    vad: Mutex<Vec<SileroVad>>,
    sound: Mutex<Vec<SoundTagger>>,
    nsfw: Mutex<Vec<NsfwClassifier>>,
    ocr: Mutex<Vec<TextReader>>,
    faces: Mutex<Vec<FaceAnalyzer>>,
    labeler: Mutex<Vec<ImageLabeler>>,
    objects: Mutex<Vec<ObjectDetector>>,
    voices: Mutex<Vec<SpeakerEmbedder>>,
}

impl Spares {
    /// Drops the spares of the model `id`.
    fn drop_model(&mut self, id: &str) {
        fn drop_all<T: Lent>(spares: &mut Spares, id: &str) {
            if T::MODEL.id == id {
                T::spares(spares).lock().unwrap_or_else(PoisonError::into_inner).clear();
            }
        }
        drop_all::<SileroVad>(self, id);
        drop_all::<SoundTagger>(self, id);
        drop_all::<NsfwClassifier>(self, id);
        drop_all::<TextReader>(self, id);
        drop_all::<FaceAnalyzer>(self, id);
        drop_all::<ImageLabeler>(self, id);
        drop_all::<ObjectDetector>(self, id);
        drop_all::<SpeakerEmbedder>(self, id);
    }
}

/// A model an analysis borrows from [`AnalysisModels`] ([`AnalysisModels::give_back`]).
pub(crate) trait Lent: Sized {
    /// Its package.
    const MODEL: &'static Model;
    /// Loads an instance, as every analysis uses it.
    fn load(runtime: &Runtime, dir: &ModelsDir) -> Result<Self, kino_models::Error>;
    /// Its spares.
    fn spares(spares: &Spares) -> &Mutex<Vec<Self>>;
}

macro_rules! lent {
    ($type:ty, $model:expr, $field:ident, $load:expr) => {
        impl Lent for $type {
            const MODEL: &'static Model = &$model;
            fn load(runtime: &Runtime, dir: &ModelsDir) -> Result<Self, kino_models::Error> {
                $load(runtime, dir)
            }
            fn spares(spares: &Spares) -> &Mutex<Vec<Self>> {
                &spares.$field
            }
        }
    };
}

lent!(SileroVad, SILERO_VAD, vad, |r, d| SileroVad::load(r, d, VadParams::default()));
lent!(SoundTagger, YAMNET, sound, |r, d| SoundTagger::load(r, d, 1));
lent!(NsfwClassifier, OPEN_NSFW, nsfw, |r, d| NsfwClassifier::load(r, d, 1));
lent!(TextReader, PPOCR, ocr, |r, d| TextReader::load(r, d, 1));
lent!(FaceAnalyzer, DLIB_FACES, faces, |r, d| FaceAnalyzer::load(r, d, 1));
lent!(ImageLabeler, EFFICIENTNET_LITE0, labeler, |r, d| ImageLabeler::load(r, d, 1));
lent!(ObjectDetector, YOLOV3_TINY, objects, |r, d| ObjectDetector::load(r, d, 1));
lent!(SpeakerEmbedder, VOICE_DVECTOR, voices, |r, d| SpeakerEmbedder::load(r, d, 1));

/// The models analysis knows of, in the order they are reported.
const KNOWN: [&Model; 12] = [
    &ONNXRUNTIME,
    &SILERO_VAD,
    &YAMNET,
    &MINILM,
    &OPEN_NSFW,
    &PPOCR,
    &DLIB_FACES,
    &EFFICIENTNET_LITE0,
    &WHISPER_BASE,
    &FER_EXPRESSION,
    &VOICE_DVECTOR,
    &YOLOV3_TINY,
];

fn state(model: &'static Model, reason: Option<String>) -> ModelState {
    ModelState { id: model.id, version: model.version, summary: model.summary, loaded: reason.is_none(), reason }
}

/// The command that fetches `model` (optional models are fetched by name).
fn fetch_hint(model: &Model) -> String {
    if model.default { "kino models fetch".to_string() } else { format!("kino models fetch {}", model.id) }
}

impl AnalysisModels {
    /// No models: the model-free analysis (spectral speech, lexical text), every learned channel
    /// absent with the reason "models disabled".
    pub fn none() -> AnalysisModels {
        AnalysisModels {
            dir: None,
            runtime: None,
            text: None,
            whisper: None,
            expression: None,
            states: KNOWN.iter().map(|m| state(m, Some("models are disabled (--no-models)".to_string()))).collect(),
            spares: Spares::default(),
        }
    }

    /// Loads what `dir` holds; never fails. The runtime, the sentence encoder and the speech
    /// recogniser are loaded here and shared; the other models are loaded here too, and lent to
    /// one analysis at a time (another instance is loaded only for analyses that run at the same
    /// time). `threads` is the sentence encoder's intra-op thread count.
    pub fn load(dir: &ModelsDir, threads: usize) -> AnalysisModels {
        let missing = |model: &'static Model| {
            let status = dir.status(model);
            (!status.present()).then(|| {
                format!(
                    "model {} is not in the models directory {} (missing {}): run `{}`",
                    model.label(),
                    dir.path().display(),
                    status.missing.join(", "),
                    fetch_hint(model)
                )
            })
        };
        let mut states = Vec::new();
        let runtime = match missing(&ONNXRUNTIME) {
            Some(reason) => {
                states.push(state(&ONNXRUNTIME, Some(reason)));
                None
            }
            None => match Runtime::load(dir) {
                Ok(runtime) => {
                    states.push(state(&ONNXRUNTIME, None));
                    Some(runtime)
                }
                Err(e) => {
                    states.push(state(&ONNXRUNTIME, Some(format!("the ONNX runtime does not load: {e}"))));
                    None
                }
            },
        };
        let mut text = None;
        let spares = Spares::default();
        for model in [
            &SILERO_VAD,
            &YAMNET,
            &MINILM,
            &OPEN_NSFW,
            &PPOCR,
            &DLIB_FACES,
            &EFFICIENTNET_LITE0,
            &VOICE_DVECTOR,
            &YOLOV3_TINY,
        ] {
            let reason = match (&runtime, missing(model)) {
                (_, Some(reason)) => Some(reason),
                (None, None) => Some(format!("the ONNX runtime is not available, so {} cannot run", model.label())),
                (Some(runtime), None) => {
                    let loaded = if model.id == MINILM.id {
                        SentenceEncoder::load(runtime, dir, threads).map(|encoder| text = Some(Arc::new(encoder)))
                    } else if model.id == SILERO_VAD.id {
                        spare::<SileroVad>(runtime, dir, &spares)
                    } else if model.id == OPEN_NSFW.id {
                        spare::<NsfwClassifier>(runtime, dir, &spares)
                    } else if model.id == PPOCR.id {
                        spare::<TextReader>(runtime, dir, &spares)
                    } else if model.id == DLIB_FACES.id {
                        spare::<FaceAnalyzer>(runtime, dir, &spares)
                    } else if model.id == EFFICIENTNET_LITE0.id {
                        spare::<ImageLabeler>(runtime, dir, &spares)
                    } else if model.id == YOLOV3_TINY.id {
                        spare::<ObjectDetector>(runtime, dir, &spares)
                    } else if model.id == VOICE_DVECTOR.id {
                        spare::<SpeakerEmbedder>(runtime, dir, &spares)
                    } else {
                        spare::<SoundTagger>(runtime, dir, &spares)
                    };
                    loaded.err().map(|e| format!("{} does not load: {e}", model.label()))
                }
            };
            states.push(state(model, reason));
        }
        // Whisper runs on candle, not on the ONNX runtime.
        let whisper = match missing(&WHISPER_BASE) {
            Some(reason) => {
                states.push(state(&WHISPER_BASE, Some(reason)));
                None
            }
            None => match Whisper::load(dir) {
                Ok(w) => {
                    states.push(state(&WHISPER_BASE, None));
                    Some(Arc::new(w))
                }
                Err(e) => {
                    states.push(state(&WHISPER_BASE, Some(format!("{} does not load: {e}", WHISPER_BASE.label()))));
                    None
                }
            },
        };
        // The expression model runs on candle too, and keeps no state between calls: shared.
        let expression = match missing(&FER_EXPRESSION) {
            Some(reason) => {
                states.push(state(&FER_EXPRESSION, Some(reason)));
                None
            }
            None => match ExpressionModel::load(dir) {
                Ok(m) => {
                    states.push(state(&FER_EXPRESSION, None));
                    Some(Arc::new(m))
                }
                Err(e) => {
                    states.push(state(&FER_EXPRESSION, Some(format!("{} does not load: {e}", FER_EXPRESSION.label()))));
                    None
                }
            },
        };
        AnalysisModels { dir: Some(dir.clone()), runtime, text, whisper, expression, states, spares }
    }

    /// Leaves the model `id` out of every analysis made with these models from now on (an
    /// operator's choice, or a measurement of what it adds), with `reason` in the provenance of
    /// the channels it would have measured. An unknown id changes nothing.
    pub fn disable(&mut self, id: &str, reason: &str) {
        for s in self.states.iter_mut().filter(|s| s.id == id) {
            s.loaded = false;
            s.reason = Some(reason.to_string());
        }
        if id == MINILM.id {
            self.text = None;
        }
        if id == WHISPER_BASE.id {
            self.whisper = None;
        }
        if id == FER_EXPRESSION.id {
            self.expression = None;
        }
        // A disabled model's spares go now (and none comes back: see `give_back`).
        self.spares.drop_model(id);
    }

    /// Every known model, loaded or not, with the reason when not.
    pub fn states(&self) -> &[ModelState] {
        &self.states
    }

    /// The state of the model `id`.
    pub fn state(&self, id: &str) -> Option<&ModelState> {
        self.states.iter().find(|s| s.id == id)
    }

    /// Labels (`id version`) of the loaded models, the runtime included.
    pub fn loaded(&self) -> Vec<String> {
        self.states.iter().filter(|s| s.loaded).map(ModelState::label).collect()
    }

    /// The reasons of the models that are not loaded, by model id.
    pub fn missing(&self) -> BTreeMap<&'static str, &str> {
        self.states.iter().filter_map(|s| s.reason.as_deref().map(|r| (s.id, r))).collect()
    }

    /// The sentence encoder, when loaded: 384-float unit vectors (see [`crate::embed`] for the
    /// 1024- and 256-float spaces of the interface).
    pub fn sentence_encoder(&self) -> Option<&Arc<SentenceEncoder>> {
        self.text.as_ref()
    }

    /// The text encoder of the interface's 1024-float scene space: the sentence model lifted
    /// ([`crate::embed::SceneSpace`]) when loaded, else the lexical encoder (`lexical-hash-v1`).
    pub fn scene_text_encoder(&self) -> Arc<dyn TextEncoder> {
        match &self.text {
            Some(encoder) => Arc::new(crate::embed::SceneSpace::new(encoder.clone())),
            None => Arc::new(kino::LexicalEncoder::default()),
        }
    }

    /// The speech recogniser, when loaded (shared: transcription keeps no state between calls).
    pub fn whisper(&self) -> Option<&Arc<Whisper>> {
        self.whisper.as_ref()
    }

    /// The facial expression model, when loaded (shared: it keeps no state between calls). It
    /// reads the faces the face model finds, so it runs only where that one does.
    pub fn expression_model(&self) -> Option<&Arc<ExpressionModel>> {
        self.expression.as_ref()
    }

    /// A model to use in one analysis, when it is usable: a spare, else a new instance. Give it
    /// back ([`AnalysisModels::give_back`]) when done with it.
    fn lend<T: Lent>(&self) -> Option<Result<T, kino_models::Error>> {
        let (runtime, dir) = (self.runtime.as_ref()?, self.dir.as_ref()?);
        let spare = || T::spares(&self.spares).lock().unwrap_or_else(PoisonError::into_inner).pop();
        self.state(T::MODEL.id)?.loaded.then(|| spare().map_or_else(|| T::load(runtime, dir), Ok))
    }

    /// Takes back a model lent by [`AnalysisModels::lend`], for another analysis: one that has
    /// finished with it (a stream model reset by the end of its stream). A model disabled
    /// meanwhile is dropped.
    pub(crate) fn give_back<T: Lent>(&self, model: T) {
        if self.state(T::MODEL.id).is_some_and(|s| s.loaded) {
            T::spares(&self.spares).lock().unwrap_or_else(PoisonError::into_inner).push(model);
        }
    }

    /// A voice activity detector (its state is per stream), when the model is usable.
    pub(crate) fn vad(&self) -> Option<Result<SileroVad, kino_models::Error>> {
        self.lend()
    }

    /// A nudity classifier for one analysis, when the model is usable.
    pub(crate) fn nsfw(&self) -> Option<Result<NsfwClassifier, kino_models::Error>> {
        self.lend()
    }

    /// A text reader for one analysis, when the models are usable.
    pub(crate) fn ocr(&self) -> Option<Result<TextReader, kino_models::Error>> {
        self.lend()
    }

    /// A face analyser for one analysis, when the model is usable (and this build has dlib).
    pub(crate) fn faces(&self) -> Option<Result<FaceAnalyzer, kino_models::Error>> {
        self.lend()
    }

    /// An image labeler for one analysis, when the model is usable.
    pub(crate) fn labeler(&self) -> Option<Result<ImageLabeler, kino_models::Error>> {
        self.lend()
    }

    /// A speaker embedder for one analysis, when the model is usable.
    pub(crate) fn voices(&self) -> Option<Result<SpeakerEmbedder, kino_models::Error>> {
        self.lend()
    }

    /// An object detector for one analysis, when the model is usable.
    pub(crate) fn objects(&self) -> Option<Result<ObjectDetector, kino_models::Error>> {
        self.lend()
    }

    /// A sound-event tagger (its state is per stream), when the model is usable.
    pub(crate) fn sound(&self) -> Option<Result<SoundTagger, kino_models::Error>> {
        self.lend()
    }
}

/// Loads `T` to check it, keeping the instance as the first spare.
fn spare<T: Lent>(runtime: &Runtime, dir: &ModelsDir, spares: &Spares) -> Result<(), kino_models::Error> {
    let model = T::load(runtime, dir)?;
    T::spares(spares).lock().unwrap_or_else(PoisonError::into_inner).push(model);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The service, the command line and Python share one set between threads.
    #[test]
    fn the_models_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<AnalysisModels>();
    }

    #[test]
    fn an_empty_directory_gives_reasons_that_say_how_to_fetch() {
        let tmp = tempfile::tempdir().unwrap();
        let models = AnalysisModels::load(&ModelsDir::at(tmp.path()), 1);
        assert!(models.loaded().is_empty());
        assert!(models.sentence_encoder().is_none() && models.vad().is_none());
        let missing = models.missing();
        assert!(missing["silero-vad"].contains("kino models fetch`"), "{missing:?}");
        assert!(missing["yamnet"].contains("kino models fetch yamnet"), "{missing:?}");
        assert_eq!(models.scene_text_encoder().version(), kino::LexicalEncoder::default().version());
        let mut models = models;
        models.disable("silero-vad", "left out");
        assert_eq!(models.missing()["silero-vad"], "left out");
        let none = AnalysisModels::none();
        assert!(none.states().iter().all(|s| !s.loaded && s.reason.as_deref().unwrap().contains("disabled")));
    }
}
