//! Facial expressions of the faces dlib finds on images, with timings:
//! `cargo run --release -p kino-models --example expressions -- [--upsample N] IMAGE...` (any image
//! ffmpeg decodes). Prints each face (box in fractions of the image, detector score), the seven
//! probabilities, the label `expression_label` gives (or `-` when it abstains), and the model's
//! time per face (mean over 200 runs of a batch of the image's faces, and of one face).

use std::process::Command;
use std::time::Instant;

use kino_models::{EXPRESSIONS, ExpressionModel, FaceAnalyzer, ModelsDir, RgbImage, Runtime, expression_label};

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
    let mut upsample = 0;
    if args.first().is_some_and(|a| a == "--upsample") {
        upsample = args[1].parse()?;
        args.drain(..2);
    }
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut detector = FaceAnalyzer::load(&runtime, &dir, 1)?;
    detector.set_upsample(upsample);
    let model = ExpressionModel::load(&dir)?;
    println!("load {:.3} s; classes {EXPRESSIONS:?}", model.load_seconds());
    for path in &args {
        let image = decode(path);
        let faces = detector.faces(image.frame())?;
        println!("{path} {}x{}: {} faces", image.width, image.height, faces.len());
        if faces.is_empty() {
            continue;
        }
        let rows = model.expressions(image.frame(), &faces)?;
        for (f, p) in faces.iter().zip(&rows) {
            let label = expression_label(p, f).unwrap_or("-");
            let probs: Vec<String> = p.iter().map(|v| format!("{v:.4}")).collect();
            println!(
                "  x {:.4} y {:.4} w {:.4} h {:.4} score {:.2}: [{}] {label}",
                f.x,
                f.y,
                f.w,
                f.h,
                f.score,
                probs.join(", ")
            );
        }
        let runs = 200;
        for n in [faces.len(), 1] {
            let started = Instant::now();
            for _ in 0..runs {
                model.expressions(image.frame(), &faces[..n])?;
            }
            let ms = started.elapsed().as_secs_f64() * 1000.0 / (runs * n) as f64;
            println!("  {ms:.3} ms per face in batches of {n}");
        }
    }
    Ok(())
}
