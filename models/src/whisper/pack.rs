//! Speech regions packed back to back into 30 s windows, and times in a window mapped back to the
//! input's timeline.

use super::mel::{SAMPLE_RATE, WINDOW_SAMPLES};
use super::{MAX_PIECE, REGION_PAD};

/// A piece of the input placed in a window: `len` seconds from `source` at window offset `at`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Piece {
    pub(super) at: f64,
    pub(super) source: f64,
    pub(super) len: f64,
}

/// Speech regions (seconds), padded and merged, cut to [`MAX_PIECE`], packed into windows of at
/// most 30 s.
pub(super) fn pack(speech: &[(f64, f64)], duration: f64) -> Vec<Vec<Piece>> {
    let mut regions: Vec<(f64, f64)> = Vec::new();
    let mut sorted: Vec<(f64, f64)> =
        speech.iter().copied().filter(|(a, b)| a.is_finite() && b.is_finite() && b > a).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (a, b) in sorted {
        let (a, b) = ((a - REGION_PAD).max(0.0), (b + REGION_PAD).min(duration));
        if b <= a {
            continue;
        }
        match regions.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => regions.push((a, b)),
        }
    }
    let mut pieces = Vec::new();
    for (a, b) in regions {
        let n = ((b - a) / MAX_PIECE).ceil().max(1.0) as usize;
        let len = (b - a) / n as f64;
        for i in 0..n {
            pieces.push((a + i as f64 * len, len));
        }
    }
    let limit = WINDOW_SAMPLES as f64 / SAMPLE_RATE as f64;
    let mut windows: Vec<Vec<Piece>> = Vec::new();
    let mut used = f64::INFINITY;
    for (source, len) in pieces {
        if used + len > limit {
            windows.push(Vec::new());
            used = 0.0;
        }
        windows.last_mut().expect("a window").push(Piece { at: used, source, len });
        used += len;
    }
    windows
}

/// Maps a time in a packed window back to the input's timeline.
pub(super) fn unpack(pieces: &[Piece], t: f64) -> f64 {
    let piece = pieces.iter().rev().find(|p| p.at <= t).or(pieces.first()).expect("a window has pieces");
    piece.source + (t - piece.at).clamp(0.0, piece.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speech_is_packed_into_windows_and_mapped_back() {
        let w = pack(&[(10.0, 20.0), (20.3, 25.0), (40.0, 41.0), (100.0, 160.0)], 200.0);
        // 9.8-25.2 (merged, 15.4 s) and 39.8-41.2 (1.4 s) share a window; 99.8-160.2 (60.4 s) is
        // cut in three pieces of 20.13 s, a window each (two never fit in 30 s).
        assert_eq!(w.len(), 4, "{w:?}");
        assert_eq!(w[0].len(), 2);
        assert!((w[0][0].source - 9.8).abs() < 1e-9 && (w[0][0].len - 15.4).abs() < 1e-9);
        assert!((w[0][1].at - 15.4).abs() < 1e-9 && (w[0][1].source - 39.8).abs() < 1e-9);
        assert!(w.iter().all(|p| p.iter().map(|x| x.len).sum::<f64>() <= 30.0));
        assert!((unpack(&w[0], 16.0) - 40.4).abs() < 1e-9);
        assert!((unpack(&w[0], 1.0) - 10.8).abs() < 1e-9);
        assert!(pack(&[], 10.0).is_empty());
        assert!(pack(&[(5.0, 4.0), (f64::NAN, 1.0)], 10.0).is_empty());
    }
}
