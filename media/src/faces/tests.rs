use proptest::prelude::*;

use super::*;

const DIM: usize = 8;

/// A unit descriptor along axis `axis`, tilted by `tilt` radians towards the next axis.
fn descriptor(axis: usize, tilt: f32) -> Vec<f32> {
    let mut e = vec![0.0; DIM];
    e[axis] = tilt.cos();
    e[(axis + 1) % DIM] = tilt.sin();
    e
}

fn face(x: f32, w: f32, embedding: Vec<f32>) -> Face {
    Face { x, y: 0.2, w, h: w * 1.5, score: 1.0, embedding }
}

/// Identity `who` (an axis), with a small per-sample wobble so no two faces are identical.
fn person(who: usize, x: f32, i: usize) -> Face {
    face(x, 0.2, descriptor(who, 0.05 * ((i % 5) as f32 - 2.0)))
}

fn samples(n: usize, faces: impl Fn(usize) -> Vec<Face>) -> Vec<(f64, Vec<Face>)> {
    (0..n).map(|i| (i as f64, faces(i))).collect()
}

#[test]
fn the_identity_with_more_screen_time_ranks_first_with_merged_spans() {
    // A is seen at 0..=10 s, B at 3, 4, 5 s (listed first in the frames that hold both).
    let input = samples(11, |i| {
        let mut f = Vec::new();
        if (3..=5).contains(&i) {
            f.push(person(1, 0.6, i));
        }
        f.push(person(0, 0.1, i));
        f
    });
    let r = characters(&input, &[], 12.0, &CharacterParams::default());
    assert_eq!(r.characters.len(), 2);
    assert_eq!(r.characters[0], Character { rank: 0, spans: vec![[0.0, 10.5]] });
    assert_eq!(r.characters[1], Character { rank: 1, spans: vec![[2.5, 5.5]] });
    assert_eq!((r.identities[0].faces, r.identities[0].samples, r.identities[0].screen_seconds), (11, 11, 10.5));
    assert_eq!((r.identities[1].faces, r.identities[1].screen_seconds), (3, 3.0));
    assert_eq!(r.threshold, DEFAULT_THRESHOLD);
    // The main character's face centre in every sample, even where B is in frame too.
    assert!(r.per_sample_main_x.iter().all(|x| *x == Some(0.2)), "{:?}", r.per_sample_main_x);
    let c = &r.identities[0].centroid;
    assert!((c.iter().map(|v| v * v).sum::<f32>() - 1.0).abs() < 1e-5);
}

#[test]
fn spans_end_at_a_cut_the_identity_is_not_seen_after() {
    // Seen at 1, 2, 3 s; a cut at 3.2 s; seen again at 6, 7 s in the next shot.
    let input: Vec<_> = [1.0, 2.0, 3.0, 6.0, 7.0].iter().map(|&t| (t, vec![person(0, 0.4, t as usize)])).collect();
    let params = CharacterParams { interval: Some(1.0), ..CharacterParams::default() };
    let r = characters(&input, &[3.2], 10.0, &params);
    assert_eq!(r.characters[0].spans, vec![[0.5, 3.2], [5.5, 7.5]]);
    // A cut inside a covered half-interval starts the span at the cut.
    let r = characters(&input, &[5.8], 10.0, &params);
    assert_eq!(r.characters[0].spans, vec![[0.5, 3.5], [5.8, 7.5]]);
}

#[test]
fn the_threshold_decides_whether_two_looks_are_one_identity() {
    // Two groups of faces whose descriptors are 0.5 apart (chord distance).
    let tilt = 2.0 * (0.25f32).asin();
    let input = samples(8, |i| vec![face(0.3, 0.2, descriptor(0, if i < 4 { 0.0 } else { tilt }))]);
    let loose = characters(&input, &[], 8.0, &CharacterParams { threshold: 0.6, ..CharacterParams::default() });
    assert_eq!(loose.characters.len(), 1);
    let strict = characters(&input, &[], 8.0, &CharacterParams { threshold: 0.4, ..CharacterParams::default() });
    assert_eq!(strict.characters.len(), 2);
    assert_eq!(strict.threshold, 0.4);
}

