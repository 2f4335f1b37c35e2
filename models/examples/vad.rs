//! Speech segments of any media file with Silero VAD, with the load time and speed:
//!
//! ```text
//! cargo run --release -p kino-models --example vad -- FILE [--probabilities]
//! ```
//!
//! ffmpeg decodes the first audio stream to 16 kHz mono f32; `--probabilities` prints the speech
//! probability of every 32 ms chunk instead of the segments (to compare with the Python package).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

use kino_models::{ModelsDir, Runtime, SileroVad, VadParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args.iter().find(|a| !a.starts_with("--")).ok_or("usage: vad FILE [--probabilities]")?;
    let print_probabilities = args.iter().any(|a| a == "--probabilities");

    let started = Instant::now();
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let runtime_seconds = started.elapsed().as_secs_f64();
    let mut vad = SileroVad::load(&runtime, &dir, VadParams::default())?;

    let mut ffmpeg = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-nostdin", "-i", file])
        .args(["-map", "0:a:0", "-ac", "1", "-ar", "16000", "-f", "f32le", "pipe:1"])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdout = ffmpeg.stdout.take().ok_or("no ffmpeg output")?;
    let mut bytes = vec![0u8; 1 << 16];
    let mut samples = Vec::with_capacity(bytes.len() / 4);
    let mut carry = Vec::new();
    let mut model_seconds = 0.0;
    loop {
        let n = stdout.read(&mut bytes)?;
        if n == 0 {
            break;
        }
        carry.extend_from_slice(&bytes[..n]);
        let whole = carry.len() / 4 * 4;
        samples.clear();
        samples.extend(carry[..whole].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
        carry.drain(..whole);
        let t = Instant::now();
        vad.push(&samples)?;
        model_seconds += t.elapsed().as_secs_f64();
    }
    if !ffmpeg.wait()?.success() {
        return Err("ffmpeg failed".into());
    }
    let t = Instant::now();
    let speech = vad.finish()?;
    model_seconds += t.elapsed().as_secs_f64();

    if print_probabilities {
        for p in &speech.probabilities {
            println!("{p:.6}");
        }
    } else {
        for [a, b] in &speech.segments {
            println!("{a:.3}\t{b:.3}");
        }
    }
    let speech_seconds: f64 = speech.segments.iter().map(|[a, b]| b - a).sum();
    eprintln!(
        "{:.1} s of audio, {speech_seconds:.1} s of speech in {} segments; runtime {} loaded in {runtime_seconds:.3} s, \
         model in {:.3} s; VAD {:.2} s = {:.0}x real time (one thread)",
        speech.duration,
        speech.segments.len(),
        runtime.version(),
        vad.load_seconds(),
        model_seconds,
        speech.duration / model_seconds
    );
    Ok(())
}
