//! Deterministic synthetic signals with realistic shapes, for the demo catalog, tests, benchmarks
//! and notebooks. The same options and seed always give the same document, on every platform and
//! with every dependency version (the generator is a self-contained SplitMix64).

use std::collections::BTreeMap;

use crate::clips::ClipType;
use crate::signals::*;
use crate::text::{LexicalEncoder, TextEncoder};

/// SplitMix64: tiny, fast, and fixed forever, so checked-in demo data never drifts.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in `[0, n)`; 0 when `n == 0`.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-300);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// `n` seeded pseudo-random audio fingerprint hashes (xorshift; odd, so never 0), for tests of
/// marker and duplicate detection: the same seed gives the same hashes, different seeds share
/// almost none.
pub fn fingerprint_hashes(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32 | 1
        })
        .collect()
}

/// Keyword vocabulary of the synthetic tags.
pub const KEYWORDS: [&str; 20] = [
    "car chase",
    "explosion",
    "kiss",
    "sword fight",
    "dog",
    "beach",
    "rain",
    "wedding",
    "gunfight",
    "dance",
    "storm",
    "horse",
    "spaceship",
    "robot",
    "dinner",
    "funeral",
    "train",
    "fire",
    "snow",
    "party",
];
/// Mood vocabulary.
pub const MOODS: [&str; 8] = ["tense", "joyful", "melancholic", "romantic", "eerie", "triumphant", "playful", "somber"];
/// Environment vocabulary.
pub const ENVIRONMENTS: [&str; 12] = [
    "city",
    "forest",
    "desert",
    "ocean",
    "office",
    "spaceship interior",
    "castle",
    "school",
    "hospital",
    "mountains",
    "kitchen",
    "nightclub",
];
/// Emotion names of the synthetic emotion track.
pub const EMOTIONS: [&str; 7] = ["anger", "disgust", "fear", "happiness", "sadness", "surprise", "neutral"];

/// What to generate. Defaults: realistic shapes at 1-second steps.
#[derive(Debug, Clone)]
pub struct SynthOptions {
    /// Customer id of the item.
    pub inventory_id: String,
    /// Seconds.
    pub duration: f64,
    /// Timeline step in seconds.
    pub step: f64,
    /// Frames per second.
    pub fps: f64,
    /// Seed.
    pub seed: u64,
    /// Fraction of the time covered by speech (0 for none, 1 for everywhere).
    pub speech_fraction: f64,
    /// Whether to place shot boundaries.
    pub shots: bool,
    /// Number of characters (0 for none).
    pub characters: usize,
    /// Whether every timeline is zero.
    pub zero_timelines: bool,
    /// Whether to add scene embeddings built from each scene's tags (plus noise).
    pub scene_embeddings: bool,
    /// Whether to add emotions, profanity events and a vertical track.
    pub extras: bool,
    /// Clip types with a timeline.
    pub clip_types: Vec<ClipType>,
}

impl SynthOptions {
    /// Defaults for an item of `duration` seconds at `step`.
    pub fn new(inventory_id: &str, duration: f64, step: f64, seed: u64) -> SynthOptions {
        let mut rng = SplitMix64::new(seed.wrapping_add(17));
        let mut clip_types: Vec<ClipType> = ClipType::ALL[1..].to_vec();
        for i in (1..clip_types.len()).rev() {
            clip_types.swap(i, rng.below(i + 1));
        }
        clip_types.truncate(3 + rng.below(4));
        clip_types.sort();
        SynthOptions {
            inventory_id: inventory_id.to_string(),
            duration,
            step,
            fps: 24.0,
            seed,
            speech_fraction: 0.4,
            shots: true,
            characters: 3 + rng.below(4),
            zero_timelines: false,
            scene_embeddings: false,
            extras: true,
            clip_types,
        }
    }
}

/// A realistic document of `duration` seconds at `step` (see [`SynthOptions::new`]).
pub fn demo_signals(inventory_id: &str, duration: f64, step: f64, seed: u64) -> Signals {
    generate(&SynthOptions::new(inventory_id, duration, step, seed))
}

