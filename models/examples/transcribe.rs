//! Transcribes a 16 kHz mono WAV (16-bit PCM) with Whisper base from the models directory,
//! finding speech with Silero VAD, and prints the words with their times.
//!
//! cargo run --release -p kino-models --example transcribe -- FILE.wav

use kino_models::{ModelsDir, Runtime, SileroVad, TranscribeOptions, VadParams, Whisper};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: transcribe FILE.wav (16 kHz mono 16-bit)")?;
    let bytes = std::fs::read(&path)?;
    let data = bytes.windows(4).position(|w| w == b"data").ok_or("no data chunk")? + 8;
    let audio: Vec<f32> =
        bytes[data..].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]) as f32 / 32768.0).collect();
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut vad = SileroVad::load(&runtime, &dir, VadParams::default())?;
    let speech = vad.detect(&audio)?;
    let regions: Vec<(f64, f64)> = speech.segments.iter().map(|s| (s[0], s[1])).collect();
    eprintln!("speech: {regions:?}");
    let t = std::time::Instant::now();
    let whisper = Whisper::load(&dir)?;
    eprintln!("loaded in {:.2} s", t.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    let out = whisper.transcribe(audio.as_slice(), &regions, &TranscribeOptions::default(), &mut |d, n| {
        eprintln!("{d:.1}/{n:.1} s")
    })?;
    let secs = t.elapsed().as_secs_f64();
    println!("language {}", out.language);
    for s in &out.segments {
        println!("[{:7.2} {:7.2}] {}", s.start, s.end, s.text);
        for w in &s.words {
            println!("    {:7.2} {:7.2} {:.2} {}", w.start, w.end, w.probability, w.text);
        }
    }
    eprintln!(
        "transcribed {:.1} s of speech ({:.1} s of audio) in {secs:.2} s: {:.1}x real time",
        out.transcribed_seconds,
        audio.len() as f64 / 16_000.0,
        audio.len() as f64 / 16_000.0 / secs
    );
    Ok(())
}
