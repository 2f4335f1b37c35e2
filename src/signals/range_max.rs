//! Range maxima over fixed-point timelines: a block sparse table for arbitrary ranges, built once
//! per item.

/// Samples per block; a query scans at most two partial blocks.
const BLOCK: usize = 32;

/// Maximum of any sample range in O(1) table look-ups plus two scans of at most `BLOCK - 1`
/// samples. Memory: the values plus `n / 32 * log2(n / 32)` block maxima.
#[derive(Debug, Clone)]
pub struct RangeMax {
    values: Vec<u32>,
    /// `levels[l][b]` = max of blocks `b .. b + 2^l`.
    levels: Vec<Vec<u32>>,
}

impl RangeMax {
    /// Builds the table over `values`.
    pub fn new(values: Vec<u32>) -> RangeMax {
        let blocks: Vec<u32> = values.chunks(BLOCK).map(|c| c.iter().copied().max().unwrap_or(0)).collect();
        let mut levels = vec![blocks];
        let mut width = 1;
        while 2 * width <= levels[0].len() {
            let prev = levels.last().expect("at least one level");
            let next: Vec<u32> = (0..prev.len() - width).map(|b| prev[b].max(prev[b + width])).collect();
            levels.push(next);
            width *= 2;
        }
        RangeMax { values, levels }
    }

    /// The bytes of the values and the block maxima.
    pub(crate) fn heap_size(&self) -> usize {
        std::mem::size_of::<RangeMax>()
            + std::mem::size_of_val(self.values.as_slice())
            + self.levels.iter().map(|l| std::mem::size_of_val(l) + std::mem::size_of_val(l.as_slice())).sum::<usize>()
    }

    /// The values the table was built over.
    pub fn values(&self) -> &[u32] {
        &self.values
    }

    /// Maximum of `values[lo..hi]`; 0 for an empty range.
    pub fn max(&self, lo: usize, hi: usize) -> u32 {
        let hi = hi.min(self.values.len());
        if lo >= hi {
            return 0;
        }
        let (first, last) = (lo / BLOCK, (hi - 1) / BLOCK);
        if first == last {
            return scan(&self.values[lo..hi]);
        }
        let mut m = scan(&self.values[lo..(first + 1) * BLOCK]).max(scan(&self.values[last * BLOCK..hi]));
        if last > first + 1 {
            let (a, b) = (first + 1, last);
            let level = (usize::BITS - 1 - (b - a).leading_zeros()) as usize;
            let table = &self.levels[level];
            m = m.max(table[a]).max(table[b - (1 << level)]);
        }
        m
    }
}

fn scan(values: &[u32]) -> u32 {
    values.iter().copied().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn range_max_matches_scan(values in proptest::collection::vec(0u32..1000, 0..300), a in 0usize..320, b in 0usize..320) {
            let (lo, hi) = (a.min(b), a.max(b));
            let table = RangeMax::new(values.clone());
            let expected = values.get(lo..hi.min(values.len())).map(scan).unwrap_or(0);
            prop_assert_eq!(table.max(lo, hi), expected);
        }

    }
}
