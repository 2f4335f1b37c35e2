use std::collections::BTreeMap;

use proptest::prelude::*;

use super::best::{BestMomentInputs, best_moments};
use super::clip_types::{ClipTypeInputs, clip_types};
use super::readings::{self, FacesSeen};
use super::*;

/// A picture-only title: `n` samples of one brightness and saturation, with this motion.
fn picture(n: usize, brightness: f32, saturation: f32, motion: f64) -> Vec<Reading> {
    vec![
        readings::colour(&vec![brightness; n], &vec![saturation; n], n),
        readings::motion(&readings::motion_units(&vec![motion; n]), &vec![0.0; n], n),
    ]
}

#[test]
fn a_silent_picture_alone_gives_emotions_on_every_sample() {
    let bright = fuse(&picture(10, 0.7, 0.35, 6.0), 1.0, 10);
    let dark = fuse(&picture(10, 0.08, 0.03, 0.5), 1.0, 10);
    assert_eq!(bright.emotions().probs.len(), 10);
    // Bright, colourful and moving: pleasant and aroused; dark, grey and still: unpleasant, calm.
    assert!(bright.valence.iter().all(|&v| v > 0.2), "{:?}", bright.valence);
    assert!(dark.valence.iter().all(|&v| v < -0.2), "{:?}", dark.valence);
    assert!(bright.arousal[0] - dark.arousal[0] > 0.5, "{} vs {}", bright.arousal[0], dark.arousal[0]);
    bright.emotions().probs.iter().flatten().for_each(|p| assert!((0.0..=1.0).contains(p)));
}

#[test]
fn no_evidence_is_neutral() {
    let f = fuse(&[], 1.0, 4);
    assert!(f.valence.iter().chain(&f.arousal).chain(&f.dominance).all(|&v| v == 0.0));
    assert!(f.probs.iter().flatten().all(|&p| p == 0.0));
    assert_eq!(closeness([0.0; 3]), [0.0; EMOTION_COUNT]);
    // A reading of another length is ignored rather than misread.
    assert_eq!(fuse(&picture(3, 0.9, 0.5, 9.0), 1.0, 4).valence, vec![0.0; 4]);
}

#[test]
fn a_sudden_loud_sound_is_surprise_and_loud_is_aroused() {
    let mut db = vec![-50.0; 10];
    db[5..].iter_mut().for_each(|d| *d = -18.0);
    let r = readings::loudness(&db, true, 10).unwrap();
    assert!(r.probs[5][SURPRISE] > 0.3 && r.probs[2][SURPRISE] == 0.0);
    assert!(r.vad[1][8] > 0.5 && r.vad[1][0] < -0.5);
    assert!(readings::loudness(&db, false, 10).is_none());
}

#[test]
fn faces_speak_for_their_interval_and_small_faces_count_less() {
    let happy = [0.0, 0.0, 0.0, 0.9, 0.0, 0.0, 0.1];
    let frames = vec![
        FacesSeen { time: 0.0, faces: vec![(0.3, Some(happy))] },
        FacesSeen { time: 4.0, faces: vec![(0.03, Some(happy)), (0.2, None)] },
    ];
    let r = readings::faces(&frames, "test", 2.0, 1.0, 8);
    assert!((r.probs[0][JOY] - 0.9).abs() < 1e-6 && (r.probs[1][JOY] - 0.9).abs() < 1e-6);
    assert_eq!(r.probs[2][JOY], 0.0);
    assert!(r.probs[4][JOY] < 0.2, "a face 3% of the frame tall counts a fifth");
    assert!(r.vad[0][0] > 0.5);
}

#[test]
fn gore_is_never_guessed_and_clip_types_need_evidence() {
    let n = 20;
    let mut readings = picture(n, 0.1, 0.05, 0.5);
    let mut fear = Reading::new("faces", "test", n);
    (0..n).for_each(|i| fear.set_probs(i, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.95, 0.0], 1.5));
    readings.push(fear);
    let fused = fuse(&readings, 1.0, n);
    let (zeros, brightness, saturation) = (vec![0.0; n], vec![0.1; n], vec![0.05; n]);
    let sound = BTreeMap::new();
    let mut inputs = ClipTypeInputs {
        fused: &fused,
        brightness: &brightness,
        saturation: &saturation,
        warmth: &zeros,
        motion: &zeros,
        cuts: &zeros,
        loudness: &[],
        sound: &sound,
        music: &[],
        action_seen: &zeros,
        scenery_seen: &zeros,
        wide: &zeros,
        couple: &zeros,
        blood_gore: &zeros,
    };
    let types = clip_types(&inputs);
    for expected in ["Scary", "Creepy and scary", "Dark & gritty"] {
        assert!(types.contains_key(expected), "{expected}: {types:?}");
    }
    for absent in ["Gory & bloody", "Funny and comical", "Romantic", "High-octane action", "Epic scenery"] {
        assert!(!types.contains_key(absent), "{absent}: {types:?}");
    }
    let gore: Vec<f32> = (0..n).map(|i| if (9..12).contains(&i) { 0.9 } else { 0.0 }).collect();
    inputs.blood_gore = &gore;
    assert!(clip_types(&inputs)["Gory & bloody"][10] > 0.5);
}

