//! Every number the core reports is rounded by one rule (`kino::report`): times to the
//! millisecond, scores to six decimals. Checked on the JSON of every result, as the service and
//! Python see it.

use kino::clips::ClipType;
use kino::synth::{SynthOptions, generate};
use kino::thumbnail::{FrameRule, choose_frame};
use kino::{ClipQuery, Prepared, ProfanityOptions, emotion_windows, profanity, report, select};
use proptest::prelude::*;
use serde_json::Value;

/// Keys whose numbers are times (seconds); every other non-integer number is a score, except the
/// document's `fps`, echoed as given.
const TIME_KEYS: &[&str] = &[
    "start_time",
    "stop_time",
    "snapped_start",
    "snapped_stop",
    "start_speech_avoidance",
    "end_speech_avoidance",
    "start",
    "end",
    "time",
    "shot_distance",
];

/// The paths of the numbers in `value` that are not their own rounding.
pub fn unrounded(value: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    walk(value, "", "", &mut bad);
    bad
}

fn walk(value: &Value, key: &str, path: &str, bad: &mut Vec<String>) {
    match value {
        Value::Number(n) if n.is_f64() && key != "fps" => {
            let v = n.as_f64().unwrap();
            let rounded = if TIME_KEYS.contains(&key) { report::time(v) } else { report::score(v) };
            if rounded != v {
                bad.push(format!("{path} = {v}"));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, key, &format!("{path}[{i}]"), bad);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                walk(v, k, &format!("{path}.{k}"), bad);
            }
        }
        _ => {}
    }
}

#[test]
fn the_check_sees_noise() {
    let noisy = serde_json::json!({"clips": [{"end_speech_avoidance": 2.342999999999847, "fps": 23.976023976023978}],
        "emotions": [{"sadness": 0.8999999761581421}], "start_frame": 3});
    assert_eq!(
        unrounded(&noisy),
        [".clips[0].end_speech_avoidance = 2.342999999999847", ".emotions[0].sadness = 0.8999999761581421"]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_reported_number_is_its_own_rounding(
        step in prop_oneof![Just(1.0), Just(0.1), Just(1.0 / 24.0), Just(0.3)],
        samples in 50usize..1500,
        frac in 0.0f64..1.0,
        seed in any::<u64>(),
        clip_length in 0.5f64..40.0,
        clip_type in 0usize..13,
        silence in 0.0f64..1.0,
    ) {
        // Durations, steps and silences off the millisecond grid, so exact results carry noise.
        let duration = (samples as f64 - frac) * step;
        let doc = generate(&SynthOptions::new("rounding", duration, step, seed));
        let p = Prepared::new(doc.clone()).unwrap();
        let query = ClipQuery {
            clip_length: clip_length.min(duration * 0.3),
            clip_type: ClipType::ALL[clip_type],
            number_of_top_candidates: 5,
            end_speech_stop_silence_before: silence,
            start_speech_stop_silence_after: silence / 3.0,
            ..ClipQuery::default()
        };
        let clips = select(&p, &query, None).unwrap();
        let frame = choose_frame(&doc, duration / 7.0, duration / 2.0, &FrameRule::default());
        let results = [
            serde_json::to_value(&clips).unwrap(),
            serde_json::to_value(emotion_windows(&doc, 10.0 * step + frac).unwrap()).unwrap(),
            serde_json::to_value(profanity(&doc, &ProfanityOptions { merge_gap: frac * 5.0, ..Default::default() }).unwrap()).unwrap(),
            serde_json::to_value(frame).unwrap(),
        ];
        for result in &results {
            let bad = unrounded(result);
            prop_assert!(bad.is_empty(), "not rounded: {:?}", bad);
        }
    }
}
