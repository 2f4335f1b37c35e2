//! Seeded inputs shared by the benchmarks.
#![allow(dead_code)]

use kino::signals::{SCENE_EMBEDDING_DIM, Scene, Signals};
use kino::synth::{KEYWORDS, MOODS, SplitMix64, SynthOptions, generate};
use kino::{LexicalEncoder, Prepared, TextEncoder};

/// Two hours at one-second steps.
pub fn two_hours_1s() -> Signals {
    generate(&SynthOptions::new("bench-1s", 7200.0, 1.0, 11))
}

/// Two hours at 24 fps steps (172,800 samples per timeline).
pub fn two_hours_24fps() -> Signals {
    generate(&SynthOptions::new("bench-24fps", 7200.0, 1.0 / 24.0, 12))
}

/// A title of `duration` seconds at 24 fps steps.
pub fn at_24fps(duration: f64) -> Prepared {
    Prepared::new(generate(&SynthOptions::new("bench-scale", duration, 1.0 / 24.0, 13))).unwrap()
}

/// Two hours at one-second steps cut into `count` equal scenes, each with an embedding built from
/// two random tag words (plus noise), as the demo catalog does.
pub fn with_scenes(count: usize) -> Signals {
    let mut s = two_hours_1s();
    let encoder = LexicalEncoder::default();
    let mut rng = SplitMix64::new(99);
    let len = s.duration / count as f64;
    s.scenes = (0..count)
        .map(|i| Scene { start: i as f64 * len, end: if i + 1 == count { s.duration } else { (i + 1) as f64 * len } })
        .collect();
    s.scene_embeddings = Some(
        (0..count)
            .map(|_| {
                let text = format!("{} {}", KEYWORDS[rng.below(KEYWORDS.len())], MOODS[rng.below(MOODS.len())]);
                let v = encoder.encode(&text).unwrap();
                v.iter().map(|x| x + 0.01 * rng.normal() as f32).collect::<Vec<f32>>()
            })
            .collect(),
    );
    assert_eq!(s.scene_embeddings.as_ref().unwrap()[0].len(), SCENE_EMBEDDING_DIM);
    s
}

/// `count` titles of 90 to 150 minutes at one-second steps.
pub fn catalog(count: usize) -> Vec<Prepared> {
    (0..count as u64)
        .map(|i| {
            let mut o = SynthOptions::new(&format!("cat-{i}"), 5400.0 + (i % 61) as f64 * 60.0, 1.0, 1000 + i);
            o.extras = false;
            Prepared::new(generate(&o)).unwrap()
        })
        .collect()
}
