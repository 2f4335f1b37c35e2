//! Frames as the vision models take them: packed RGB24 pixels of any size ([`RgbFrame`]), and the
//! resampling every model's preprocessing starts with ([`resize_bilinear`], and [`resize_pil`] for
//! models whose reference pipeline resizes with Pillow).

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

/// Resizes all of `frame` to `out_w x out_h` exactly as Pillow's `Image.resize(size,
/// Image.BILINEAR)` does for RGB images (Pillow 10–13, `libImaging/Resample.c`): a triangle filter
/// whose support widens with the downscaling factor (so a strong reduction averages every source
/// pixel, unlike [`resize_bilinear`]), coefficients normalised and rounded to 22-bit fixed point,
/// a horizontal pass into 8-bit rows, then a vertical pass. Bit-exact with Pillow, so models
/// calibrated on Pillow's output see the same pixels. `out_w` and `out_h` must be at least 1.
pub fn resize_pil(frame: RgbFrame<'_>, out_w: usize, out_h: usize) -> RgbImage {
    let (out_w, out_h) = (out_w.max(1), out_h.max(1));
    let (w, h) = (frame.width, frame.height);
    let horizontal = pil_coefficients(w, out_w);
    let vertical = pil_coefficients(h, out_h);
    // Only the source rows the vertical pass reads are resampled horizontally.
    let first_row = vertical.first().map_or(0, |(start, _)| *start);
    let last_row = vertical.last().map_or(0, |(start, k)| start + k.len());
    let mut rows = vec![0u8; (last_row - first_row) * out_w * 3];
    if out_w == w {
        rows.copy_from_slice(&frame.data[first_row * w * 3..last_row * w * 3]);
    } else {
        for y in first_row..last_row {
            let src = &frame.data[y * w * 3..(y + 1) * w * 3];
            let dst = &mut rows[(y - first_row) * out_w * 3..(y - first_row + 1) * out_w * 3];
            for (x, (start, k)) in horizontal.iter().enumerate() {
                for c in 0..3 {
                    let sum =
                        k.iter().enumerate().fold(PIL_HALF, |s, (i, &kk)| s + i32::from(src[(start + i) * 3 + c]) * kk);
                    dst[x * 3 + c] = pil_clip8(sum);
                }
            }
        }
    }
    if out_h == h {
        return RgbImage { width: out_w, height: out_h, data: rows };
    }
    let stride = out_w * 3;
    let mut data = vec![0u8; out_h * stride];
    for (y, (start, k)) in vertical.iter().enumerate() {
        let base = start - first_row;
        for x in 0..stride {
            let sum =
                k.iter().enumerate().fold(PIL_HALF, |s, (i, &kk)| s + i32::from(rows[(base + i) * stride + x]) * kk);
            data[y * stride + x] = pil_clip8(sum);
        }
    }
    RgbImage { width: out_w, height: out_h, data }
}

/// Pillow's fixed-point precision for 8-bit images (`PRECISION_BITS = 32 - 8 - 2`).
const PIL_PRECISION: u32 = 22;
const PIL_HALF: i32 = 1 << (PIL_PRECISION - 1);

fn pil_clip8(sum: i32) -> u8 {
    (sum >> PIL_PRECISION).clamp(0, 255) as u8
}

/// Pillow's `precompute_coeffs` + `normalize_coeffs_8bpc` for the bilinear (triangle) filter: for
/// each output pixel, the first source pixel and the fixed-point weights.
fn pil_coefficients(in_size: usize, out_size: usize) -> Vec<(usize, Vec<i32>)> {
    let scale = in_size as f64 / out_size as f64;
    let filter_scale = scale.max(1.0);
    let support = filter_scale; // the triangle's support is 1
    (0..out_size)
        .map(|xx| {
            let center = (xx as f64 + 0.5) * scale;
            // C's `(int)` truncates toward zero; values below 0 are clamped to 0 either way.
            let xmin = ((center - support + 0.5) as i64).max(0) as usize;
            let xmax = ((center + support + 0.5) as i64).min(in_size as i64) as usize;
            let weights: Vec<f64> = (xmin..xmax)
                .map(|x| {
                    let t = ((x as f64 - center + 0.5) / filter_scale).abs();
                    if t < 1.0 { 1.0 - t } else { 0.0 }
                })
                .collect();
            let total: f64 = weights.iter().sum();
            let fixed = weights
                .iter()
                .map(|&w| {
                    let w = if total != 0.0 { w / total } else { w };
                    let scaled = w * f64::from(1u32 << PIL_PRECISION);
                    (if scaled < 0.0 { scaled - 0.5 } else { scaled + 0.5 }) as i32
                })
                .collect();
            (xmin, fixed)
        })
        .collect()
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

    #[test]
    fn pillow_resize_matches_pillow() {
        // A 5x3 ramp resized by Pillow 13.0.0 (`Image.frombytes("RGB", (5, 3), data).resize((2, 2),
        // Image.BILINEAR)`): every source pixel contributes when downscaling.
        let data: Vec<u8> = (0..45u32).map(|i| (i * 37 % 256) as u8).collect();
        let f = RgbFrame::new(5, 3, &data).unwrap();
        let out = resize_pil(f, 2, 2);
        assert_eq!(out.data, [93, 94, 131, 141, 111, 97, 111, 148, 119, 108, 114, 144]);
        let flat = vec![77u8; 9 * 7 * 3];
        let out = resize_pil(RgbFrame::new(9, 7, &flat).unwrap(), 4, 11);
        assert!(out.data.iter().all(|&v| v == 77));
        let same = resize_pil(f, 5, 3);
        assert_eq!(same.data, data);
    }
}