fn round4(x: f64) -> f32 {
    ((x.clamp(0.0, 1.0) * 10_000.0).round() / 10_000.0) as f32
}

fn round4_f64(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 10_000.0).round() / 10_000.0
}

fn round_time(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A smooth random curve in `[0, 1]`: a few Gaussian bumps over a base level, plus noise.
fn curve(
    rng: &mut SplitMix64,
    n: usize,
    step: f64,
    base: f64,
    bumps: usize,
    height: (f64, f64),
    width_s: (f64, f64),
) -> Vec<f64> {
    let mut v = vec![base; n];
    let duration = n as f64 * step;
    for _ in 0..bumps {
        let centre = rng.range(0.0, duration);
        let width = rng.range(width_s.0, width_s.1);
        let h = rng.range(height.0, height.1);
        let lo = ((centre - 3.0 * width) / step).floor().max(0.0) as usize;
        let hi = (((centre + 3.0 * width) / step).ceil() as usize).min(n);
        for (i, x) in v.iter_mut().enumerate().take(hi).skip(lo) {
            let t = (i as f64 + 0.5) * step - centre;
            *x += h * (-(t * t) / (2.0 * width * width)).exp();
        }
    }
    v
}

/// Generates a document. Always valid: `generate(o).validate()` succeeds for any options with
/// positive finite `duration`, `step` and `fps`.
pub fn generate(o: &SynthOptions) -> Signals {
    let mut rng = SplitMix64::new(o.seed);
    let duration = o.duration;
    let n = sample_count(duration, o.step);
    // Shots of 2 to 8 seconds.
    let mut shots = Vec::new();
    if o.shots {
        let mut t = rng.range(2.0, 8.0);
        while t < duration - 0.5 {
            shots.push(round_time(t));
            t += rng.range(2.0, 8.0);
        }
        shots.dedup();
        shots.retain(|&s| s > 0.0 && s < duration);
    }
    let mut cuts = vec![0.0];
    cuts.extend(&shots);
    cuts.push(duration);
    // Speech in sentence-length runs.
    let mut speech: Vec<Interval> = Vec::new();
    if o.speech_fraction >= 1.0 {
        speech.push([0.0, duration]);
    } else if o.speech_fraction > 0.0 {
        let mean_run = 4.0;
        let mean_gap = mean_run * (1.0 - o.speech_fraction) / o.speech_fraction;
        let mut t = rng.range(0.0, 2.0 * mean_gap);
        while t < duration {
            let end = round_time(t + rng.range(0.5, 2.0 * mean_run - 0.5)).min(duration);
            let start = round_time(t);
            if start < end {
                speech.push([start, end]);
            }
            t = end + rng.range(0.3, 2.0 * mean_gap).max(0.3);
        }
    }
    // Timelines.
    let step = o.step;
    let shot_level: Vec<f64> = (0..cuts.len()).map(|_| rng.range(0.0, 1.0)).collect();
    let shot_of = |i: usize| cuts.partition_point(|&c| c <= (i as f64 + 0.5) * step).saturating_sub(1);
    let bumps = ((duration / 600.0).ceil() as usize).max(1);
    let rel_curve = curve(&mut rng, n, step, 0.15, 4 * bumps, (0.2, 0.6), (20.0, 120.0));
    let relevance: Vec<f32> =
        (0..n).map(|i| round4(0.55 * rel_curve[i] + 0.3 * shot_level[shot_of(i)] + 0.05 * rng.unit())).collect();
    let nudity: Vec<f32> =
        curve(&mut rng, n, step, 0.02, bumps.min(3), (0.4, 0.95), (3.0, 12.0)).into_iter().map(round4).collect();
    let gore: Vec<f32> =
        curve(&mut rng, n, step, 0.02, bumps.min(4), (0.4, 0.95), (3.0, 12.0)).into_iter().map(round4).collect();
    let bright_curve = curve(&mut rng, n, step, 0.3, bumps, (0.1, 0.3), (60.0, 300.0));
    let brightness: Vec<f32> = (0..n).map(|i| round4(bright_curve[i] + 0.3 * shot_level[shot_of(i)])).collect();
    // Profanity events inside speech.
    let mut events = Vec::new();
    if !speech.is_empty() {
        let count = rng.below(3 + (duration / 900.0) as usize);
        for _ in 0..count {
            let [a, b] = speech[rng.below(speech.len())];
            let start = round_time(rng.range(a, b));
            let end = round_time(start + rng.range(0.3, 0.6)).min(b);
            if start < end {
                let word = ["damn", "hell", "crap", "bloody"][rng.below(4)].to_string();
                events.push(ProfanityEvent { start, end, score: round4_f64(rng.range(0.4, 0.99)), word: Some(word) });
            }
        }
        events.sort_by(|a, b| a.start.total_cmp(&b.start));
    }
    let mut profanity_line = vec![0.0f64; n];
    for ev in &events {
        let lo = (ev.start / step).floor() as usize;
        let hi = ((ev.end / step).ceil() as usize).min(n);
        for x in profanity_line.iter_mut().take(hi).skip(lo) {
            *x = x.max(ev.score);
        }
    }
    let profanity: Vec<f32> = profanity_line.into_iter().map(round4).collect();
    let mut clip_types = BTreeMap::new();
    for ct in &o.clip_types {
        let c = curve(&mut rng, n, step, 0.05, 3 * bumps, (0.3, 0.9), (15.0, 90.0));
        clip_types.insert(ct.as_str().to_string(), c.into_iter().map(round4).collect::<Vec<f32>>());
    }
    let mut timelines = Timelines { relevance, nudity, blood_gore: gore, profanity, brightness, clip_types };
    if o.zero_timelines {
        for t in [
            &mut timelines.relevance,
            &mut timelines.nudity,
            &mut timelines.blood_gore,
            &mut timelines.profanity,
            &mut timelines.brightness,
        ] {
            t.iter_mut().for_each(|v| *v = 0.0);
        }
        timelines.clip_types.values_mut().for_each(|t| t.iter_mut().for_each(|v| *v = 0.0));
    }
    // Characters present shot by shot.
    let mut characters = Vec::new();
    for rank in 0..o.characters {
        let presence = 0.6 / (1.0 + rank as f64 * 0.5);
        let mut spans: Vec<Interval> = Vec::new();
        for w in cuts.windows(2) {
            if rng.unit() < presence {
                match spans.last_mut() {
                    Some(last) if last[1] >= w[0] => last[1] = w[1],
                    _ => spans.push([w[0], w[1]]),
                }
            }
        }
        characters.push(Character { rank: rank as u32, spans });
    }
    // Scenes of 3 to 12 shots, each with tags.
    let mut scenes = Vec::new();
    let mut tags = Vec::new();
    let mut scene_text = Vec::new();
    let mut at = 0;
    while at + 1 < cuts.len() {
        let next = (at + 3 + rng.below(10)).min(cuts.len() - 1);
        let (start, end) = (cuts[at], cuts[next]);
        scenes.push(Scene { start, end });
        let mut words = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let k = KEYWORDS[rng.below(KEYWORDS.len())];
            words.push(k);
            tags.push(Tag {
                kind: TagKind::Keyword,
                name: k.into(),
                start,
                end,
                score: round4_f64(rng.range(0.5, 0.99)),
            });
        }
        let m = MOODS[rng.below(MOODS.len())];
        let e = ENVIRONMENTS[rng.below(ENVIRONMENTS.len())];
        tags.push(Tag { kind: TagKind::Mood, name: m.into(), start, end, score: round4_f64(rng.range(0.5, 0.99)) });
        tags.push(Tag {
            kind: TagKind::Environment,
            name: e.into(),
            start,
            end,
            score: round4_f64(rng.range(0.5, 0.99)),
        });
        words.push(m);
        words.push(e);
        scene_text.push(words.join(" "));
        at = next;
    }
    let scene_embeddings = o.scene_embeddings.then(|| {
        let encoder = LexicalEncoder::default();
        scene_text
            .iter()
            .map(|text| {
                let base = encoder.encode(text).expect("scene text has words");
                let noisy: Vec<f64> = base.iter().map(|&v| f64::from(v) + 0.01 * rng.normal()).collect();
                let norm = noisy.iter().map(|v| v * v).sum::<f64>().sqrt();
                noisy.iter().map(|v| ((v / norm * 10_000.0).round() / 10_000.0) as f32).collect()
            })
            .collect()
    });
    let (emotions, vertical, profanity_events) = if o.extras {
        (Some(emotion_track(&mut rng, duration, step)), Some(vertical_track(&mut rng, duration, step)), Some(events))
    } else {
        (None, None, None)
    };
    Signals {
        format: FORMAT.to_string(),
        inventory_id: o.inventory_id.clone(),
        duration,
        fps: o.fps,
        frame_width: 1920,
        frame_height: 1080,
        step,
        timelines,
        shots,
        speech,
        characters,
        tags,
        scenes,
        scene_embeddings,
        item_embedding: None,
        emotions,
        profanity: profanity_events,
        vertical,
        analysis: None,
        text: None,
        transcript: None,
        audio_fingerprint: None,
        character_descriptors: None,
        visual: None,
        picture_fingerprint: None,
        objects: None,
        speakers: None,
        scene_channels: None,
    }
}

