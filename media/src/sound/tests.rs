use kino::signals::Signals;
use proptest::prelude::*;

use super::*;

const HOP: f64 = 0.48;

/// The class names the tests score: every class of the table, then two unrelated ones.
fn names() -> Vec<String> {
    let mut names: Vec<String> = SOUND_GROUPS.iter().flat_map(|g| g.classes.iter().map(|c| c.to_string())).collect();
    names.extend(["Speech".to_string(), "Silence".to_string()]);
    names
}

/// `frames` rows of zeros, then `class` set to `value` in `range`.
fn scores(names: &[String], frames: usize, marks: &[(&str, std::ops::Range<usize>, f32)]) -> Vec<Vec<f32>> {
    let mut rows = vec![vec![0.0; names.len()]; frames];
    for (class, range, value) in marks {
        let c = names.iter().position(|n| n == class).unwrap();
        for row in &mut rows[range.clone()] {
            row[c] = *value;
        }
    }
    rows
}

/// A valid document of `duration` seconds with these channels in place of its own.
fn document(duration: f64, step: f64, scenes: &[Scene], channels: &SoundChannels) -> Signals {
    let mut signals = kino::synth::demo_signals("tt-sound", duration, step, 1);
    signals.timelines.clip_types = channels.clip_types.clone();
    signals.tags = channels.tags.clone();
    signals.emotions = emotions_of(channels, step);
    signals.scenes = scenes.to_vec();
    signals.scene_embeddings = None;
    signals
}

/// The emotion track the sound groups alone give (the affect model with only the sound-event
/// reading), `None` when no emotion reaches the evidence level anywhere.
fn emotions_of(c: &SoundChannels, step: f64) -> Option<kino::signals::Emotions> {
    let n = c.groups.first().map_or(0, Vec::len);
    let reading = crate::affect::readings::sound_events(&c.groups, "test", n);
    if !reading.probs.iter().flatten().any(|&p| p >= EVIDENCE) {
        return None;
    }
    Some(crate::affect::fuse(&[reading], step, n).emotions())
}

fn whole(duration: f64) -> Vec<Scene> {
    vec![Scene { start: 0.0, end: duration }]
}

#[test]
fn laughter_makes_a_funny_timeline_exactly_there() {
    let names = names();
    // 20 s; laughter in frames 10..15, whose centre regions span 5.04 s to 7.44 s.
    let scores = scores(&names, 41, &[("Belly laugh", 10..15, 0.9), ("Speech", 0..41, 0.8)]);
    let scenes = [Scene { start: 0.0, end: 4.0 }, Scene { start: 4.0, end: 12.0 }, Scene { start: 12.0, end: 20.0 }];
    let c = sound_channels(&names, HOP, &scores, 20.0, 0.5, &scenes);
    assert_eq!(c.clip_types.keys().collect::<Vec<_>>(), ["Funny and comical"]);
    let funny = &c.clip_types["Funny and comical"];
    assert_eq!(funny.len(), 40);
    for (j, &v) in funny.iter().enumerate() {
        let (t0, t1) = (j as f64 * 0.5, (j + 1) as f64 * 0.5);
        let inside = t1 > 5.04 && t0 < 7.44;
        assert_eq!(v, if inside { 0.9 } else { 0.0 }, "sample {j} [{t0}, {t1})");
    }
    assert_eq!(c.tags.len(), 1);
    let tag = &c.tags[0];
    assert_eq!((tag.kind, tag.name.as_str(), tag.start, tag.end), (TagKind::Keyword, "laughter", 4.0, 12.0));
    assert!((tag.score - 0.9).abs() < 1e-6);
    assert_eq!(c.scene_sounds[1], vec![("Belly laugh".to_string(), 0.9), ("Speech".to_string(), 0.8)]);
    assert_eq!(c.scene_sounds[0], vec![("Speech".to_string(), 0.8)]);
    let emotions = emotions_of(&c, 0.5).unwrap();
    assert!(emotions.valence[12] > 0.4 && emotions.valence[0] == 0.0);
    document(20.0, 0.5, &scenes, &c).validate().unwrap();
}

#[test]
fn scary_music_is_a_scary_mood_with_negative_valence() {
    let names = names();
    let scores = scores(&names, 20, &[("Scary music", 0..20, 0.7), ("Music", 0..20, 0.95)]);
    let c = sound_channels(&names, HOP, &scores, 10.0, 1.0, &whole(10.0));
    let tags: Vec<(TagKind, &str)> = c.tags.iter().map(|t| (t.kind, t.name.as_str())).collect();
    assert_eq!(tags, [(TagKind::Keyword, "music"), (TagKind::Mood, "scary")]);
    assert_eq!(c.clip_types.keys().collect::<Vec<_>>(), ["Creepy and scary", "Scary"]);
    let e = emotions_of(&c, 1.0).unwrap();
    let fear = e.names.iter().position(|n| n == "fear").unwrap();
    assert!(e.probs.iter().all(|row| row[fear] >= 0.7 - 1e-6), "direct evidence is a floor");
    assert!(e.valence.iter().all(|&v| v < -0.4), "{:?}", e.valence);
    assert!(e.arousal.iter().all(|&v| v > 0.3));
    document(10.0, 1.0, &whole(10.0), &c).validate().unwrap();
}

