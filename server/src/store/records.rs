//! The catalog's records: organisations, keys and clients, catalogs, items, signals, tasks, results,
//! the job queue, media generations and rate-limit counters.

use super::db::{Conn, DbResult, OptionalExtension, Row, params};
use super::*;

const LEASE_SECONDS: i64 = 300;

impl Store {
    // ---- organisations, keys, catalogs ----

    /// Creates an organisation (or returns the existing one of that name).
    pub fn ensure_org(&self, name: &str) -> StoreResult<(OrgId, bool)> {
        self.with(|c| {
            if let Some(id) =
                c.query_row("SELECT id FROM orgs WHERE name = ?1", params![name], |r| r.get(0)).optional()?
            {
                return Ok((OrgId(id), false));
            }
            let id = c.query_row(
                "INSERT INTO orgs (name, created_at) VALUES (?1, ?2) RETURNING id",
                params![name, now()],
                |r| r.get(0),
            )?;
            Ok((OrgId(id), true))
        })
    }

    /// Organisations by name.
    pub fn orgs(&self) -> StoreResult<Vec<(OrgId, String)>> {
        self.read(|c| {
            c.query_map("SELECT id, name FROM orgs ORDER BY id", params![], |r| Ok((OrgId(r.get(0)?), r.get(1)?)))
        })
    }

    /// The organisation of that name.
    pub fn org_by_name(&self, name: &str) -> StoreResult<Option<OrgId>> {
        self.read(|c| {
            c.query_row("SELECT id FROM orgs WHERE name = ?1", params![name], |r| Ok(OrgId(r.get(0)?))).optional()
        })
    }

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

    /// Creates a catalog (or returns the existing one of that name).
    pub fn ensure_catalog(&self, org: OrgId, name: &str) -> StoreResult<i64> {
        self.with(|c| {
            c.execute(
                "INSERT INTO catalogs (org_id, name, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                params![org.0, name, now()],
            )?;
            c.query_row("SELECT id FROM catalogs WHERE org_id = ?1 AND name = ?2", params![org.0, name], |r| r.get(0))
        })
    }

    /// Whether the organisation has a catalog of that name.
    pub fn has_catalog(&self, org: OrgId, name: &str) -> StoreResult<bool> {
        self.read(|c| {
            c.query_row("SELECT 1 FROM catalogs WHERE org_id = ?1 AND name = ?2", params![org.0, name], |_| Ok(()))
                .optional()
                .map(|o| o.is_some())
        })
    }

    /// Turns media asset generation (`trigger_generation`) on or off for a catalog; whether the
    /// catalog exists.
    pub fn set_catalog_generation(&self, org: OrgId, name: &str, enabled: bool) -> StoreResult<bool> {
        self.with(|c| {
            let n = c.execute(
                "UPDATE catalogs SET generation_enabled = ?3 WHERE org_id = ?1 AND name = ?2",
                params![org.0, name, enabled],
            )?;
            Ok(n == 1)
        })
    }

    /// Whether media asset generation is on for a catalog (off by default).
    pub fn catalog_generation(&self, org: OrgId, name: &str) -> StoreResult<bool> {
        self.read(|c| {
            c.query_row(
                "SELECT generation_enabled FROM catalogs WHERE org_id = ?1 AND name = ?2",
                params![org.0, name],
                |r| r.get(0),
            )
            .optional()
            .map(|v| v.unwrap_or(false))
        })
    }

