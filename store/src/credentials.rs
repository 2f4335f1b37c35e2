//! What admits a request of an organisation: its API keys and OAuth clients (only their hashes
//! are stored), and its rate-limit counter.

use super::backend::{Store, StoreResult};
use super::db::{OptionalExtension, params};
use super::types::{OrgId, now};

impl Store {
    // ---- API keys ----

    /// Stores the hash of a new API key.
    pub fn add_key(&self, org: OrgId, hash: &str, prefix: &str) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "INSERT INTO api_keys (hash, org_id, prefix, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![hash, org.0, prefix, now()],
            )?;
            Ok(())
        })
    }

    /// The organisation of an unrevoked key hash.
    pub fn org_of_key(&self, hash: &str) -> StoreResult<Option<OrgId>> {
        self.read(|c| {
            c.query_row("SELECT org_id FROM api_keys WHERE hash = ?1 AND revoked_at IS NULL", params![hash], |r| {
                Ok(OrgId(r.get(0)?))
            })
            .optional()
        })
    }

    /// The organisation of a live key and whether it has the catalog `catalog`, in one call (the
    /// previews' credential and catalog check).
    pub fn org_of_key_in_catalog(&self, hash: &str, catalog: &str) -> StoreResult<Option<(OrgId, bool)>> {
        self.read(|c| {
            c.query_row(
                "SELECT k.org_id, CASE WHEN EXISTS (SELECT 1 FROM catalogs c WHERE c.org_id = k.org_id AND c.name = ?2) \
                 THEN 1 ELSE 0 END FROM api_keys k WHERE k.hash = ?1 AND k.revoked_at IS NULL",
                params![hash, catalog],
                |r| Ok((OrgId(r.get(0)?), r.get::<_, i64>(1)? == 1)),
            )
            .optional()
        })
    }

    /// Revokes the organisation's live key with this prefix (and, given `hash`, exactly that key).
    /// Returns how many live keys matched; nothing is revoked unless exactly one did, so an
    /// ambiguous prefix never revokes several keys.
    pub fn revoke_key(&self, org: OrgId, prefix: &str, hash: Option<&str>) -> StoreResult<usize> {
        self.with(|c| {
            let filter =
                "org_id = ?1 AND prefix = ?2 AND (CAST(?3 AS TEXT) IS NULL OR hash = ?3) AND revoked_at IS NULL";
            let n: usize = c.query_row(
                &format!("SELECT COUNT(*) FROM api_keys WHERE {filter}"),
                params![org.0, prefix, hash],
                |r| r.get(0),
            )?;
            if n == 1 {
                c.execute(
                    &format!("UPDATE api_keys SET revoked_at = ?4 WHERE {filter}"),
                    params![org.0, prefix, hash, now()],
                )?;
            }
            Ok(n)
        })
    }

    /// Keys of an organisation: (prefix, created, revoked).
    pub fn keys(&self, org: OrgId) -> StoreResult<Vec<(String, String, Option<String>)>> {
        self.read(|c| {
            c.query_map(
                "SELECT prefix, created_at, revoked_at FROM api_keys WHERE org_id = ?1 ORDER BY created_at",
                params![org.0],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
        })
    }

    // ---- OAuth clients ----

    /// Stores an OAuth client (its secret hashed).
    pub fn add_client(&self, org: OrgId, client_id: &str, secret_hash: &str) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "INSERT INTO oauth_clients (client_id, secret_hash, org_id, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![client_id, secret_hash, org.0, now()],
            )?;
            Ok(())
        })
    }

    /// A live OAuth client: (organisation, secret hash).
    pub fn client(&self, client_id: &str) -> StoreResult<Option<(OrgId, String)>> {
        self.read(|c| {
            c.query_row(
                "SELECT org_id, secret_hash FROM oauth_clients WHERE client_id = ?1 AND revoked_at IS NULL",
                params![client_id],
                |r| Ok((OrgId(r.get(0)?), r.get(1)?)),
            )
            .optional()
        })
    }

    /// The organisation's OAuth clients: (client id, created, revoked), oldest first; never the
    /// secret (only its hash is stored).
    pub fn clients(&self, org: OrgId) -> StoreResult<Vec<(String, String, Option<String>)>> {
        self.read(|c| {
            c.query_map("SELECT client_id, created_at, revoked_at FROM oauth_clients WHERE org_id = ?1 ORDER BY created_at, client_id", params![org.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        })
    }

    /// Revokes the organisation's live client `client_id`; whether there was one.
    pub fn revoke_client(&self, org: OrgId, client_id: &str) -> StoreResult<bool> {
        self.with(|c| {
            let n = c.execute(
                "UPDATE oauth_clients SET revoked_at = ?3 WHERE org_id = ?1 AND client_id = ?2 AND revoked_at IS NULL",
                params![org.0, client_id, now()],
            )?;
            Ok(n == 1)
        })
    }

    /// Whether `client_id` is a live (unrevoked) client of the organisation: one primary-key
    /// lookup, made for every access token presented, so a revocation (by any process on this
    /// database) takes effect at once.
    pub fn client_is_live(&self, org: OrgId, client_id: &str) -> StoreResult<bool> {
        self.read(|c| {
            c.query_row(
                "SELECT 1 FROM oauth_clients WHERE client_id = ?1 AND org_id = ?2 AND revoked_at IS NULL",
                params![client_id, org.0],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
        })
    }

    // ---- rate limits ----

    /// Counts one request of the organisation in the window starting at `window_start` (seconds
    /// since the epoch) and returns the window's count including it, capped at `cap` so refused
    /// requests do not grow it without end. One statement (an upsert), so the count is exact
    /// under concurrency and across processes, and survives a restart.
    pub fn count_request(&self, org: OrgId, window_start: i64, cap: i64) -> StoreResult<i64> {
        self.write_one(|c| {
            c.query_row(
                &format!(
                    "INSERT INTO rate_limits (org_id, window_start, count) VALUES (?1, ?2, 1)
                 ON CONFLICT (org_id) DO UPDATE SET
                     count = CASE WHEN rate_limits.window_start = excluded.window_start
                                  THEN {} ELSE 1 END,
                     window_start = excluded.window_start
                 RETURNING count",
                    c.dialect().least("rate_limits.count + 1", "?3")
                ),
                params![org.0, window_start, cap],
                |r| r.get(0),
            )
        })
    }
}
