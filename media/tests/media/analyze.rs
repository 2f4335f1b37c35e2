//! Whole documents: valid signals with provenance, progress, black bars, and the sidecar merge.

use kino::Signals;
use kino_media::{AFFECT_CHANNELS, AnalyzeOptions, MEASURED_CHANNELS, analyze, learned_channels};

use crate::support::*;

#[test]
fn documents_are_valid_and_say_what_was_measured() {
    if !tools("documents_are_valid_and_say_what_was_measured", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 6 s of 640x360 picture letterboxed inside 640x480 (60 black rows above and below), with a tone.
    let graph = "testsrc2=r=25:s=640x360:d=6,pad=640:480:0:60:black,format=yuv420p[v];sine=f=300:r=48000:d=6[a]";
    let video = encode(dir.path(), "boxed.mp4", graph, true, 50);
    let mut seen = Vec::new();
    let options = AnalyzeOptions { step: 0.5, ..AnalyzeOptions::default() };
    let doc = analyze(&video, &options, &none(), |done, total| seen.push((done, total))).unwrap();
    doc.validate().unwrap();
    assert_eq!(Signals::from_json(&doc.to_json()).unwrap(), doc);
    assert_eq!(Signals::from_binary(&doc.to_binary()).unwrap(), doc);
    assert_eq!((doc.frame_width, doc.frame_height, doc.fps), (640, 480, 25.0));
    assert_eq!(doc.timelines.brightness.len(), 12);
    assert_eq!(doc.inventory_id, "boxed");
    let bars = doc.vertical.as_ref().unwrap().blackbars;
    assert!(bars.iter().all(|&b| (52..=60).contains(&b)), "{bars:?}");
    let analysis = doc.analysis.as_ref().unwrap();
    // Without any model the affect still comes from the picture and the sound's loudness.
    let measured: Vec<&str> = MEASURED_CHANNELS.iter().chain(AFFECT_CHANNELS).copied().collect();
    assert_eq!(analysis.measured, measured);
    let absent: Vec<&str> = learned_channels().into_iter().filter(|c| !AFFECT_CHANNELS.contains(c)).collect();
    assert_eq!(analysis.absent, absent);
    assert_eq!(doc.emotions.as_ref().map(|e| e.probs.len()), Some(12));
    assert!(analysis.models["emotions"].contains("colour 100%"), "{analysis:?}");
    assert!(doc.timelines.nudity.iter().all(|&v| v == 0.0));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "progress only moves forward");
    assert_eq!(seen.last().copied(), Some((doc.duration, doc.duration)));
}

/// The picture fingerprint of the same picture in two encodes (another size and encoder
/// GOP): the same hashes within a few bits, 0 over black frames, unlike another picture.
#[test]
fn the_picture_fingerprint_survives_reencoding() {
    if !tools("the_picture_fingerprint_survives_reencoding", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let graph = |size: &str| {
        format!(
            "color=black:s={size}:r=25:d=1[b];testsrc2=r=25:s={size}:d=5[t];[b][t]concat=n=2:v=1:a=0,format=yuv420p[v]"
        )
    };
    let big = encode(dir.path(), "big.mp4", &graph("640x360"), false, 50);
    let small = encode(dir.path(), "small.mp4", &graph("320x180"), false, 10);
    let other =
        encode(dir.path(), "other.mp4", "mandelbrot=r=25:s=320x180,trim=duration=6,format=yuv420p[v]", false, 50);
    let print = |v: &std::path::Path| {
        let doc = analyze(v, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap();
        doc.picture_fingerprint.expect("every analysis with a picture writes its fingerprint")
    };
    let (a, b, c) = (print(&big), print(&small), print(&other));
    assert_eq!((a.hop, a.hashes.len()), (0.1, 60), "instants 0 to 5.9 s");
    assert!(a.hashes[..9].iter().all(|&h| h == 0), "black frames hash to 0: {:?}", &a.hashes[..12]);
    let bits = |x: &[u32], y: &[u32]| -> Vec<u32> { x.iter().zip(y).map(|(p, q)| (p ^ q).count_ones()).collect() };
    let same = bits(&a.hashes[11..], &b.hashes[11..]);
    let close = same.iter().filter(|&&e| e <= 2).count();
    // Half the size and a short GOP: most hashes within 2 bits, none far off (on real footage
    // encoded alike, 92 % are identical: docs/media.md).
    assert!(close * 4 >= same.len() * 3 && same.iter().all(|&e| e <= 5), "the same picture: {same:?}");
    let apart = bits(&a.hashes[11..], &c.hashes[11..]);
    assert!(apart.iter().filter(|&&e| e <= 2).count() * 4 < apart.len(), "another picture: {apart:?}");
}

#[test]
fn a_sidecar_beside_the_video_fills_the_learned_channels() {
    if !tools("a_sidecar_beside_the_video_fills_the_learned_channels", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = encode(dir.path(), "film.mp4", "testsrc2=r=25:s=320x180:d=10,format=yuv420p[v]", false, 50);
    let mut side = kino::synth::demo_signals("film", 10.0, 0.5, 3);
    side.scene_embeddings = None;
    side.save(dir.path().join("film.mp4.signals.json")).unwrap();
    let doc = analyze(&video, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap();
    let analysis = doc.analysis.as_ref().unwrap();
    for channel in ["timelines.nudity", "timelines.blood_gore", "characters", "tags", "emotions", "profanity"] {
        assert!(analysis.measured.iter().any(|m| m == channel), "{channel} measured: {analysis:?}");
        assert!(!analysis.absent.iter().any(|m| m == channel), "{channel} not absent");
    }
    assert!(analysis.absent.iter().any(|m| m == "scene_embeddings"));
    // Sidecar samples of 0.5 s onto 1 s samples: each takes the sidecar sample at its centre.
    for i in 0..10 {
        assert_eq!(doc.timelines.nudity[i], side.timelines.nudity[2 * i + 1]);
    }
    assert_eq!(doc.characters, side.characters);
    // An explicit sidecar that does not fit the video is an error naming the file and the rule.
    let wrong = dir.path().join("wrong.json");
    kino::synth::demo_signals("other", 60.0, 1.0, 1).save(&wrong).unwrap();
    let options = AnalyzeOptions { sidecar: kino_media::Sidecar::File(wrong), ..AnalyzeOptions::default() };
    let err = analyze(&video, &options, &none(), |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("wrong.json") && err.to_string().contains("duration"), "{err}");
}
