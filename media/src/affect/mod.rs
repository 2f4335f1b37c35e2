//! The affect of a title, sample by sample: what each channel kino measured says about how the
//! moment feels (a [`Reading`]: valence, arousal and dominance with a weight, and direct evidence
//! of named emotions), fused into the document's emotion track ([`fuse`]), the clip-type
//! timelines ([`clip_types::clip_types`]) and the best moments ([`best::best_moments`]).
//!
//! Every number here is a rule, stated with its source; nothing is learned except what the
//! models behind the readings measure (the image classifier, the sentence model, the facial
//! expression model, the sound-event model). `docs/media.md` ("How kino feels a film") has the
//! tables.
//!
//! ```
//! use kino_media::affect::{Reading, fuse, EMOTIONS};
//!
//! // Two samples: the colour of the picture says pleasant in both, a face says fear in the second.
//! let mut colour = Reading::new("colour", "rule", 2);
//! colour.set_vad(0, [Some(0.4), Some(0.0), None], 0.5);
//! colour.set_vad(1, [Some(0.4), Some(0.0), None], 0.5);
//! let mut faces = Reading::new("faces", "model", 2);
//! faces.set_probs(1, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9, 0.0], 1.5);
//! let fused = fuse(&[colour, faces], 1.0, 2);
//! assert!(fused.valence[0] > 0.0 && fused.valence[1] < 0.0);
//! let fear = EMOTIONS.iter().position(|(n, _)| *n == "fear").unwrap();
//! assert!(fused.probs[1][fear] > 0.8);
//! ```

pub mod anchors;
pub mod best;
pub mod clip_types;
pub mod readings;
pub mod seen;
#[cfg(test)]
mod tests;

use kino::signals::Emotions;

/// The named emotions of the track and where each sits in valence, arousal and dominance
/// (each in `[-1, 1]`). These coordinates are kino's own rule, not data from a lexicon: each
/// emotion is put in the octant that the circumplex model of affect (Russell 1980) and the
/// pleasure-arousal-dominance model (Mehrabian 1996) give it, on a grid of quarter steps, so
/// that they carry no licence but the project's.
pub const EMOTIONS: [(&str, [f32; 3]); 8] = [
    ("joy", [0.75, 0.5, 0.5]),
    ("amusement", [0.75, 0.25, 0.25]),
    ("excitement", [0.5, 0.75, 0.5]),
    ("tenderness", [0.75, -0.25, 0.0]),
    ("surprise", [0.25, 0.75, 0.0]),
    ("sadness", [-0.75, -0.5, -0.5]),
    ("fear", [-0.75, 0.75, -0.5]),
    ("anger", [-0.75, 0.75, 0.5]),
];

/// The number of named emotions.
pub const EMOTION_COUNT: usize = EMOTIONS.len();

/// Indices of [`EMOTIONS`], for the rules.
pub const JOY: usize = 0;
pub const AMUSEMENT: usize = 1;
pub const EXCITEMENT: usize = 2;
pub const TENDERNESS: usize = 3;
pub const SURPRISE: usize = 4;
pub const SADNESS: usize = 5;
pub const FEAR: usize = 6;
pub const ANGER: usize = 7;

/// The weight of the neutral origin in every dimension of every sample: weak evidence moves a
/// sample a little, strong or agreeing evidence moves it far.
pub const PRIOR: f32 = 0.5;

/// How much of an emotion's probability its closeness to the fused position can give (the
/// rest comes only from direct evidence: a face, a sound, words).
pub const POSITION_SHARE: f32 = 0.6;

/// The width of the closeness kernel around each emotion's coordinates.
pub const KERNEL_WIDTH: f32 = 0.35;

/// An emotion probability that counts as evidence of it (for the channels' shares in
/// provenance, and the clip-type rules).
pub const EVIDENCE: f32 = 0.3;

/// The least weight with which a reading counts as having spoken at a sample (what is seen
/// at [`EVIDENCE`] or more weighs this).
pub const SPOKE: f32 = 0.15;

/// What one channel says about each timeline sample: a value per dimension (valence, arousal,
/// dominance) with its weight (0 where the channel has nothing to say), and direct evidence of
/// the named emotions (probabilities in [`EMOTIONS`] order, 0 where none).
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The channel's short name (`colour`, `motion`, `seen`, `faces`, `loudness`, `sound events`,
    /// `speech`, `prosody`).
    pub channel: &'static str,
    /// What measured it (the model and version, or the rule).
    pub source: String,
    /// Values per dimension and sample.
    pub vad: [Vec<f32>; 3],
    /// Weights per dimension and sample, `>= 0`.
    pub weight: [Vec<f32>; 3],
    /// Direct evidence per sample.
    pub probs: Vec<[f32; EMOTION_COUNT]>,
}

