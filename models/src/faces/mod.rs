//! Faces on a frame: dlib's HOG frontal face detector and its ResNet face descriptors
//! (`dlib_face_recognition_resnet_model_v1`, 128 floats) on a chip placed from the detector's box,
//! or aligned by dlib's 68-point landmarks when that optional model is fetched (its training
//! data restricts commercial use, `docs/models.md`); from the system's dlib (`libdlib-dev`) and
//! the weights of the pinned `face_recognition_models` wheel.
//!
//! The C++ glue (`dlib.cpp`) is compiled by `build.rs` when dlib is installed; without it the
//! crate still builds and [`FaceAnalyzer::load`] says what to install. No dlib type leaves this
//! module.

#[cfg(kino_dlib)]
mod ffi;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::image::RgbFrame;
use crate::manifest::{DLIB_FACES, DLIB_LANDMARKS};
use crate::runtime::Runtime;

/// Floats in a face descriptor.
pub const FACE_DIM: usize = 128;

/// One detected face.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// Left edge, fraction of the frame width.
    pub x: f32,
    /// Top edge, fraction of the frame height.
    pub y: f32,
    /// Width, fraction of the frame width.
    pub w: f32,
    /// Height, fraction of the frame height.
    pub h: f32,
    /// The detector's confidence (the HOG detector's SVM margin; 0 is its default threshold,
    /// clear frontal faces score about 1 to 3).
    pub score: f32,
    /// dlib's face descriptor scaled to unit length ([`FACE_DIM`] floats). dlib's rule, the same
    /// person below 0.6 for its raw descriptors (about 1.4 long), is about 0.43 here
    /// (`docs/models.md`).
    pub embedding: Vec<f32>,
}

/// Detects and describes faces.
#[derive(Debug)]
pub struct FaceAnalyzer {
    #[cfg(kino_dlib)]
    inner: ffi::DlibFaces,
    upsample: u32,
    max_faces: usize,
    landmarks: bool,
    load_seconds: f64,
}

impl FaceAnalyzer {
    /// Loads the descriptor network from the models directory, and the 68-point landmark predictor
    /// when the optional `dlib-landmarks-68` model is there too. `threads` limits OpenBLAS's threads (the descriptor network's matrix products) when
    /// OpenBLAS is the BLAS. The ONNX `runtime` is not used: dlib runs these models itself; it is
    /// taken so that every model of the crate loads the same way.
    pub fn load(runtime: &Runtime, dir: &ModelsDir, threads: usize) -> Result<FaceAnalyzer> {
        let _ = runtime;
        let network = dir.file(&DLIB_FACES, "dlib_face_recognition_resnet_model_v1.dat")?;
        let landmarks = dir
            .status(&DLIB_LANDMARKS)
            .present()
            .then(|| dir.file(&DLIB_LANDMARKS, "shape_predictor_68_face_landmarks.dat"))
            .transpose()?;
        let started = std::time::Instant::now();
        #[cfg(kino_dlib)]
        {
            let inner = ffi::DlibFaces::load(landmarks.as_deref(), &network, threads)
                .map_err(|reason| Error::load(DLIB_FACES.id, reason))?;
            Ok(FaceAnalyzer {
                inner,
                upsample: 0,
                max_faces: 16,
                landmarks: landmarks.is_some(),
                load_seconds: started.elapsed().as_secs_f64(),
            })
        }
        #[cfg(not(kino_dlib))]
        {
            let _ = (landmarks, network, threads, started);
            Err(Error::load(
                DLIB_FACES.id,
                "kino-models was built without dlib; install it (Debian: apt-get install libdlib-dev libopenblas-dev) and rebuild",
            ))
        }
    }

    /// Detects on the frame enlarged `times` times by 2 (bilinear; 0, the default: as given, at
    /// most 2). The HOG detector finds faces of about 80 pixels and more, so one doubling finds
    /// faces half as large, at about four times the cost (`docs/models.md`).
    pub fn set_upsample(&mut self, times: u32) {
        self.upsample = times.min(2);
    }

    /// At most this many faces per frame, the best scoring (default 16).
    pub fn set_max_faces(&mut self, max_faces: usize) {
        self.max_faces = max_faces.max(1);
    }

    /// Whether faces are aligned by the 68-point landmarks (else by the detector's box).
    pub fn aligned_by_landmarks(&self) -> bool {
        self.landmarks
    }

    /// Seconds it took to load the models.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// The faces on `frame`, best scoring first, boxes clamped to the frame.
    pub fn faces(&mut self, frame: RgbFrame<'_>) -> Result<Vec<Face>> {
        #[cfg(kino_dlib)]
        {
            let scale = 1usize << self.upsample;
            let enlarged = (scale > 1).then(|| {
                let region = [0.0, 0.0, frame.width as f64, frame.height as f64];
                crate::image::resize_bilinear(frame, region, frame.width * scale, frame.height * scale)
            });
            let seen = enlarged.as_ref().map_or(frame, |image| image.frame());
            let raw = self
                .inner
                .analyze(seen.data, seen.width, seen.height, self.max_faces)
                .map_err(|reason| Error::inference(DLIB_FACES.id, reason))?;
            let (fw, fh) = (seen.width as f32, seen.height as f32);
            Ok(raw
                .into_iter()
                .map(|r| {
                    let [l, t, rt, b] = r.bounds;
                    let (x0, x1) = ((l / fw).clamp(0.0, 1.0), (rt / fw).clamp(0.0, 1.0));
                    let (y0, y1) = ((t / fh).clamp(0.0, 1.0), (b / fh).clamp(0.0, 1.0));
                    Face { x: x0, y: y0, w: x1 - x0, h: y1 - y0, score: r.score, embedding: unit(r.descriptor) }
                })
                .collect())
        }
        #[cfg(not(kino_dlib))]
        {
            let _ = frame;
            Err(Error::inference(DLIB_FACES.id, "kino-models was built without dlib"))
        }
    }
}

/// `v` scaled to unit length (unchanged when its length is 0).
#[cfg_attr(not(kino_dlib), allow(dead_code))]
fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 && n.is_finite() {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}
