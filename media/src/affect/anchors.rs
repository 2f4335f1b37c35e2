//! What is said, placed among the named emotions by the sentence model: each emotion is
//! described in a few words ([`DESCRIPTIONS`], with [`NEUTRAL`] descriptions beside them), and a
//! text's probabilities are the softmax of its cosine similarities to all the descriptions at
//! [`TEMPERATURE`], kept only for the emotions closer than the nearest neutral description by at
//! least [`MARGIN`]. No lexicon is used, so no lexicon's licence applies.

use kino_models::SentenceEncoder;

use super::EMOTION_COUNT;

/// The descriptions, in [`super::EMOTIONS`] order.
pub const DESCRIPTIONS: [&str; EMOTION_COUNT] = [
    "joy: happy, cheerful, delighted people celebrating a wonderful day",
    "amusement: a funny, silly, hilarious joke that makes everyone laugh",
    "excitement: a thrilling, exciting race, a chase, a daring adventure",
    "tenderness: a tender, loving, gentle moment, I love you, a warm embrace",
    "surprise: a sudden shock, astonished and amazed, what, I can't believe it",
    "sadness: sad, grieving, crying, lonely and heartbroken after a loss",
    "fear: terrified, frightened, in danger, a monster, a scream in the dark",
    "anger: furious, angry, shouting with rage, I hate you, a violent fight",
];

/// What carries no emotion: a plain statement, and small talk.
pub const NEUTRAL: [&str; 2] = [
    "an ordinary everyday statement or object, plain information",
    "small talk about everyday matters: names, places, times and plans",
];

/// The softmax temperature over cosine similarities.
pub const TEMPERATURE: f32 = 0.05;
/// How much closer than the nearest neutral description an emotion's must be to count.
pub const MARGIN: f32 = 0.05;
/// Texts encoded per batch.
const BATCH: usize = 32;

/// The descriptions' sentence vectors.
#[derive(Debug)]
pub struct Anchors {
    vectors: Vec<Vec<f32>>,
}

impl Anchors {
    /// Encodes the descriptions.
    pub fn new(encoder: &SentenceEncoder) -> Result<Anchors, kino_models::Error> {
        let all: Vec<&str> = DESCRIPTIONS.iter().chain(&NEUTRAL).copied().collect();
        Ok(Anchors { vectors: encoder.encode_batch(&all)? })
    }

    /// The probabilities of each text (see the module documentation).
    pub fn texts(
        &self,
        encoder: &SentenceEncoder,
        texts: &[String],
    ) -> Result<Vec<[f32; EMOTION_COUNT]>, kino_models::Error> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
            out.extend(encoder.encode_batch(&refs)?.iter().map(|v| self.place(v)));
        }
        Ok(out)
    }

    /// The probabilities of one sentence vector.
    pub fn place(&self, vector: &[f32]) -> [f32; EMOTION_COUNT] {
        place(&self.vectors, vector)
    }
}

/// [`Anchors::place`] over given description vectors (the emotions', then the neutral ones).
pub fn place(anchors: &[Vec<f32>], vector: &[f32]) -> [f32; EMOTION_COUNT] {
    let mut out = [0f32; EMOTION_COUNT];
    if anchors.len() <= EMOTION_COUNT {
        return out;
    }
    let sims: Vec<f32> = anchors.iter().map(|a| cosine(a, vector)).collect();
    let top = sims.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = sims.iter().map(|s| ((s - top) / TEMPERATURE).exp()).collect();
    let total: f32 = exp.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return out;
    }
    let neutral = sims[EMOTION_COUNT..].iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for (e, p) in out.iter_mut().enumerate() {
        if sims[e] >= neutral + MARGIN {
            *p = exp[e] / total;
        }
    }
    out
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na > 0.0 && nb > 0.0 { dot / (na * nb) } else { 0.0 }
}