impl Reading {
    /// A reading of `n` samples that says nothing yet.
    pub fn new(channel: &'static str, source: impl Into<String>, n: usize) -> Reading {
        Reading {
            channel,
            source: source.into(),
            vad: [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            weight: [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            probs: vec![[0.0; EMOTION_COUNT]; n],
        }
    }

    /// Samples.
    pub fn len(&self) -> usize {
        self.probs.len()
    }

    /// Whether it has no samples.
    pub fn is_empty(&self) -> bool {
        self.probs.is_empty()
    }

    /// Sets the dimensions given at sample `i`, each with `weight` (non-finite values are
    /// ignored; values are clamped to `[-1, 1]`).
    pub fn set_vad(&mut self, i: usize, vad: [Option<f32>; 3], weight: f32) {
        if i >= self.len() || !(weight.is_finite() && weight > 0.0) {
            return;
        }
        for (d, v) in vad.into_iter().enumerate() {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                self.vad[d][i] = v.clamp(-1.0, 1.0);
                self.weight[d][i] = weight;
            }
        }
    }

    /// Sets direct evidence at sample `i` and, from it, the position: the probability-weighted
    /// mean of the emotions' coordinates, weighing `weight` times the strongest probability.
    pub fn set_probs(&mut self, i: usize, probs: [f32; EMOTION_COUNT], weight: f32) {
        if i >= self.len() {
            return;
        }
        let probs = probs.map(|p| if p.is_finite() { p.clamp(0.0, 1.0) } else { 0.0 });
        self.probs[i] = probs;
        let total: f32 = probs.iter().sum();
        if total <= 0.0 {
            return;
        }
        let strongest = probs.iter().fold(0f32, |a, &b| a.max(b));
        let position =
            [0, 1, 2].map(|d| Some(probs.iter().zip(&EMOTIONS).map(|(p, (_, c))| p * c[d]).sum::<f32>() / total));
        self.set_vad(i, position, weight * strongest);
    }

    /// Whether the channel says anything at sample `i`: a weight of at least [`SPOKE`] in some
    /// dimension, or an emotion at the [`EVIDENCE`] level.
    pub fn spoke(&self, i: usize) -> bool {
        self.weight.iter().any(|w| w.get(i).is_some_and(|&w| w >= SPOKE))
            || self.probs.get(i).is_some_and(|p| p.iter().any(|&p| p >= EVIDENCE))
    }

    /// The share of the samples where the channel says anything.
    pub fn share(&self) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        (0..self.len()).filter(|&i| self.spoke(i)).count() as f64 / self.len() as f64
    }
}

/// The fused affect on the timeline grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    /// Seconds per sample.
    pub step: f64,
    /// Valence, arousal, dominance per sample, each in `[-1, 1]`.
    pub valence: Vec<f32>,
    pub arousal: Vec<f32>,
    pub dominance: Vec<f32>,
    /// Named-emotion probabilities per sample, [`EMOTIONS`] order.
    pub probs: Vec<[f32; EMOTION_COUNT]>,
}

impl Fused {
    /// The document's emotion track.
    pub fn emotions(&self) -> Emotions {
        let round = |v: f32| (kino::report::score(f64::from(v)) as f32).clamp(-1.0, 1.0);
        Emotions {
            step: self.step,
            names: EMOTIONS.iter().map(|(n, _)| n.to_string()).collect(),
            probs: self.probs.iter().map(|row| row.iter().map(|&p| round(p).max(0.0)).collect()).collect(),
            valence: self.valence.iter().copied().map(round).collect(),
            arousal: self.arousal.iter().copied().map(round).collect(),
            dominance: self.dominance.iter().copied().map(round).collect(),
        }
    }
}

/// Fuses the readings of `n` samples of `step` seconds. Per sample and dimension, the value is
/// the weighted mean of the channels' values and of the neutral origin weighing [`PRIOR`];
/// each emotion's probability is the noisy-or of its strongest direct evidence and of
/// [`POSITION_SHARE`] times its closeness to the fused position (a Gaussian kernel of width
/// [`KERNEL_WIDTH`] around its coordinates, shared among the emotions near there, and scaled by
/// how far the position is from neutral). Readings of another length are ignored.
pub fn fuse(readings: &[Reading], step: f64, n: usize) -> Fused {
    let readings: Vec<&Reading> = readings.iter().filter(|r| r.len() == n).collect();
    let mut vad = [vec![0f32; n], vec![0f32; n], vec![0f32; n]];
    let mut probs = vec![[0f32; EMOTION_COUNT]; n];
    for i in 0..n {
        for (d, out) in vad.iter_mut().enumerate() {
            let (mut sum, mut weight) = (0f32, PRIOR);
            for r in &readings {
                sum += r.weight[d][i] * r.vad[d][i];
                weight += r.weight[d][i];
            }
            out[i] = (sum / weight).clamp(-1.0, 1.0);
        }
        let position = [vad[0][i], vad[1][i], vad[2][i]];
        let closeness = closeness(position);
        for (e, p) in probs[i].iter_mut().enumerate() {
            let direct = readings.iter().map(|r| r.probs[i][e]).fold(0f32, f32::max);
            *p = (1.0 - (1.0 - direct) * (1.0 - POSITION_SHARE * closeness[e])).clamp(0.0, 1.0);
        }
    }
    let [valence, arousal, dominance] = vad;
    Fused { step, valence, arousal, dominance, probs }
}

/// How close `position` is to each emotion: kernel values shared among the emotions (they sum
/// to at most 1), scaled by the position's distance from neutral (full at 0.75 and beyond).
pub fn closeness(position: [f32; 3]) -> [f32; EMOTION_COUNT] {
    let kernel = EMOTIONS.map(|(_, c)| {
        let d2: f32 = c.iter().zip(position).map(|(a, b)| (a - b) * (a - b)).sum();
        (-d2 / (2.0 * KERNEL_WIDTH * KERNEL_WIDTH)).exp()
    });
    let total: f32 = kernel.iter().sum::<f32>().max(1.0);
    let intensity = (position.iter().map(|v| v * v).sum::<f32>().sqrt() / 0.75).min(1.0);
    kernel.map(|k| intensity * k / total)
}

/// Values mapped linearly from `[lo, hi]` to `[0, 1]`, clamped (0 for non-finite values).
pub fn unit(v: f64, lo: f64, hi: f64) -> f32 {
    if !v.is_finite() || hi <= lo {
        return 0.0;
    }
    ((v - lo) / (hi - lo)).clamp(0.0, 1.0) as f32
}
