//! Finding the models and tools, and generating speech with known extents.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use kino_models::{ModelsDir, Runtime, manifest};

/// The models directory and the loaded runtime when `models` are present; otherwise a loud skip
/// (`None`), or a failure when `KINO_REQUIRE_MODELS` is set.
pub fn models(test: &str, needed: &[&'static manifest::Model]) -> Option<(ModelsDir, Runtime)> {
    let dir = ModelsDir::resolve(None).expect("a models directory");
    let missing: Vec<&str> = std::iter::once(&manifest::ONNXRUNTIME)
        .chain(needed.iter().copied())
        .filter(|m| !dir.status(m).present())
        .map(|m| m.id)
        .collect();
    if !missing.is_empty() {
        if std::env::var_os("KINO_REQUIRE_MODELS").is_some_and(|v| v != "0") {
            panic!(
                "{test}: KINO_REQUIRE_MODELS is set but {missing:?} are missing from {}; run `kino models fetch` (optional models by name: `kino models fetch yamnet`)",
                dir.path().display()
            );
        }
        // Written to the process's stderr directly: the harness captures `eprintln!` of passing tests.
        let _ = writeln!(
            std::io::stderr(),
            "\n!!! SKIPPED {test}: models {missing:?} not in {} (run `kino models fetch`, optional ones by name); set KINO_REQUIRE_MODELS=1 to fail instead\n",
            dir.path().display()
        );
        return None;
    }
    let runtime = Runtime::load(&dir).expect("the ONNX runtime loads");
    Some((dir, runtime))
}

fn works(tool: &str, arg: &str) -> bool {
    Command::new(tool).arg(arg).output().is_ok_and(|o| o.status.success())
}

/// Whether ffmpeg and espeak-ng are installed; a loud skip otherwise, or a failure when
/// `KINO_REQUIRE_FFMPEG` is set.
pub fn tools(test: &str) -> bool {
    let missing: Vec<&str> = [("ffmpeg", "-version"), ("espeak-ng", "--version")]
        .into_iter()
        .filter(|(t, a)| !works(t, a))
        .map(|(t, _)| t)
        .collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var_os("KINO_REQUIRE_FFMPEG").is_some() {
        panic!("{test}: KINO_REQUIRE_FFMPEG is set but {missing:?} is missing; apt-get install ffmpeg espeak-ng");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\n!!! SKIPPED {test}: {missing:?} not installed (apt-get install ffmpeg espeak-ng); set KINO_REQUIRE_FFMPEG=1 to fail instead\n"
    );
    false
}

/// Whether ffmpeg and ffprobe are installed; a loud skip otherwise, or a failure when
/// `KINO_REQUIRE_FFMPEG` is set.
pub fn ffmpeg(test: &str) -> bool {
    if works("ffmpeg", "-version") && works("ffprobe", "-version") {
        return true;
    }
    if std::env::var_os("KINO_REQUIRE_FFMPEG").is_some() {
        panic!("{test}: KINO_REQUIRE_FFMPEG is set but ffmpeg is missing; apt-get install ffmpeg");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\n!!! SKIPPED {test}: ffmpeg not installed (apt-get install ffmpeg); set KINO_REQUIRE_FFMPEG=1 to fail instead\n"
    );
    false
}

/// Speech from espeak-ng: the WAV at `dir/name` and its non-silent extent in seconds (first and
/// last sample above 1% of full scale).
pub fn speak(dir: &Path, name: &str, text: &str) -> (PathBuf, [f64; 2]) {
    let path = dir.join(name);
    let out = Command::new("espeak-ng").arg("-w").arg(&path).arg(text).output().expect("espeak-ng runs");
    assert!(out.status.success(), "espeak-ng failed: {}", String::from_utf8_lossy(&out.stderr));
    let (rate, samples) = decode(&path, None);
    let loud = |s: &f32| s.abs() > 0.01;
    let first = samples.iter().position(loud).expect("espeak produced sound");
    let last = samples.iter().rposition(loud).unwrap();
    (path, [first as f64 / rate, (last + 1) as f64 / rate])
}

/// Decodes `path` (or the output of `graph` over `inputs`, when given) to mono f32 samples with
/// ffmpeg: at the file's own rate when `graph` is `None` (read back from ffprobe), else 16 kHz.
pub fn decode(path: &Path, graph: Option<(&[PathBuf], &str)>) -> (f64, Vec<f32>) {
    let mut command = Command::new("ffmpeg");
    command.args(["-hide_banner", "-v", "error", "-nostdin"]);
    let rate = match graph {
        None => {
            command.arg("-i").arg(path);
            command.args(["-ac", "1", "-f", "f32le", "pipe:1"]);
            let probe = Command::new("ffprobe")
                .args([
                    "-v",
                    "error",
                    "-select_streams",
                    "a:0",
                    "-show_entries",
                    "stream=sample_rate",
                    "-of",
                    "csv=p=0",
                ])
                .arg(path)
                .output()
                .expect("ffprobe runs");
            String::from_utf8_lossy(&probe.stdout).trim().parse::<f64>().expect("a sample rate")
        }
        Some((inputs, graph)) => {
            for input in inputs {
                command.arg("-i").arg(input);
            }
            command.args([
                "-filter_complex",
                graph,
                "-map",
                "[a]",
                "-ac",
                "1",
                "-ar",
                "16000",
                "-f",
                "f32le",
                "pipe:1",
            ]);
            16_000.0
        }
    };
    let out = command.output().expect("ffmpeg runs");
    assert!(out.status.success(), "ffmpeg failed: {}", String::from_utf8_lossy(&out.stderr));
    let samples = out.stdout.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    (rate, samples)
}

/// Total length of a union of sorted, disjoint intervals.
pub fn length(intervals: &[[f64; 2]]) -> f64 {
    intervals.iter().map(|[a, b]| b - a).sum()
}

/// Intersection over union of two sets of sorted, disjoint intervals.
pub fn iou(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
    let mut inter = 0.0;
    for x in a {
        for y in b {
            inter += (x[1].min(y[1]) - x[0].max(y[0])).max(0.0);
        }
    }
    inter / (length(a) + length(b) - inter)
}
