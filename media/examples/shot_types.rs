//! The shot types of the shots judged by eye in `data/eval/shot-types.json`, by the rule of the
//! analysis (the largest person box and the faces, `picture::shot_kind`) and by the rule before
//! the object detector (faces and labels, `picture::shot_kind_by_faces`), one JSON line per shot:
//!
//! `cargo run --release -p kino-media --example shot_types -- data/eval/shot-types.json MEDIA_DIR`
//!
//! Each shot's frames are decoded by ffmpeg every `step` seconds of the file's entry (a still
//! image is one frame), 640 pixels wide like the analysis' sampled frames, and read by the face
//! model, the image classifier and the object detector as the analysis reads them. Needs the
//! default models (`kino models fetch`). `scripts/shot-types-eval.py` scores the lines.

use std::path::Path;
use std::process::Command;

use kino_media::picture::{shot_kind, shot_kind_by_faces};
use kino_media::see::Seen;
use kino_models::{FaceAnalyzer, ImageLabeler, ModelsDir, ObjectDetector, RgbFrame, Runtime};
use serde_json::{Value, json};

const WIDTH: usize = 640;

/// The frames of `path` from `start` for `length` seconds every `step` seconds (one frame for a
/// still image), `WIDTH` wide: (height, RGB24 frames).
fn frames(path: &Path, start: f64, length: f64, step: f64) -> (usize, Vec<Vec<u8>>) {
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    let size = String::from_utf8_lossy(&probe.stdout);
    let (w, h) = size.trim().split_once(',').expect("width,height");
    let (w, h): (f64, f64) = (w.parse().expect("a width"), h.parse().expect("a height"));
    let height = ((WIDTH as f64 * h / w / 2.0).round() as usize * 2).max(2);
    let mut command = Command::new("ffmpeg");
    command.args(["-nostdin", "-v", "error"]);
    let still = length <= 0.0;
    if !still {
        command.args(["-ss", &format!("{start:.3}"), "-t", &format!("{length:.3}")]);
    }
    command.arg("-i").arg(path);
    let scale = format!("scale={WIDTH}:{height}");
    let filter = if still { scale } else { format!("fps=1/{step},{scale}") };
    command.args(["-vf", &filter, "-frames:v", if still { "1" } else { "1000" }]);
    command.args(["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]);
    let out = command.output().expect("ffmpeg runs");
    assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    (height, out.stdout.chunks_exact(WIDTH * height * 3).map(<[u8]>::to_vec).collect())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [truth, media] = &args[..] else {
        return Err("usage: shot_types TRUTH.json MEDIA_DIR".into());
    };
    let truth: Value = serde_json::from_slice(&std::fs::read(truth)?)?;
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut faces = FaceAnalyzer::load(&runtime, &dir, 1)?;
    let mut labeler = ImageLabeler::load(&runtime, &dir, 1)?;
    let mut detector = ObjectDetector::load(&runtime, &dir, 1)?;
    let step = truth["step"].as_f64().unwrap_or(0.5);
    for clip in truth["clips"].as_array().ok_or("clips: expected a list")? {
        let file = clip["file"].as_str().ok_or("clips[].file: expected a string")?;
        let path = Path::new(media).join(file);
        for shot in clip["shots"].as_array().ok_or("clips[].shots: expected a list")? {
            let (start, end) = (shot["start"].as_f64().unwrap_or(0.0), shot["end"].as_f64().unwrap_or(0.0));
            let (height, decoded) = frames(&path, start, end - start, step);
            let mut seen = Vec::new();
            for (k, data) in decoded.iter().enumerate() {
                let frame = RgbFrame::new(WIDTH, height, data)?;
                let labels = labeler.label(&[frame], 5)?.pop().map(|l| l.top);
                seen.push(Seen {
                    time: start + k as f64 * step,
                    faces: Some(faces.faces(frame)?),
                    labels,
                    objects: detector.detect(&[frame])?.pop(),
                    aspect: WIDTH as f32 / height as f32,
                    ..Seen::default()
                });
            }
            let refs: Vec<&Seen> = seen.iter().collect();
            let line = json!({
                "file": file,
                "start": start,
                "end": end,
                "split": shot["split"],
                "truth": shot["kind"],
                "new": shot_kind(&refs),
                "old": shot_kind_by_faces(&refs),
                "frames": seen.len(),
            });
            println!("{line}");
        }
    }
    Ok(())
}
