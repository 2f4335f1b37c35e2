//! Frames as the vision models take them: packed RGB24 pixels of any size ([`RgbFrame`]), and the
//! resampling every model's preprocessing starts with ([`resize_bilinear`], and [`resize_pil`] for
//! models whose reference pipeline resizes with Pillow); the picture inside a frame's black bars
//! ([`content_rect`]), a region copied out ([`crop`]) and a picture fitted whole into a square
//! ([`letterbox_pil`]), as the image classifier reads frames and the detector's boxes.

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

/// A region of a frame in whole pixels: left, top, width, height.
pub type PixelRect = [usize; 4];

/// A row (or column) of a frame belongs to a black bar when the brightest channel of its pixels
/// averages at most this (of 255)...
pub const BAR_MEAN: u32 = 20;
/// ...and no pixel's brightest channel exceeds this (the analysis' letterbox rule, on the
/// brightest channel so that a dark saturated colour is no bar).
pub const BAR_MAX: u8 = 40;

/// The picture inside `frame`'s black bars: the rows above and below (a letterboxed film) and
/// then the columns left and right of it (a pillarboxed one) that are dark ([`BAR_MEAN`],
/// [`BAR_MAX`]), each edge on its own. A frame dark all over has no bars (it is black): the whole
/// frame, as for a frame without bars.
pub fn content_rect(frame: RgbFrame<'_>) -> PixelRect {
    let (w, h) = (frame.width, frame.height);
    let whole = [0, 0, w, h];
    let brightest = |x: usize, y: usize| {
        let at = (y * w + x) * 3;
        frame.data[at].max(frame.data[at + 1]).max(frame.data[at + 2])
    };
    let dark = |values: &mut dyn Iterator<Item = u8>| {
        let (mut sum, mut n) = (0u64, 0u64);
        for v in values {
            if v > BAR_MAX {
                return false;
            }
            sum += u64::from(v);
            n += 1;
        }
        sum <= u64::from(BAR_MEAN) * n
    };
    let rows: Vec<bool> = (0..h).map(|y| dark(&mut (0..w).map(|x| brightest(x, y)))).collect();
    if rows.iter().all(|&d| d) {
        return whole;
    }
    let top = rows.iter().take_while(|&&d| d).count();
    let bottom = rows.iter().rev().take_while(|&&d| d).count();
    let (y0, y1) = (top, h - bottom);
    let columns: Vec<bool> = (0..w).map(|x| dark(&mut (y0..y1).map(|y| brightest(x, y)))).collect();
    if columns.iter().all(|&d| d) {
        return whole;
    }
    let left = columns.iter().take_while(|&&d| d).count();
    let right = columns.iter().rev().take_while(|&&d| d).count();
    [left, top, w - left - right, y1 - y0]
}

/// A copy of the region `r` of `frame`, cut to the frame (at least one pixel).
pub fn crop(frame: RgbFrame<'_>, r: PixelRect) -> RgbImage {
    let [x, y, w, h] = r;
    let x = x.min(frame.width - 1);
    let y = y.min(frame.height - 1);
    let (w, h) = (w.clamp(1, frame.width - x), h.clamp(1, frame.height - y));
    let mut data = Vec::with_capacity(w * h * 3);
    for row in y..y + h {
        let at = (row * frame.width + x) * 3;
        data.extend_from_slice(&frame.data[at..at + w * 3]);
    }
    RgbImage { width: w, height: h, data }
}

