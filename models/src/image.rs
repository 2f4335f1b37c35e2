//! Frames as the vision models take them: packed RGB24 pixels of any size ([`RgbFrame`]), and the
//! resampling every model's preprocessing starts with ([`resize_bilinear`]).

use crate::error::{Error, Result};

/// A borrowed RGB24 frame: `height` rows of `width` pixels, 3 bytes each (R, G, B), no padding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RgbFrame<'a> {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width * height * 3` bytes.
    pub data: &'a [u8],
}

impl<'a> RgbFrame<'a> {
    /// A frame over `data`; an error unless `data` holds exactly `width * height * 3` bytes and
    /// both sides are at least 1.
    pub fn new(width: usize, height: usize, data: &'a [u8]) -> Result<RgbFrame<'a>> {
        if width == 0 || height == 0 {
            return Err(Error::InvalidArgument {
                field: "frame",
                rule: format!("must be at least 1x1 (got {width}x{height})"),
            });
        }
        if width.checked_mul(height).and_then(|n| n.checked_mul(3)) != Some(data.len()) {
            return Err(Error::InvalidArgument {
                field: "frame",
                rule: format!("{width}x{height} RGB24 needs {} bytes (got {})", width * height * 3, data.len()),
            });
        }
        Ok(RgbFrame { width, height, data })
    }

    /// The pixel at (`x`, `y`).
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let at = (y * self.width + x) * 3;
        [self.data[at], self.data[at + 1], self.data[at + 2]]
    }
}

/// An owned RGB24 image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbImage {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width * height * 3` bytes.
    pub data: Vec<u8>,
}

impl RgbImage {
    /// Borrows it as a frame.
    pub fn frame(&self) -> RgbFrame<'_> {
        RgbFrame { width: self.width, height: self.height, data: &self.data }
    }
}

/// Resamples the region `[x0, x0 + w) x [y0, y0 + h)` of `frame` (in source pixels, fractional
/// allowed, clamped to the frame) to `out_w x out_h` with bilinear interpolation at pixel centres
/// (the convention of OpenCV's `INTER_LINEAR` and PIL's `BILINEAR` for upscaling; for strong
/// downscaling, prefilter or downscale in steps). `out_w` and `out_h` must be at least 1.
pub fn resize_bilinear(frame: RgbFrame<'_>, region: [f64; 4], out_w: usize, out_h: usize) -> RgbImage {
    let [x0, y0, w, h] = region;
    let (out_w, out_h) = (out_w.max(1), out_h.max(1));
    let mut data = vec![0u8; out_w * out_h * 3];
    let sx = w / out_w as f64;
    let sy = h / out_h as f64;
    let max_x = (frame.width - 1) as f64;
    let max_y = (frame.height - 1) as f64;
    for oy in 0..out_h {
        let fy = (y0 + (oy as f64 + 0.5) * sy - 0.5).clamp(0.0, max_y);
        let (y_lo, wy) = (fy.floor() as usize, fy - fy.floor());
        let y_hi = (y_lo + 1).min(frame.height - 1);
        for ox in 0..out_w {
            let fx = (x0 + (ox as f64 + 0.5) * sx - 0.5).clamp(0.0, max_x);
            let (x_lo, wx) = (fx.floor() as usize, fx - fx.floor());
            let x_hi = (x_lo + 1).min(frame.width - 1);
            let (a, b, c, d) =
                (frame.pixel(x_lo, y_lo), frame.pixel(x_hi, y_lo), frame.pixel(x_lo, y_hi), frame.pixel(x_hi, y_hi));
            let at = (oy * out_w + ox) * 3;
            for k in 0..3 {
                let top = f64::from(a[k]) * (1.0 - wx) + f64::from(b[k]) * wx;
                let bottom = f64::from(c[k]) * (1.0 - wx) + f64::from(d[k]) * wx;
                data[at + k] = (top * (1.0 - wy) + bottom * wy).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    RgbImage { width: out_w, height: out_h, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_check_their_size() {
        assert!(RgbFrame::new(2, 2, &[0; 12]).is_ok());
        assert!(RgbFrame::new(2, 2, &[0; 11]).is_err());
        assert!(RgbFrame::new(0, 2, &[]).is_err());
    }

    #[test]
    fn resizing_keeps_flat_colour_and_interpolates_edges() {
        let flat = vec![200u8; 4 * 4 * 3];
        let f = RgbFrame::new(4, 4, &flat).unwrap();
        let out = resize_bilinear(f, [0.0, 0.0, 4.0, 4.0], 7, 3);
        assert!(out.data.iter().all(|&v| v == 200));
        // A 2x1 black/white frame doubled: the outer pixels keep their values, the inner ones mix.
        let pair = [0u8, 0, 0, 255, 255, 255];
        let f = RgbFrame::new(2, 1, &pair).unwrap();
        let out = resize_bilinear(f, [0.0, 0.0, 2.0, 1.0], 4, 1);
        let reds: Vec<u8> = out.data.chunks(3).map(|p| p[0]).collect();
        assert_eq!(reds, vec![0, 64, 191, 255]);
        // A crop of the right half at its own size samples the white pixels' centres exactly.
        let quad = [0u8, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255];
        let f = RgbFrame::new(4, 1, &quad).unwrap();
        let out = resize_bilinear(f, [2.0, 0.0, 2.0, 1.0], 2, 1);
        assert!(out.data.iter().all(|&v| v == 255), "{:?}", out.data);
    }
}