    /// The organisation's catalogs: (id, name, created_at), by id.
    pub fn catalogs(&self, org: OrgId) -> StoreResult<Vec<(i64, String, String)>> {
        self.read(|c| {
            c.query_map(
                "SELECT id, name, created_at FROM catalogs WHERE org_id = ?1 ORDER BY id",
                params![org.0],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
        })
    }

    /// An organisation's name.
    pub fn org_name(&self, org: OrgId) -> StoreResult<Option<String>> {
        self.read(|c| c.query_row("SELECT name FROM orgs WHERE id = ?1", params![org.0], |r| r.get(0)).optional())
    }

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

    // ---- catalog items ----

    /// Creates or replaces an item; returns its (stable) service id.
    pub fn upsert_item(
        &self,
        org: OrgId,
        id: &str,
        item_type: &str,
        body: &serde_json::Value,
        deleted: bool,
    ) -> StoreResult<String> {
        self.with(|c| {
            let existing: Option<String> = c
                .query_row("SELECT service_id FROM items WHERE org_id = ?1 AND id = ?2", params![org.0, id], |r| r.get(0))
                .optional()?;
            let now = now();
            let service_id = match existing {
                Some(sid) => {
                    c.execute(
                        "UPDATE items SET type = ?3, body = ?4, deleted = ?5, updated_at = ?6 WHERE org_id = ?1 AND id = ?2",
                        params![org.0, id, item_type, body.to_string(), deleted, now],
                    )?;
                    sid
                }
                None => {
                    let sid = new_service_id();
                    c.execute(
                        "INSERT INTO items (org_id, id, service_id, type, body, deleted, created_at, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                        params![org.0, id, sid, item_type, body.to_string(), deleted, now],
                    )?;
                    sid
                }
            };
            Ok(service_id)
        })
    }

    /// One item, deleted or not.
    pub fn item(&self, org: OrgId, id: &str) -> StoreResult<Option<ItemRow>> {
        self.read(|c| {
            c.query_row(
                "SELECT id, service_id, type, body, deleted FROM items WHERE org_id = ?1 AND id = ?2",
                params![org.0, id],
                item_row,
            )
            .optional()
        })
    }

    /// A page of items in creation order.
    pub fn items(&self, org: OrgId, allow_deleted: bool, offset: i64, limit: i64) -> StoreResult<Vec<ItemRow>> {
        self.read(|c| {
            c.query_map(
                "SELECT id, service_id, type, body, deleted FROM items
                 WHERE org_id = ?1 AND (?2 OR deleted = 0) ORDER BY created_at, id LIMIT ?3 OFFSET ?4",
                params![org.0, allow_deleted, limit, offset],
                item_row,
            )
        })
    }

    /// Items whose body names `parent` as series or season (for cascades).
    pub fn children(&self, org: OrgId, parent: &str) -> StoreResult<Vec<ItemRow>> {
        self.read(|c| {
            let d = c.dialect();
            let names = ["episodic_info", "extended_episodic_info"]
                .iter()
                .flat_map(|info| {
                    ["series_id", "season_id"].map(|key| format!("{} = ?2", d.json_text("body", &[info, key])))
                })
                .collect::<Vec<_>>()
                .join(" OR ");
            c.query_map(
                &format!("SELECT id, service_id, type, body, deleted FROM items WHERE org_id = ?1 AND ({names})"),
                params![org.0, parent],
                item_row,
            )
        })
    }

    /// Marks an item deleted (its data is kept).
    pub fn mark_deleted(&self, org: OrgId, id: &str) -> StoreResult<()> {
        self.with(|c| {
            let body: Option<String> = c
                .query_row("SELECT body FROM items WHERE org_id = ?1 AND id = ?2", params![org.0, id], |r| r.get(0))
                .optional()?;
            let Some(body) = body else { return Ok(()) };
            let body = mark_body_deleted(&body);
            c.execute(
                "UPDATE items SET deleted = 1, body = ?3, updated_at = ?4 WHERE org_id = ?1 AND id = ?2",
                params![org.0, id, body, now()],
            )?;
            Ok(())
        })
    }

    // ---- signals ----

    /// Stores an item's signals (binary form; `partial`: a media analysis's fast pass, speech
    /// recognition still to come) and releases its jobs that waited for them.
    pub fn put_signals(&self, org: OrgId, item_id: &str, binary: &[u8], partial: bool) -> StoreResult<i64> {
        self.with(|c| {
            let version = c.query_row(
                "INSERT INTO signals (org_id, item_id, body, updated_at, partial, version) VALUES (?1, ?2, ?3, ?4, ?5, 1)
                 ON CONFLICT (org_id, item_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at,
                 partial = excluded.partial, version = signals.version + 1
                 RETURNING version",
                params![org.0, item_id, binary, now(), partial],
                |r| r.get(0),
            )?;
            c.execute(
                "UPDATE jobs SET state = 'pending' WHERE org_id = ?1 AND item_id = ?2 AND state = 'waiting'",
                params![org.0, item_id],
            )?;
            Ok(version)
        })
    }

    /// Whether an item's stored signals are a media analysis's fast pass, speech recognition
    /// still to come (false without signals).
    pub fn signals_partial(&self, org: OrgId, item_id: &str) -> StoreResult<bool> {
        self.read(|c| {
            c.query_row(
                "SELECT partial FROM signals WHERE org_id = ?1 AND item_id = ?2",
                params![org.0, item_id],
                |r| r.get(0),
            )
            .optional()
            .map(|p| p.unwrap_or(false))
        })
    }

    /// An item's signals (binary form) and their version.
    pub fn signals(&self, org: OrgId, item_id: &str) -> StoreResult<Option<(Vec<u8>, i64)>> {
        self.read(|c| {
            c.query_row(
                "SELECT body, version FROM signals WHERE org_id = ?1 AND item_id = ?2",
                params![org.0, item_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
        })
    }

    /// The version of an item's stored signals (bumped by every store), without reading them.
    pub fn signals_version(&self, org: OrgId, item_id: &str) -> StoreResult<Option<i64>> {
        self.read(|c| {
            c.query_row(
                "SELECT version FROM signals WHERE org_id = ?1 AND item_id = ?2",
                params![org.0, item_id],
                |r| r.get(0),
            )
            .optional()
        })
    }

    // ---- tasks, results, jobs ----

    /// Upserts a task (active, options, timestamp) and queues its job when no result exists.
    pub fn upsert_task(
        &self,
        org: OrgId,
        item_id: &str,
        product: &str,
        version: &str,
        options: &str,
    ) -> StoreResult<()> {
        self.with(|c| {
            let now = now();
            c.execute(
                "INSERT INTO tasks (org_id, item_id, product, version, active, options, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?6)
                 ON CONFLICT (org_id, item_id, product, version)
                 DO UPDATE SET active = 1, options = excluded.options, updated_at = excluded.updated_at",
                params![org.0, item_id, product, version, options, now],
            )?;
            let has_result = c
                .query_row(
                    "SELECT 1 FROM results WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                    params![org.0, item_id, product, version],
                    |_| Ok(()),
                )
                .optional()?
                .is_some();
            if !has_result {
                enqueue(c, org, item_id, product, version)?;
            }
            Ok(())
        })
    }

    /// The task of a tuple.
    pub fn task(&self, org: OrgId, item_id: &str, product: &str, version: &str) -> StoreResult<Option<TaskRow>> {
        self.read(|c| {
            c.query_row(
                "SELECT product, version, active FROM tasks WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                params![org.0, item_id, product, version],
                |r| Ok(TaskRow { product: r.get(0)?, version: r.get(1)?, active: r.get(2)? }),
            )
            .optional()
        })
    }

    /// Every task of an item.
    pub fn tasks(&self, org: OrgId, item_id: &str) -> StoreResult<Vec<TaskRow>> {
        self.read(|c| {
            c.query_map("SELECT product, version, active FROM tasks WHERE org_id = ?1 AND item_id = ?2 ORDER BY product, version", params![org.0, item_id], |r| Ok(TaskRow { product: r.get(0)?, version: r.get(1)?, active: r.get(2)? }))
        })
    }

    /// Deactivates a task; whether it existed.
    pub fn deactivate_task(&self, org: OrgId, item_id: &str, product: &str, version: &str) -> StoreResult<bool> {
        self.with(|c| {
            let n = c.execute(
                "UPDATE tasks SET active = 0, updated_at = ?5 WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                params![org.0, item_id, product, version, now()],
            )?;
            c.execute(
                "DELETE FROM jobs WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4 AND state != 'running'",
                params![org.0, item_id, product, version],
            )?;
            Ok(n > 0)
        })
    }

    /// Queues the active tasks of `product` of an item again, keeping their results until the new
    /// ones replace them (a recomputation because its inputs changed); how many.
    pub fn requeue_product(&self, org: OrgId, item_id: &str, product: &str) -> StoreResult<usize> {
        self.with(|c| {
            let versions: Vec<String> = {
                c.query_map(
                    "SELECT version FROM tasks WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND active = 1",
                    params![org.0, item_id, product],
                    |r| r.get(0),
                )?
            };
            for v in &versions {
                enqueue(c, org, item_id, product, v)?;
            }
            Ok(versions.len())
        })
    }

    /// Drops the result of a tuple and queues it again (reset of a failed task, forced reprocess).
    pub fn reprocess(&self, org: OrgId, item_id: &str, product: &str, version: &str) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "DELETE FROM results WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                params![org.0, item_id, product, version],
            )?;
            enqueue(c, org, item_id, product, version)?;
            Ok(())
        })
    }

