//! fer's mini-Xception on the real photographs of `kino_models::testdata` (decoded by ffmpeg),
//! against the probabilities of the numpy reference (`scripts/fer_reference.py`, which runs the
//! Keras graph of the file layer by layer from h5py, unfolded) for the same boxes. A wrong
//! weight layout, padding or batch norm moves them by far more than the tolerance.

use std::path::Path;
use std::process::Command;

use kino_models::manifest;
use kino_models::{EXPRESSIONS, ExpressionModel, Face, RgbImage, expression_label};

use crate::support;

/// Float32 against float64 and folded against unfolded batch norms differ by about 1e-6.
const TOLERANCE: f32 = 1e-3;

/// (photograph, face box x y w h as fractions, the reference's probabilities).
const CASES: [(&str, [f32; 4], [f32; 7]); 3] = [
    // dlib's box on the astronaut (Eileen Collins), smiling.
    (
        "astronaut.png",
        [0.3496, 0.1621, 0.1719, 0.1719],
        [0.000040, 0.000000, 0.000004, 0.999285, 0.000003, 0.000349, 0.000319],
    ),
    // A loose box past the top of the image: the border fill; the model reads the smile no more.
    ("astronaut.png", [0.30, 0.0, 0.30, 0.35], [0.095382, 0.000023, 0.190285, 0.144229, 0.395931, 0.008314, 0.165837]),
    // dlib's box on Grace Hopper, composed.
    (
        "grace_hopper.jpg",
        [0.3145, 0.2283, 0.4219, 0.3600],
        [0.047055, 0.000003, 0.001462, 0.017601, 0.015535, 0.000052, 0.918293],
    ),
];

fn face(b: [f32; 4]) -> Face {
    Face { x: b[0], y: b[1], w: b[2], h: b[3], score: 1.5, embedding: Vec::new() }
}

/// The image at `path` as RGB24, decoded by ffmpeg as the reference decodes it.
fn decode(path: &Path) -> RgbImage {
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    let size = String::from_utf8_lossy(&probe.stdout).trim().to_string();
    let (w, h) = size.split_once(',').expect("width,height");
    let (width, height): (usize, usize) = (w.parse().unwrap(), h.parse().unwrap());
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-nostdin", "-i"])
        .arg(path)
        .args(["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"])
        .output()
        .expect("ffmpeg runs");
    assert_eq!(out.stdout.len(), width * height * 3, "{}: ffmpeg's frame size", path.display());
    RgbImage { width, height, data: out.stdout }
}

#[test]
fn expressions_match_the_numpy_reference_on_real_faces() {
    let test = "expressions_match_the_numpy_reference_on_real_faces";
    let Some((dir, _runtime)) = support::models(test, &[&manifest::FER_EXPRESSION]) else { return };
    if !support::ffmpeg(test) {
        return;
    }
    let photos = tempfile::tempdir().unwrap();
    let (astronaut, hopper) = match kino_models::testdata::test_photos(photos.path()) {
        Ok(paths) => paths,
        Err(e) if std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0") => {
            eprintln!("\n!!! SKIPPED {test}: test photographs not fetched: {e}\n");
            return;
        }
        Err(e) => panic!("{test}: KINO_REQUIRE_MODELS is set but the test photographs cannot be fetched: {e}"),
    };
    let model = ExpressionModel::load(&dir).expect("the expression model loads");
    let (astronaut, hopper) = (decode(&astronaut), decode(&hopper));
    // The astronaut's two faces in one batch, Grace Hopper's alone.
    let mut got = model.expressions(astronaut.frame(), &[face(CASES[0].1), face(CASES[1].1)]).unwrap();
    got.extend(model.expressions(hopper.frame(), &[face(CASES[2].1)]).unwrap());
    assert_eq!(got.len(), 3);
    for ((photo, b, want), p) in CASES.iter().zip(&got) {
        for (k, (g, w)) in p.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= TOLERANCE, "{photo} {b:?} {}: {g} against the reference's {w}", EXPRESSIONS[k]);
        }
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
    assert_eq!(expression_label(&got[0], &face(CASES[0].1)), Some("happy"));
    assert_eq!(expression_label(&got[1], &face(CASES[1].1)), None, "unsure: abstains");
    assert_eq!(expression_label(&got[2], &face(CASES[2].1)), Some("neutral"));
    assert!(model.expressions(hopper.frame(), &[]).unwrap().is_empty());
}