fn emotion_track(rng: &mut SplitMix64, duration: f64, step: f64) -> Emotions {
    let m = sample_count(duration, step);
    let k = EMOTIONS.len();
    let mut logits = vec![0.0f64; k];
    let (mut va, mut ar, mut dom) = (0.0f64, 0.0f64, 0.0f64);
    let mut probs = Vec::with_capacity(m);
    let (mut valence, mut arousal, mut dominance) =
        (Vec::with_capacity(m), Vec::with_capacity(m), Vec::with_capacity(m));
    for _ in 0..m {
        for l in logits.iter_mut() {
            *l = 0.97 * *l + 0.25 * rng.normal();
        }
        let max = logits.iter().copied().fold(f64::MIN, f64::max);
        let exp: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
        let total: f64 = exp.iter().sum();
        probs.push(exp.iter().map(|e| round4(e / total)).collect());
        va = (0.98 * va + 0.05 * rng.normal()).clamp(-1.0, 1.0);
        ar = (0.98 * ar + 0.05 * rng.normal()).clamp(-1.0, 1.0);
        dom = (0.98 * dom + 0.05 * rng.normal()).clamp(-1.0, 1.0);
        let signed = |x: f64| ((x * 10_000.0).round() / 10_000.0) as f32;
        valence.push(signed(va));
        arousal.push(signed(ar));
        dominance.push(signed(dom));
    }
    Emotions { step, names: EMOTIONS.iter().map(|s| s.to_string()).collect(), probs, valence, arousal, dominance }
}

