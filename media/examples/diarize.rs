//! Who speaks when in a recording, as RTTM lines, for the diarization evaluation
//! (`scripts/diarization-eval.sh`): the Silero VAD's speech regions, the speaker embedder's
//! windows, then the clustering once per setting given (the audio is embedded once).
//!
//!   cargo run --release -p kino-media --example diarize -- FILE... [--setting centre,min_silhouette,min_seconds]...
//!
//! Each file is decoded by ffmpeg to 16 kHz mono. Without `--setting`, the defaults
//! (`kino_media::voices::Diarization::default()`). Prints `# setting ...` before each setting's
//! lines, and the seconds of speech and the seconds the embedder took to standard error.

use std::process::Command;
use std::time::Instant;

use kino_media::voices::{Diarization, diarize, listen};
use kino_models::{ModelsDir, Runtime, SileroVad, SpeakerEmbedder, VadParams};

fn decode(path: &str) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-nostdin", "-i", path, "-vn", "-ac", "1", "-ar", "16000", "-f", "s16le", "pipe:1"])
        .output()?;
    if !out.status.success() {
        return Err(format!("ffmpeg failed on {path}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(out.stdout.chunks_exact(2).map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0).collect())
}

fn parse_setting(text: &str) -> Result<Diarization, Box<dyn std::error::Error>> {
    let parts: Vec<&str> = text.split(',').collect();
    let [centre, silhouette, min] = parts[..] else {
        return Err(format!("--setting takes centre,min_silhouette,min_seconds, not {text}").into());
    };
    Ok(Diarization {
        centre: centre == "1" || centre == "true",
        min_silhouette: silhouette.parse()?,
        min_speaker_seconds: min.parse()?,
        ..Diarization::default()
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut files = Vec::new();
    let mut settings = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--setting" {
            settings.push(parse_setting(&args.next().ok_or("--setting needs a value")?)?);
        } else {
            files.push(arg);
        }
    }
    if files.is_empty() {
        return Err("usage: diarize FILE... [--setting centre,min_silhouette,min_seconds]...".into());
    }
    if settings.is_empty() {
        settings.push(Diarization::default());
    }
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut vad = SileroVad::load(&runtime, &dir, VadParams::default())?;
    let mut embedder = SpeakerEmbedder::load(&runtime, &dir, 1)?;
    for file in &files {
        let audio = decode(file)?;
        let speech = vad.detect(&audio)?.segments;
        let started = Instant::now();
        let regions = listen(&mut embedder, audio.as_slice(), &speech)?;
        let embedding = started.elapsed().as_secs_f64();
        let spoken: f64 = speech.iter().map(|[a, b]| b - a).sum();
        let name = std::path::Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("file");
        for setting in &settings {
            let started = Instant::now();
            let out = diarize(&regions, setting);
            eprintln!(
                "{name}: {spoken:.1} s of speech, embedder {embedding:.2} s, clustering {:.3} s, {} speakers",
                started.elapsed().as_secs_f64(),
                out.voices.len()
            );
            println!(
                "# setting centre={} min_silhouette={} min_seconds={}",
                u8::from(setting.centre),
                setting.min_silhouette,
                setting.min_speaker_seconds
            );
            let cosines: Vec<String> = out
                .voices
                .iter()
                .enumerate()
                .flat_map(|(i, a)| {
                    out.voices[i + 1..].iter().map(move |b| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>())
                })
                .map(|c| format!("{c:.3}"))
                .collect();
            eprintln!("{name}: voices' cosines {}", cosines.join(" "));
            for t in &out.turns {
                println!("SPEAKER {name} 1 {:.3} {:.3} <NA> <NA> spk{} <NA> <NA>", t.start, t.end - t.start, t.speaker);
            }
        }
    }
    Ok(())
}
