//! On-screen text of an image or of a video's first frame with PP-OCRv6, with the load time and
//! speed:
//!
//! ```text
//! cargo run --release -p kino-models --example ocr -- FILE
//! ```
//!
//! ffmpeg decodes the first frame to RGB24 at its own size (ffprobe gives the size). Prints each
//! box in pixels with its detection score and the text read in it with its score, to compare with
//! another implementation (rapidocr prints its boxes in pixels too).

use std::process::Command;
use std::time::Instant;

use kino_models::{ModelsDir, RgbFrame, Runtime, TextReader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args().nth(1).ok_or("usage: ocr FILE")?;
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
        .arg(&file)
        .output()?;
    let size = String::from_utf8(probe.stdout)?;
    let (w, h) = size.trim().split_once(',').ok_or_else(|| format!("ffprobe gave no size for {file}"))?;
    let (width, height): (usize, usize) = (w.parse()?, h.parse()?);
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-nostdin", "-i", &file])
        .args(["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"])
        .output()?;
    let frame = RgbFrame::new(width, height, &out.stdout)?;

    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut reader = TextReader::load(&runtime, &dir, 1)?;
    eprintln!("models loaded in {:.3} s; frame {width}x{height}", reader.load_seconds());

    let started = Instant::now();
    let boxes = reader.detect(frame)?;
    let detect_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let lines = reader.recognize(frame, &boxes)?;
    let read_ms = started.elapsed().as_secs_f64() * 1e3;
    eprintln!("detection {detect_ms:.1} ms ({} boxes), recognition {read_ms:.1} ms", boxes.len());
    let px = |b: &kino_models::TextBox| {
        let (fw, fh) = (width as f32, height as f32);
        [b.x * fw, b.y * fh, (b.x + b.w) * fw, (b.y + b.h) * fh].map(|v| v.round() as i64)
    };
    for b in &boxes {
        let read = lines.iter().find(|l| l.bbox == *b);
        let (text, score) = read.map_or(("", 0.0), |l| (l.text.as_str(), l.score));
        println!("{:?} {:.4} {text:?} {score:.4}", px(b), b.score);
    }
    Ok(())
}