fn vertical_track(rng: &mut SplitMix64, duration: f64, step: f64) -> Vertical {
    let m = sample_count(duration, step);
    let mut x = 0.5f64;
    let x_center = (0..m)
        .map(|_| {
            x = (x + 0.01 * rng.normal()).clamp(0.2, 0.8);
            round4(x)
        })
        .collect();
    let blackbars = if rng.unit() < 0.5 { [0, 0] } else { [132, 132] };
    Vertical { step, x_center, blackbars }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_documents_are_valid_and_deterministic() {
        let a = demo_signals("a", 1800.0, 1.0, 3);
        a.validate().unwrap();
        assert_eq!(a, demo_signals("a", 1800.0, 1.0, 3));
        let mut o = SynthOptions::new("b", 95.5, 1.0 / 24.0, 9);
        o.scene_embeddings = true;
        generate(&o).validate().unwrap();
    }

    #[test]
    fn degenerate_shapes_are_valid() {
        for (speech, shots, chars, zero) in [(0.0, false, 0, true), (1.0, true, 6, false), (0.4, true, 1, false)] {
            let mut o = SynthOptions::new("d", 0.7, 1.0, 1);
            o.speech_fraction = speech;
            o.shots = shots;
            o.characters = chars;
            o.zero_timelines = zero;
            o.scene_embeddings = true;
            generate(&o).validate().unwrap();
        }
    }
}
