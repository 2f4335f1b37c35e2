//! Generating media with ffmpeg and espeak-ng, and deciding whether the tests can run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn works(tool: &str, arg: &str) -> bool {
    Command::new(tool).arg(arg).output().is_ok_and(|o| o.status.success())
}

/// Whether the tools are installed; when they are not, a loud skip, or a failure when
/// `KINO_REQUIRE_FFMPEG` is set.
pub fn tools(test: &str, needs_espeak: bool) -> bool {
    let mut missing = Vec::new();
    for tool in ["ffmpeg", "ffprobe"] {
        if !works(tool, "-version") {
            missing.push(tool);
        }
    }
    if needs_espeak && !works("espeak-ng", "--version") {
        missing.push("espeak-ng");
    }
    if missing.is_empty() {
        return true;
    }
    if std::env::var_os("KINO_REQUIRE_FFMPEG").is_some() {
        panic!("{test}: KINO_REQUIRE_FFMPEG is set but {missing:?} is missing; install ffmpeg and espeak-ng");
    }
    // Written to the process's stderr directly: the test harness captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "\n!!! SKIPPED {test}: {missing:?} not installed (apt-get install ffmpeg espeak-ng); set KINO_REQUIRE_FFMPEG=1 to fail instead\n"
    );
    false
}

/// Runs ffmpeg with `args` (quiet, overwrite), panicking with its stderr on failure.
pub fn ffmpeg(args: &[&str]) {
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-nostdin", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success(), "ffmpeg {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// Frame rate of every generated video.
pub const FPS: f64 = 25.0;

/// Encodes the filtergraph `graph` (whose video output is `[v]`, audio `[a]` when `audio`) to an
/// H.264 (+ AAC) MP4 at `dir/name`, keyframes every `gop` frames.
pub fn encode(dir: &Path, name: &str, graph: &str, audio: bool, gop: u32) -> PathBuf {
    let out = dir.join(name);
    let gop = gop.to_string();
    let mut args = vec!["-filter_complex", graph, "-map", "[v]"];
    if audio {
        args.extend(["-map", "[a]", "-c:a", "aac", "-b:a", "96k"]);
    }
    args.extend(["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", &gop]);
    args.extend(["-keyint_min", &gop, "-sc_threshold", "0", "-r", "25"]);
    let out_text = out.to_str().expect("utf-8 temp path");
    args.push(out_text);
    ffmpeg(&args);
    out
}

/// A lavfi video source of exactly `frames` frames at 320x180, 25 fps, SAR 1.
pub fn segment(source: &str, frames: usize) -> String {
    let sep = if source.contains('=') { ':' } else { '=' };
    format!("{source}{sep}r=25:s=320x180,trim=end_frame={frames},setpts=PTS-STARTPTS,format=yuv420p,setsar=1")
}

/// Speech from espeak-ng: the WAV at `dir/name` and its non-silent extent in seconds (first and
/// last sample above 1% of full scale).
pub fn speak(dir: &Path, name: &str, text: &str) -> (PathBuf, [f64; 2]) {
    let path = dir.join(name);
    let out = Command::new("espeak-ng").arg("-w").arg(&path).arg(text).output().expect("espeak-ng runs");
    assert!(out.status.success(), "espeak-ng failed: {}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&path).unwrap();
    let (rate, data) = wav_pcm(&bytes);
    let loud = |s: &[u8]| i16::from_le_bytes([s[0], s[1]]).unsigned_abs() > 328;
    let samples: Vec<&[u8]> = data.chunks_exact(2).collect();
    let first = samples.iter().position(|s| loud(s)).expect("espeak produced sound");
    let last = samples.iter().rposition(|s| loud(s)).unwrap();
    (path, [first as f64 / rate, (last + 1) as f64 / rate])
}

/// Sample rate and PCM bytes of a mono 16-bit WAV.
fn wav_pcm(bytes: &[u8]) -> (f64, &[u8]) {
    let mut at = 12;
    let mut rate = 0.0;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        let body = &bytes[at + 8..(at + 8 + len).min(bytes.len())];
        if id == b"fmt " {
            rate = f64::from(u32::from_le_bytes(body[4..8].try_into().unwrap()));
            assert_eq!(u16::from_le_bytes([body[2], body[3]]), 1, "mono");
        } else if id == b"data" {
            return (rate, body);
        }
        at += 8 + len + len % 2;
    }
    panic!("no data chunk in the WAV");
}

/// Duration of a media file by ffprobe.
pub fn duration(path: &Path) -> f64 {
    kino_media::probe(path).unwrap().duration
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

/// The model-free analysis (the spectral speech detector): what these tests pin down.
pub fn none() -> kino_media::AnalysisModels {
    kino_media::AnalysisModels::none()
}

/// The default models, loaded once for the whole test binary, when they are present; otherwise a
/// loud skip (`None`), or a failure when `KINO_REQUIRE_MODELS` is set.
pub fn models(test: &str) -> Option<&'static kino_media::AnalysisModels> {
    static MODELS: std::sync::OnceLock<kino_media::AnalysisModels> = std::sync::OnceLock::new();
    let dir = kino_models::ModelsDir::resolve(None).expect("a models directory");
    let missing: Vec<&str> =
        kino_models::default_models().into_iter().filter(|m| !dir.status(m).present()).map(|m| m.id).collect();
    if !missing.is_empty() {
        if std::env::var_os("KINO_REQUIRE_MODELS").is_some_and(|v| v != "0") {
            panic!(
                "{test}: KINO_REQUIRE_MODELS is set but {missing:?} are missing from {}; run `kino models fetch`",
                dir.path().display()
            );
        }
        let _ = writeln!(
            std::io::stderr(),
            "\n!!! SKIPPED {test}: models {missing:?} not in {} (run `kino models fetch`); set KINO_REQUIRE_MODELS=1 to fail instead\n",
            dir.path().display()
        );
        return None;
    }
    Some(MODELS.get_or_init(|| kino_media::AnalysisModels::load(&dir, 1)))
}
