//! PP-OCR text detection and recognition on frames rendered by ffmpeg's `drawtext` (DejaVu Sans):
//! credits on a plain and on a noisy background are found where the text was drawn and read back
//! word for word (case-insensitive, at most one edit per word); frames without text give no boxes
//! (or, for colour gradients, a box where nothing is read).
//! The load time and speed (detection per 640x360 frame, recognition per line) are printed.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use kino_models::{RgbImage, TextBox, TextReader, manifest};

use crate::support::models;

const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const SIZE: (usize, usize) = (640, 360);
/// The two lines, their font size and top edge in pixels.
const LINES: [(&str, u32, u32); 2] = [("THE END", 48, 90), ("Directed by Ada Stone", 28, 240)];

/// Whether ffmpeg and the font are there; a loud skip otherwise, or a failure when
/// `KINO_REQUIRE_FFMPEG` is set.
fn tools(test: &str) -> bool {
    let ffmpeg = Command::new("ffmpeg").arg("-version").output().is_ok_and(|o| o.status.success());
    let font = Path::new(FONT).exists();
    if ffmpeg && font {
        return true;
    }
    let missing = if ffmpeg { "fonts-dejavu-core" } else { "ffmpeg" };
    if std::env::var_os("KINO_REQUIRE_FFMPEG").is_some() {
        panic!("{test}: KINO_REQUIRE_FFMPEG is set but {missing} is missing; apt-get install ffmpeg fonts-dejavu-core");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\n!!! SKIPPED {test}: {missing} is not installed (apt-get install ffmpeg fonts-dejavu-core); set KINO_REQUIRE_FFMPEG=1 to fail instead\n"
    );
    false
}

fn reader(test: &str) -> Option<TextReader> {
    let (dir, runtime) = models(test, &[&manifest::PPOCR])?;
    let reader = TextReader::load(&runtime, &dir, 1).unwrap();
    eprintln!("{test}: PP-OCR loaded in {:.3} s", reader.load_seconds());
    Some(reader)
}

/// One 640x360 RGB frame: `source` (an ffmpeg lavfi source) through `filters`.
fn render(source: &str, filters: &str) -> RgbImage {
    let (w, h) = SIZE;
    let options = if source.contains('=') { ':' } else { '=' };
    let more = if filters.is_empty() { String::new() } else { format!(",{filters}") };
    let graph = format!("{source}{options}size={w}x{h}{more}");
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-nostdin", "-f", "lavfi", "-i", &graph])
        .args(["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"])
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success(), "ffmpeg failed: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout.len(), w * h * 3);
    RgbImage { width: w, height: h, data: out.stdout }
}

