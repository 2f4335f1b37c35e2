//! One decoded analysis frame (small RGB) turned into the planes the detectors read: luma and a
//! value-weighted HSV, and the content difference between two frames.

/// A small analysis frame: luma and HSV-like planes, one byte per pixel each.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// BT.601 luma, 0..=255.
    pub luma: Vec<u8>,
    /// Hue on a 0..=255 circle.
    pub hue: Vec<u8>,
    /// Chroma (max - min of R, G, B): HSV saturation scaled by value, so a near-black pixel has
    /// near-zero chroma instead of the arbitrary saturation of HSV.
    pub chroma: Vec<u8>,
    /// HSV value (max of R, G, B).
    pub value: Vec<u8>,
    /// Mean luma in `[0, 1]`, computed once.
    mean_luma: f64,
}

impl Frame {
    /// Builds the planes from packed `rgb24` bytes (`width * height * 3` of them).
    pub fn from_rgb24(width: usize, height: usize, rgb: &[u8]) -> Frame {
        let n = width * height;
        let mut f = Frame {
            width,
            height,
            luma: Vec::with_capacity(n),
            hue: Vec::with_capacity(n),
            chroma: Vec::with_capacity(n),
            value: Vec::with_capacity(n),
            mean_luma: 0.0,
        };
        for px in rgb.chunks_exact(3).take(n) {
            let (r, g, b) = (i32::from(px[0]), i32::from(px[1]), i32::from(px[2]));
            f.luma.push(((77 * r + 150 * g + 29 * b + 128) >> 8) as u8);
            let max = r.max(g).max(b);
            let c = max - r.min(g).min(b);
            // Hue in sixths of the circle, each sixth 256/6 steps wide.
            let h = if c == 0 {
                0
            } else if max == r {
                (256 * (g - b) / (6 * c)).rem_euclid(256)
            } else if max == g {
                256 / 3 + 256 * (b - r) / (6 * c)
            } else {
                2 * 256 / 3 + 256 * (r - g) / (6 * c)
            };
            f.hue.push(h.rem_euclid(256) as u8);
            f.chroma.push(c as u8);
            f.value.push(max as u8);
        }
        if !f.luma.is_empty() {
            let sum: u64 = f.luma.iter().map(|&v| u64::from(v)).sum();
            f.mean_luma = sum as f64 / (255.0 * f.luma.len() as f64);
        }
        f
    }

    /// A frame of one colour (for tests).
    pub fn solid(width: usize, height: usize, rgb: [u8; 3]) -> Frame {
        Frame::from_rgb24(width, height, &rgb.repeat(width * height))
    }

    /// Mean luma in `[0, 1]`.
    pub fn mean_luma(&self) -> f64 {
        self.mean_luma
    }
}

/// Content difference of two frames of the same size, 0..=255: the mean over pixels of the average
/// of the absolute hue difference (on the circle, weighted by the smaller chroma so that hue only
/// counts where there is colour), chroma difference and value difference. This is PySceneDetect's
/// `content_val` with HSV made robust for dark pixels.
pub fn content_difference(a: &Frame, b: &Frame) -> f64 {
    let n = a.luma.len().min(b.luma.len());
    if n == 0 {
        return 0.0;
    }
    // Hue differences weighted by chroma are summed apart and scaled once (no division per pixel).
    let (mut hue, mut rest): (u64, u64) = (0, 0);
    for i in 0..n {
        let dh = a.hue[i].wrapping_sub(b.hue[i]);
        let dh = u32::from(dh.min(dh.wrapping_neg())) * 2;
        let weight = u32::from(a.chroma[i].min(b.chroma[i]));
        hue += u64::from(dh * weight);
        rest += u64::from(a.chroma[i].abs_diff(b.chroma[i])) + u64::from(a.value[i].abs_diff(b.value[i]));
    }
    (hue as f64 / 255.0 + rest as f64) / (3.0 * n as f64)
}

/// Mean absolute luma difference of two frames, 0..=255.
pub fn luma_difference(a: &Frame, b: &Frame) -> f64 {
    let n = a.luma.len().min(b.luma.len());
    if n == 0 {
        return 0.0;
    }
    let total: u64 = a.luma.iter().zip(&b.luma).map(|(&x, &y)| u64::from(x.abs_diff(y))).sum();
    total as f64 / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primaries_have_distinct_hues_and_full_chroma() {
        let red = Frame::solid(2, 2, [255, 0, 0]);
        let green = Frame::solid(2, 2, [0, 255, 0]);
        let blue = Frame::solid(2, 2, [0, 0, 255]);
        assert_eq!((red.hue[0], green.hue[0], blue.hue[0]), (0, 85, 170));
        assert_eq!(red.chroma[0], 255);
        assert!(content_difference(&red, &green) > 50.0);
        assert_eq!(content_difference(&red, &red), 0.0);
    }

    #[test]
    fn dark_pixels_with_noisy_hue_barely_differ() {
        let a = Frame::solid(4, 4, [3, 1, 0]);
        let b = Frame::solid(4, 4, [0, 1, 3]);
        assert!(content_difference(&a, &b) < 3.0, "{}", content_difference(&a, &b));
        let white = Frame::solid(4, 4, [255, 255, 255]);
        assert!((white.mean_luma() - 1.0).abs() < 1e-9);
        assert!(luma_difference(&a, &white) > 250.0);
    }
}