#[test]
fn identities_the_leader_pass_split_are_merged_when_their_means_meet() {
    // 0.7 rad (0.69 apart) starts a second identity; the faces at 0.35 rad pull the first one's
    // mean towards it until the two means are within the threshold.
    let tilts = [0.0, 0.7, 0.35, 0.0, 0.7, 0.35, 0.35];
    let input = samples(tilts.len(), |i| vec![face(0.3, 0.2, descriptor(0, tilts[i]))]);
    let r = characters(&input, &[], 10.0, &CharacterParams { threshold: 0.6, ..CharacterParams::default() });
    assert_eq!(r.identities.len(), 1, "{:?}", r.identities);
    assert_eq!(r.identities[0].faces, 7);
}

#[test]
fn two_faces_of_one_frame_are_two_identities_and_rare_ones_are_dropped() {
    // Twins with the same descriptor, always together; a passer-by seen twice.
    let input = samples(6, |i| {
        let mut f = vec![face(0.1, 0.2, descriptor(0, 0.0)), face(0.6, 0.2, descriptor(0, 0.0))];
        if i < 2 {
            f.push(person(3, 0.8, i));
        }
        f
    });
    let r = characters(&input, &[], 6.0, &CharacterParams::default());
    assert_eq!(r.characters.len(), 2, "{:?}", r.identities);
    assert!(r.identities.iter().all(|s| s.faces == 6));
}

#[test]
fn without_kept_identities_the_largest_face_is_followed() {
    let input =
        vec![(0.0, vec![face(0.0, 0.1, descriptor(0, 0.0)), face(0.5, 0.3, descriptor(1, 0.0))]), (1.0, vec![])];
    let r = characters(&input, &[], 2.0, &CharacterParams::default());
    assert!(r.characters.is_empty());
    assert_eq!(r.per_sample_main_x, vec![Some(0.65), None]);
}

#[test]
fn the_subject_track_has_no_jitter_within_a_shot_and_jumps_at_a_cut() {
    // Shot 1 (0..10 s): the face wobbles between 0.30 and 0.34; shot 2 (10..20 s): the face at 0.8.
    let faces: Vec<(f64, Option<f32>)> = (0..20)
        .map(|i| (i as f64 + 0.5, Some(if i < 10 { if i % 2 == 0 { 0.30 } else { 0.34 } } else { 0.8 })))
        .collect();
    let track = follow_subject(&faces, &[0.5; 40], 0.5, &[10.0]);
    assert_eq!(track.len(), 40);
    assert!(track[..20].iter().all(|&x| x == track[0]), "{:?}", &track[..20]);
    assert!((0.29..=0.35).contains(&track[0]));
    assert_eq!(track[20], 0.8);
    assert!(track[20..].iter().all(|&x| x == 0.8));
}

#[test]
fn the_subject_track_follows_a_person_crossing_the_frame_smoothly() {
    // The face moves from 0.2 to 0.8 over 12 s, sampled every second.
    let faces: Vec<(f64, Option<f32>)> = (0..13).map(|i| (i as f64, Some(0.2 + 0.05 * i as f32))).collect();
    let track = follow_subject(&faces, &[0.5; 24], 0.5, &[]);
    for w in track.windows(2) {
        assert!(w[1] >= w[0] && w[1] - w[0] < 0.05, "{:?}", track);
    }
    assert!(track[23] > 0.65, "{:?}", track);
}

#[test]
fn the_subject_track_falls_back_to_saliency_without_faces() {
    let saliency: Vec<f32> = (0..10).map(|i| if i < 5 { 0.3 } else { 0.7 }).collect();
    let track = follow_subject(&[(1.0, None), (3.0, None)], &saliency, 1.0, &[5.0]);
    assert_eq!(track, saliency);
    // A face far from any sample time is not held: saliency takes over.
    let track = follow_subject(&[(0.5, Some(0.9))], &[0.3; 6], 1.0, &[]);
    assert_eq!(track[0], 0.9);
    assert!(track[5] < 0.4, "{:?}", track);
}