    /// The result of a tuple; with `version` `None`, the most recent of any version.
    pub fn result(
        &self,
        org: OrgId,
        item_id: &str,
        product: &str,
        version: Option<&str>,
    ) -> StoreResult<Option<ResultRow>> {
        self.read(|c| {
            c.query_row(
                "SELECT item_id, version, status, error, data, updated_at, models FROM results
                 WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND (CAST(?4 AS TEXT) IS NULL OR version = ?4)
                 ORDER BY updated_at DESC LIMIT 1",
                params![org.0, item_id, product, version],
                result_row,
            )
            .optional()
        })
    }

    /// Results of a product updated in `[from, to]`, oldest first.
    #[allow(clippy::too_many_arguments)]
    pub fn results(
        &self,
        org: OrgId,
        product: &str,
        version: Option<&str>,
        from: Option<&str>,
        to: &str,
        offset: i64,
        limit: i64,
    ) -> StoreResult<(Vec<ResultRow>, i64)> {
        self.read_snapshot(|c| {
            let filter = "org_id = ?1 AND product = ?2 AND (CAST(?3 AS TEXT) IS NULL OR version = ?3) AND (CAST(?4 AS TEXT) IS NULL OR updated_at >= ?4) AND updated_at <= ?5";
            let total: i64 = c.query_row(
                &format!("SELECT COUNT(*) FROM results WHERE {filter}"),
                params![org.0, product, version, from, to],
                |r| r.get(0),
            )?;
            let rows = c.query_map(&format!(
                "SELECT item_id, version, status, error, data, updated_at, models FROM results WHERE {filter}
                 ORDER BY updated_at, item_id LIMIT ?6 OFFSET ?7"
            ), params![org.0, product, version, from, to, limit, offset], result_row)?;
            Ok((rows, total))
        })
    }