/// `frame` fitted whole into a `side x side` square, its aspect kept: resized with Pillow's
/// bilinear filter ([`resize_pil`]) so that its longer side is `side` and the other is in
/// proportion (rounded half up, at least 1), then pasted in the middle (the odd pixel of the
/// margin after it) of a square of grey `fill`, as Pillow's `Image.new("RGB", (side, side),
/// (fill,) * 3).paste(resized, ((side - w) // 2, (side - h) // 2))` does.
pub fn letterbox_pil(frame: RgbFrame<'_>, side: usize, fill: u8) -> RgbImage {
    let side = side.max(1);
    let longer = frame.width.max(frame.height);
    let scaled = |n: usize| ((n * side + longer / 2) / longer).clamp(1, side);
    let (w, h) = (scaled(frame.width), scaled(frame.height));
    let resized = resize_pil(frame, w, h);
    let mut data = vec![fill; side * side * 3];
    let (x0, y0) = ((side - w) / 2, (side - h) / 2);
    for (row, src) in resized.data.chunks_exact(w * 3).enumerate() {
        let at = ((y0 + row) * side + x0) * 3;
        data[at..at + w * 3].copy_from_slice(src);
    }
    RgbImage { width: side, height: side, data }
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

    /// A `w x h` frame of grey `v` inside bars of `top`, `bottom`, `left` and `right` black pixels.
    fn barred(w: usize, h: usize, [top, bottom, left, right]: [usize; 4], v: u8) -> Vec<u8> {
        let mut data = vec![0u8; w * h * 3];
        for y in top..h - bottom {
            for x in left..w - right {
                data[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&[v, v / 2, 255 - v]);
            }
        }
        data
    }

    #[test]
    fn black_bars_are_found_on_each_edge() {
        let data = barred(64, 36, [5, 4, 0, 0], 200);
        assert_eq!(content_rect(RgbFrame::new(64, 36, &data).unwrap()), [0, 5, 64, 27], "letterbox");
        let data = barred(64, 36, [0, 0, 8, 9], 200);
        assert_eq!(content_rect(RgbFrame::new(64, 36, &data).unwrap()), [8, 0, 47, 36], "pillarbox");
        let data = barred(64, 36, [3, 3, 6, 6], 200);
        assert_eq!(content_rect(RgbFrame::new(64, 36, &data).unwrap()), [6, 3, 52, 30], "both");
        // Noise in a bar up to the rule's limits is still a bar; one bright pixel is not.
        let mut data = barred(64, 36, [5, 5, 0, 0], 200);
        data[..64 * 3].iter_mut().step_by(7).for_each(|v| *v = 40);
        assert_eq!(content_rect(RgbFrame::new(64, 36, &data).unwrap())[1], 5);
        data[5] = 41;
        assert_eq!(content_rect(RgbFrame::new(64, 36, &data).unwrap())[1], 0);
        // A black frame, and a frame without bars, are whole.
        let black = vec![3u8; 64 * 36 * 3];
        assert_eq!(content_rect(RgbFrame::new(64, 36, &black).unwrap()), [0, 0, 64, 36]);
        let data = barred(64, 36, [0, 0, 0, 0], 90);
        assert_eq!(content_rect(RgbFrame::new(64, 36, &data).unwrap()), [0, 0, 64, 36]);
    }

    #[test]
    fn crops_copy_the_region_and_stay_inside() {
        let data: Vec<u8> = (0..4 * 3 * 3).map(|i| i as u8).collect();
        let f = RgbFrame::new(4, 3, &data).unwrap();
        let c = crop(f, [1, 1, 2, 2]);
        assert_eq!((c.width, c.height), (2, 2));
        assert_eq!(c.data, [15, 16, 17, 18, 19, 20, 27, 28, 29, 30, 31, 32]);
        let c = crop(f, [3, 2, 10, 10]);
        assert_eq!((c.width, c.height, c.data.as_slice()), (1, 1, &[33u8, 34, 35][..]));
    }

    #[test]
    fn letterboxing_keeps_the_aspect_and_pads_the_rest() {
        // A wide picture: full width, 9/16 of the height in the middle, grey above and below.
        let wide = vec![200u8; 64 * 36 * 3];
        let out = letterbox_pil(RgbFrame::new(64, 36, &wide).unwrap(), 32, 127);
        assert_eq!((out.width, out.height), (32, 32));
        let row = |y: usize| &out.data[y * 32 * 3..(y + 1) * 32 * 3];
        // 36 * 32 / 64 = 18 rows of picture, 7 of padding above and 7 below.
        assert!((0..7).chain(25..32).all(|y| row(y).iter().all(|&v| v == 127)));
        assert!((7..25).all(|y| row(y).iter().all(|&v| v == 200)));
        // A tall picture: padding left and right instead.
        let tall = vec![10u8; 20 * 50 * 3];
        let out = letterbox_pil(RgbFrame::new(20, 50, &tall).unwrap(), 25, 127);
        // 20 * 25 / 50 = 10 columns, from column 7 to 16.
        for y in 0..25 {
            for x in 0..25 {
                let expected = if (7..17).contains(&x) { 10 } else { 127 };
                assert_eq!(out.data[(y * 25 + x) * 3], expected, "({x}, {y})");
            }
        }
        // A square picture fills the square as a plain resize does.
        let data: Vec<u8> = (0..30 * 30 * 3).map(|i| (i * 7 % 256) as u8).collect();
        let f = RgbFrame::new(30, 30, &data).unwrap();
        assert_eq!(letterbox_pil(f, 12, 127).data, resize_pil(f, 12, 12).data);
    }
}
