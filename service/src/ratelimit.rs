//! Per-organisation request counting in fixed windows. The counters live in the database (one
//! upsert per counted request), so they are exact under concurrency, shared by every process on
//! the database, and survive a restart.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::store::{OrgId, Store, StoreResult};

/// The outcome of counting one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Requests allowed per window.
    pub limit: u32,
    /// Requests left in this window after this one.
    pub remaining: u32,
    /// Seconds until the window resets.
    pub reset: u64,
    /// Whether this request is within the limit.
    pub allowed: bool,
}

/// Counts requests per organisation: `limit` per window of `window` seconds.
#[derive(Debug)]
pub struct RateLimiter {
    limit: u32,
    window: u64,
}

impl RateLimiter {
    /// `limit` requests per `window` seconds.
    pub fn new(limit: u32, window: u64) -> RateLimiter {
        RateLimiter { limit, window: window.max(1) }
    }

    /// Counts one request of `org` now.
    pub fn hit(&self, store: &Store, org: OrgId) -> StoreResult<Quota> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.hit_at(store, org, now)
    }

    /// Counts one request of `org` at `now` (seconds since the epoch).
    pub fn hit_at(&self, store: &Store, org: OrgId, now: u64) -> StoreResult<Quota> {
        let start = now - now % self.window;
        let start_db = i64::try_from(start).unwrap_or(i64::MAX);
        let count = store.count_request(org, start_db, i64::from(self.limit) + 1)?;
        let used = u32::try_from(count.clamp(0, i64::from(self.limit))).unwrap_or(self.limit);
        Ok(Quota {
            limit: self.limit,
            remaining: self.limit - used,
            reset: start + self.window - now,
            allowed: count <= i64::from(self.limit),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_exact_and_counts_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kino.sqlite3");
        let limiter = RateLimiter::new(3, 3600);
        let (acme, rival) = (OrgId(1), OrgId(2));
        let t = 7200 + 10;
        {
            let store = Store::open(&path).unwrap();
            let q = limiter.hit_at(&store, acme, t).unwrap();
            assert_eq!(q, Quota { limit: 3, remaining: 2, reset: 3590, allowed: true });
            assert!(limiter.hit_at(&store, acme, t + 1).unwrap().allowed);
            assert_eq!(limiter.hit_at(&store, rival, t + 1).unwrap().remaining, 2, "organisations count apart");
        }
        let store = Store::open(&path).unwrap();
        let q = limiter.hit_at(&store, acme, t + 2).unwrap();
        assert_eq!((q.allowed, q.remaining), (true, 0), "the count survived reopening the database");
        for _ in 0..5 {
            let q = limiter.hit_at(&store, acme, t + 3).unwrap();
            assert_eq!((q.allowed, q.remaining), (false, 0));
        }
        let q = limiter.hit_at(&store, acme, 10_800).unwrap();
        assert_eq!(q, Quota { limit: 3, remaining: 2, reset: 3600, allowed: true }, "a new window starts at 0");
    }

    #[test]
    fn a_database_of_an_earlier_version_gains_the_counters() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite3");
        let schema = include_str!("../../store/src/schema.sql");
        let earlier = &schema[..schema.find("-- Portal request counters").unwrap()];
        rusqlite::Connection::open(&path).unwrap().execute_batch(earlier).unwrap();
        let store = Store::open(&path).unwrap();
        assert!(RateLimiter::new(1, 60).hit_at(&store, OrgId(1), 0).unwrap().allowed);
        assert!(!RateLimiter::new(1, 60).hit_at(&store, OrgId(1), 1).unwrap().allowed);
    }

    #[test]
    fn a_zero_limit_refuses_everything() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("kino.sqlite3")).unwrap();
        let q = RateLimiter::new(0, 60).hit_at(&store, OrgId(1), 0).unwrap();
        assert_eq!(q, Quota { limit: 0, remaining: 0, reset: 60, allowed: false });
    }
}