#[test]
fn the_best_moments_keep_credits_black_and_static_frames_out() {
    let n = 60;
    // Calm throughout, an aroused stretch in 20..30, credits from 50.
    let mut arousal = Reading::new("motion", "test", n);
    (0..n).for_each(|i| arousal.set_vad(i, [None, Some(if (20..30).contains(&i) { 0.9 } else { -0.5 }), None], 2.0));
    let mut credits_loud = arousal.clone();
    (50..n).for_each(|i| credits_loud.set_vad(i, [None, Some(0.9), None], 2.0));
    let fused = fuse(&[credits_loud], 1.0, n);
    let motion = vec![0.5; n];
    let credits: Vec<f32> = (0..n).map(|i| if i >= 50 { 1.0 } else { 0.0 }).collect();
    let (zeros, brightness) = (vec![0.0; n], vec![0.5; n]);
    let r = best_moments(&BestMomentInputs {
        fused: &fused,
        motion: &motion,
        people: &zeros,
        said: &zeros,
        text: &zeros,
        brightness: &brightness,
        credits: &credits,
    });
    assert_eq!(r.len(), n);
    let peak = r[22..28].iter().fold(0f32, |a, &b| a.max(b));
    let in_credits = r[52..58].iter().fold(0f32, |a, &b| a.max(b));
    assert!(peak > 0.9 && in_credits < 0.5 * peak, "{r:?}");
}

proptest! {
    #[test]
    fn any_readings_give_a_valid_track(
        values in proptest::collection::vec((-2.0f32..2.0, -2.0f32..2.0, 0.0f32..3.0, 0.0f32..1.5), 1..40),
        probs in proptest::collection::vec(proptest::collection::vec(-0.5f32..1.5, EMOTION_COUNT), 1..40),
    ) {
        let n = values.len();
        let mut a = Reading::new("a", "test", n);
        let mut b = Reading::new("b", "test", n);
        for (i, &(v, x, w, _)) in values.iter().enumerate() {
            a.set_vad(i, [Some(v), Some(x), Some(v * x)], w);
            if let Some(p) = probs.get(i) {
                let mut row = [0f32; EMOTION_COUNT];
                row.iter_mut().zip(p).for_each(|(r, p)| *r = *p);
                b.set_probs(i, row, w);
            }
        }
        let fused = fuse(&[a, b], 0.5, n);
        let e = fused.emotions();
        prop_assert_eq!(e.probs.len(), n);
        for v in e.valence.iter().chain(&e.arousal).chain(&e.dominance) {
            prop_assert!((-1.0..=1.0).contains(v));
        }
        for p in e.probs.iter().flatten() {
            prop_assert!((0.0..=1.0).contains(p));
        }
    }
}

#[test]
fn a_text_counts_for_an_emotion_only_when_clearly_closer_than_neutral() {
    // Nine emotion and neutral directions in a 10-dimensional space: unit vectors.
    let axis = |k: usize| (0..10).map(|j| if j == k { 1.0 } else { 0.0 }).collect::<Vec<f32>>();
    let anchors: Vec<Vec<f32>> = (0..EMOTION_COUNT + 2).map(axis).collect();
    // Near fear, far from both neutral descriptions.
    let mut v = vec![0.05f32; 10];
    v[FEAR] = 1.0;
    let p = anchors::place(&anchors, &v);
    assert!(p[FEAR] > 0.9 && p.iter().enumerate().all(|(e, &x)| e == FEAR || x == 0.0), "{p:?}");
    // As close to a neutral description as to fear: no emotion.
    v[EMOTION_COUNT + 1] = 1.0;
    assert_eq!(anchors::place(&anchors, &v), [0.0; EMOTION_COUNT]);
    // Too few anchors, or a zero vector: nothing, no panic.
    assert_eq!(anchors::place(&anchors[..EMOTION_COUNT], &v), [0.0; EMOTION_COUNT]);
    assert_eq!(anchors::place(&anchors, &[0.0; 10]), [0.0; EMOTION_COUNT]);
}

#[test]
fn fast_speech_is_aroused_and_seen_weapons_are_fear() {
    let r = readings::prosody(&[(0.0, 4.0, 18), (4.0, 8.0, 4), (8.0, 8.2, 3)], 10, 1.0);
    assert!(r.vad[1][1] > 0.9 && r.vad[1][5] < -0.9, "{:?}", r.vad[1]);
    assert_eq!(r.weight[1][8], 0.0, "a segment shorter than half a second says nothing");
    // An assault rifle at 0.8, a desk (not in the table) at 0.9.
    let p = seen::frame_probs(&[(413, 0.8), (526, 0.9)]);
    assert!((p[FEAR] - 0.56).abs() < 1e-6 && (p[ANGER] - 0.4).abs() < 1e-6 && p[JOY] == 0.0, "{p:?}");
    assert_eq!(seen::frame_probs(&[(526, 0.9)]), [0.0; EMOTION_COUNT]);
    for (class, emotions) in seen::SEEN_AFFECT {
        assert!(*class < 1000 && !emotions.is_empty());
        assert!(emotions.iter().all(|&(e, w)| e < EMOTION_COUNT && w > 0.0 && w <= 1.0));
    }
}
