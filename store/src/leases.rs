//! Leases: a role that must run in one process at a time among those sharing the database (the
//! webhook dispatcher) is held by one holder until it stops renewing it; then another takes it
//! over, and with it what the dead holder left half-done.

use super::db::{OptionalExtension, params};

use super::backend::{Store, StoreResult};

/// What [`Store::take_lease`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lease {
    /// The caller held it already: renewed.
    Renewed,
    /// The caller holds it now: nobody did, or its holder let it expire (and so stopped; what it
    /// left half-done is the caller's to clean up).
    Taken,
    /// Another holder has it until it expires.
    Busy,
}

/// The SQL condition "the process `owner_column` names is alive": its lease `process:<owner>`
/// runs past the parameter `now_param` (ms since the epoch). Rows without an owner (claimed before
/// owners were recorded) have none alive.
pub(super) fn owner_alive(owner_column: &str, now_param: &str) -> String {
    format!(
        "({owner_column} IS NOT NULL AND EXISTS (SELECT 1 FROM leases l WHERE l.name = 'process:' || {owner_column} \
         AND l.expires_at > {now_param}))"
    )
}

impl Store {
    /// Renews this store's process lease until `now_ms + ttl_ms`: while it runs, what this store
    /// claimed is its own; once it lapses (the process died), any process recovers it.
    pub fn heartbeat(&self, now_ms: i64, ttl_ms: i64) -> StoreResult<()> {
        let owner = self.owner().to_string();
        self.take_lease(&format!("process:{owner}"), &owner, now_ms, ttl_ms).map(|_| ())
    }

    /// Gives this store's process lease up (at shutdown, once its work is finished or stopped).
    pub fn release_heartbeat(&self) -> StoreResult<()> {
        let owner = self.owner().to_string();
        self.release_lease(&format!("process:{owner}"), &owner)
    }

    /// Takes or renews the lease `name` for `holder` until `now_ms + ttl_ms` (milliseconds since
    /// the epoch), unless another holder's lease runs past `now_ms`.
    pub fn take_lease(&self, name: &str, holder: &str, now_ms: i64, ttl_ms: i64) -> StoreResult<Lease> {
        self.with(|c| {
            let current: Option<(String, i64)> = c
                .query_row("SELECT holder, expires_at FROM leases WHERE name = ?1", params![name], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()?;
            let lease = match &current {
                Some((h, _)) if h == holder => Lease::Renewed,
                Some((_, until)) if *until > now_ms => Lease::Busy,
                _ => Lease::Taken,
            };
            if lease != Lease::Busy {
                c.execute(
                    "INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at",
                    params![name, holder, now_ms.saturating_add(ttl_ms)],
                )?;
            }
            Ok(lease)
        })
    }

    /// Gives the lease up when `holder` has it (at shutdown: another can take it at once).
    pub fn release_lease(&self, name: &str, holder: &str) -> StoreResult<()> {
        self.with(|c| {
            c.execute("DELETE FROM leases WHERE name = ?1 AND holder = ?2", params![name, holder])?;
            Ok(())
        })
    }

    /// Deletes the expired leases whose name starts with `prefix` (leases named per day).
    pub fn prune_leases(&self, prefix: &str, now_ms: i64) -> StoreResult<usize> {
        self.with(|c| {
            c.execute(
                "DELETE FROM leases WHERE substr(name, 1, length(CAST(?1 AS TEXT))) = ?1 AND expires_at <= ?2",
                params![prefix, now_ms],
            )
        })
    }

    /// The holder of the lease `name` and when it expires (ms since the epoch), when held.
    pub fn lease(&self, name: &str) -> StoreResult<Option<(String, i64)>> {
        self.read(|c| {
            c.query_row("SELECT holder, expires_at FROM leases WHERE name = ?1", params![name], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_until_it_expires_or_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("kino.sqlite3")).unwrap();
        assert_eq!(store.take_lease("role", "a", 1_000, 100).unwrap(), Lease::Taken);
        assert_eq!(store.take_lease("role", "b", 1_050, 100).unwrap(), Lease::Busy);
        assert_eq!(store.take_lease("role", "a", 1_090, 100).unwrap(), Lease::Renewed);
        assert_eq!(store.lease("role").unwrap(), Some(("a".to_string(), 1_190)));
        assert_eq!(store.take_lease("role", "b", 1_189, 100).unwrap(), Lease::Busy, "renewed until 1190");
        assert_eq!(store.take_lease("role", "b", 1_190, 100).unwrap(), Lease::Taken, "a stopped renewing");
        assert_eq!(store.take_lease("role", "a", 1_200, 100).unwrap(), Lease::Busy);
        store.release_lease("role", "a").unwrap();
        assert_eq!(store.lease("role").unwrap().map(|(h, _)| h), Some("b".to_string()), "only the holder releases");
        store.release_lease("role", "b").unwrap();
        assert_eq!(store.lease("role").unwrap(), None);
        assert_eq!(store.take_lease("role", "a", 1_210, 100).unwrap(), Lease::Taken);
        assert_eq!(store.take_lease("other", "b", 1_210, 100).unwrap(), Lease::Taken, "leases are by name");
    }
}
