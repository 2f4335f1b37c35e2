//! Sign-in throttling: failed sign-ins by address, in this process (a leaf module).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// Failed sign-ins of one address within [`FAILURE_WINDOW`] after which it is refused until the
/// window has passed.
pub const MAX_FAILURES: u32 = 5;
/// The window of [`MAX_FAILURES`].
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Failed sign-ins by address, in this process: at most [`MAX_FAILURES`] within
/// [`FAILURE_WINDOW`].
#[derive(Debug, Default)]
pub struct Throttle {
    failures: Mutex<HashMap<String, (u32, i64)>>,
}

impl Throttle {
    /// Minutes left before the address may try again, when it is refused now.
    pub fn refused(&self, email: &str, now: i64) -> Option<u64> {
        let window = crate::store::millis(FAILURE_WINDOW);
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let &(count, first) = failures.get(email)?;
        let left = first + window - now;
        (count >= MAX_FAILURES && left > 0).then(|| (left as u64).div_ceil(60_000))
    }

    pub fn failed(&self, email: &str, now: i64) {
        let window = crate::store::millis(FAILURE_WINDOW);
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        // bounded memory: forget windows that have passed once the map grows
        if failures.len() > 10_000 {
            failures.retain(|_, (_, first)| *first + window > now);
        }
        let entry = failures.entry(email.to_string()).or_insert((0, now));
        if entry.1 + window <= now {
            *entry = (0, now);
        }
        entry.0 += 1;
    }

    pub fn succeeded(&self, email: &str) {
        self.failures.lock().unwrap_or_else(|e| e.into_inner()).remove(email);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_capped_per_address_within_the_window() {
        let t = Throttle::default();
        let window = crate::store::millis(FAILURE_WINDOW);
        for _ in 0..MAX_FAILURES {
            assert_eq!(t.refused("a@x.io", 1_000), None);
            t.failed("a@x.io", 1_000);
        }
        assert_eq!(t.refused("a@x.io", 1_000), Some(15));
        assert_eq!(t.refused("b@x.io", 1_000), None, "per address");
        assert_eq!(t.refused("a@x.io", 1_000 + window), None, "the window has passed");
        t.succeeded("a@x.io");
        assert_eq!(t.refused("a@x.io", 2_000), None);
    }
}
