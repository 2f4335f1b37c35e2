//! Fusing a text query's scores over a scene's channels (`Signals::scene_channels`).
//!
//! A scene is scored by a text query against its description (one sentence of everything
//! measured in it, the `scene_embeddings` vector) and against each channel's own vector: what is
//! seen, said, written on screen and heard. The description favours a query that mixes channels
//! ("a loud dark fight"); a channel favours a query about that channel alone, whose words the
//! description dilutes among the rest ("someone says the train leaves at noon"). [`Fusion::fuse`]
//! keeps both: the description's cosine, raised towards the best channel's when a channel matches
//! better. Pure arithmetic on cosines: the vectors and the indexes that find them are the
//! caller's.

/// A text query's cosines with one scene: with its description and with each channel's vector
/// (in the order of `SceneChannels::NAMES`: seen, said, written, heard; `None` where the scene has
/// no vector for that channel).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChannelScores {
    /// Cosine with the scene's description vector (the text part of its scene embedding).
    pub description: f32,
    /// Cosine with each channel's vector.
    pub channels: [Option<f32>; 4],
}

/// How the cosines are fused: `description_weight * d + (1 - description_weight) * max(d, best)`,
/// where `d` is the description's cosine and `best` the best channel's cosine plus that channel's
/// offset. A scene whose channels all match worse than its description keeps the description's
/// cosine; one channel that matches better lifts it, by at most `1 - description_weight` of the
/// difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// The share of the description in the fused score, in `[0, 1]`.
    pub description_weight: f32,
    /// Added to each channel's cosine before it competes (seen, said, written, heard): a channel
    /// whose short texts sit closer to every query than the description does is held back.
    pub offsets: [f32; 4],
}

impl Fusion {
    /// The fusion the service uses: half the description; what is said and written a little
    /// ahead (+0.05), what is seen and heard held back (-0.2: their short texts of generic words
    /// sit near many queries). Chosen by mean reciprocal rank on the tuning half of the
    /// scene-search evaluation (`data/eval/scene-search.json`, `KINO_SEARCH_SWEEP=1
    /// scripts/scene-search-eval.sh`; docs/media.md), never on its held-out half.
    pub const DEFAULT: Fusion = Fusion { description_weight: 0.5, offsets: [-0.2, 0.05, 0.05, -0.2] };

    /// The fused cosine of one scene, in `[-1, 1]` when the cosines are.
    pub fn fuse(&self, s: &ChannelScores) -> f32 {
        let best = s
            .channels
            .iter()
            .zip(self.offsets)
            .filter_map(|(c, offset)| c.map(|c| c + offset))
            .fold(f32::NEG_INFINITY, f32::max);
        let d = s.description;
        let w = self.description_weight.clamp(0.0, 1.0);
        (w * d + (1.0 - w) * d.max(best)).clamp(-1.0, 1.0)
    }
}

impl Default for Fusion {
    fn default() -> Fusion {
        Fusion::DEFAULT
    }
}

/// The dot product of two slices over their common length (the cosine of two unit vectors, when
/// a shorter channel vector lies in the first coordinates of a longer query's space).
pub fn dot_prefix(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_better_channel_lifts_the_score_and_a_worse_one_does_not_lower_it() {
        let f = Fusion { description_weight: 0.5, offsets: [0.0; 4] };
        let only = ChannelScores { description: 0.3, channels: [None; 4] };
        assert_eq!(f.fuse(&only), 0.3);
        let worse = ChannelScores { description: 0.3, channels: [Some(0.1), None, Some(0.2), None] };
        assert_eq!(f.fuse(&worse), 0.3);
        let better = ChannelScores { description: 0.3, channels: [Some(0.1), Some(0.7), None, None] };
        assert!((f.fuse(&better) - 0.5).abs() < 1e-6, "{}", f.fuse(&better));
        let all_description = Fusion { description_weight: 1.0, ..f };
        assert_eq!(all_description.fuse(&better), 0.3);
        let held_back = Fusion { offsets: [0.0, -0.5, 0.0, 0.0], ..f };
        assert_eq!(held_back.fuse(&better), 0.3);
    }

    #[test]
    fn the_fused_score_stays_a_cosine() {
        let f = Fusion { description_weight: -3.0, offsets: [5.0; 4] };
        let s = ChannelScores { description: 0.9, channels: [Some(0.95); 4] };
        assert_eq!(f.fuse(&s), 1.0);
        // The service's: a said channel just above the description lifts it, a seen one does not.
        let d = Fusion::DEFAULT;
        let said = ChannelScores { description: 0.3, channels: [None, Some(0.3), None, None] };
        let seen = ChannelScores { description: 0.3, channels: [Some(0.45), None, None, None] };
        assert!(d.fuse(&said) > 0.3 && d.fuse(&seen) == 0.3);
        assert_eq!(dot_prefix(&[1.0, 2.0, 3.0], &[1.0, 1.0]), 3.0);
    }
}
