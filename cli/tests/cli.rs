//! The `kino` binary end to end: build a demo scene index, inspect it, search it by text; analyse
//! and render generated videos; refuse unwritable outputs before any work; stop on Ctrl-C.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

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

/// Runs ffmpeg with `args` then the output path; panics when it fails.
fn ffmpeg(args: &[&str], out: &Path) {
    let status = Command::new("ffmpeg").args(["-v", "error", "-nostdin", "-y"]).args(args).arg(out).status().unwrap();
    assert!(status.success(), "ffmpeg {args:?} failed");
}

#[test]
fn analyze_counts_shots_not_cuts() {
    if !ffmpeg_present() {
        return;
    }
    // Three shots of 2 s (three unlike sources) joined by two hard cuts.
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("three.mp4");
    let source = |s: &str| format!("{s}size=160x90:rate=25:duration=2");
    let (a, b, c) = (source("testsrc2="), source("smptebars="), source("color=c=0x3060a0:"));
    let concat = "[0:v][1:v][2:v]concat=n=3:v=1:a=0[v]";
    let args = ["-f", "lavfi", "-i", &a, "-f", "lavfi", "-i", &b, "-f", "lavfi", "-i", &c];
    ffmpeg(&[&args[..], &["-filter_complex", concat, "-map", "[v]", "-pix_fmt", "yuv420p"]].concat(), &video);
    let doc = dir.path().join("three.json");
    let (ok, _, err) = kino(&["analyze", video.to_str().unwrap(), "-o", doc.to_str().unwrap()]);
    assert!(ok, "{err}");
    let signals = kino::Signals::load(&doc).unwrap();
    assert_eq!(signals.shots.len(), 2, "the document lists the cuts: {:?}", signals.shots);
    assert!(err.contains(": 3 shots (2 cuts), "), "{err}");
}

#[test]
fn an_unwritable_output_fails_before_any_work() {
    // The input exists but is no video: were it read first, ffprobe would fail on it. The output
    // is checked first, so the error names the output path and no ffmpeg ever runs.
    let dir = tempfile::tempdir().unwrap();
    let not_video = dir.path().join("notes.txt");
    std::fs::write(&not_video, "not a video").unwrap();
    let input = not_video.to_str().unwrap();
    let missing = dir.path().join("no-such-dir");
    let out = |name: &str| missing.join(name).to_str().unwrap().to_string();
    let signals = dir.path().join("s.json");
    let mut doc = kino::synth::demo_signals("s", 10.0, 1.0, 1);
    doc.vertical = Some(kino::signals::Vertical { step: 1.0, x_center: vec![0.5; 10], blackbars: [0, 0] });
    doc.save(&signals).unwrap();
    let signals = signals.to_str().unwrap();
    let commands: [Vec<String>; 4] = [
        ["analyze", input, "-o", &out("v.json")].map(String::from).into(),
        ["render", "clip", input, "--start", "1", "--stop", "2", "-o", &out("c.mp4")].map(String::from).into(),
        ["render", "vertical", input, "--start", "1", "--stop", "2", "--signals", signals, "-o", &out("v.mp4")]
            .map(String::from)
            .into(),
        ["render", "thumbnail", input, "--time", "1", "-o", &out("t.jpg")].map(String::from).into(),
    ];
    for args in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, _, err) = kino(&args);
        let path = args[args.len() - 1];
        assert!(
            !ok && err.contains(&format!("cannot write {path}")) && err.contains("does not exist"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("ffprobe") && !err.contains("ffmpeg"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "nothing written");
}

/// A 30-minute video (tiny frames at 4 fps, 8 kHz audio) whose analysis takes seconds even in a
/// release build, so that a signal sent once it has started always lands during it.
#[cfg(unix)]
fn long_video(dir: &Path) -> std::path::PathBuf {
    let video = dir.join("long.mkv");
    let args = [
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=64x36:rate=4:duration=1800",
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=300:sample_rate=8000:duration=1800",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "pcm_s16le",
    ];
    ffmpeg(&args, &video);
    video
}

/// Starts `kino analyze <video> -o <out>` in its own process group (as a shell starts a job),
/// waits until it says the analysis is under way (its ffmpeg processes are running), sends
/// `signal` to kino alone or to the whole group (as Ctrl-C in a terminal does), and returns its
/// exit code and whole stderr.
#[cfg(unix)]
fn interrupt_analysis(video: &Path, out: &Path, signal: &str, whole_group: bool) -> (Option<i32>, String) {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kino"))
        .arg("analyze")
        .arg(video)
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        // `None` once the analysis is under way, then `Some(all of stderr)` when kino exits.
        let mut text = String::new();
        let mut started = false;
        while stderr.read_line(&mut text).is_ok_and(|n| n > 0) {
            if !started && text.contains("analysing ") {
                started = true;
                let _ = tx.send(None);
            }
        }
        let _ = stderr.read_to_string(&mut text);
        let _ = tx.send(Some(text));
    });
    let first = rx.recv_timeout(Duration::from_secs(300)).expect("kino analyze starts within 5 minutes");
    assert!(first.is_none(), "kino ended before the analysis started: {first:?}");
    let target = if whole_group { format!("-{pid}") } else { pid.to_string() };
    let killed = Command::new("kill").args([signal, "--", &target]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let text = rx.iter().flatten().next().unwrap_or_default();
    // Nothing of the job is left running: kino stopped (and waited for) its ffmpeg processes.
    let group = Command::new("kill").args(["-0", "--", &format!("-{pid}")]).stderr(Stdio::null()).status().unwrap();
    assert!(!group.success(), "processes of the job are still running after kino exited");
    (status.code(), text)
}

#[cfg(unix)]
fn assert_interrupted(dir: &Path, (code, stderr): (Option<i32>, String), expected: i32) {
    assert_eq!(code, Some(expected), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(!stderr.contains("exit status") && !stderr.contains("failed"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["long.mkv"], "no output and no partial file");
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_analyze_says_interrupted_and_writes_nothing() {
    if !ffmpeg_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = long_video(dir.path());
    let result = interrupt_analysis(&video, &dir.path().join("out.json"), "-INT", true);
    assert_interrupted(dir.path(), result, 130);
}

#[cfg(unix)]
#[test]
fn a_kill_of_kino_alone_stops_its_ffmpeg_and_writes_nothing() {
    if !ffmpeg_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = long_video(dir.path());
    let result = interrupt_analysis(&video, &dir.path().join("out.json"), "-TERM", false);
    assert_interrupted(dir.path(), result, 143);
}
