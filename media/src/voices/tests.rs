use proptest::prelude::*;

use super::*;

/// A unit vector near `base` (seeded noise of size `noise`).
fn near(base: &[f32], noise: f32, seed: &mut u64) -> Vec<f32> {
    let v: Vec<f32> = base
        .iter()
        .map(|&x| {
            *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x + noise * (((*seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5)
        })
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / norm).collect()
}

/// Two voices sharing a large common part (cosine 0.8, like two men's d-vectors), in 64
/// dimensions: in few dimensions, noise alone clusters (a high silhouette) more than the
/// encoder's 256 dimensions let it.
fn voices() -> (Vec<f32>, Vec<f32>) {
    let mut a = vec![0.0f32; 64];
    let mut b = vec![0.0f32; 64];
    a[0] = 0.9;
    a[1] = 0.436;
    b[0] = 0.9;
    b[2] = 0.436;
    (a, b)
}

/// A region of `seconds` of speech by the voice `base`, windows every 0.4 s as the embedder gives.
fn region(start: f64, seconds: f64, base: &[f32], seed: &mut u64) -> RegionWindows {
    let n = kino_models::SpeakerEmbedder::window_count((seconds * 16_000.0) as usize);
    RegionWindows {
        start,
        end: start + seconds,
        hop: 0.4,
        span: 0.822,
        vectors: (0..n).map(|_| near(base, 0.1, seed)).collect(),
    }
}

#[test]
fn two_voices_in_turns_are_two_speakers() {
    let (a, b) = voices();
    let mut seed = 7;
    let plan = [(0.0, 4.0, &a), (4.5, 3.0, &b), (8.0, 6.0, &a), (14.2, 5.0, &b), (20.0, 3.0, &a)];
    let regions: Vec<RegionWindows> = plan.iter().map(|&(s, d, v)| region(s, d, v, &mut seed)).collect();
    let out = diarize(&regions, &Diarization::default());
    assert_eq!(out.voices.len(), 2, "{out:?}");
    let speakers: Vec<usize> = out.turns.iter().map(|t| t.speaker).collect();
    assert_eq!(speakers, [0, 1, 0, 1, 0]);
    for (turn, &(start, seconds, _)) in out.turns.iter().zip(&plan) {
        assert_eq!((turn.start, turn.end), (start, start + seconds));
        assert!((dot(&turn.embedding, &turn.embedding) - 1.0).abs() < 1e-4);
    }
    // Voices are the uncentred directions: each near its own base.
    assert!(dot(&out.voices[0], &a) > 0.95 && dot(&out.voices[1], &b) > 0.95);
}

#[test]
fn a_change_of_voice_inside_a_region_splits_it() {
    let (a, b) = voices();
    let mut seed = 11;
    let mut one = region(0.0, 4.0, &a, &mut seed);
    let other = region(4.0, 4.0, &b, &mut seed);
    one.end = 8.0;
    one.vectors.extend(other.vectors);
    let out = diarize(&[one], &Diarization::default());
    assert_eq!(out.voices.len(), 2);
    assert_eq!(out.turns.len(), 2);
    assert!((out.turns[0].end - 4.0).abs() < 0.5, "{:?}", out.turns);
    assert_eq!((out.turns[0].start, out.turns[1].end), (0.0, 8.0));
}

#[test]
fn one_voice_is_one_speaker_and_nothing_is_nothing() {
    let (a, _) = voices();
    let mut seed = 3;
    // Short phrases (one segment each, so no two segments share a window), as in dialogue.
    let regions: Vec<RegionWindows> = (0..16).map(|i| region(i as f64 * 3.0, 1.5, &a, &mut seed)).collect();
    let out = diarize(&regions, &Diarization::default());
    assert_eq!(out.voices.len(), 1);
    assert_eq!(out.turns.len(), 16);
    assert_eq!(diarize(&[], &Diarization::default()), Diarized::default());
    let empty = RegionWindows { start: 0.0, end: 0.01, hop: 0.4, span: 0.822, vectors: Vec::new() };
    assert_eq!(diarize(&[empty], &Diarization::default()), Diarized::default());
}

#[test]
fn a_brief_stray_voice_joins_the_nearest_speaker() {
    let (a, b) = voices();
    let mut seed = 5;
    let mut regions = vec![region(0.0, 6.0, &a, &mut seed), region(7.0, 1.0, &b, &mut seed)];
    regions.push(region(9.0, 6.0, &a, &mut seed));
    regions.push(region(16.0, 6.0, &b, &mut seed));
    let settings = Diarization { min_speaker_seconds: 0.5, ..Diarization::default() };
    assert_eq!(diarize(&regions, &settings).voices.len(), 2);
    // Alone in a title of one other voice, the brief voice is folded into it.
    let lone = [region(0.0, 6.0, &a, &mut seed), region(7.0, 1.0, &b, &mut seed)];
    assert_eq!(diarize(&lone, &Diarization { min_speaker_seconds: 2.0, ..Diarization::default() }).voices.len(), 1);
}

#[test]
fn a_speaker_is_the_character_alone_on_screen_while_it_speaks() {
    let turn = |start: f64, end: f64, speaker: usize| Turn { start, end, speaker, embedding: Vec::new() };
    let turns = [turn(0.0, 6.0, 0), turn(6.0, 10.0, 1), turn(10.0, 16.0, 0), turn(20.0, 21.0, 2)];
    // Character 0 alone over speaker 0's turns; character 1 with 0 over speaker 1's.
    let characters = vec![vec![[0.0, 16.0]], vec![[5.0, 10.0]], vec![[20.0, 21.0]]];
    let linked = link_characters(&turns, 4, &characters);
    // Speaker 0: alone 11 s of 12 (1 s with character 1); speaker 1 never alone with one face;
    // speaker 2 alone with character 2 but for 1 s only; speaker 3 never speaks.
    assert_eq!(linked, [Some(0), None, None, None]);
    assert_eq!(link_characters(&turns, 3, &[]), [None, None, None]);
}

fn arbitrary_regions() -> impl Strategy<Value = Vec<RegionWindows>> {
    prop::collection::vec(
        (0.0f64..3.0, 0.0f64..6.0, prop::collection::vec(prop::collection::vec(-1.0f32..1.0, 4), 0..12)),
        0..8,
    )
    .prop_map(|parts| {
        let mut at = 0.0;
        parts
            .into_iter()
            .map(|(gap, seconds, vectors)| {
                let start = at + gap;
                at = start + seconds + 0.01;
                let vectors = vectors
                    .into_iter()
                    .map(|v| {
                        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                        if n > 0.0 { v.iter().map(|x| x / n).collect() } else { v }
                    })
                    .collect();
                RegionWindows { start, end: start + seconds + 0.01, hop: 0.4, span: 0.822, vectors }
            })
            .collect()
    })
}

proptest! {
    /// Whatever the vectors (zero ones included) and the settings: turns sorted, inside their
    /// regions, not overlapping, naming a speaker that has a unit-length voice.
    #[test]
    fn turns_are_well_formed_for_any_input(
        regions in arbitrary_regions(),
        min_silhouette in -1.0f32..1.0,
        max_speakers in 0usize..5,
        min_speaker_seconds in 0.0f64..10.0,
    ) {
        let centre = min_silhouette > 0.0;
        let settings = Diarization { centre, min_silhouette, max_speakers, min_speaker_seconds };
        let out = diarize(&regions, &settings);
        for v in &out.voices {
            prop_assert!((dot(v, v) - 1.0).abs() < 1e-3);
        }
        let mut last_end = f64::NEG_INFINITY;
        for t in &out.turns {
            prop_assert!(t.start < t.end && t.start >= last_end - 1e-9);
            last_end = t.end;
            prop_assert!(t.speaker < out.voices.len());
            prop_assert!(regions.iter().any(|r| t.start >= r.start - 1e-9 && t.end <= r.end + 1e-9));
            prop_assert!(t.embedding.is_empty() || (dot(&t.embedding, &t.embedding) - 1.0).abs() < 1e-3);
        }
        // Speakers are numbered in order of first appearance.
        let mut seen = 0;
        for t in &out.turns {
            prop_assert!(t.speaker <= seen);
            seen = seen.max(t.speaker + 1);
        }
    }
}
