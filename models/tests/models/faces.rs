//! The face models on real photographs from scikit-image's wheel (pinned below, fetched with the
//! same verified `fetch` as the models): `astronaut.png` (Eileen Collins, NASA, public domain) and
//! `lfw_subset.npy` (100 faces of Labeled Faces in the Wild, 25x25 grey, other people; the HOG
//! detector does not find the cameraman of `camera.png`, who is half turned away).

use kino_models::manifest::{self, Model, ModelFile, Package, WheelTarget};
use kino_models::{Face, FaceAnalyzer, FetchOptions, ModelsDir, RgbImage, resize_bilinear};

use crate::support;

static SKIMAGE_WHEEL: Package = Package {
    name: "scikit-image",
    version: "0.26.0",
    wheel: "scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
    sha256: "74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af",
    size: 13_711_217,
    license: "BSD-3-Clause",
    target: Some(WheelTarget { platform: "manylinux_2_28_x86_64", implementation: "cp", abi: "cp311" }),
};

/// The photographs, as a "model" so that `fetch` downloads, verifies and extracts them.
static PHOTOS: Model = Model {
    id: "test-face-photos",
    version: "0.26.0",
    summary: "scikit-image sample photographs with faces (tests only)",
    license: "public domain (astronaut); LFW's research data set (lfw_subset)",
    default: false,
    files: &[
        ModelFile {
            package: &SKIMAGE_WHEEL,
            member: "skimage/data/astronaut.png",
            name: "astronaut.png",
            sha256: "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
            size: 791_555,
        },
        ModelFile {
            package: &SKIMAGE_WHEEL,
            member: "skimage/data/lfw_subset.npy",
            name: "lfw_subset.npy",
            sha256: "9560ec2f5edfac01973f63a8a99d00053fecd11e21877e18038fbe500f8e872c",
            size: 1_000_080,
        },
    ],
};

/// The analyzer, the astronaut and the first LFW faces, or `None` (a loud skip) without models or
/// photographs.
fn setup(test: &str) -> Option<(FaceAnalyzer, RgbImage, Vec<RgbImage>)> {
    let (dir, runtime) = support::models(test, &[&manifest::DLIB_FACES])?;
    let photos = tempfile::tempdir().unwrap();
    let photos_dir = ModelsDir::at(photos.path());
    let options = FetchOptions::new(kino_models::wheel_cache().unwrap());
    if let Err(e) = kino_models::fetch(&photos_dir, &[&PHOTOS], &options, |_| {}) {
        assert!(
            std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0"),
            "{test}: KINO_REQUIRE_MODELS is set but the test photographs cannot be fetched: {e}"
        );
        eprintln!("\n!!! SKIPPED {test}: test photographs not fetched: {e}\n");
        return None;
    }
    let at = photos_dir.model_dir(&PHOTOS);
    let faces = match FaceAnalyzer::load(&runtime, &dir, 1) {
        Ok(faces) => faces,
        // Built without dlib (not installed at build time): a skip, or a failure when required.
        Err(e) if std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0") => {
            eprintln!("\n!!! SKIPPED {test}: {e}\n");
            return None;
        }
        Err(e) => panic!("{test}: the face models do not load: {e}"),
    };
    Some((faces, read_png(&at.join("astronaut.png")), lfw_faces(&at.join("lfw_subset.npy"), 10)))
}

/// The first `n` faces of `lfw_subset.npy` (a NumPy v1 file of 200 x 25 x 25 little-endian f64 in
/// [0, 1], faces first), enlarged 8 times to 200 x 200 so the HOG detector (faces of about 80
/// pixels and more) sees them.
fn lfw_faces(path: &std::path::Path, n: usize) -> Vec<RgbImage> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert!(String::from_utf8_lossy(&bytes[10..10 + header]).contains("(200, 25, 25)"));
    let values: Vec<f64> =
        bytes[10 + header..].chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect();
    (0..n)
        .map(|k| {
            let grey = &values[k * 625..(k + 1) * 625];
            let data = grey.iter().flat_map(|&v| [(v * 255.0).round().clamp(0.0, 255.0) as u8; 3]).collect();
            let small = RgbImage { width: 25, height: 25, data };
            resize_bilinear(small.frame(), [0.0, 0.0, 25.0, 25.0], 200, 200)
        })
        .collect()
}

fn greyscale(image: &RgbImage) -> RgbImage {
    let data = image
        .data
        .chunks(3)
        .flat_map(|p| {
            [((f32::from(p[0]) * 0.299 + f32::from(p[1]) * 0.587 + f32::from(p[2]) * 0.114).round() as u8); 3]
        })
        .collect();
    RgbImage { width: image.width, height: image.height, data }
}

