//! Distances, all through simsimd, behind one small interface.
//!
//! Every metric is turned into a *distance* where lower is nearer, so that the exact index, the
//! HNSW search and the HNSW build all order candidates the same way:
//!
//! | metric | stored vectors | distance |
//! |---|---|---|
//! | [`Metric::Cosine`] | L2-normalised | `1 - a·b` (so a dot product at search time) |
//! | [`Metric::Dot`] | as given | `-a·b` |
//! | [`Metric::L2`] | as given | `‖a - b‖²` |

use simsimd::SpatialSimilarity;

/// How two vectors are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Cosine similarity; vectors are stored L2-normalised and compared by dot product.
    Cosine,
    /// Inner product of the vectors as given.
    Dot,
    /// Squared Euclidean distance.
    L2,
}

impl Metric {
    /// The code stored in index files.
    pub(crate) fn code(self) -> u32 {
        match self {
            Metric::Cosine => 0,
            Metric::Dot => 1,
            Metric::L2 => 2,
        }
    }

    /// The metric of a stored code, if it is one.
    pub(crate) fn from_code(code: u32) -> Option<Metric> {
        match code {
            0 => Some(Metric::Cosine),
            1 => Some(Metric::Dot),
            2 => Some(Metric::L2),
            _ => None,
        }
    }

    /// The metric's name (`cosine`, `dot`, `l2`).
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Cosine => "cosine",
            Metric::Dot => "dot",
            Metric::L2 => "l2",
        }
    }

    /// Parses a name written by [`Metric::as_str`].
    pub fn parse(name: &str) -> Option<Metric> {
        match name {
            "cosine" => Some(Metric::Cosine),
            "dot" => Some(Metric::Dot),
            "l2" => Some(Metric::L2),
            _ => None,
        }
    }

    /// The distance between `a` and `b` (lower is nearer). Slices of different lengths are at
    /// infinite distance; callers check dimensions before searching.
    #[inline]
    pub fn distance(self, a: &[f32], b: &[f32]) -> f32 {
        match self {
            Metric::Cosine => 1.0 - dot(a, b),
            Metric::Dot => -dot(a, b),
            Metric::L2 => l2sq(a, b),
        }
    }

    /// Similarity of a distance this metric produced: the cosine (or dot product) itself, or the
    /// negated squared distance for L2. Higher is more similar.
    pub fn similarity(self, distance: f32) -> f32 {
        match self {
            Metric::Cosine => 1.0 - distance,
            Metric::Dot | Metric::L2 => -distance,
        }
    }
}

/// Dot product (simsimd); `-inf` when the lengths differ, so the pair is never chosen.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    <f32 as SpatialSimilarity>::dot(a, b).map_or(f32::NEG_INFINITY, |d| d as f32)
}

/// Cosine similarity (simsimd computes the cosine *distance*, `1 - cos`); 0 for a zero vector.
#[inline]
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    <f32 as SpatialSimilarity>::cos(a, b).map_or(f32::NEG_INFINITY, |d| 1.0 - d as f32)
}

/// Squared Euclidean distance (simsimd); `+inf` when the lengths differ.
#[inline]
pub fn l2sq(a: &[f32], b: &[f32]) -> f32 {
    <f32 as SpatialSimilarity>::l2sq(a, b).map_or(f32::INFINITY, |d| d as f32)
}

/// Scales `v` to unit length in place; returns false (and leaves it) when its norm is zero or
/// not finite.
pub fn normalize(v: &mut [f32]) -> bool {
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if !(norm.is_finite() && norm > 0.0) {
        return false;
    }
    let scale = (1.0 / norm) as f32;
    v.iter_mut().for_each(|x| *x *= scale);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn matches_naive_formulas() {
        let a: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..37).map(|i| (i as f32 * 0.11).cos()).collect();
        assert!((dot(&a, &b) - naive_dot(&a, &b)).abs() < 1e-4);
        let l2: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
        assert!((l2sq(&a, &b) - l2).abs() < 1e-3);
        let cos = naive_dot(&a, &b) / (naive_dot(&a, &a).sqrt() * naive_dot(&b, &b).sqrt());
        assert!((cosine(&a, &b) - cos).abs() < 1e-4);
    }

    #[test]
    fn normalised_cosine_is_a_dot_product() {
        let mut a = vec![3.0, 4.0, 0.0];
        let mut b = vec![1.0, 1.0, 1.0];
        assert!(normalize(&mut a) && normalize(&mut b));
        assert!((Metric::Cosine.distance(&a, &b) - (1.0 - cosine(&a, &b))).abs() < 1e-6);
        assert!(!normalize(&mut [0.0, 0.0]));
    }

    #[test]
    fn different_lengths_are_never_near() {
        assert_eq!(Metric::L2.distance(&[1.0], &[1.0, 2.0]), f32::INFINITY);
        assert_eq!(Metric::Cosine.distance(&[1.0], &[1.0, 2.0]), f32::INFINITY);
    }

    #[test]
    fn names_round_trip() {
        for m in [Metric::Cosine, Metric::Dot, Metric::L2] {
            assert_eq!(Metric::parse(m.as_str()), Some(m));
            assert_eq!(Metric::from_code(m.code()), Some(m));
        }
    }
}
