//! Speech intervals on generated audio: espeak-ng utterances placed at known times over silence and
//! over background noise; IoU with the placed speech (each WAV's non-silent extent) >= 0.8. These
//! pin down the spectral detector (the fallback without models); `models.rs` runs the same
//! material through the Silero VAD.

use kino_media::{AnalysisModels, AnalyzeOptions, analyze};

use crate::support::*;

pub fn placed_speech(noise: Option<f64>, models: &AnalysisModels) -> (Vec<[f64; 2]>, Vec<[f64; 2]>) {
    let dir = tempfile::tempdir().unwrap();
    let utterances = [
        (2.0f64, "Many animals live in the green valley near the river."),
        (8.5, "Remember the morning when we were young and the road was long."),
        (15.0, "Nobody knows where the old man went."),
    ];
    let mut inputs: Vec<String> = Vec::new();
    let mut graph = String::from("color=c=gray:s=320x180:r=25:d=20,format=yuv420p[v];");
    let mut truth = Vec::new();
    for (i, (at, text)) in utterances.iter().enumerate() {
        let (wav, [a, b]) = speak(dir.path(), &format!("u{i}.wav"), text);
        inputs.extend(["-i".into(), wav.to_str().unwrap().to_string()]);
        let ms = (at * 1000.0).round() as u64;
        graph.push_str(&format!("[{i}:a]aresample=48000,adelay={ms}:all=1[u{i}];"));
        truth.push([at + a, at + b]);
    }
    let bed = match noise {
        Some(amplitude) => format!("anoisesrc=c=pink:a={amplitude}:r=48000:d=20:seed=7"),
        None => "anullsrc=r=48000:cl=mono,atrim=duration=20".to_string(),
    };
    graph.push_str(&format!("{bed}[bed];[bed][u0][u1][u2]amix=inputs=4:normalize=0:duration=first[a]"));
    let out = dir.path().join("speech.mp4");
    let mut args: Vec<&str> = inputs.iter().map(String::as_str).collect();
    args.extend(["-filter_complex", &graph, "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "ultrafast"]);
    args.extend(["-c:a", "aac", "-b:a", "128k", "-t", "20", out.to_str().unwrap()]);
    ffmpeg(&args);
    let doc = analyze(&out, &AnalyzeOptions::default(), models, |_, _| {}).unwrap();
    (doc.speech, truth)
}

#[test]
fn speech_over_silence_matches_the_placed_utterances() {
    if !tools("speech_over_silence_matches_the_placed_utterances", true) {
        return;
    }
    let (found, truth) = placed_speech(None, &none());
    let score = iou(&found, &truth);
    eprintln!("speech IoU {score:.3}: found {found:?}, placed {truth:?}");
    assert!(score >= 0.8, "IoU {score}: found {found:?}, placed {truth:?}");
}

#[test]
fn speech_over_noise_matches_the_placed_utterances() {
    if !tools("speech_over_noise_matches_the_placed_utterances", true) {
        return;
    }
    let (found, truth) = placed_speech(Some(0.05), &none());
    let score = iou(&found, &truth);
    eprintln!("speech IoU {score:.3}: found {found:?}, placed {truth:?}");
    assert!(score >= 0.8, "IoU {score}: found {found:?}, placed {truth:?}");
}