fn read_png(path: &std::path::Path) -> RgbImage {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let (w, h) = (info.width as usize, info.height as usize);
    let data = match info.color_type {
        png::ColorType::Rgb => buf[..w * h * 3].to_vec(),
        other => panic!("{}: colour type {other:?}", path.display()),
    };
    RgbImage { width: w, height: h, data }
}

fn flipped(image: &RgbImage) -> RgbImage {
    let mut data = Vec::with_capacity(image.data.len());
    for row in image.data.chunks(image.width * 3) {
        for px in row.chunks(3).rev() {
            data.extend_from_slice(px);
        }
    }
    RgbImage { width: image.width, height: image.height, data }
}

fn only_face(faces: &mut FaceAnalyzer, image: &RgbImage, what: &str) -> Face {
    let found = faces.faces(image.frame()).unwrap();
    assert!(!found.is_empty(), "{what}: no face found");
    found.into_iter().next().unwrap()
}

fn distance(a: &Face, b: &Face) -> f32 {
    a.embedding.iter().zip(&b.embedding).map(|(x, y)| (x - y) * (x - y)).sum::<f32>().sqrt()
}

#[test]
fn the_detector_finds_the_astronauts_face_where_it_is() {
    let Some((mut faces, astronaut, _)) = setup("faces::the_detector_finds_the_astronauts_face_where_it_is") else {
        return;
    };
    // As the analysis sees frames: 640 pixels wide.
    let frame = resize_bilinear(astronaut.frame(), [0.0, 0.0, 512.0, 512.0], 640, 640);
    let found = faces.faces(frame.frame()).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    // Her face: about x 180..266, y 83..170 of the 512-pixel photograph (checked by eye).
    let (cx, cy) = (f.x + f.w / 2.0, f.y + f.h / 2.0);
    assert!((cx - 0.436).abs() < 0.03 && (cy - 0.247).abs() < 0.03, "centre ({cx}, {cy})");
    assert!((0.12..0.24).contains(&f.w) && (0.12..0.24).contains(&f.h), "{f:?}");
    assert!(f.score > 0.0);
    assert_eq!(f.embedding.len(), kino_models::FACE_DIM);
    let norm = f.embedding.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "{norm}");
}

#[test]
fn descriptors_of_one_face_stay_closer_than_another_persons() {
    let Some((mut faces, astronaut, lfw)) = setup("faces::descriptors_of_one_face_stay_closer_than_another_persons")
    else {
        return;
    };
    let original = only_face(&mut faces, &astronaut, "original");
    let variants = [
        ("shifted crop", resize_bilinear(astronaut.frame(), [40.0, 24.0, 440.0, 440.0], 512, 512)),
        ("scaled to 384", resize_bilinear(astronaut.frame(), [0.0, 0.0, 512.0, 512.0], 384, 384)),
        ("flipped", flipped(&astronaut)),
        ("greyscale", greyscale(&astronaut)),
    ];
    let mut worst_same = 0f32;
    for (what, image) in &variants {
        let d = distance(&original, &only_face(&mut faces, image, what));
        eprintln!("astronaut vs {what}: {d:.3}");
        assert!(d < 0.4, "{what}: {d}");
        worst_same = worst_same.max(d);
    }
    // Other people: every LFW face the detector finds (at least 7 of these 10).
    let mut others = Vec::new();
    for (k, image) in lfw.iter().enumerate() {
        if let Some(face) = faces.faces(image.frame()).unwrap().into_iter().next() {
            let d = distance(&original, &face);
            eprintln!("astronaut vs LFW face {k}: {d:.3}");
            others.push(d);
        }
    }
    assert!(others.len() >= 7, "{others:?}");
    let nearest_other = others.iter().copied().fold(f32::INFINITY, f32::min);
    assert!(
        nearest_other > 0.43 && nearest_other > worst_same + 0.25,
        "another person at {nearest_other}, the same face at most {worst_same}"
    );
}

#[test]
fn a_frame_without_faces_gives_none() {
    let Some((mut faces, astronaut, _)) = setup("faces::a_frame_without_faces_gives_none") else {
        return;
    };
    // The lower right of the photograph: the flag and the suit, no face.
    let frame = resize_bilinear(astronaut.frame(), [300.0, 300.0, 212.0, 212.0], 320, 320);
    assert_eq!(faces.faces(frame.frame()).unwrap(), vec![]);
    let grey = RgbImage { width: 64, height: 36, data: vec![128; 64 * 36 * 3] };
    assert!(faces.faces(grey.frame()).unwrap().is_empty());
}