/// The `drawtext` filters of [`LINES`], white (with a black border when `border`).
fn text_filters(border: bool) -> String {
    LINES
        .iter()
        .map(|(text, size, top)| {
            let edge = if border { ":borderw=2:bordercolor=black" } else { "" };
            format!(
                "drawtext=fontfile={FONT}:text='{text}':fontsize={size}:fontcolor=white{edge}:x=(w-text_w)/2:y={top}"
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Where each line's ink is, in pixels `[x0, y0, x1, y1)`: the bounds of the non-black pixels of
/// the text drawn alone on black, split at the middle between the lines.
fn ink() -> Vec<[usize; 4]> {
    let img = render("color=c=black", &text_filters(false));
    let split = 180;
    [0..split, split..SIZE.1]
        .into_iter()
        .map(|rows| {
            let mut b = [usize::MAX, usize::MAX, 0, 0];
            for y in rows {
                for x in 0..SIZE.0 {
                    if img.data[(y * SIZE.0 + x) * 3] > 64 {
                        b = [b[0].min(x), b[1].min(y), b[2].max(x + 1), b[3].max(y + 1)];
                    }
                }
            }
            b
        })
        .collect()
}

fn pixels(b: &TextBox) -> [f32; 4] {
    let (w, h) = (SIZE.0 as f32, SIZE.1 as f32);
    [b.x * w, b.y * h, (b.x + b.w) * w, (b.y + b.h) * h]
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut diagonal = row[0];
        row[0] = i;
        for j in 1..=b.len() {
            let above = row[j];
            row[j] = (above + 1).min(row[j - 1] + 1).min(diagonal + usize::from(a[i - 1] != b[j - 1]));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Same words, case-insensitive, each within one edit.
fn reads_as(read: &str, truth: &str) -> bool {
    let (read, truth) = (read.to_lowercase(), truth.to_lowercase());
    let (r, t): (Vec<&str>, Vec<&str>) = (read.split_whitespace().collect(), truth.split_whitespace().collect());
    r.len() == t.len() && r.iter().zip(&t).all(|(a, b)| edit_distance(a, b) <= 1)
}

fn check_credits(test: &str, reader: &mut TextReader, frame: &RgbImage) {
    let truth = ink();
    let started = Instant::now();
    let boxes = reader.detect(frame.frame()).unwrap();
    let detect_s = started.elapsed().as_secs_f64();
    eprintln!("{test}: ink {truth:?}; detected in {:.1} ms: {boxes:?}", detect_s * 1e3);
    assert_eq!(boxes.len(), 2, "{test}: one box per line: {boxes:?}");
    for ((b, t), (text, _, _)) in boxes.iter().zip(&truth).zip(LINES) {
        let (found, t) = (pixels(b), t.map(|v| v as f32));
        let area = |r: [f32; 4]| (r[2] - r[0]) * (r[3] - r[1]);
        let ratio = area(found) / area(t);
        eprintln!("{test}: {text:?}: box {found:?} vs ink {t:?}: {ratio:.2} times its area, score {:.3}", b.score);
        // The box holds all the ink (within a pixel), with a margin (DB's unclip), not much more.
        let holds =
            found[0] <= t[0] + 1.0 && found[1] <= t[1] + 1.0 && found[2] >= t[2] - 1.0 && found[3] >= t[3] - 1.0;
        assert!(holds && ratio <= 2.0, "{test}: the box of {text:?} is where the text is: {found:?} vs {t:?}");
        assert!((0.5..=1.0).contains(&b.score));
    }
    let started = Instant::now();
    let lines = reader.recognize(frame.frame(), &boxes).unwrap();
    let read_s = started.elapsed().as_secs_f64();
    eprintln!("{test}: read in {:.1} ms ({:.1} ms a line): {lines:?}", read_s * 1e3, read_s * 1e3 / 2.0);
    assert_eq!(lines.len(), 2, "{test}: {lines:?}");
    for (line, (text, _, _)) in lines.iter().zip(LINES) {
        assert!(reads_as(&line.text, text), "{test}: read {:?} for {text:?}", line.text);
        assert!((0.5..=1.0).contains(&line.score));
    }
}

#[test]
fn reads_credits_on_a_plain_background() {
    let test = "reads_credits_on_a_plain_background";
    if !tools(test) {
        return;
    }
    let Some(mut reader) = reader(test) else { return };
    check_credits(test, &mut reader, &render("color=c=black", &text_filters(false)));
}

#[test]
fn reads_credits_on_a_noisy_background() {
    let test = "reads_credits_on_a_noisy_background";
    if !tools(test) {
        return;
    }
    let Some(mut reader) = reader(test) else { return };
    let filters = format!("noise=alls=60:allf=u,{}", text_filters(true));
    check_credits(test, &mut reader, &render("color=c=0x406080", &filters));
}

#[test]
fn frames_without_text_give_no_boxes() {
    let test = "frames_without_text_give_no_boxes";
    if !tools(test) {
        return;
    }
    let Some(mut reader) = reader(test) else { return };
    for (source, filters) in [("color=c=0x406080", "noise=alls=60:allf=u"), ("color=c=black", "")] {
        let frame = render(source, filters);
        let boxes = reader.detect(frame.frame()).unwrap();
        assert!(boxes.is_empty(), "{test}: {source} {filters}: {boxes:?}");
    }
    // ffmpeg's colour gradients (random unless seeded) can fool the detector: with seed 2,
    // rapidocr's own detection gives a box over the whole frame with score 0.68. Usually nothing
    // is read there (rapidocr's pipeline, like this one, returns no line), but the recogniser is
    // on the edge: once in about six full runs on a loaded 2-core machine it read a single "m"
    // at 0.66. What must hold is that no word is read from a frame without text.
    let frame = render("gradients=seed=2", "");
    let boxes = reader.detect(frame.frame()).unwrap();
    eprintln!("{test}: gradients: {boxes:?}");
    assert!(boxes.len() <= 1);
    let lines = reader.recognize(frame.frame(), &boxes).unwrap();
    eprintln!("{test}: gradients read as {lines:?}");
    assert!(
        lines.iter().all(|l| l.text.trim().chars().count() <= 1 && l.score < 0.8),
        "{test}: gradients read as {lines:?}"
    );
}

#[test]
fn detection_and_recognition_speed() {
    let test = "detection_and_recognition_speed";
    if !tools(test) {
        return;
    }
    let Some(mut reader) = reader(test) else { return };
    let frame = render("color=c=0x406080", &format!("noise=alls=60:allf=u,{}", text_filters(true)));
    let boxes = reader.detect(frame.frame()).unwrap();
    let runs = 5;
    let started = Instant::now();
    for _ in 0..runs {
        reader.detect(frame.frame()).unwrap();
    }
    let detect_ms = started.elapsed().as_secs_f64() * 1e3 / runs as f64;
    let started = Instant::now();
    let mut lines = 0;
    for _ in 0..runs {
        for b in &boxes {
            lines += reader.recognize(frame.frame(), std::slice::from_ref(b)).unwrap().len();
        }
    }
    let line_ms = started.elapsed().as_secs_f64() * 1e3 / (runs * boxes.len()) as f64;
    let started = Instant::now();
    for _ in 0..runs {
        reader.recognize(frame.frame(), &boxes).unwrap();
    }
    let batch_ms = started.elapsed().as_secs_f64() * 1e3 / runs as f64;
    eprintln!(
        "{test}: one thread, 640x360: detection {detect_ms:.1} ms a frame; recognition {line_ms:.1} ms a line alone, {batch_ms:.1} ms for both lines in one batch"
    );
    assert_eq!(lines, runs * boxes.len());
}
