//! The C ABI of `dlib.cpp` and its one owner. All `unsafe` of the face models is here.

use std::ffi::{CStr, CString, c_char, c_int, c_long};
use std::path::Path;
use std::ptr::NonNull;

use super::FACE_DIM;

#[repr(C)]
struct KinoFaces {
    _private: [u8; 0],
}

unsafe extern "C" {
    fn kino_faces_load(
        landmarks: *const c_char,
        network: *const c_char,
        threads: c_int,
        error: *mut c_char,
        error_len: usize,
    ) -> *mut KinoFaces;
    fn kino_faces_free(faces: *mut KinoFaces);
    fn kino_faces_analyze(
        faces: *mut KinoFaces,
        rgb: *const u8,
        width: c_long,
        height: c_long,
        max_faces: c_int,
        boxes: *mut f32,
        scores: *mut f32,
        descriptors: *mut f32,
        error: *mut c_char,
        error_len: usize,
    ) -> c_int;
}

/// A face as dlib gives it: left, top, right, bottom in source pixels, score, raw descriptor.
pub(super) struct RawFace {
    pub bounds: [f32; 4],
    pub score: f32,
    pub descriptor: Vec<f32>,
}

/// The loaded detector, landmark predictor and network (a `KinoFaces` owned by this value).
#[derive(Debug)]
pub(super) struct DlibFaces {
    ptr: NonNull<KinoFaces>,
}

// SAFETY: the `KinoFaces` is owned by this value alone and only used through `&mut self`, so
// moving it to another thread is sound; dlib keeps no thread-local state for it.
unsafe impl Send for DlibFaces {}

const ERROR_LEN: usize = 512;

fn c_path(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| format!("{}: path holds a NUL byte", path.display()))
}

fn message(buffer: &[u8]) -> String {
    CStr::from_bytes_until_nul(buffer).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
}

impl DlibFaces {
    pub(super) fn load(landmarks: Option<&Path>, network: &Path, threads: usize) -> Result<DlibFaces, String> {
        let landmarks = landmarks.map(c_path).transpose()?;
        let network = c_path(network)?;
        let mut error = [0u8; ERROR_LEN];
        let threads = c_int::try_from(threads).unwrap_or(c_int::MAX);
        let landmarks_ptr = landmarks.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
        // SAFETY: the paths are NUL-terminated (or null for no landmarks, which the glue accepts)
        // and outlive the call; `error` is writable for `ERROR_LEN` bytes and the glue writes at
        // most that many, NUL included.
        let ptr =
            unsafe { kino_faces_load(landmarks_ptr, network.as_ptr(), threads, error.as_mut_ptr().cast(), ERROR_LEN) };
        NonNull::new(ptr).map(|ptr| DlibFaces { ptr }).ok_or_else(|| message(&error))
    }

    pub(super) fn analyze(
        &mut self,
        rgb: &[u8],
        width: usize,
        height: usize,
        max_faces: usize,
    ) -> Result<Vec<RawFace>, String> {
        assert_eq!(rgb.len(), width * height * 3, "RgbFrame guarantees the size");
        let max = max_faces.clamp(1, 1024);
        let mut boxes = vec![0f32; 4 * max];
        let mut scores = vec![0f32; max];
        let mut descriptors = vec![0f32; FACE_DIM * max];
        let mut error = [0u8; ERROR_LEN];
        let (w, h) =
            (c_long::try_from(width).map_err(|e| e.to_string())?, c_long::try_from(height).map_err(|e| e.to_string())?);
        // SAFETY: `self.ptr` came from `kino_faces_load` and is not freed before drop; `rgb` holds
        // `width * height * 3` bytes (checked above); the output buffers hold `max` faces, the
        // most the glue writes; `error` is `ERROR_LEN` bytes.
        let n = unsafe {
            kino_faces_analyze(
                self.ptr.as_ptr(),
                rgb.as_ptr(),
                w,
                h,
                max as c_int,
                boxes.as_mut_ptr(),
                scores.as_mut_ptr(),
                descriptors.as_mut_ptr(),
                error.as_mut_ptr().cast(),
                ERROR_LEN,
            )
        };
        let n = usize::try_from(n).map_err(|_| message(&error))?;
        Ok((0..n.min(max))
            .map(|i| RawFace {
                bounds: [boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3]],
                score: scores[i],
                descriptor: descriptors[FACE_DIM * i..FACE_DIM * (i + 1)].to_vec(),
            })
            .collect())
    }
}

impl Drop for DlibFaces {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `kino_faces_load` and is freed exactly once, here.
        unsafe { kino_faces_free(self.ptr.as_ptr()) }
    }
}
