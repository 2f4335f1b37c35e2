//! AudioSet sound events of any media file with YAMNet, with the load time and speed:
//!
//! ```text
//! cargo run --release -p kino-models --example sound -- FILE [--scores]
//! ```
//!
//! ffmpeg decodes the first audio stream to 16 kHz mono f32. Prints the three best classes of each
//! 0.48 s frame, or with `--scores` every score of every frame (one line per frame, to compare with
//! another implementation).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

use kino_models::{ModelsDir, Runtime, SoundTagger};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args.iter().find(|a| !a.starts_with("--")).ok_or("usage: sound FILE [--scores]")?;
    let print_scores = args.iter().any(|a| a == "--scores");

    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut tagger = SoundTagger::load(&runtime, &dir, 1)?;

    let mut ffmpeg = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-nostdin", "-i", file])
        .args(["-map", "0:a:0", "-ac", "1", "-ar", "16000", "-f", "f32le", "pipe:1"])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdout = ffmpeg.stdout.take().ok_or("no ffmpeg output")?;
    let mut bytes = vec![0u8; 1 << 16];
    let (mut samples, mut carry) = (Vec::new(), Vec::new());
    let (mut model_seconds, mut total) = (0.0, 0usize);
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
        total += samples.len();
        let t = Instant::now();
        tagger.push(&samples)?;
        model_seconds += t.elapsed().as_secs_f64();
    }
    if !ffmpeg.wait()?.success() {
        return Err("ffmpeg failed".into());
    }
    let t = Instant::now();
    let events = tagger.finish()?;
    model_seconds += t.elapsed().as_secs_f64();

    for (i, row) in events.scores.iter().enumerate() {
        if print_scores {
            println!("{}", row.iter().map(|s| format!("{s:.6}")).collect::<Vec<_>>().join(" "));
            continue;
        }
        let mut best: Vec<usize> = (0..row.len()).collect();
        best.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        let top: Vec<String> = best[..3].iter().map(|&k| format!("{} {:.3}", events.names[k], row[k])).collect();
        println!("{:.2}\t{}", i as f64 * events.hop, top.join("\t"));
    }
    let seconds = total as f64 / 16_000.0;
    eprintln!(
        "{seconds:.1} s of audio, {} frames; model loaded in {:.3} s; {model_seconds:.2} s = {:.0}x real time (one thread)",
        events.scores.len(),
        tagger.load_seconds(),
        seconds / model_seconds
    );
    Ok(())
}
