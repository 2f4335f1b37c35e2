//! Who speaks when, through the analysis, on pyannote's real two-speaker conversation (from
//! `scripts/fetch-test-media.sh`) put under a grey picture: two speakers, their turns on the
//! reference's speakers, the provenance naming the model, and valid voices. The error rate itself
//! is measured by `scripts/diarization-eval.sh` (14.8 % on this file, docs/media.md); this test
//! asks for less, so that no near-tie decides it.

use std::path::PathBuf;

use kino_media::{AnalyzeOptions, analyze};

use crate::support::*;

/// pyannote's sample and its RTTM, if fetched.
fn conversation() -> Option<(PathBuf, PathBuf)> {
    let roots = std::env::var_os("KINO_TEST_MEDIA")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kino/test-media")));
    roots
        .map(|r| (r.join("extracted/pyannote-sample.wav"), r.join("extracted/pyannote-sample.rttm")))
        .find(|(w, r)| w.is_file() && r.is_file())
}

#[test]
fn a_real_conversation_has_two_speakers_on_the_references_turns() {
    let test = "a_real_conversation_has_two_speakers_on_the_references_turns";
    let Some((wav, rttm)) = conversation() else {
        eprintln!("\n!!! SKIPPED {test}: no pyannote-sample.wav (run scripts/fetch-test-media.sh)\n");
        return;
    };
    let Some(models) = models(test) else { return };
    if !tools(test, false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("talk.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=gray:s=320x180:r=25:d=30,format=yuv420p",
        "-i",
        wav.to_str().unwrap(),
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        "-b:a",
        "128k",
        "-t",
        "30",
        video.to_str().unwrap(),
    ]);
    let doc = analyze(&video, &AnalyzeOptions::default(), models, |_, _| {}).unwrap();
    let analysis = doc.analysis.as_ref().unwrap();
    assert!(analysis.models["speakers"].starts_with("voicefilter-dvector 0.2.0"), "{:?}", analysis.models);
    let speakers = doc.speakers.as_ref().expect("speakers measured");
    assert_eq!(speakers.voices.len(), 2, "{:?}", speakers.turns);
    // No face on a grey picture: no speaker is taken for a character.
    assert!(speakers.characters.iter().all(Option::is_none));
    // The reference's turns, and how long each of its speakers overlaps each found speaker.
    let reference: Vec<(f64, f64, String)> = std::fs::read_to_string(rttm)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (start, length) = (f.get(3)?.parse::<f64>().ok()?, f.get(4)?.parse::<f64>().ok()?);
            Some((start, start + length, f.get(7)?.to_string()))
        })
        .collect();
    let names = ["speaker90", "speaker91"];
    let mut overlap = [[0f64; 2]; 2];
    for turn in &speakers.turns {
        for (start, end, who) in &reference {
            let shared = (end.min(turn.end) - start.max(turn.start)).max(0.0);
            let r = names.iter().position(|n| n == who).expect("two reference speakers");
            overlap[r][turn.speaker as usize] += shared;
        }
    }
    let direct = overlap[0][0] + overlap[1][1];
    let crossed = overlap[0][1] + overlap[1][0];
    let agreed = direct.max(crossed) / (direct + crossed);
    eprintln!("speaker turns on the reference's: {agreed:.3} of the shared time ({overlap:?})");
    // 0.82 when written (from the AAC track of the video; the example, on the WAV, does better);
    // one speaker, or turns at random, gives about 0.5.
    assert!(agreed > 0.7, "{agreed}: {overlap:?}");
    for turn in &speakers.turns {
        assert!(doc.speech.iter().any(|[a, b]| turn.start >= a - 1e-6 && turn.end <= b + 1e-6), "{turn:?}");
    }
}
