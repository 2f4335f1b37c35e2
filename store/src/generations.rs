//! Media generations: render requests queued durably, claimed by a renderer, and their outcome.

use super::backend::{Store, StoreResult};
use super::db::{OptionalExtension, params};
use super::types::{OrgId, now};

/// A generation request to queue.
#[derive(Debug, Clone)]
pub struct NewGeneration<'a> {
    /// The generation id (`gen_id`).
    pub id: &'a str,
    /// The item whose video is rendered.
    pub item_id: &'a str,
    /// What to render (the clips' spans, orientation, version), kept to render after a restart.
    pub request: &'a serde_json::Value,
    /// Identifies identical requests (item and request), which share one generation.
    pub fingerprint: &'a str,
}

/// The outcome of [`Store::queue_generation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Queued {
    /// Queued under the new id.
    New,
    /// An identical request is queued or rendering under this id.
    Existing(String),
    /// The organisation has too many unfinished generations.
    Full,
}

/// A generation claimed for rendering.
#[derive(Debug, Clone)]
pub struct ClaimedGeneration {
    /// The generation id.
    pub id: String,
    /// Its organisation.
    pub org: OrgId,
    /// The item.
    pub item_id: String,
    /// The stored request.
    pub request: serde_json::Value,
}

/// Where a media generation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderState {
    /// Queued.
    Pending,
    /// Claimed by a renderer.
    Rendering,
    /// Every file was rendered.
    Success,
    /// Rendering failed.
    Failed,
}

text_enum! {
    RenderState {
        Pending => "pending",
        Rendering => "rendering",
        Success => "SUCCESS",
        Failed => "FAILED",
    }
}

/// A media generation request.
#[derive(Debug, Clone)]
pub struct GenerationRow {
    /// Where it stands.
    pub state: RenderState,
    /// Why it failed.
    pub error: String,
    /// The generation status data.
    pub data: Option<serde_json::Value>,
}

impl Store {
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
