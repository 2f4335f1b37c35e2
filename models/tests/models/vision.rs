//! EfficientNet-Lite0 (the `.pth` read without PyTorch, the graph written in memory) against a
//! numpy forward pass of the same file (`scripts/efficientnet_reference.py`: numpy 2.4.6,
//! Pillow 13.0.0, TF `SAME` padding, batch norm eps 1e-3), which an independent onnxruntime run
//! matched to 1.05e-5. The photographs are scikit-image's (a cat, a cup of espresso), decoded
//! losslessly by ffmpeg; both sides letterbox them into 224x224 with Pillow's bilinear filter
//! (issue 48; the reference's `--squash` gives the figures of the squashed input before it), and
//! a region of the espresso is read as the detector's boxes are (the reference's `--box`).

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
        top: [(285, 0.785377), (281, 0.08988), (282, 0.083599), (287, 0.007678), (793, 0.001299)],
        feature: [
            0.047344, 0.061883, 0.010959, 0.172181, 1.647174, 0.66981, 0.0, 0.0, 0.184691, 0.044256, 0.0, 1.136714,
            0.010402, 0.0, 0.354167, 0.0,
        ],
        l2: 14.63306,
    },
    Expected {
        photo: "coffee.png",
        top: [(967, 0.68245), (968, 0.076789), (504, 0.023636), (925, 0.018339), (868, 0.015025)],
        feature: [
            0.0, 1.136567, 1.469562, 0.013254, 0.002752, 0.0, 0.021191, 0.069889, 0.119451, 0.02221, 0.0, 0.449552,
            0.597264, 0.651077, 0.727882, 0.0,
        ],
        l2: 13.86452,
    },
];

/// The region (150, 40) 300x280 of the espresso: `efficientnet_reference.py --box 150,40,300,280`.
const REGION: ([usize; 4], Expected) = (
    [150, 40, 300, 280],
    Expected {
        photo: "coffee.png",
        top: [(967, 0.929938), (925, 0.010819), (968, 0.009736), (504, 0.007091), (960, 0.005312)],
        feature: [
            0.052358, 0.079604, 0.912229, 0.0, 0.246837, 0.0, 0.244767, 0.154844, 0.097373, 0.441028, 0.0, 0.0,
            0.089446, 0.137257, 0.439385, 0.0,
        ],
        l2: 13.90129,
    },
);

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
    let region = labeler.label_with_regions(frames[1], &[REGION.0], 5).unwrap();
    assert_eq!(region.len(), 2);
    assert_eq!(region[0], got[1], "the whole frame first, as `label` gives it");
    let mut worst = 0f32;
    for (e, g) in EXPECTED.iter().chain([&REGION.1]).zip(got.iter().chain([&region[1]])) {
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
    // The cat inside black bars (a letterboxed and pillarboxed frame) is the cat: the bars are cut
    // off before the model reads it.
    let (w, h, cat) = &images[0];
    let (bw, bh) = (w + 2 * 37, h + 2 * 24);
    let mut barred = vec![0u8; bw * bh * 3];
    for y in 0..*h {
        barred[((y + 24) * bw + 37) * 3..((y + 24) * bw + 37 + w) * 3]
            .copy_from_slice(&cat[y * w * 3..(y + 1) * w * 3]);
    }
    let inside = labeler.label(&[RgbFrame::new(bw, bh, &barred).unwrap()], 5).unwrap();
    // (To within what a batch of one and a batch of two differ by.)
    for (a, b) in inside[0].top.iter().zip(&got[0].top) {
        assert!(a.0 == b.0 && (a.1 - b.1).abs() < 1e-5, "{:?} against {:?}", inside[0].top, got[0].top);
    }
    assert!(inside[0].feature.iter().zip(&got[0].feature).all(|(a, b)| (a - b).abs() < 1e-4));
}
