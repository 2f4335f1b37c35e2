//! EfficientNet-Lite0 (the `.pth` read without PyTorch, the graph written in memory) against a
//! numpy forward pass of the same file (`scripts/efficientnet_reference.py`: numpy 2.4.6,
//! Pillow 13.0.0, TF `SAME` padding, batch norm eps 1e-3), which an independent onnxruntime run
//! matched to 1.05e-5. The photographs are scikit-image's (a cat, a cup of espresso), decoded
//! losslessly by ffmpeg; both sides resize with Pillow's bilinear filter.

use std::process::Command;

use kino_models::{FEATURE_LEN, ImageLabeler, RgbFrame, manifest, testdata};

use crate::support::*;

/// The reference's top five (class, probability) and first 16 feature values.
struct Expected {
    photo: &'static str,
    top: [(u16, f32); 5],
    feature: [f32; 16],
    l2: f32,
}

const EXPECTED: [Expected; 2] = [
    Expected {
        photo: "chelsea.png",
        top: [(285, 0.791172), (282, 0.088482), (281, 0.071235), (287, 0.010451), (728, 0.001277)],
        feature: [
            0.015052, 0.081991, 0.0, 0.218509, 1.83896, 0.364597, 0.0, 0.0, 0.010169, 0.07648, 0.0, 1.600959, 0.053748,
            0.0, 0.402245, 0.0,
        ],
        l2: 14.62367,
    },
    Expected {
        photo: "coffee.png",
        top: [(967, 0.89941), (968, 0.030931), (504, 0.013136), (925, 0.012422), (809, 0.003595)],
        feature: [
            0.08248, 1.216624, 0.951468, 0.0, 0.0, 0.0, 0.025094, 0.1727, 0.405023, 0.003353, 0.0, 0.36413, 0.294029,
            0.326938, 0.351518, 0.013498,
        ],
        l2: 14.34846,
    },
];

/// Agreement asked of the whole model: the resize is Pillow's, so the inputs are the
/// reference's; what remains is float summation order.
const TOLERANCE: f32 = 1e-3;

/// The photo's pixels, RGB24, and its size.
fn decode(path: &std::path::Path) -> (usize, usize, Vec<u8>) {
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
        .arg(path)
        .output()
        .unwrap();
    let dims: Vec<usize> =
        String::from_utf8_lossy(&probe.stdout).trim().split(',').map(|v| v.parse().unwrap()).collect();
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout.len(), dims[0] * dims[1] * 3);
    (dims[0], dims[1], out.stdout)
}

#[test]
fn photographs_are_labelled_as_the_reference_labels_them() {
    let test = "photographs_are_labelled_as_the_reference_labels_them";
    let Some((dir, runtime)) = models(test, &[&manifest::EFFICIENTNET_LITE0]) else { return };
    if !tools(test) {
        return;
    }
    let mut labeler = ImageLabeler::load(&runtime, &dir, 1).unwrap();
    eprintln!("{test}: loaded (weights read, graph built, session made) in {:.3} s", labeler.load_seconds());
    let photos = tempfile::tempdir().unwrap();
    let mut images = Vec::new();
    for e in &EXPECTED {
        images.push(decode(&testdata::test_photo(photos.path(), e.photo).unwrap()));
    }
    let frames: Vec<RgbFrame<'_>> = images.iter().map(|(w, h, d)| RgbFrame::new(*w, *h, d).unwrap()).collect();
    let started = std::time::Instant::now();
    let got = labeler.label(&frames, 5).unwrap();
    eprintln!("{test}: {} frames in {:.3} s", frames.len(), started.elapsed().as_secs_f64());
    let mut worst = 0f32;
    for (e, g) in EXPECTED.iter().zip(&got) {
        let names: Vec<&str> = g.top.iter().map(|&(i, _)| labeler.names()[usize::from(i)].as_str()).collect();
        eprintln!("{test}: {}: {:?} {names:?}", e.photo, g.top);
        assert_eq!(g.feature.len(), FEATURE_LEN);
        // Classes are matched by index, not by rank: two reference probabilities closer than the
        // tolerance (coffee's 0.013136 and 0.012422) may swap places on another CPU, and the
        // fifth may swap with the sixth. Each reference class must be found with its probability,
        // or have fallen off the end by no more than the tolerance.
        let last = g.top.last().map_or(0.0, |&(_, p)| p);
        for (ei, ep) in e.top {
            match g.top.iter().find(|&&(gi, _)| gi == ei) {
                Some(&(_, gp)) => worst = worst.max((gp - ep).abs()),
                None => assert!(ep <= last + TOLERANCE, "{}: class {ei} ({ep}) missing from {:?}", e.photo, g.top),
            }
        }
        for (gv, ev) in g.feature.iter().zip(e.feature) {
            worst = worst.max((gv - ev).abs());
        }
        let l2 = g.feature.iter().map(|v| v * v).sum::<f32>().sqrt();
        worst = worst.max((l2 - e.l2).abs() / e.l2);
    }
    eprintln!("{test}: largest difference from the reference {worst:.2e}");
    assert!(worst < TOLERANCE, "{worst}");
    assert_eq!(labeler.names()[285], "Egyptian Mau");
    // One frame alone gives what it gave in the batch.
    let single = labeler.label(&frames[1..2], 5).unwrap();
    assert!((single[0].top[0].1 - got[1].top[0].1).abs() < 1e-5);
    assert!(labeler.label(&[], 5).unwrap().is_empty());
}
