//! The processing queue: a job per task without a current result, claimed by workers under a
//! lease, parked while it waits for its item's signals, and finished by storing its result.

use super::backend::{Store, StoreResult};
use super::db::{Conn, DbResult, OptionalExtension, params};
use super::tasks::ResultStatus;
use super::types::{OrgId, now};
use crate::vocabulary::Product;

const LEASE_SECONDS: i64 = 300;

/// The state of a job in the processing queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Ready to run.
    Pending,
    /// Claimed by a worker until its lease expires (stored as `rerun` when reprocessing was
    /// requested meanwhile: the job runs again after this run).
    Running,
    /// Waiting for the item's signals.
    Waiting,
}

impl JobState {
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Pending => "pending",
            JobState::Running => "running",
            JobState::Waiting => "waiting",
        }
    }
    pub fn parse(s: &str) -> JobState {
        match s {
            "running" | "rerun" => JobState::Running,
            "waiting" => JobState::Waiting,
            _ => JobState::Pending,
        }
    }
}

/// A claimed job.
#[derive(Debug, Clone)]
pub struct Job {
    /// Owner.
    pub org: OrgId,
    /// Customer item id.
    pub item_id: String,
    /// Product.
    pub product: Product,
    /// Product version.
    pub version: String,
}

impl Store {
    /// The queue state of a tuple's job.
    pub fn job_state(
        &self,
        org: OrgId,
        item_id: &str,
        product: Product,
        version: &str,
    ) -> StoreResult<Option<JobState>> {
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
    /// (`id@version` joined by `+`, empty when none; see [`crate::ResultRow::version_id`]).
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
}

/// Queues the job of a tuple, or, when it is running, marks it to run again once this run ends
/// (`rerun`); the caller's transaction holds the change that asks for it.
pub(super) fn enqueue(c: &mut Conn<'_>, org: OrgId, item_id: &str, product: Product, version: &str) -> DbResult<()> {
    c.execute(
        "INSERT INTO jobs (org_id, item_id, product, version, state, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (org_id, item_id, product, version) DO UPDATE SET state = CASE WHEN jobs.state IN ('running', 'rerun') THEN 'rerun' ELSE excluded.state END",
        params![org.0, item_id, product, version, JobState::Pending.as_str(), now()],
    )?;
    Ok(())
}
