//! Seeded clustered vectors for tests, benchmarks and the report program: realistic enough that
//! approximate search has something to get wrong (points crowd around centres), reproducible
//! across platforms (SplitMix64 + Box-Muller).

use crate::synth::SplitMix64;

/// `n` vectors of `dim` floats, row-major, drawn around `clusters` Gaussian centres (spread 1)
/// with Gaussian noise of spread 0.5, from `seed`. Queries drawn with another seed and the same
/// `clusters` fall in the same regions, since the centres depend only on `dim` and `clusters`.
pub fn clustered(n: usize, dim: usize, clusters: usize, seed: u64) -> Vec<f32> {
    let clusters = clusters.max(1);
    let mut centre_rng = SplitMix64::new(0x6b69_6e6f ^ (dim as u64) << 20 ^ clusters as u64);
    let centres: Vec<f32> = (0..clusters * dim).map(|_| centre_rng.normal() as f32).collect();
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n * dim);
    for _ in 0..n {
        let c = rng.below(clusters);
        let centre = &centres[c * dim..(c + 1) * dim];
        out.extend(centre.iter().map(|x| x + 0.5 * rng.normal() as f32));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeded_and_shaped() {
        let a = super::clustered(10, 4, 3, 1);
        assert_eq!(a.len(), 40);
        assert_eq!(a, super::clustered(10, 4, 3, 1));
        assert_ne!(a, super::clustered(10, 4, 3, 2));
    }
}
