//! YAMNet sound events on signals whose answer is known: espeak-ng speech is "Speech", a 1 kHz
//! tone is a tone (not speech), digital silence is "Silence"; streaming in pieces equals one call;
//! the frame count follows the reference's padding; the load time and speed are printed.

use std::f64::consts::PI;
use std::time::Instant;

use kino_models::{SOUND_CLASSES, SoundEvents, SoundTagger, manifest};

use crate::support::*;

fn tagger(test: &str) -> Option<SoundTagger> {
    let (dir, runtime) = models(test, &[&manifest::YAMNET])?;
    let tagger = SoundTagger::load(&runtime, &dir, 1).unwrap();
    eprintln!("{test}: YAMNet loaded in {:.3} s", tagger.load_seconds());
    Some(tagger)
}

/// The mean score of each class over `frames`, and the classes by that mean, best first.
fn ranking(events: &SoundEvents, frames: std::ops::Range<usize>) -> Vec<(String, f32)> {
    let mut mean = vec![0f32; SOUND_CLASSES];
    for row in &events.scores[frames.clone()] {
        mean.iter_mut().zip(row).for_each(|(m, s)| *m += s / frames.len() as f32);
    }
    let mut ranked: Vec<(String, f32)> = events.names.iter().cloned().zip(mean).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked
}

fn score(ranked: &[(String, f32)], name: &str) -> f32 {
    ranked.iter().find(|(n, _)| n == name).map(|(_, s)| *s).unwrap()
}

fn sine(hz: f64, seconds: f64) -> Vec<f32> {
    (0..(seconds * 16_000.0) as usize).map(|i| (0.5 * (2.0 * PI * hz * i as f64 / 16_000.0).sin()) as f32).collect()
}

#[test]
fn speech_scores_speech_first() {
    let test = "speech_scores_speech_first";
    if !tools(test) {
        return;
    }
    let Some(mut tagger) = tagger(test) else { return };
    let dir = tempfile::tempdir().unwrap();
    let (wav, [a, b]) = speak(
        dir.path(),
        "speech.wav",
        "Many animals live in the green valley near the river. Nobody knows where the old man went.",
    );
    let graph = "[0:a]anull[a]";
    let (_, samples) = decode(&wav, Some((std::slice::from_ref(&wav), graph)));
    let events = tagger.tag(&samples).unwrap();
    assert_eq!((events.hop, events.window, events.names.len()), (0.48, 0.96, SOUND_CLASSES));
    assert_eq!(events.names[0], "Speech");
    assert!(events.scores.iter().flatten().all(|s| (0.0..=1.0).contains(s)));
    // Frames wholly inside the utterance.
    let inside = (a / 0.48).ceil() as usize..((b - 0.96) / 0.48).floor() as usize + 1;
    let ranked = ranking(&events, inside.clone());
    eprintln!("{test}: frames {inside:?} of {}: {:?}", events.scores.len(), &ranked[..5]);
    assert_eq!(ranked[0].0, "Speech", "{:?}", &ranked[..5]);
    assert!(ranked[0].1 > 0.8);
}

#[test]
fn a_tone_is_not_speech_and_silence_is_silence() {
    let test = "a_tone_is_not_speech_and_silence_is_silence";
    let Some(mut tagger) = tagger(test) else { return };
    let tone = tagger.tag(&sine(1000.0, 4.0)).unwrap();
    let ranked = ranking(&tone, 0..tone.scores.len());
    eprintln!("{test}: 1 kHz sine: {:?}", &ranked[..4]);
    assert!(["Beep, bleep", "Sine wave"].contains(&ranked[0].0.as_str()), "{:?}", &ranked[..4]);
    assert!(score(&ranked, "Speech") < 0.05 && score(&ranked, "Music") < 0.05);

    let silence = tagger.tag(&vec![0.0; 4 * 16_000]).unwrap();
    let ranked = ranking(&silence, 0..silence.scores.len());
    eprintln!("{test}: silence: {:?}", &ranked[..3]);
    assert_eq!(ranked[0].0, "Silence");
    assert!(ranked[0].1 > 0.9 && score(&ranked, "Speech") < 0.05);
}

#[test]
fn streaming_in_any_pieces_gives_the_same_scores() {
    let test = "streaming_in_any_pieces_gives_the_same_scores";
    let Some(mut tagger) = tagger(test) else { return };
    let mut audio = sine(440.0, 2.0);
    audio.extend(sine(3000.0, 1.3));
    let whole = tagger.tag(&audio).unwrap();
    // pad_waveform: 52,800 samples become 15,600 + 5 * 7,680, six patches.
    assert_eq!(whole.scores.len(), 6);
    for piece in [1, 160, 999, 7_680, 20_000] {
        for chunk in audio.chunks(piece) {
            tagger.push(chunk).unwrap();
        }
        assert_eq!(tagger.finish().unwrap(), whole, "pieces of {piece}");
    }
    assert!(tagger.finish().unwrap().scores.is_empty(), "finish resets the tagger");
    assert_eq!(tagger.tag(&[0.1; 10]).unwrap().scores.len(), 1, "a short stream is padded to one patch");
}

#[test]
fn speed_of_one_thread() {
    let test = "speed_of_one_thread";
    let Some(mut tagger) = tagger(test) else { return };
    let audio: Vec<f32> = sine(220.0, 30.0);
    let started = Instant::now();
    let events = tagger.tag(&audio).unwrap();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{test}: {} frames for 30 s of audio in {seconds:.3} s: {:.0}x real time (one thread{})",
        events.scores.len(),
        30.0 / seconds,
        if cfg!(debug_assertions) { ", debug build" } else { "" }
    );
}
