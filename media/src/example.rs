//! Search by example: the scene-space query of a picture (a JPEG or PNG, such as a frame grabbed
//! from a video or a still from a catalog), for "the scenes that look like this".
//!
//! The picture is decoded with bounds checked before any pixel is allocated, scaled to the width
//! of the frames analysis samples ([`crate::vision::VISION_WIDTH`]), and read by the image
//! classifier the analysis uses (EfficientNet-Lite0): its pooled feature goes through the same
//! fixed projection that puts a scene's feature into its embedding
//! ([`crate::embed::picture_query`]). The query has nothing in the sentence model's dimensions, so
//! scenes are ranked by what they look like alone, never by what is said or written in them.

use std::io::Cursor;

use kino_models::{RgbFrame, RgbImage, resize_pil};

use crate::embed;
use crate::models::AnalysisModels;
use crate::vision::VISION_WIDTH;

/// The longest side of a picture that is read, in pixels.
pub const MAX_EXAMPLE_SIDE: u32 = 16_384;

/// The most pixels a picture may hold (an 8K frame holds 33 million).
pub const MAX_EXAMPLE_PIXELS: u64 = 50_000_000;

/// Why a picture gave no query.
#[derive(Debug, thiserror::Error)]
pub enum ExampleError {
    /// Not a picture this build reads (JPEG or PNG), or a damaged one.
    #[error("the image could not be read as a JPEG or PNG: {0}")]
    Unreadable(String),
    /// Larger than [`MAX_EXAMPLE_SIDE`] or [`MAX_EXAMPLE_PIXELS`].
    #[error(
        "the image is {width}x{height} pixels; at most {MAX_EXAMPLE_SIDE} pixels a side and {MAX_EXAMPLE_PIXELS} \
         pixels in all are read"
    )]
    TooLarge {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// The image classifier is not loaded (not fetched, or disabled).
    #[error("search by a picture needs the image classifier (efficientnet-lite0), which is not loaded: {0}")]
    NoModel(String),
    /// The classifier failed.
    #[error(transparent)]
    Model(#[from] kino_models::Error),
}

/// Decodes a JPEG or PNG into RGB pixels scaled to [`VISION_WIDTH`] wide (aspect kept; a
/// narrower picture keeps its size). Its size is read from its header and checked before the
/// pixels are decoded, and the decoder's allocations are capped, so a crafted file cannot
/// exhaust memory.
pub fn decode_example(bytes: &[u8]) -> Result<RgbImage, ExampleError> {
    let unreadable = |e: image::ImageError| ExampleError::Unreadable(e.to_string());
    let reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| ExampleError::Unreadable(e.to_string()))?;
    if reader.format().is_none() {
        return Err(ExampleError::Unreadable("not a JPEG or PNG (unknown signature)".into()));
    }
    let (width, height) = reader.into_dimensions().map_err(unreadable)?;
    if width.max(height) > MAX_EXAMPLE_SIDE || u64::from(width) * u64::from(height) > MAX_EXAMPLE_PIXELS {
        return Err(ExampleError::TooLarge { width, height });
    }
    let mut reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| ExampleError::Unreadable(e.to_string()))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_EXAMPLE_SIDE);
    limits.max_image_height = Some(MAX_EXAMPLE_SIDE);
    // The RGBA pixels of the largest picture allowed, with room for the decoder's own buffers.
    limits.max_alloc = Some(MAX_EXAMPLE_PIXELS * 4 + (64 << 20));
    reader.limits(limits);
    let rgb = reader.decode().map_err(unreadable)?.into_rgb8();
    let (w, h) = (rgb.width() as usize, rgb.height() as usize);
    if w == 0 || h == 0 {
        return Err(ExampleError::Unreadable("the image has no pixels".into()));
    }
    let data = rgb.into_raw();
    let frame = RgbFrame::new(w, h, &data).map_err(ExampleError::Model)?;
    let target = VISION_WIDTH as usize;
    if w <= target {
        return Ok(RgbImage { width: w, height: h, data: frame.data.to_vec() });
    }
    let out_h = ((h as f64 * target as f64 / w as f64).round() as usize).max(1);
    Ok(resize_pil(frame, target, out_h))
}

/// The scene-space query (1024 floats, unit length) of the picture in `bytes`: decoded
/// ([`decode_example`]) and read by the image classifier of `models`.
pub fn picture_query(models: &AnalysisModels, bytes: &[u8]) -> Result<Vec<f32>, ExampleError> {
    let picture = decode_example(bytes)?;
    let mut labeler = match models.labeler() {
        Some(Ok(labeler)) => labeler,
        Some(Err(e)) => return Err(ExampleError::Model(e)),
        None => {
            let reason = models
                .states()
                .iter()
                .find(|s| s.id == kino_models::manifest::EFFICIENTNET_LITE0.id)
                .and_then(|s| s.reason.clone())
                .unwrap_or_else(|| "no models directory".to_string());
            return Err(ExampleError::NoModel(reason));
        }
    };
    let read = labeler.label(&[picture.frame()], 1);
    models.give_back(labeler);
    let feature = read?.pop().map(|f| f.feature).unwrap_or_default();
    embed::picture_query(&feature)
        .ok_or_else(|| ExampleError::Unreadable("the classifier saw nothing in the image (a zero feature)".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 90]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    /// PNG's CRC-32 (of a chunk's type and data).
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn a_picture_is_scaled_to_the_analysis_width_keeping_its_aspect() {
        let big = decode_example(&png(1280, 720)).unwrap();
        assert_eq!((big.width, big.height), (640, 360));
        let small = decode_example(&png(320, 200)).unwrap();
        assert_eq!((small.width, small.height, small.data.len()), (320, 200, 320 * 200 * 3));
    }

    #[test]
    fn what_is_not_a_picture_or_too_large_is_refused_before_decoding() {
        assert!(matches!(decode_example(b"GIF89a not a frame"), Err(ExampleError::Unreadable(_))));
        assert!(matches!(decode_example(&[]), Err(ExampleError::Unreadable(_))));
        let mut cut = png(64, 64);
        cut.truncate(cut.len() / 2);
        assert!(matches!(decode_example(&cut), Err(ExampleError::Unreadable(_))));
        // A PNG header claiming 60000 x 60000 pixels (no pixel data): refused from the header.
        let mut huge = png(8, 8);
        huge[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        let crc = crc32(&huge[12..29]);
        huge[29..33].copy_from_slice(&crc.to_be_bytes());
        assert!(matches!(decode_example(&huge), Err(ExampleError::TooLarge { width: 60_000, height: 60_000 })));
    }

    #[test]
    fn without_the_classifier_the_reason_says_so() {
        let tmp = tempfile::tempdir().unwrap();
        let models = AnalysisModels::load(&kino_models::ModelsDir::at(tmp.path()), 1);
        match picture_query(&models, &png(64, 48)) {
            Err(ExampleError::NoModel(reason)) => assert!(!reason.is_empty()),
            other => panic!("expected NoModel, got {other:?}"),
        }
    }
}
