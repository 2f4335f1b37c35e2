//! Which segments to merge: the smallest half once there are more than
//! [`SegmentConfig::merge_segments`](super::SegmentConfig::merge_segments) (so sizes grow
//! geometrically and each vector is rewritten O(log n) times), and any segment whose nodes are
//! mostly dead.

use super::types::{Inner, SegmentedIndex};

impl SegmentedIndex {
    /// Files of the segments to merge now: the smallest half when there are too many, and any
    /// segment that is mostly dead.
    pub(super) fn merge_victims(&self, inner: &Inner) -> Vec<String> {
        let live = |s: usize| inner.segments[s].index.get().len() - inner.dead[s].count;
        let mut order: Vec<usize> = (0..inner.segments.len()).collect();
        order.sort_by_key(|&s| live(s));
        let mut victims: Vec<usize> = Vec::new();
        if inner.segments.len() > self.config.merge_segments {
            victims.extend(&order[..(inner.segments.len() / 2).max(2)]);
        }
        for s in 0..inner.segments.len() {
            let len = inner.segments[s].index.get().len();
            if inner.dead[s].count > 0 && inner.dead[s].count * 2 >= len && !victims.contains(&s) {
                victims.push(s);
            }
        }
        victims.into_iter().map(|s| inner.segments[s].file.clone()).collect()
    }
}