    /// Every successful result of a product for an organisation (for catalog-wide products).
    pub fn all_results(&self, org: OrgId, product: &str) -> StoreResult<Vec<ResultRow>> {
        self.read(|c| {
            c.query_map(
                "SELECT item_id, version, status, error, data, updated_at, models FROM results
                 WHERE org_id = ?1 AND product = ?2 AND status = 'success' ORDER BY item_id",
                params![org.0, product],
                result_row,
            )
        })
    }

    /// The queue state of a tuple's job.
    pub fn job_state(&self, org: OrgId, item_id: &str, product: &str, version: &str) -> StoreResult<Option<JobState>> {
        self.read(|c| {
            c.query_row(
                "SELECT state FROM jobs WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                params![org.0, item_id, product, version],
                |r| r.get::<_, String>(0),
            )
            .optional()
            .map(|s| s.map(|s| JobState::parse(&s)))
        })
    }

    /// Claims the oldest runnable job (pending, or running with an expired lease) for a worker.
    pub fn claim_job(&self) -> StoreResult<Option<Job>> {
        self.with(|c| {
            let now = now();
            let job = c
                .query_row(
                    &format!(
                        "SELECT org_id, item_id, product, version FROM jobs
                     WHERE state = 'pending' OR (state IN ('running', 'rerun') AND lease_until < ?1)
                     ORDER BY created_at LIMIT 1{}",
                        c.dialect().skip_locked("jobs")
                    ),
                    params![&now],
                    |r| Ok(Job { org: OrgId(r.get(0)?), item_id: r.get(1)?, product: r.get(2)?, version: r.get(3)? }),
                )
                .optional()?;
            if let Some(j) = &job {
                let lease = (chrono::Utc::now() + chrono::Duration::seconds(LEASE_SECONDS))
                    .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                c.execute(
                    "UPDATE jobs SET state = 'running', lease_until = ?5, attempts = attempts + 1, owner = ?6
                     WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                    params![j.org.0, j.item_id, j.product, j.version, lease, self.owner()],
                )?;
            }
            Ok(job)
        })
    }

