//! Objects YOLOv3-tiny finds on images, with timings:
//! `cargo run --release -p kino-models --example objects -- [--threads N] IMAGE...` (any image
//! ffmpeg decodes; a video gives its first frame). Prints each detection (class, confidence, box
//! in fractions of the image) and the model's time per frame (mean over 20 runs of one frame,
//! letterboxing and decoding included, after one warm-up run).

use std::process::Command;
use std::time::Instant;

use kino_models::{ModelsDir, OBJECT_INPUT_SIDE, ObjectDetector, RgbImage, Runtime};

/// The image at `path` as RGB24, decoded by ffmpeg.
fn decode(path: &str) -> RgbImage {
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    let size = String::from_utf8_lossy(&probe.stdout);
    let (w, h) = size.trim().split_once(',').expect("width,height");
    let (width, height) = (w.parse().unwrap(), h.parse().unwrap());
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"])
        .output()
        .expect("ffmpeg runs");
    assert_eq!(out.stdout.len(), width * height * 3, "{path}: ffmpeg's frame size");
    RgbImage { width, height, data: out.stdout }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 1;
    if args.first().is_some_and(|a| a == "--threads") {
        threads = args[1].parse()?;
        args.drain(..2);
    }
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut detector = ObjectDetector::load(&runtime, &dir, threads)?;
    println!(
        "load {:.3} s; input {OBJECT_INPUT_SIDE}x{OBJECT_INPUT_SIDE}, {threads} thread(s)",
        detector.load_seconds()
    );
    for path in &args {
        let image = decode(path);
        let found = detector.detect(&[image.frame()])?.pop().unwrap_or_default();
        println!("{path} {}x{}: {} objects", image.width, image.height, found.len());
        for d in &found {
            println!("  {:<14} {:.3}  x {:.3} y {:.3} w {:.3} h {:.3}", d.name, d.confidence, d.x, d.y, d.w, d.h);
        }
        let runs = 20;
        let started = Instant::now();
        for _ in 0..runs {
            detector.detect(&[image.frame()])?;
        }
        println!("  {:.1} ms per frame", started.elapsed().as_secs_f64() * 1000.0 / f64::from(runs));
    }
    Ok(())
}
