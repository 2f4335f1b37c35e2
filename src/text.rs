//! Text queries: the [`TextEncoder`] trait and the embedded default, [`LexicalEncoder`].
//!
//! The lexical encoder is honest about what it is: it hashes words, word pairs and character
//! trigrams into a signed vector (feature hashing), so a query finds scenes whose embeddings were
//! built from the same words. It knows nothing of meaning: "car chase" does not find "pursuit".
//! A learned joint text-video model plugs in by implementing [`TextEncoder`].

use crate::error::{Error, Result};
use crate::signals::SCENE_EMBEDDING_DIM;

/// Turns text into a unit-length vector comparable (by dot product) with scene embeddings.
pub trait TextEncoder: Send + Sync + std::fmt::Debug {
    /// Length of the vectors produced.
    fn dim(&self) -> usize;
    /// Encodes `text`; an error when it holds nothing to encode.
    fn encode(&self, text: &str) -> Result<Vec<f32>>;
    /// A short identifier of the model, reported as `version_id` by the service.
    fn version(&self) -> &str;
    /// Encodes `text` and hands the result to `done`, now or later on another thread. An encoder
    /// that queues queries for worker threads calls `done` from the worker, so a caller that can
    /// wait without a thread of its own (an async request handler with a one-shot channel) does
    /// not park one. The default encodes at once, on the calling thread: an encoder whose
    /// `encode` takes more than a few microseconds should queue the work instead, since an async
    /// caller runs this on its executor's thread.
    fn encode_then(&self, text: &str, done: Box<dyn FnOnce(Result<Vec<f32>>) + Send>) {
        done(self.encode(text))
    }
}

/// Deterministic lexical encoder: signed feature hashing of words (weight 1), adjacent word pairs
/// (0.5) and character trigrams of each word (0.25), L2-normalised.
#[derive(Debug, Clone)]
pub struct LexicalEncoder {
    dim: usize,
}

impl Default for LexicalEncoder {
    fn default() -> Self {
        LexicalEncoder { dim: SCENE_EMBEDDING_DIM }
    }
}

impl LexicalEncoder {
    /// An encoder producing `dim`-float vectors (1024 for scenes, 256 for items).
    pub fn with_dim(dim: usize) -> LexicalEncoder {
        LexicalEncoder { dim: dim.max(1) }
    }

    fn add(&self, out: &mut [f32], feature: &[u8], weight: f32) {
        let h = fnv1a(feature);
        let index = (h % self.dim as u64) as usize;
        let sign = if (h >> 63) & 1 == 1 { -1.0 } else { 1.0 };
        out[index] += sign * weight;
    }
}

impl TextEncoder for LexicalEncoder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn encode(&self, text: &str) -> Result<Vec<f32>> {
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        if words.is_empty() {
            return Err(Error::EmptyText);
        }
        let mut out = vec![0f32; self.dim];
        for w in &words {
            self.add(&mut out, format!("w:{w}").as_bytes(), 1.0);
            let padded: Vec<char> = format!("#{w}#").chars().collect();
            for tri in padded.windows(3) {
                let tri: String = tri.iter().collect();
                self.add(&mut out, format!("c:{tri}").as_bytes(), 0.25);
            }
        }
        for pair in words.windows(2) {
            self.add(&mut out, format!("b:{} {}", pair[0], pair[1]).as_bytes(), 0.5);
        }
        let norm = out.iter().map(|v| f64::from(*v) * f64::from(*v)).sum::<f64>().sqrt();
        if norm == 0.0 {
            return Err(Error::EmptyText);
        }
        let scale = (1.0 / norm) as f32;
        out.iter_mut().for_each(|v| *v *= scale);
        Ok(out)
    }

    fn version(&self) -> &str {
        "lexical-1"
    }
}

/// 64-bit FNV-1a: stable across platforms and releases, which feature hashing needs.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Dot product of two equal-length vectors in a fixed summation order (16 f32 lanes, then the
/// lanes summed in f64), so the result is the same on every run and platform and the compiler can
/// vectorise it.
pub fn dot(a: &[f32], b: &[f32]) -> f64 {
    const LANES: usize = 16;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    acc.iter().map(|&v| f64::from(v)).sum::<f64>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_length_and_deterministic() {
        let enc = LexicalEncoder::default();
        let a = enc.encode("Car chase at night").unwrap();
        let b = enc.encode("car   CHASE at night!").unwrap();
        assert_eq!(a, b);
        let norm: f64 = a.iter().map(|v| f64::from(*v).powi(2)).sum();
        assert!((norm - 1.0).abs() < 1e-5);
    }

    #[test]
    fn shared_words_score_higher() {
        let enc = LexicalEncoder::default();
        let q = enc.encode("explosion").unwrap();
        let near = enc.encode("explosion city tense").unwrap();
        let far = enc.encode("kiss beach romantic").unwrap();
        assert!(dot(&q, &near) > dot(&q, &far) + 0.3);
    }

    #[test]
    fn empty_text_is_an_error() {
        assert!(matches!(LexicalEncoder::default().encode("  ?! "), Err(Error::EmptyText)));
    }
}
