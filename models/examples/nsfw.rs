//! open_nsfw scores of images and video frames, with the load time and speed:
//!
//! ```text
//! cargo run --release -p kino-models --example nsfw -- [--batch N] [--threads N] FILE...
//! ```
//!
//! ffmpeg decodes each file (an image, or every frame of a video) to RGB24 at its own size. Prints
//! one line per frame (`FILE#FRAME SCORE`), then the distribution: the fraction of frames at or
//! above 0.5 and 0.8, quantiles, and the milliseconds per frame of the model calls (`--batch`
//! frames per `classify` call, default 1).

use std::process::Command;
use std::time::Instant;

use kino_models::{ModelsDir, NsfwClassifier, RgbFrame, Runtime};

fn size(file: &str) -> Result<(usize, usize), Box<dyn std::error::Error>> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
        .arg(file)
        .output()?;
    let text = String::from_utf8(out.stdout)?;
    let (w, h) = text.trim().split_once(',').ok_or_else(|| format!("{file}: no video stream"))?;
    Ok((w.parse()?, h.parse()?))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse::<usize>().ok());
    let batch = option("--batch").unwrap_or(1).max(1);
    let threads = option("--threads").unwrap_or(1).max(1);
    let files: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, a)| a)
        .collect();
    if files.is_empty() {
        return Err("usage: nsfw [--batch N] [--threads N] FILE...".into());
    }

    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut classifier = NsfwClassifier::load(&runtime, &dir, threads)?;
    eprintln!("model loaded in {:.3} s ({threads} thread(s), {batch} frame(s) per call)", classifier.load_seconds());

    let (mut all, mut seconds) = (Vec::new(), 0.0);
    for file in files {
        let (w, h) = size(file)?;
        let out = Command::new("ffmpeg")
            .args([
                "-hide_banner",
                "-v",
                "error",
                "-nostdin",
                "-i",
                file,
                "-f",
                "rawvideo",
                "-pix_fmt",
                "rgb24",
                "pipe:1",
            ])
            .output()?;
        if !out.status.success() {
            return Err(format!("ffmpeg failed on {file}: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        let frames: Vec<RgbFrame<'_>> =
            out.stdout.chunks_exact(w * h * 3).map(|d| RgbFrame::new(w, h, d)).collect::<Result<_, _>>()?;
        for (b, chunk) in frames.chunks(batch).enumerate() {
            let started = Instant::now();
            let scores = classifier.classify(chunk)?;
            seconds += started.elapsed().as_secs_f64();
            for (i, score) in scores.into_iter().enumerate() {
                println!("{file}#{} {score:.6}", b * batch + i);
                all.push(score);
            }
        }
    }
    let n = all.len() as f64;
    all.sort_by(f32::total_cmp);
    let above = |t: f32| all.iter().filter(|&&s| s >= t).count() as f64 / n;
    let q = |p: f64| all[((p * (n - 1.0)).round() as usize).min(all.len() - 1)];
    eprintln!(
        "{} frames: >= 0.5: {:.3}, >= 0.8: {:.3}; min {:.4}, p25 {:.4}, median {:.4}, p75 {:.4}, p90 {:.4}, p95 {:.4}, max {:.4}, mean {:.4}",
        all.len(),
        above(0.5),
        above(0.8),
        q(0.0),
        q(0.25),
        q(0.5),
        q(0.75),
        q(0.9),
        q(0.95),
        q(1.0),
        all.iter().sum::<f32>() / all.len() as f32
    );
    eprintln!("{:.1} ms per frame (preprocessing and model, {batch} per call)", 1000.0 * seconds / n);
    Ok(())
}