#[test]
fn valence_follows_the_music_mood() {
    let names = names();
    for (class, positive) in
        [("Happy music", true), ("Tender music", true), ("Sad music", false), ("Angry music", false)]
    {
        let scores = scores(&names, 10, &[(class, 0..10, 0.9)]);
        let c = sound_channels(&names, HOP, &scores, 5.0, 1.0, &whole(5.0));
        let e = emotions_of(&c, 1.0).unwrap();
        assert_eq!(e.probs.len(), 5);
        assert!(e.valence.iter().all(|&v| (v > 0.4) == positive && v.abs() > 0.4), "{class}: {:?}", e.valence);
        document(5.0, 1.0, &whole(5.0), &c).validate().unwrap();
    }
    let sad = sound_channels(&names, HOP, &scores(&names, 10, &[("Sad music", 0..10, 0.9)]), 5.0, 1.0, &whole(5.0));
    assert_eq!(sad.clip_types.keys().collect::<Vec<_>>(), ["Emotional"]);
    assert_eq!(sad.tags[0].name, "sad");
}

#[test]
fn no_evidence_gives_nothing() {
    let names = names();
    let scenes = whole(10.0);
    for scores in [vec![], vec![vec![0.0; names.len()]; 21], vec![vec![0.29; names.len()]; 21]] {
        let c = sound_channels(&names, HOP, &scores, 10.0, 1.0, &scenes);
        assert!(c.clip_types.is_empty() && c.tags.is_empty() && emotions_of(&c, 1.0).is_none(), "{c:?}");
        assert_eq!(c.scene_sounds, vec![Vec::<(String, f32)>::new()]);
    }
    // Classes kino does not use are no evidence for anything but the scene's sounds.
    let c = sound_channels(&names, HOP, &scores(&names, 21, &[("Speech", 0..21, 1.0)]), 10.0, 1.0, &scenes);
    assert!(c.clip_types.is_empty() && c.tags.is_empty() && emotions_of(&c, 1.0).is_none());
    assert_eq!(c.scene_sounds[0], vec![("Speech".to_string(), 1.0)]);
}

#[test]
fn the_tables_name_real_clip_types_and_emotions() {
    for group in &SOUND_GROUPS {
        for (clip_type, weight) in group.clip_types {
            assert!(matches!(kino::ClipType::parse(clip_type), Some(t) if t != kino::ClipType::Any), "{clip_type}");
            assert!(*weight > 0.0 && *weight <= 1.0);
        }
        for (emotion, weight) in group.emotions {
            assert!(crate::affect::EMOTIONS.iter().any(|(e, _)| e == emotion), "{emotion}");
            assert!(*weight > 0.0 && *weight <= 1.0);
        }
    }
    for (_, coordinates) in crate::affect::EMOTIONS {
        assert!(coordinates.iter().all(|c| (-1.0..=1.0).contains(c)));
    }
}

/// The class names of the table are YAMNet's: checked against `yamnet_class_map.csv` when the
/// model is in the models directory (skipped otherwise, failing when `KINO_REQUIRE_MODELS` is set).
#[test]
fn the_tables_name_yamnet_classes() {
    let dir = std::env::var_os("KINO_MODELS")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| std::path::Path::new(&d).join("kino/models")))
        .or_else(|| std::env::var_os("HOME").map(|d| std::path::Path::new(&d).join(".cache/kino/models")));
    let Some(text) = dir.and_then(|d| std::fs::read_to_string(d.join("yamnet-0.2.1/yamnet_class_map.csv")).ok()) else {
        assert!(
            std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0"),
            "KINO_REQUIRE_MODELS is set but yamnet_class_map.csv is missing; run `kino models fetch yamnet`"
        );
        // Written to the process's stderr directly: the harness captures `eprintln!` of passing tests.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"\n!!! SKIPPED the_tables_name_yamnet_classes: yamnet is not in the models directory (`kino models fetch yamnet`); set KINO_REQUIRE_MODELS=1 to fail instead\n",
        );
        return;
    };
    for group in &SOUND_GROUPS {
        for class in group.classes {
            let quoted = if class.contains(',') { format!("\"{class}\"") } else { class.to_string() };
            assert!(
                text.lines().any(|l| l.trim_end().ends_with(&format!(",{quoted}"))),
                "{class} is not a YAMNet class"
            );
        }
    }
}

/// Scenes that cover `[0, duration]`, cut at the given fractions.
fn cover(duration: f64, cuts: &[f64]) -> Vec<Scene> {
    let mut times: Vec<f64> = cuts.iter().map(|f| (f * duration * 1000.0).round() / 1000.0).collect();
    times.retain(|&t| t > 0.0 && t < duration);
    times.sort_by(f64::total_cmp);
    times.dedup();
    let mut scenes = Vec::new();
    let mut start = 0.0;
    for t in times.into_iter().chain([duration]) {
        scenes.push(Scene { start, end: t });
        start = t;
    }
    scenes
}

proptest! {
    #[test]
    fn any_scores_give_valid_channels(
        rows in proptest::collection::vec(proptest::collection::vec(0.0f32..=1.0, 0..40), 0..80),
        duration in 0.5f64..60.0,
        step in prop_oneof![Just(0.04f64), 0.1f64..5.0],
        hop in prop_oneof![Just(0.48f64), 0.05f64..3.0],
        cuts in proptest::collection::vec(0.0f64..1.0, 0..6),
    ) {
        let names = names();
        let scenes = cover(duration, &cuts);
        let c = sound_channels(&names, hop, &rows, duration, step, &scenes);
        let n = sample_count(duration, step);
        for timeline in c.clip_types.values() {
            prop_assert_eq!(timeline.len(), n);
            prop_assert!(timeline.iter().any(|&v| v >= EVIDENCE));
        }
        prop_assert_eq!(c.scene_sounds.len(), scenes.len());
        prop_assert!(c.scene_sounds.iter().all(|s| s.len() <= SCENE_SOUNDS));
        if let Some(e) = &emotions_of(&c, step) {
            prop_assert_eq!(e.probs.len(), n);
        }
        let document = document(duration, step, &scenes, &c);
        prop_assert!(document.validate().is_ok(), "{:?}", document.validate());
    }
}
