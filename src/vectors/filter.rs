//! Filters evaluated *during* a search: a node that fails the filter is still walked through
//! (the graph stays connected) but never enters the results, so a search returns `k` allowed
//! nodes whenever `k` are reachable, instead of fewer after post-filtering.

use crate::vectors::set::ItemKind;

/// Decides whether a node may be returned. Implemented by closures `Fn(node, kind) -> bool`.
pub trait Filter: Sync {
    /// Whether `node` (of kind `kind`) may be in the results.
    fn allows(&self, node: u32, kind: ItemKind) -> bool;

    /// Every node the filter can allow, when it knows them (an allow-list does) and they are at
    /// most `limit`; a search may then score just those instead of walking the graph.
    fn candidates(&self, limit: usize) -> Option<Vec<u32>> {
        let _ = limit;
        None
    }
}

impl<F: Fn(u32, ItemKind) -> bool + Sync> Filter for F {
    fn allows(&self, node: u32, kind: ItemKind) -> bool {
        self(node, kind)
    }
}

/// Only the listed nodes (a bitset).
#[derive(Debug, Clone)]
pub struct AllowList {
    bits: Vec<u64>,
    count: usize,
}

impl AllowList {
    /// Allows exactly `nodes`.
    pub fn new(nodes: impl IntoIterator<Item = u32>) -> AllowList {
        let mut bits = Vec::new();
        let mut count = 0;
        for node in nodes {
            let (word, bit) = (node as usize / 64, node % 64);
            if word >= bits.len() {
                bits.resize(word + 1, 0);
            }
            if bits[word] & (1 << bit) == 0 {
                count += 1;
            }
            bits[word] |= 1 << bit;
        }
        AllowList { bits, count }
    }

    /// Number of distinct nodes allowed.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether nothing is allowed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The allowed nodes, ascending.
    pub fn nodes(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits
            .iter()
            .enumerate()
            .flat_map(|(w, bits)| (0..64u32).filter(move |b| bits & (1 << b) != 0).map(move |b| w as u32 * 64 + b))
    }
}

impl Filter for AllowList {
    #[inline]
    fn allows(&self, node: u32, _: ItemKind) -> bool {
        self.bits.get(node as usize / 64).is_some_and(|w| w & (1 << (node % 64)) != 0)
    }

    fn candidates(&self, limit: usize) -> Option<Vec<u32>> {
        (self.count <= limit).then(|| self.nodes().collect())
    }
}

/// Every node but the listed ones ("not this item").
#[derive(Debug, Clone, Default)]
pub struct Exclude(pub Vec<u32>);

impl Filter for Exclude {
    fn allows(&self, node: u32, _: ItemKind) -> bool {
        !self.0.contains(&node)
    }
}

/// Only nodes of the given kinds ("movies only", "no episodes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindFilter {
    mask: u8,
}

impl KindFilter {
    /// Allows only `kinds`.
    pub fn only(kinds: &[ItemKind]) -> KindFilter {
        KindFilter { mask: kinds.iter().fold(0, |m, k| m | 1 << k.code()) }
    }

    /// Allows every kind but `kinds`.
    pub fn except(kinds: &[ItemKind]) -> KindFilter {
        KindFilter { mask: !KindFilter::only(kinds).mask }
    }
}

impl Filter for KindFilter {
    #[inline]
    fn allows(&self, _: u32, kind: ItemKind) -> bool {
        self.mask & (1 << kind.code()) != 0
    }
}

/// Allows what every one of its filters allows.
pub struct AllOf<'a>(pub Vec<&'a dyn Filter>);

impl std::fmt::Debug for AllOf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AllOf({} filters)", self.0.len())
    }
}

impl Filter for AllOf<'_> {
    fn allows(&self, node: u32, kind: ItemKind) -> bool {
        self.0.iter().all(|f| f.allows(node, kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_allow_what_they_say() {
        let allow = AllowList::new([3, 70, 3]);
        assert_eq!(allow.len(), 2);
        assert_eq!(allow.nodes().collect::<Vec<_>>(), vec![3, 70]);
        assert!(
            allow.allows(70, ItemKind::Movie)
                && !allow.allows(4, ItemKind::Movie)
                && !allow.allows(9999, ItemKind::Movie)
        );
        let movies = KindFilter::only(&[ItemKind::Movie]);
        assert!(movies.allows(0, ItemKind::Movie) && !movies.allows(0, ItemKind::Series));
        let no_episodes = KindFilter::except(&[ItemKind::Episode]);
        assert!(no_episodes.allows(0, ItemKind::Series) && !no_episodes.allows(0, ItemKind::Episode));
        let not_three = Exclude(vec![3]);
        let both = AllOf(vec![&allow, &not_three]);
        assert!(both.allows(70, ItemKind::Movie) && !both.allows(3, ItemKind::Movie));
        let closure = |node: u32, _: ItemKind| node % 2 == 0;
        assert!(closure.allows(2, ItemKind::Other) && !Filter::allows(&closure, 3, ItemKind::Other));
    }
}
