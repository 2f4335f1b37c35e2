use proptest::prelude::*;

use super::*;
use crate::signals::Emotions;

/// A document of `valence.len()` one-second samples with these valences.
fn with_valence(valence: Vec<f32>) -> Signals {
    let n = valence.len();
    let mut s = crate::synth::demo_signals("tt-arc", n.max(1) as f64, 1.0, 1);
    s.emotions = Some(Emotions {
        step: 1.0,
        names: vec!["joy".into()],
        probs: vec![vec![0.5]; n],
        valence,
        arousal: vec![0.0; n],
        dominance: vec![0.0; n],
    });
    s
}

/// The shape's template sampled at `n` sample centres, scaled into `[-0.8, 0.8]`.
fn sampled(shape: ArcShape, n: usize) -> Vec<f32> {
    (0..n).map(|i| (0.8 * shape.template((i as f64 + 0.5) / n as f64)) as f32).collect()
}

/// Deterministic noise in `[-1, 1]` (splitmix64), so the tests never depend on a seed source.
fn noise(seed: u64, n: usize) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// The distance to the nearest shape other than `shape`.
fn runner_up(arc: &EmotionalArc, shape: ArcShape) -> f64 {
    arc.distances.iter().filter(|(s, _)| **s != shape).map(|(_, d)| *d).fold(f64::INFINITY, f64::min)
}

#[test]
fn names_parse_back_and_serialize_in_snake_case() {
    for shape in ArcShape::ALL {
        assert_eq!(ArcShape::parse(shape.as_str()), Some(shape));
        assert_eq!(serde_json::to_value(shape).unwrap(), shape.as_str());
        assert_eq!(shape.to_string(), shape.name());
    }
    assert_eq!(ArcShape::parse("man in a hole"), None);
    assert_eq!(ArcShape::ManInAHole.name(), "man in a hole");
}

#[test]
fn each_template_is_recognised_as_itself() {
    for shape in ArcShape::ALL {
        let arc = emotional_arc(&with_valence(sampled(shape, 1200))).expect("a shaped arc");
        assert_eq!(arc.shape, shape, "{:?}", arc.distances);
        assert_eq!(arc.name, shape.name());
        // Smoothing rounds the template's turns and truncates its ends: near zero, not zero.
        assert!(arc.distance < 0.1, "{shape:?}: {}", arc.distance);
        assert!(runner_up(&arc, shape) > 0.5, "{shape:?}: {:?}", arc.distances);
        assert_eq!(arc.distances.len(), 6);
        assert_eq!(arc.valence.len(), POINTS);
        assert_eq!(arc.end, 1200.0);
    }
}

#[test]
fn noise_keeps_the_shape_with_a_margin() {
    for (seed, shape) in ArcShape::ALL.into_iter().enumerate() {
        let clean = sampled(shape, 3000);
        let jitter = noise(seed as u64 + 7, clean.len());
        let noisy: Vec<f32> = clean.iter().zip(&jitter).map(|(v, j)| (f64::from(*v) + 0.5 * j) as f32).collect();
        let arc = emotional_arc(&with_valence(noisy)).expect("a shaped arc");
        assert_eq!(arc.shape, shape, "{:?}", arc.distances);
        assert!(runner_up(&arc, shape) - arc.distance > 0.3, "{shape:?}: {:?}", arc.distances);
    }
}

#[test]
fn the_level_does_not_matter_only_the_shape() {
    let low: Vec<f32> = sampled(ArcShape::ManInAHole, 600).iter().map(|v| v * 0.2 - 0.7).collect();
    let arc = emotional_arc(&with_valence(low)).unwrap();
    assert_eq!(arc.shape, ArcShape::ManInAHole);
    assert!(arc.valence.iter().all(|v| *v < -0.4), "the points keep the level: {:?}", arc.valence);
}

#[test]
fn flat_short_and_missing_emotions_give_no_arc() {
    assert!(emotional_arc(&with_valence(vec![0.3; 500])).is_none(), "flat");
    assert!(emotional_arc(&with_valence(sampled(ArcShape::Tragedy, MIN_SAMPLES - 1))).is_none(), "too short");
    assert!(emotional_arc(&with_valence(sampled(ArcShape::Tragedy, MIN_SAMPLES))).is_some(), "just enough");
    let mut none = with_valence(sampled(ArcShape::Tragedy, 100));
    none.emotions = None;
    assert!(emotional_arc(&none).is_none());
    let mut nan = sampled(ArcShape::Tragedy, 100);
    nan[3] = f32::NAN;
    assert!(emotional_arc(&with_valence(nan)).is_none());
}

#[test]
fn samples_longer_than_a_bin_fill_every_bin_they_cover() {
    // Ten samples over 100 bins: each sample fills ten bins.
    let arc = emotional_arc(&with_valence(sampled(ArcShape::RagsToRiches, 10))).unwrap();
    assert_eq!(arc.shape, ArcShape::RagsToRiches);
    assert!(arc.valence.windows(2).all(|w| w[0] <= w[1]), "{:?}", arc.valence);
}

#[test]
fn the_analysed_span_ends_at_the_duration() {
    let mut s = with_valence(sampled(ArcShape::Icarus, 400));
    s.duration = 300.0;
    assert_eq!(emotional_arc(&s).unwrap().end, 300.0);
}

#[test]
fn arcs_of_the_same_shape_are_nearer_than_opposite_ones() {
    let arc = |shape, scale: f32| {
        let v = sampled(shape, 800).iter().map(|x| x * scale).collect();
        emotional_arc(&with_valence(v)).unwrap()
    };
    let hole = arc(ArcShape::ManInAHole, 1.0);
    assert!(hole.distance_to(&arc(ArcShape::ManInAHole, 0.5)) < 0.05);
    assert!(hole.distance_to(&arc(ArcShape::Icarus, 1.0)) > 1.9);
    assert_eq!(hole.distance_to(&hole), 0.0);
}

proptest! {
    #[test]
    fn any_valid_emotions_give_finite_distances_and_a_shape(
        valence in prop::collection::vec(-1.0f32..=1.0, MIN_SAMPLES..400),
        step in 0.04f64..30.0,
        cut in 0.1f64..1.5,
    ) {
        let mut s = with_valence(valence.clone());
        let samples = valence.len() as f64;
        s.emotions.as_mut().unwrap().step = step;
        s.duration = samples * step * cut;
        match emotional_arc(&s) {
            Some(arc) => {
                prop_assert!(arc.distances.values().all(|d| d.is_finite() && (0.0..=2.0 + 1e-9).contains(d)));
                prop_assert_eq!(arc.distance, arc.distances[&arc.shape]);
                prop_assert!(arc.distances.values().all(|d| *d >= arc.distance));
                prop_assert!(arc.valence.iter().all(|v| (-1.0..=1.0).contains(v)));
                prop_assert_eq!(arc.valence.len(), POINTS);
            }
            None => {
                // Only a flat smoothed valence gives none here.
                let end = (samples * step).min(s.duration);
                prop_assert!(spread(&smooth(&bins(&valence.iter().map(|v| f64::from(*v)).collect::<Vec<_>>(), step, end))) < FLAT_SPREAD);
            }
        }
    }
}