    /// Extends the lease of a running job (long work such as media analysis), so it is not
    /// claimed again while it is still being worked on.
    pub fn extend_lease(&self, job: &Job) -> StoreResult<()> {
        let lease = (chrono::Utc::now() + chrono::Duration::seconds(LEASE_SECONDS))
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        self.with(|c| {
            c.execute(
                "UPDATE jobs SET lease_until = ?5 WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4
                 AND state IN ('running', 'rerun')",
                params![job.org.0, job.item_id, job.product, job.version, lease],
            )?;
            Ok(())
        })
    }

    /// Puts the item's jobs that wait for signals back in the queue (when the signals they waited
    /// for will not come, e.g. the media analysis failed, so each fails on its own).
    pub fn release_waiting(&self, org: OrgId, item_id: &str) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "UPDATE jobs SET state = 'pending' WHERE org_id = ?1 AND item_id = ?2 AND state = 'waiting'",
                params![org.0, item_id],
            )?;
            Ok(())
        })
    }

    /// Parks a job until the item's signals arrive (with `needs_final`, final signals: not a fast
    /// pass); when they arrived meanwhile (or reprocessing was requested), the job goes back to
    /// the queue instead, so no wake-up is lost.
    pub fn park_job(&self, job: &Job, needs_final: bool) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "UPDATE jobs SET lease_until = NULL, state = CASE
                     WHEN state = 'rerun' OR EXISTS (SELECT 1 FROM signals WHERE org_id = ?1 AND item_id = ?2
                         AND (partial = 0 OR NOT ?5))
                     THEN 'pending' ELSE 'waiting' END
                 WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                params![job.org.0, job.item_id, job.product, job.version, needs_final],
            )?;
            Ok(())
        })
    }

    /// Stores a job's result and removes it from the queue, in one transaction. When reprocessing
    /// was requested while the job ran (state `rerun`), the result is discarded and the job queued
    /// again.
    pub fn finish_job(
        &self,
        job: &Job,
        status: ResultStatus,
        error: &str,
        data: Option<&serde_json::Value>,
    ) -> StoreResult<()> {
        self.finish_job_by(job, status, error, data, "")
    }

    /// [`Store::finish_job`], recording the pretrained models that produced the result
    /// (`id@version` joined by `+`, empty when none; see [`ResultRow::version_id`]).
    pub fn finish_job_by(
        &self,
        job: &Job,
        status: ResultStatus,
        error: &str,
        data: Option<&serde_json::Value>,
        models: &str,
    ) -> StoreResult<()> {
        self.with(|c| {
            let rerun = c
                .query_row(
                    "SELECT state = 'rerun' FROM jobs WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                    params![job.org.0, job.item_id, job.product, job.version],
                    |r| r.get::<_, bool>(0),
                )
                .optional()?
                .unwrap_or(false);
            if rerun {
                // Reprocessing was requested while this run was in flight: its result may be stale.
                c.execute(
                    "UPDATE jobs SET state = 'pending', lease_until = NULL
                     WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                    params![job.org.0, job.item_id, job.product, job.version],
                )?;
                return Ok(());
            }
            c.execute(
                "INSERT INTO results (org_id, item_id, product, version, status, error, data, updated_at, models)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT (org_id, item_id, product, version)
                 DO UPDATE SET status = excluded.status, error = excluded.error, data = excluded.data,
                     updated_at = excluded.updated_at, models = excluded.models",
                params![
                    job.org.0,
                    job.item_id,
                    job.product,
                    job.version,
                    status,
                    error,
                    data.map(|d| d.to_string()),
                    now(),
                    models
                ],
            )?;
            c.execute(
                "DELETE FROM jobs WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                params![job.org.0, job.item_id, job.product, job.version],
            )?;
            Ok(())
        })
    }

    /// Returns to the queue the jobs left running by a process that is no longer alive (it
    /// crashed or stopped: its process lease lapsed, see [`Store::heartbeat`]), and the jobs that
    /// wait for the final signals of an item whose analysis stopped after its fast pass (no live
    /// process runs a job of the item; one of them analyses the media again). Jobs of live
    /// processes, this one's included, are left alone.
    pub fn requeue_running(&self) -> StoreResult<usize> {
        // Two statements, each atomic on its own (`write_one`): run every third of a lease by
        // every process, they must not make the queue's claims retry as a serializable
        // transaction reading the whole table would.
        let now_ms = super::now_ms();
        let running = self.write_one(|c| {
            c.execute(
                &format!(
                    "UPDATE jobs SET state = 'pending', lease_until = NULL, owner = NULL
                     WHERE state IN ('running', 'rerun') AND NOT {}",
                    super::leases::owner_alive("jobs.owner", "?1")
                ),
                params![now_ms],
            )
        })?;
        self.write_one(|c| {
            let waiting = c.execute(
                &format!(
                    "UPDATE jobs SET state = 'pending' WHERE state = 'waiting' AND EXISTS
                         (SELECT 1 FROM signals s WHERE s.org_id = jobs.org_id AND s.item_id = jobs.item_id AND s.partial = 1)
                     AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.org_id = jobs.org_id AND r.item_id = jobs.item_id
                         AND r.state IN ('running', 'rerun') AND {})",
                    super::leases::owner_alive("r.owner", "?1")
                ),
                params![now_ms],
            )?;
            Ok(running + waiting)
        })
    }

    /// Number of jobs not finished.
    pub fn open_jobs(&self) -> StoreResult<i64> {
        self.read(|c| c.query_row("SELECT COUNT(*) FROM jobs WHERE state != 'waiting'", params![], |r| r.get(0)))
    }

    // ---- generations ----

    /// Queues a generation request unless an identical one (same `fingerprint`) of the
    /// organisation is still queued or rendering, whose id is returned instead; refused when the
    /// organisation already has `max_queued` unfinished generations. One transaction, so two
    /// identical requests at once share one generation.
    pub fn queue_generation(&self, org: OrgId, g: &NewGeneration<'_>, max_queued: usize) -> StoreResult<Queued> {
        self.with(|c| {
            let existing: Option<String> = c
                .query_row(
                    "SELECT id FROM generations WHERE org_id = ?1 AND fingerprint = ?2 AND state IN ('pending', 'rendering')",
                    params![org.0, g.fingerprint],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(id) = existing {
                return Ok(Queued::Existing(id));
            }
            let open: i64 = c.query_row(
                "SELECT COUNT(*) FROM generations WHERE org_id = ?1 AND state IN ('pending', 'rendering')",
                params![org.0],
                |r| r.get(0),
            )?;
            if open as usize >= max_queued {
                return Ok(Queued::Full);
            }
            c.execute(
                "INSERT INTO generations (id, org_id, item_id, state, error, data, created_at, request, fingerprint)
                 VALUES (?1, ?2, ?3, 'pending', '', NULL, ?4, ?5, ?6)",
                params![g.id, org.0, g.item_id, now(), g.request.to_string(), g.fingerprint],
            )?;
            Ok(Queued::New)
        })
    }

    /// Claims the oldest queued generation for rendering.
    pub fn claim_generation(&self) -> StoreResult<Option<ClaimedGeneration>> {
        self.with(|c| {
            let d = c.dialect();
            let claimed = c
                .query_row(
                    &format!(
                        "SELECT id, org_id, item_id, request FROM generations WHERE state = 'pending'
                     ORDER BY created_at, {} LIMIT 1{}",
                        d.insertion_order(),
                        d.skip_locked("generations")
                    ),
                    params![],
                    |r| {
                        let request: Option<String> = r.get(3)?;
                        Ok(ClaimedGeneration {
                            id: r.get(0)?,
                            org: OrgId(r.get(1)?),
                            item_id: r.get(2)?,
                            request: request.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default(),
                        })
                    },
                )
                .optional()?;
            if let Some(g) = &claimed {
                c.execute(
                    "UPDATE generations SET state = 'rendering', owner = ?2 WHERE id = ?1",
                    params![&g.id, self.owner()],
                )?;
            }
            Ok(claimed)
        })
    }

    /// Records the outcome of a generation.
    pub fn finish_generation(&self, org: OrgId, id: &str, g: &GenerationRow) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "UPDATE generations SET state = ?3, error = ?4, data = ?5 WHERE org_id = ?1 AND id = ?2",
                params![org.0, id, g.state, g.error, g.data.as_ref().map(|d| d.to_string())],
            )?;
            Ok(())
        })
    }

    /// Generations that a process no longer alive was rendering are queued again (rendering
    /// starts over), and queued ones made before generations were queued durably (no stored
    /// request) fail. Returns (requeued, failed).
    pub fn recover_generations(&self) -> StoreResult<(usize, usize)> {
        // Each statement atomic on its own, like `requeue_running`'s.
        let now_ms = super::now_ms();
        let failed = self.write_one(|c| {
            c.execute(
                &format!(
                    "UPDATE generations SET state = 'FAILED', error = 'interrupted by a restart'
                     WHERE state IN ('pending', 'rendering') AND request IS NULL AND NOT {}",
                    super::leases::owner_alive("generations.owner", "?1")
                ),
                params![now_ms],
            )
        })?;
        let requeued = self.write_one(|c| {
            c.execute(
                &format!(
                    "UPDATE generations SET state = 'pending', owner = NULL WHERE state = 'rendering' AND NOT {}",
                    super::leases::owner_alive("generations.owner", "?1")
                ),
                params![now_ms],
            )
        })?;
        Ok((requeued, failed))
    }

    /// A generation of the organisation.
    pub fn generation(&self, org: OrgId, id: &str) -> StoreResult<Option<GenerationRow>> {
        self.read(|c| {
            c.query_row(
                "SELECT state, error, data FROM generations WHERE org_id = ?1 AND id = ?2",
                params![org.0, id],
                |r| {
                    let data: Option<String> = r.get(2)?;
                    Ok(GenerationRow {
                        state: r.get(0)?,
                        error: r.get(1)?,
                        data: data.and_then(|d| serde_json::from_str(&d).ok()),
                    })
                },
            )
            .optional()
        })
    }
}