fn arb_face() -> impl Strategy<Value = Face> {
    (
        -0.5f32..1.5,
        0.0f32..1.0,
        prop_oneof![Just(f32::NAN), 0.0f32..0.8],
        0usize..4,
        -0.4f32..0.4,
        prop_oneof![9 => Just(DIM), 1 => 0usize..12],
    )
        .prop_map(|(x, y, w, who, tilt, dim)| {
            let mut embedding = descriptor(who, tilt);
            embedding.resize(dim, 0.0);
            Face { x, y, w, h: w, score: 0.9, embedding }
        })
}

proptest! {
    #[test]
    fn any_input_gives_valid_characters(
        samples in proptest::collection::vec(
            (prop_oneof![9 => -5.0f64..60.0, 1 => Just(f64::NAN)], proptest::collection::vec(arb_face(), 0..4)),
            0..40,
        ),
        shots in proptest::collection::vec(-1.0f64..60.0, 0..6),
        duration in prop_oneof![Just(0.0), 0.5f64..60.0],
        threshold in 0.0f32..2.0,
        interval in proptest::option::of(0.1f64..5.0),
        min_samples in 0usize..4,
    ) {
        let params = CharacterParams { threshold, min_samples, interval, max_characters: 3 };
        let r = characters(&samples, &shots, duration, &params);
        prop_assert_eq!(r.per_sample_main_x.len(), samples.len());
        prop_assert!(r.characters.len() <= 3);
        prop_assert_eq!(r.characters.len(), r.identities.len());
        for w in r.identities.windows(2) {
            prop_assert!(w[0].screen_seconds >= w[1].screen_seconds);
        }
        if duration > 0.0 {
            let mut doc = kino::synth::demo_signals("tt-faces", duration, 0.5, 1);
            doc.characters = r.characters.clone();
            prop_assert!(doc.validate().is_ok(), "{:?} {:?}", doc.validate(), r.characters);
        }
        let steps = (duration / 0.5).ceil() as usize;
        let xs: Vec<(f64, Option<f32>)> = samples.iter().map(|(t, _)| *t).zip(r.per_sample_main_x.iter().copied()).collect();
        let track = follow_subject(&xs, &vec![0.5; steps], 0.5, &shots);
        prop_assert_eq!(track.len(), steps);
        prop_assert!(track.iter().all(|x| (0.0..=1.0).contains(x)));
    }
}

#[test]
fn twenty_identities_among_one_off_faces_are_found_exactly() {
    // 1,800 samples (1 s apart); identity `(i / 30) % 20` on each (three blocks of 30 s each),
    // 128-float noisy descriptors;
    // every third sample also has a one-off face (an extra, a false detection).
    let mut seed = 12345u64;
    let mut noise = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 1_000_000) as f32 / 1_000_000.0 - 0.5
    };
    let unit = |v: Vec<f32>| {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect::<Vec<f32>>()
    };
    let bases: Vec<Vec<f32>> = (0..20).map(|_| unit((0..128).map(|_| noise()).collect())).collect();
    let samples: Vec<(f64, Vec<Face>)> = (0..1800)
        .map(|i| {
            let who = (i / 30) % 20;
            let mut faces = vec![face(0.3, 0.2, unit(bases[who].iter().map(|b| b + 0.012 * noise()).collect()))];
            if i % 3 == 0 {
                faces.push(face(0.7, 0.1, unit((0..128).map(|_| noise()).collect())));
            }
            (i as f64, faces)
        })
        .collect();
    let r = characters(&samples, &[], 1800.0, &CharacterParams::default());
    assert_eq!(r.characters.len(), 20);
    for (c, stats) in r.characters.iter().zip(&r.identities) {
        // The identity seen from t = 0 loses the half-second before it.
        let seconds = if c.spans[0][0] == 0.0 { 89.5 } else { 90.0 };
        assert_eq!((stats.faces, stats.screen_seconds, c.spans.len()), (90, seconds, 3), "{:?}", c.spans);
    }
    assert_eq!(r.characters[19].spans[0], [0.0, 29.5], "the tie goes to the later first appearance last");
}
