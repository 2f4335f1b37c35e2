//! Sign-in throttling, in this process (a leaf module): failed sign-ins by address and by source
//! (the client's network address), each counted within [`FAILURE_WINDOW`].
//!
//! Memory is bounded whatever the callers send: an address is kept as a keyed 64-bit hash
//! (SipHash with a key drawn when the process starts), never as its text, and each map holds at
//! most a fixed number of windows, the oldest forgotten first when it is full, so the throttle
//! holds at most about 11 MB (100,000 addresses) plus 1 MB (10,000 sources).

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hash, RandomState};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

/// Failed sign-ins of one address within [`FAILURE_WINDOW`] after which it is refused until the
/// window has passed.
pub const MAX_FAILURES: u32 = 5;
/// The window of [`MAX_FAILURES`] and of the per-source limit.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
pub use crate::config::DEFAULT_MAX_SOURCE_FAILURES;
/// Addresses whose failures are remembered at once; past it the oldest window is forgotten.
pub const MAX_ADDRESSES: usize = 100_000;
/// Sources whose failures are remembered at once; past it the oldest window is forgotten.
pub const MAX_SOURCES: usize = 10_000;

/// Why a sign-in is refused before its password is checked, with the minutes left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The address failed [`MAX_FAILURES`] times within the window.
    Address(u64),
    /// The source failed its limit of times within the window.
    Source(u64),
}

/// Failed sign-ins by address and by source, in this process.
#[derive(Debug)]
pub struct Throttle {
    /// The key of the addresses' hash.
    key: RandomState,
    /// Failures from one source after which it is refused; 0: no per-source limit.
    max_source_failures: u32,
    addresses: Mutex<Windows<u64>>,
    sources: Mutex<Windows<IpAddr>>,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::new(DEFAULT_MAX_SOURCE_FAILURES)
    }
}

impl Throttle {
    /// A throttle that refuses a source after `max_source_failures` failures within the window
    /// (0: never).
    pub fn new(max_source_failures: u32) -> Throttle {
        Throttle {
            key: RandomState::new(),
            max_source_failures,
            addresses: Mutex::new(Windows::new(MAX_ADDRESSES)),
            sources: Mutex::new(Windows::new(MAX_SOURCES)),
        }
    }

    /// Whether a sign-in of `email` from `source` is refused now, and for how many minutes.
    /// `source` is the peer as the server's `serve::peer_of` gives it (`None`: not known, as in a
    /// test without a socket; all such sign-ins count as one source).
    pub fn refused(&self, email: &str, source: Option<IpAddr>, now: i64) -> Option<Refusal> {
        let window = crate::store::millis(FAILURE_WINDOW);
        let minutes = |left: i64| (left.max(0) as u64).div_ceil(60_000);
        let addresses = self.addresses.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(left) = addresses.refused(&self.key.hash_one(email), MAX_FAILURES, now, window) {
            return Some(Refusal::Address(minutes(left)));
        }
        drop(addresses);
        if self.max_source_failures == 0 {
            return None;
        }
        let sources = self.sources.lock().unwrap_or_else(|e| e.into_inner());
        let source = source.unwrap_or(IpAddr::from([0u8; 4]));
        sources.refused(&source, self.max_source_failures, now, window).map(|left| Refusal::Source(minutes(left)))
    }

    /// Counts a failed sign-in of `email` from `source`.
    pub fn failed(&self, email: &str, source: Option<IpAddr>, now: i64) {
        let window = crate::store::millis(FAILURE_WINDOW);
        let key = self.key.hash_one(email);
        self.addresses.lock().unwrap_or_else(|e| e.into_inner()).add(key, now, window);
        if self.max_source_failures > 0 {
            let source = source.unwrap_or(IpAddr::from([0u8; 4]));
            self.sources.lock().unwrap_or_else(|e| e.into_inner()).add(source, now, window);
        }
    }

    /// Forgets the failures of `email` (its source's are kept: they count every address).
    pub fn succeeded(&self, email: &str) {
        let key = self.key.hash_one(email);
        self.addresses.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
    }

    /// The windows held: addresses, sources.
    pub fn len(&self) -> (usize, usize) {
        let addresses = self.addresses.lock().unwrap_or_else(|e| e.into_inner()).open.len();
        (addresses, self.sources.lock().unwrap_or_else(|e| e.into_inner()).open.len())
    }

    /// Whether no window is held.
    pub fn is_empty(&self) -> bool {
        self.len() == (0, 0)
    }
}

/// Failure windows by key, at most `cap` of them; when full, the window opened first is
/// forgotten first.
#[derive(Debug)]
struct Windows<K> {
    open: HashMap<K, Window>,
    /// The windows in the order they opened: key, window number, opening time. A record whose
    /// number is not its key's window's any more (removed, or reopened) is stale and skipped.
    order: VecDeque<(K, u64, i64)>,
    cap: usize,
    opened: u64,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    failures: u32,
    number: u64,
    first: i64,
}

impl<K: Hash + Eq + Copy> Windows<K> {
    fn new(cap: usize) -> Self {
        Windows { open: HashMap::new(), order: VecDeque::new(), cap: cap.max(1), opened: 0 }
    }

