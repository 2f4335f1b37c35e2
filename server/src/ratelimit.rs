//! Per-organisation request counting in fixed windows, exact under concurrency (one mutex).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::store::OrgId;

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

/// Counts requests per organisation.
#[derive(Debug)]
pub struct RateLimiter {
    limit: u32,
    window: u64,
    counts: Mutex<HashMap<OrgId, (u64, u32)>>,
}

impl RateLimiter {
    /// `limit` requests per `window` seconds.
    pub fn new(limit: u32, window: u64) -> RateLimiter {
        RateLimiter { limit, window: window.max(1), counts: Mutex::default() }
    }

    /// Counts one request of `org`.
    pub fn hit(&self, org: OrgId) -> Quota {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let start = now - now % self.window;
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let entry = counts.entry(org).or_insert((start, 0));
        if entry.0 != start {
            *entry = (start, 0);
        }
        let allowed = entry.1 < self.limit;
        if allowed {
            entry.1 += 1;
        }
        Quota { limit: self.limit, remaining: self.limit - entry.1, reset: start + self.window - now, allowed }
    }
}
