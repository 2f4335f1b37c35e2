//! Silero VAD on generated audio: espeak-ng utterances placed at known times over silence, over
//! background noise and over music, decoded to 16 kHz mono; IoU with the placed speech (each
//! WAV's non-silent extent). Also: streaming in arbitrary pieces equals one call, music alone is
//! not speech, and the load time and speed are printed.

use std::path::PathBuf;
use std::time::Instant;

use kino_models::{SileroVad, VadParams, manifest};

use crate::support::*;

const UTTERANCES: [(f64, &str); 3] = [
    (2.0, "Many animals live in the green valley near the river."),
    (8.5, "Remember the morning when we were young and the road was long."),
    (15.0, "Nobody knows where the old man went."),
];

/// A 20 s bed (`bed` is an ffmpeg source of 48 kHz mono audio; `None`: silence) with the
/// utterances mixed in; the 16 kHz samples and the placed speech.
fn placed_speech(bed: Option<&str>) -> (Vec<f32>, Vec<[f64; 2]>) {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<PathBuf> = Vec::new();
    let mut graph = String::new();
    let mut truth = Vec::new();
    for (i, (at, text)) in UTTERANCES.iter().enumerate() {
        let (wav, [a, b]) = speak(dir.path(), &format!("u{i}.wav"), text);
        inputs.push(wav);
        let ms = (at * 1000.0).round() as u64;
        graph.push_str(&format!("[{i}:a]aresample=48000,adelay={ms}:all=1[u{i}];"));
        truth.push([at + a, at + b]);
    }
    let bed = bed.unwrap_or("anullsrc=r=48000:cl=mono");
    graph.push_str(&format!(
        "{bed},atrim=duration=20[bed];[bed][u0][u1][u2]amix=inputs=4:normalize=0:duration=first[a]"
    ));
    let (_, samples) = decode(&dir.path().join("unused"), Some((&inputs, &graph)));
    (samples, truth)
}

fn detect(samples: &[f32]) -> Option<(Vec<[f64; 2]>, f64)> {
    let (dir, runtime) = models("vad", &[&manifest::SILERO_VAD])?;
    let mut vad = SileroVad::load(&runtime, &dir, VadParams::default()).unwrap();
    let started = Instant::now();
    let speech = vad.detect(samples).unwrap();
    let speed = speech.duration / started.elapsed().as_secs_f64();
    Some((speech.segments, speed))
}

fn check_placed(test: &str, bed: Option<&str>) {
    if !tools(test) {
        return;
    }
    let (samples, truth) = placed_speech(bed);
    let Some((found, speed)) = detect(&samples) else { return };
    let score = iou(&found, &truth);
    eprintln!("{test}: IoU {score:.3} ({speed:.0}x real time): found {found:?}, placed {truth:?}");
    assert!(score >= 0.85, "IoU {score}: found {found:?}, placed {truth:?}");
}

#[test]
fn speech_over_silence_matches_the_placed_utterances() {
    check_placed("speech_over_silence_matches_the_placed_utterances", None);
}

#[test]
fn speech_over_noise_matches_the_placed_utterances() {
    check_placed("speech_over_noise_matches_the_placed_utterances", Some("anoisesrc=c=pink:a=0.05:r=48000:seed=7"));
}

/// Plucked notes (harmonic tones with a fast exponential decay), a melody of eight notes a
/// second over a bass line: instrumental music without a voice.
const MUSIC: &str = "aevalsrc='exp(-12*mod(t,0.125))*(0.3*sin(2*PI*440*pow(2,floor(mod(t*8,7))/12)*t)\
+0.15*sin(4*PI*440*pow(2,floor(mod(t*8,7))/12)*t)+0.07*sin(6*PI*440*pow(2,floor(mod(t*8,7))/12)*t))\
+exp(-4*mod(t,0.5))*0.25*sin(2*PI*110*pow(2,floor(mod(t*2,4))*5/12)*t)':s=48000";

#[test]
fn speech_over_music_matches_the_placed_utterances() {
    check_placed("speech_over_music_matches_the_placed_utterances", Some(MUSIC));
}

#[test]
fn music_alone_is_not_speech() {
    if !tools("music_alone_is_not_speech") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let graph = format!("{MUSIC},atrim=duration=20[a]");
    let (_, samples) = decode(&dir.path().join("unused"), Some((&[], &graph)));
    let rms = (samples.iter().map(|s| f64::from(*s).powi(2)).sum::<f64>() / samples.len() as f64).sqrt();
    assert!(samples.len() == 320_000 && rms > 0.05, "the music is there: {} samples, RMS {rms}", samples.len());
    let Some((found, _)) = detect(&samples) else { return };
    let seconds = length(&found) + 0.0;
    eprintln!("music_alone_is_not_speech: {seconds:.2} s of 20 s marked as speech: {found:?}");
    assert!(seconds <= 1.0, "{seconds} s of music marked as speech: {found:?}");
}

#[test]
fn streaming_in_any_pieces_equals_one_call() {
    let Some((dir, runtime)) = models("streaming_in_any_pieces_equals_one_call", &[&manifest::SILERO_VAD]) else {
        return;
    };
    // A deterministic chirp with noise, 5.03 s (not a whole number of chunks).
    let mut seed = 12345u32;
    let samples: Vec<f32> = (0..80_480)
        .map(|i| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let t = i as f32 / 16_000.0;
            0.3 * (2.0 * std::f32::consts::PI * (200.0 + 300.0 * t) * t).sin()
                + 0.05 * (seed as f32 / u32::MAX as f32 - 0.5)
        })
        .collect();
    let mut vad = SileroVad::load(&runtime, &dir, VadParams::default()).unwrap();
    let whole = vad.detect(&samples).unwrap();
    assert_eq!(whole.probabilities.len(), 80_480usize.div_ceil(512));
    assert!((whole.duration - 5.03).abs() < 1e-9);
    let mut rest = &samples[..];
    for size in [1usize, 511, 1000, 37, 512, 4096].iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let n = (*size).min(rest.len());
        vad.push(&rest[..n]).unwrap();
        rest = &rest[n..];
    }
    let pieces = vad.finish().unwrap();
    assert_eq!(pieces, whole, "the same probabilities, bit for bit");
    // And the detector is reset: a second stream gives the same answer again.
    assert_eq!(vad.detect(&samples).unwrap(), whole);
}

#[test]
fn loads_quickly_and_runs_faster_than_real_time() {
    let Some((dir, runtime)) = models("loads_quickly_and_runs_faster_than_real_time", &[&manifest::SILERO_VAD]) else {
        return;
    };
    let started = Instant::now();
    let mut vad = SileroVad::load(&runtime, &dir, VadParams::default()).unwrap();
    let load = started.elapsed().as_secs_f64();
    let samples = vec![0f32; 16_000 * 60];
    let started = Instant::now();
    let speech = vad.detect(&samples).unwrap();
    let speed = 60.0 / started.elapsed().as_secs_f64();
    eprintln!(
        "silero-vad: runtime {} from {}, model load {:.3} s, {speed:.0}x real time on one thread",
        runtime.version(),
        runtime.library().display(),
        load
    );
    assert_eq!(runtime.version(), manifest::ONNXRUNTIME.version);
    assert!(speech.segments.is_empty(), "silence is not speech: {:?}", speech.segments);
    assert!(speed > 10.0, "{speed:.1}x real time");
}