    /// The milliseconds left of `key`'s window when it holds `max` failures or more.
    fn refused(&self, key: &K, max: u32, now: i64, window: i64) -> Option<i64> {
        let w = self.open.get(key)?;
        let left = w.first + window - now;
        (w.failures >= max && left > 0).then_some(left)
    }

    fn add(&mut self, key: K, now: i64, window: i64) {
        while let Some(&(_, _, first)) = self.order.front()
            && first + window <= now
        {
            self.forget_oldest();
        }
        if let Some(w) = self.open.get_mut(&key)
            && w.first + window > now
        {
            w.failures = w.failures.saturating_add(1);
            return;
        }
        self.open.remove(&key);
        // Stale records are bounded too: when they are as many as the cap, they are dropped
        // (at most once per `cap` windows opened, so each opening costs O(1) on average).
        if self.order.len() >= 2 * self.cap {
            let open = &self.open;
            self.order.retain(|(key, number, _)| open.get(key).is_some_and(|w| w.number == *number));
        }
        while self.open.len() >= self.cap {
            self.forget_oldest();
        }
        self.opened += 1;
        self.open.insert(key, Window { failures: 1, number: self.opened, first: now });
        self.order.push_back((key, self.opened, now));
    }

    fn remove(&mut self, key: &K) {
        self.open.remove(key);
    }

    fn forget_oldest(&mut self) {
        if let Some((key, number, _)) = self.order.pop_front()
            && self.open.get(&key).is_some_and(|w| w.number == number)
        {
            self.open.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_capped_per_address_within_the_window() {
        let t = Throttle::new(0);
        let window = crate::store::millis(FAILURE_WINDOW);
        for _ in 0..MAX_FAILURES {
            assert_eq!(t.refused("a@x.io", None, 1_000), None);
            t.failed("a@x.io", None, 1_000);
        }
        assert_eq!(t.refused("a@x.io", None, 1_000), Some(Refusal::Address(15)));
        assert_eq!(t.refused("b@x.io", None, 1_000), None, "per address");
        assert_eq!(t.refused("a@x.io", None, 1_000 + window), None, "the window has passed");
        t.succeeded("a@x.io");
        assert_eq!(t.refused("a@x.io", None, 2_000), None);
    }

    #[test]
    fn memory_is_bounded_by_the_number_of_windows_whatever_the_addresses() {
        let t = Throttle::new(0);
        // Long, distinct addresses, all within one window: the map keeps hashes, at most the cap.
        let long = "x".repeat(10_000);
        for i in 0..MAX_ADDRESSES + 5_000 {
            t.failed(&format!("{long}{i}@example.com"), None, 1_000 + i as i64);
            if i % 10_000 == 0 {
                assert!(t.len().0 <= MAX_ADDRESSES);
            }
        }
        assert_eq!(t.len().0, MAX_ADDRESSES, "full, not past it");
        let addresses = t.addresses.lock().unwrap();
        assert!(addresses.order.len() <= 2 * MAX_ADDRESSES);
        drop(addresses);
        // The oldest went first: the first address is forgotten, the last is remembered.
        for _ in 1..MAX_FAILURES {
            t.failed(&format!("{long}0@example.com"), None, 900_000);
            t.failed(&format!("{long}{}@example.com", MAX_ADDRESSES + 4_999), None, 900_000);
        }
        let last = format!("{long}{}@example.com", MAX_ADDRESSES + 4_999);
        assert!(t.refused(&last, None, 900_000).is_some(), "the newest window kept its failures");
        assert!(t.refused(&format!("{long}0@example.com"), None, 900_000).is_none(), "the oldest was forgotten");
    }

    #[test]
    fn removed_and_reopened_windows_leave_the_order_bounded() {
        let mut w = Windows::new(3);
        for i in 0..100 {
            w.add(1u64, i, 1_000_000);
            w.remove(&1);
            w.add(2, i, 1_000_000);
        }
        assert!(w.open.len() <= 3 && w.order.len() <= 6, "{} {}", w.open.len(), w.order.len());
        assert_eq!(w.open.get(&2).map(|w| w.failures), Some(100), "a live window is not forgotten for stale ones");
    }

    #[test]
    fn a_source_that_fails_too_often_is_refused_whatever_the_address() {
        let t = Throttle::new(3);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        for i in 0..3 {
            assert_eq!(t.refused(&format!("user{i}@x.io"), Some(a), 1_000), None);
            t.failed(&format!("user{i}@x.io"), Some(a), 1_000);
        }
        assert_eq!(t.refused("someone.else@x.io", Some(a), 1_000), Some(Refusal::Source(15)));
        assert_eq!(t.refused("someone.else@x.io", Some(b), 1_000), None, "another source is not refused");
        t.succeeded("user0@x.io");
        assert!(t.refused("user0@x.io", Some(a), 2_000).is_some(), "a success elsewhere does not clear the source");
        let window = crate::store::millis(FAILURE_WINDOW);
        assert_eq!(t.refused("someone.else@x.io", Some(a), 1_000 + window), None, "the window has passed");
        assert_eq!(Throttle::new(0).refused("x@x.io", Some(a), 0), None, "0: no per-source limit");
    }
}
