//! Tasks (a product asked of an item, at a version) and their results.

use super::backend::{Store, StoreResult};
use super::db::{DbResult, OptionalExtension, Row, params};
use super::jobs::enqueue;
use super::types::{OrgId, now};
use crate::vocabulary::Product;
pub use crate::vocabulary::ResultStatus;

/// A stored task.
#[derive(Debug, Clone)]
pub struct TaskRow {
    /// Product.
    pub product: Product,
    /// Product version.
    pub version: String,
    /// Whether the task is active.
    pub active: bool,
}

/// A stored result of (item, product, version).
#[derive(Debug, Clone)]
pub struct ResultRow {
    /// Customer item id.
    pub item_id: String,
    /// Product version.
    pub version: String,
    /// Whether the product was computed.
    pub status: ResultStatus,
    /// Error text (empty on success).
    pub error: String,
    /// The product payload.
    pub data: Option<serde_json::Value>,
    /// RFC 3339 time of the result.
    pub updated_at: String,
    /// The pretrained models whose channels the result was computed from, `id@version` joined by
    /// `+` (empty: none, e.g. signals from a sidecar or the model-free analysis).
    pub models: String,
}

impl ResultRow {
    /// The `version_id` the interface reports: the product version, then `+` and the models that
    /// produced the result when there are any, e.g. `1.0.1+silero-vad@6.2.3+all-minilm-l6-v2@1.0.0`.
    pub fn version_id(&self) -> String {
        if self.models.is_empty() { self.version.clone() } else { format!("{}+{}", self.version, self.models) }
    }
}

impl Store {
    // ---- tasks ----

    /// Upserts a task (active, options, timestamp) and queues its job when no result exists;
    /// `false` (nothing changed) when that would make more than `max_active` versions of the
    /// product active for the item.
    pub fn upsert_task(
        &self,
        org: OrgId,
        item_id: &str,
        product: Product,
        version: &str,
        options: &str,
        max_active: usize,
    ) -> StoreResult<bool> {
        self.with(|c| {
            let others: i64 = c.query_row(
                "SELECT COUNT(*) FROM tasks WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version <> ?4 \
                 AND active = 1",
                params![org.0, item_id, product, version],
                |r| r.get(0),
            )?;
            if usize::try_from(others).unwrap_or(0) >= max_active {
                return Ok(false);
            }
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
            Ok(true)
        })
    }

    /// The task of a tuple.
    pub fn task(&self, org: OrgId, item_id: &str, product: Product, version: &str) -> StoreResult<Option<TaskRow>> {
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
    pub fn deactivate_task(&self, org: OrgId, item_id: &str, product: Product, version: &str) -> StoreResult<bool> {
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
    pub fn requeue_product(&self, org: OrgId, item_id: &str, product: Product) -> StoreResult<usize> {
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
    pub fn reprocess(&self, org: OrgId, item_id: &str, product: Product, version: &str) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "DELETE FROM results WHERE org_id = ?1 AND item_id = ?2 AND product = ?3 AND version = ?4",
                params![org.0, item_id, product, version],
            )?;
            enqueue(c, org, item_id, product, version)?;
            Ok(())
        })
    }

    // ---- results ----

    /// The result of a tuple; with `version` `None`, the most recent of any version.
    pub fn result(
        &self,
        org: OrgId,
        item_id: &str,
        product: Product,
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
        product: Product,
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
    pub fn all_results(&self, org: OrgId, product: Product) -> StoreResult<Vec<ResultRow>> {
        self.read(|c| {
            c.query_map(
                "SELECT item_id, version, status, error, data, updated_at, models FROM results
                 WHERE org_id = ?1 AND product = ?2 AND status = 'success' ORDER BY item_id",
                params![org.0, product],
                result_row,
            )
        })
    }
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