fn enqueue(c: &mut Conn<'_>, org: OrgId, item_id: &str, product: &str, version: &str) -> DbResult<()> {
    c.execute(
        "INSERT INTO jobs (org_id, item_id, product, version, state, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (org_id, item_id, product, version) DO UPDATE SET state = CASE WHEN jobs.state IN ('running', 'rerun') THEN 'rerun' ELSE excluded.state END",
        params![org.0, item_id, product, version, JobState::Pending.as_str(), now()],
    )?;
    Ok(())
}

pub(super) fn item_row(r: &Row) -> DbResult<ItemRow> {
    let body: String = r.get(3)?;
    Ok(ItemRow {
        id: r.get(0)?,
        service_id: r.get(1)?,
        item_type: r.get(2)?,
        body: serde_json::from_str(&body).unwrap_or(serde_json::Value::Null),
        deleted: r.get(4)?,
    })
}

fn result_row(r: &Row) -> DbResult<ResultRow> {
    let data: Option<String> = r.get(4)?;
    Ok(ResultRow {
        item_id: r.get(0)?,
        version: r.get(1)?,
        status: r.get(2)?,
        error: r.get(3)?,
        data: data.and_then(|d| serde_json::from_str(&d).ok()),
        updated_at: r.get(5)?,
        models: r.get(6)?,
    })
}

/// The stored item with `operations.deleted` set to true (created when absent; an `operations`
/// that is not an object is left as it is, as is text that is not JSON).
fn mark_body_deleted(body: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(mut item)) => {
            let operations = item.entry("operations").or_insert_with(|| serde_json::json!({}));
            if let Some(operations) = operations.as_object_mut() {
                operations.insert("deleted".into(), serde_json::Value::Bool(true));
            }
            serde_json::Value::Object(item).to_string()
        }
        _ => body.to_string(),
    }
}

fn new_service_id() -> String {
    format!("svc-{}", crate::auth::random_hex(12))
}

impl Store {
    // ---- credentials and rate limits ----

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
