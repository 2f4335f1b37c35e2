//! The `kino` binary end to end: build a demo scene index, inspect it, search it by text.

use std::process::Command;

fn kino(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kino")).args(args).output().expect("the kino binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn builds_inspects_and_searches_a_demo_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("demo.kvx");
    let index = index.to_str().unwrap();
    let (ok, _, err) = kino(&["index", "build", "--demo", "4", "--out", index, "--m", "8", "--ef-construction", "40"]);
    assert!(ok, "{err}");
    assert!(err.contains("vectors of dimension 1024"), "{err}");
    let (ok, out, err) = kino(&["index", "info", index, "--verify"]);
    assert!(ok, "{err}");
    assert!(out.contains("M = 8") && out.contains("verify:  ok"), "{out}");
    let (ok, out, err) = kino(&["index", "search", index, "--text", "car chase", "-k", "3", "--per-item"]);
    assert!(ok, "{err}");
    let items: Vec<&str> = out.lines().map(|l| l.split('\t').nth(1).unwrap_or("")).collect();
    assert_eq!(items.len(), 3, "{out}");
    assert!(items.iter().all(|i| i.starts_with("demo-")), "{out}");
}

#[test]
fn a_broken_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.kvx");
    std::fs::write(&path, b"KINOVECS and nothing else").unwrap();
    let (ok, _, err) = kino(&["index", "info", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("truncated"), "{err}");
}

fn ffmpeg_present() -> bool {
    let ok = Command::new("ffmpeg").arg("-version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("KINO_REQUIRE_FFMPEG").is_none(), "KINO_REQUIRE_FFMPEG is set but ffmpeg is missing");
        // Past the harness's capture of `eprintln!`, so the skip is seen.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"\n!!! SKIPPED: ffmpeg not installed; set KINO_REQUIRE_FFMPEG=1 to fail instead\n\n",
        );
    }
    ok
}

#[test]
fn analyzes_a_video_and_renders_a_thumbnail() {
    let (ok, _, err) = kino(&["analyze", "/no/such/video.mp4"]);
    assert!(!ok && err.contains("/no/such/video.mp4") && err.contains("does not exist"), "{err}");
    if !ffmpeg_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("v.mp4");
    let status = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-nostdin",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=320x180:r=25:d=3",
            "-pix_fmt",
            "yuv420p",
        ])
        .arg(&video)
        .status()
        .unwrap();
    assert!(status.success());
    let (video, doc) = (video.to_str().unwrap(), dir.path().join("v.json"));
    let (ok, _, err) = kino(&["analyze", video, "-o", doc.to_str().unwrap(), "--step", "0.5"]);
    assert!(ok && err.contains("real time"), "{err}");
    let signals = kino::Signals::load(&doc).unwrap();
    assert_eq!(signals.timelines.brightness.len(), 6);
    let thumb = dir.path().join("t.jpg");
    let args = ["render", "thumbnail", video, "--signals", doc.to_str().unwrap(), "--start", "0", "--stop", "3"];
    let (ok, _, err) = kino(&[&args[..], &["-o", thumb.to_str().unwrap(), "--width", "160"]].concat());
    assert!(ok && err.contains("160x90"), "{err}");
}

#[test]
fn models_list_shows_every_model_and_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = kino(&["models", "list", "--models-dir", dir.path().to_str().unwrap()]);
    assert!(ok, "{err}");
    for expected in
        ["onnxruntime", "silero-vad 6.2.3", "all-minilm-l6-v2", "yamnet", "MISSING", "optional", "kino models fetch"]
    {
        assert!(out.contains(expected), "{expected} in {out}");
    }
}

#[test]
fn models_fetch_names_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    let (ok, _, err) = kino(&["models", "fetch", "whisper", "--models-dir", models.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("unknown model `whisper`") && err.contains("silero-vad"), "{err}");

    let out = Command::new(env!("CARGO_BIN_EXE_kino"))
        .args(["models", "fetch", "silero-vad", "--models-dir", models.to_str().unwrap()])
        .env("KINO_PYTHON", "/nonexistent/python3")
        .env("XDG_CACHE_HOME", dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("package silero-vad 6.2.3") && err.contains("/nonexistent/python3"), "{err}");
}
