//! Prepared signals by (organisation, item), built on first use and kept within a budget of
//! bytes, the least recently used evicted first (a leaf module: the state holds it, [`super`]
//! fills it).
//!
//! An entry's size is [`Prepared::heap_size`]: its timelines, vectors and texts and the indexes
//! built over them. A read takes the shared lock and stamps the entry with a clock (an atomic), so
//! reads never wait for one another; an insert past the budget evicts the entries with the oldest
//! stamps until the rest fit. An entry larger than the whole budget is not cached: it is built
//! again when next read.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use kino::Prepared;

use crate::store::OrgId;

pub use crate::config::DEFAULT_SIGNALS_CACHE_BYTES;

/// An item's prepared signals, the version they were stored as, their size and when they were
/// last read.
#[derive(Debug)]
struct Entry {
    version: i64,
    prepared: Arc<Prepared>,
    bytes: usize,
    used: AtomicU64,
}

#[derive(Debug, Default)]
struct Entries {
    map: HashMap<(OrgId, String), Entry>,
    /// The sum of the entries' `bytes`.
    bytes: usize,
}

/// Prepared signals by (organisation, item) with the version they were stored as, built on first
/// use, at most [`SignalsCache::budget`] bytes of them.
#[derive(Debug)]
pub struct SignalsCache {
    budget: usize,
    clock: AtomicU64,
    entries: RwLock<Entries>,
}

impl Default for SignalsCache {
    fn default() -> Self {
        SignalsCache::with_budget(DEFAULT_SIGNALS_CACHE_BYTES)
    }
}

impl SignalsCache {
    /// A cache holding at most `budget` bytes of prepared signals.
    pub fn with_budget(budget: usize) -> SignalsCache {
        SignalsCache { budget, clock: AtomicU64::new(0), entries: RwLock::default() }
    }

    /// The most bytes it holds.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// The bytes it holds now and the number of items.
    pub fn usage(&self) -> (usize, usize) {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        (entries.bytes, entries.map.len())
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// The cached signals of an item when they are of `version`; a hit makes it the most recently
    /// used.
    pub(crate) fn get(&self, org: OrgId, item_id: &str, version: i64) -> Option<Arc<Prepared>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let entry = entries.map.get(&(org, item_id.to_string())).filter(|e| e.version == version)?;
        entry.used.store(self.tick(), Ordering::Relaxed);
        Some(entry.prepared.clone())
    }

    /// Caches `prepared` as `version` unless a newer version is cached already, then evicts the
    /// least recently used entries until the cache is within its budget.
    pub(crate) fn insert(&self, org: OrgId, item_id: &str, version: i64, prepared: Arc<Prepared>) {
        let bytes = prepared.heap_size() + item_id.len();
        let key = (org, item_id.to_string());
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.map.get(&key).is_some_and(|e| e.version > version) {
            return;
        }
        if let Some(old) = entries.map.remove(&key) {
            entries.bytes -= old.bytes;
        }
        if bytes > self.budget {
            return;
        }
        entries.bytes += bytes;
        entries.map.insert(key, Entry { version, prepared, bytes, used: AtomicU64::new(self.tick()) });
        if entries.bytes > self.budget {
            evict(&mut entries, self.budget);
        }
    }
}

/// Removes the least recently used entries until those left hold at most `budget` bytes.
fn evict(entries: &mut Entries, budget: usize) {
    let mut by_use: Vec<(u64, (OrgId, String))> =
        entries.map.iter().map(|(k, e)| (e.used.load(Ordering::Relaxed), k.clone())).collect();
    by_use.sort_unstable_by_key(|(used, _)| *used);
    for (_, key) in by_use {
        if entries.bytes <= budget {
            break;
        }
        if let Some(e) = entries.map.remove(&key) {
            entries.bytes -= e.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(id: &str) -> Arc<Prepared> {
        let mut s = kino::synth::demo_signals(id, 600.0, 1.0, 3);
        s.scene_embeddings = None;
        Arc::new(Prepared::new(s).unwrap())
    }

    /// More items than fit: the cache keeps within its bytes, and the least recently used go first
    /// (a read counts as a use).
    #[test]
    fn the_cache_keeps_within_its_bytes_evicting_the_least_recently_used() {
        let org = OrgId(1);
        let one = prepared("a").heap_size() + 1;
        let cache = SignalsCache::with_budget(3 * one + one / 2);
        for id in ["a", "b", "c"] {
            cache.insert(org, id, 1, prepared(id));
        }
        assert_eq!(cache.usage().1, 3);
        assert!(cache.get(org, "a", 1).is_some(), "a is read: b is now the least recently used");
        cache.insert(org, "d", 1, prepared("d"));
        let (bytes, count) = cache.usage();
        assert!(bytes <= cache.budget(), "{bytes} > {}", cache.budget());
        assert_eq!(count, 3);
        assert!(cache.get(org, "b", 1).is_none(), "the least recently used was evicted");
        for id in ["a", "c", "d"] {
            assert!(cache.get(org, id, 1).is_some(), "{id} stays");
        }
        for n in 0..20 {
            cache.insert(OrgId(2), &format!("x{n}"), 1, prepared("x"));
            assert!(cache.usage().0 <= cache.budget());
        }
        assert_eq!(cache.usage().1, 3);
        assert!(cache.get(OrgId(2), "x19", 1).is_some(), "the newest stays");
    }

    /// An entry larger than the budget is not cached; a newer version replaces an older one and an
    /// older one never replaces a newer.
    #[test]
    fn versions_replace_and_an_entry_past_the_budget_is_not_kept() {
        let org = OrgId(1);
        let small = SignalsCache::with_budget(1000);
        small.insert(org, "a", 1, prepared("a"));
        assert_eq!(small.usage(), (0, 0));
        let cache = SignalsCache::default();
        cache.insert(org, "a", 2, prepared("a"));
        cache.insert(org, "a", 1, prepared("a"));
        assert!(cache.get(org, "a", 2).is_some() && cache.get(org, "a", 1).is_none());
        cache.insert(org, "a", 3, prepared("a"));
        assert!(cache.get(org, "a", 3).is_some());
        assert_eq!(cache.usage().1, 1);
        assert_eq!(cache.usage().0, prepared("a").heap_size() + 1);
    }
}
