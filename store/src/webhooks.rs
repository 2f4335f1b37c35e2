//! Portal webhooks and their delivery log: the durable queue the dispatcher drains.
//!
//! A delivery row holds the exact body bytes from the moment it is queued, so what is signed and
//! sent (and sent again on redelivery) never depends on re-serialising anything.

use super::db::{Conn, DbResult, OptionalExtension, Row, params};

use super::backend::{Store, StoreResult};
use super::types::{OrgId, now};

/// An event to queue for the organisation's webhooks in the same transaction as the change that
/// caused it (an outbox): the change and its deliveries are stored together or not at all.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The organisation whose webhooks receive it.
    pub org: OrgId,
    /// Event name.
    pub event: String,
    /// The exact envelope bytes to send.
    pub body: Vec<u8>,
}

/// What queuing a delivery by hand (a test, a redelivery) came to.
#[derive(Debug)]
pub enum ByHand {
    /// Queued.
    Queued(DeliveryRow),
    /// The organisation has no webhook (or delivery) of that id.
    NotFound,
    /// The organisation has as many deliveries queued by hand and not yet sent as it may.
    Full,
}

/// How many deliveries the organisation queued by hand (tests and redeliveries) that are not yet
/// sent.
fn pending_by_hand(c: &mut Conn<'_>, org: OrgId) -> DbResult<usize> {
    let n: i64 = c.query_row(
        "SELECT COUNT(*) FROM webhook_deliveries WHERE org_id = ?1 AND state IN ('pending', 'sending') \
         AND (event = 'test' OR redelivery_of IS NOT NULL)",
        params![org.0],
        |r| r.get(0),
    )?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// The answer at the organisation's limit: [`ByHand::Full`] when `exists` (a query for one row of
/// the organisation's, `?1` its id and `?2` the row's) finds the row the request names, else
/// [`ByHand::NotFound`] (a missing webhook or delivery is reported as such, full or not).
fn full_unless_missing(c: &mut Conn<'_>, exists: &str, org: OrgId, id: &str) -> DbResult<ByHand> {
    let found = c.query_row(exists, params![org.0, id], |_| Ok(())).optional()?;
    Ok(if found.is_some() { ByHand::Full } else { ByHand::NotFound })
}

/// Queues `out` to every enabled webhook of its organisation subscribed to its event; how many.
pub(super) fn queue_in(c: &mut Conn<'_>, out: &Outgoing) -> DbResult<usize> {
    let targets: Vec<WebhookRow> = {
        c.query_map(
            &format!(
                "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE org_id = ?1 AND enabled = 1 ORDER BY {}",
                c.dialect().insertion_order()
            ),
            params![out.org.0],
            webhook_row,
        )?
    };
    let at = now();
    let mut queued = 0;
    for w in targets.iter().filter(|w| w.events.contains(&out.event)) {
        c.execute(
            "INSERT INTO webhook_deliveries (id, org_id, webhook_id, event, body, state, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6)",
            params![uuid::Uuid::new_v4().to_string(), out.org.0, w.id, out.event, out.body, at],
        )?;
        queued += 1;
    }
    Ok(queued)
}

/// A stored webhook (without its signing secret).
#[derive(Debug, Clone)]
pub struct WebhookRow {
    /// UUID.
    pub id: String,
    /// The receiving URL.
    pub url: String,
    /// Subscribed event names.
    pub events: Vec<String>,
    /// Whether events are delivered.
    pub enabled: bool,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// RFC 3339 time of the last change.
    pub updated_at: String,
}

/// A logged delivery (without its body).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Delivery)]
pub struct DeliveryRow {
    /// UUID.
    pub id: String,
    /// The webhook it goes to.
    pub webhook_id: String,
    /// Event name (`test` for Test deliveries).
    pub event: String,
    /// Where it stands.
    pub state: DeliveryState,
    /// HTTP status of the answer, when one came.
    pub status_code: Option<u16>,
    /// Duration of the attempt.
    pub duration_ms: Option<u64>,
    /// Why it failed.
    pub error: Option<String>,
    /// RFC 3339 time the attempt started.
    pub attempted_at: Option<String>,
    /// RFC 3339 time it was queued.
    pub created_at: String,
    /// The delivery this one repeats.
    pub redelivery_of: Option<String>,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryState {
    /// Queued.
    Pending,
    /// Being sent.
    Sending,
    /// Answered 2xx.
    Succeeded,
    /// Not answered 2xx (or interrupted).
    Failed,
}

text_enum! {
    DeliveryState {
        Pending => "pending",
        Sending => "sending",
        Succeeded => "succeeded",
        Failed => "failed",
    }
}

/// A delivery claimed for sending: everything needed to send it.
#[derive(Clone)]
pub struct ClaimedDelivery {
    /// Delivery id.
    pub id: String,
    /// The receiving URL.
    pub url: String,
    /// The webhook's signing secret.
    pub secret: String,
    /// Event name (`test` for Test deliveries).
    pub event: String,
    /// The exact body bytes.
    pub body: Vec<u8>,
}

impl std::fmt::Debug for ClaimedDelivery {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClaimedDelivery")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("secret", &crate::redacted::Redacted)
            .field("event", &self.event)
            .field("body", &self.body)
            .finish()
    }
}

/// The outcome of one attempt.
#[derive(Debug, Clone)]
pub struct DeliveryOutcome {
    /// Whether a 2xx answer came.
    pub succeeded: bool,
    /// HTTP status of the answer, when one came.
    pub status_code: Option<u16>,
    /// Duration of the attempt.
    pub duration_ms: u64,
    /// Why it failed.
    pub error: Option<String>,
    /// RFC 3339 time the attempt started.
    pub attempted_at: String,
}

const WEBHOOK_COLUMNS: &str = "id, url, events, enabled, created_at, updated_at";
const DELIVERY_COLUMNS: &str =
    "id, webhook_id, event, state, status_code, duration_ms, error, attempted_at, created_at, redelivery_of";

fn webhook_row(r: &Row) -> DbResult<WebhookRow> {
    let events: String = r.get(2)?;
    Ok(WebhookRow {
        id: r.get(0)?,
        url: r.get(1)?,
        events: serde_json::from_str(&events).unwrap_or_default(),
        enabled: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
    })
}

fn delivery_row(r: &Row) -> DbResult<DeliveryRow> {
    Ok(DeliveryRow {
        id: r.get(0)?,
        webhook_id: r.get(1)?,
        event: r.get(2)?,
        state: r.get(3)?,
        status_code: r.get(4)?,
        duration_ms: r.get(5)?,
        error: r.get(6)?,
        attempted_at: r.get(7)?,
        created_at: r.get(8)?,
        redelivery_of: r.get(9)?,
    })
}

impl Store {
    /// Every webhook's stored signing secret, by webhook id (to seal or re-seal them).
    pub fn webhook_secrets(&self) -> StoreResult<Vec<(String, String)>> {
        self.read(|c| c.query_map("SELECT id, secret FROM webhooks", params![], |r| Ok((r.get(0)?, r.get(1)?))))
    }

    /// Replaces stored signing secrets (sealed forms), all in one transaction.
    pub fn set_webhook_secrets(&self, secrets: &[(String, String)]) -> StoreResult<()> {
        self.with(|c| {
            for (id, secret) in secrets {
                c.execute("UPDATE webhooks SET secret = ?2 WHERE id = ?1", params![id, secret])?;
            }
            Ok(())
        })
    }

    /// Stores a new webhook.
    pub fn add_webhook(
        &self,
        org: OrgId,
        id: &str,
        url: &str,
        events: &[String],
        secret: &str,
        enabled: bool,
    ) -> StoreResult<WebhookRow> {
        let events_json = serde_json::Value::from(events.to_vec()).to_string();
        let at = now();
        self.with(|c| {
            c.execute(
                "INSERT INTO webhooks (id, org_id, url, events, secret, enabled, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                params![id, org.0, url, events_json, secret, enabled, at],
            )?;
            Ok(())
        })?;
        Ok(WebhookRow {
            id: id.to_string(),
            url: url.to_string(),
            events: events.to_vec(),
            enabled,
            created_at: at.clone(),
            updated_at: at,
        })
    }

    /// The organisation's webhooks, oldest first.
    pub fn webhooks(&self, org: OrgId) -> StoreResult<Vec<WebhookRow>> {
        self.read(|c| {
            c.query_map(
                &format!(
                    "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE org_id = ?1 ORDER BY {}",
                    c.dialect().insertion_order()
                ),
                params![org.0],
                webhook_row,
            )
        })
    }

    /// One of the organisation's webhooks.
    pub fn webhook(&self, org: OrgId, id: &str) -> StoreResult<Option<WebhookRow>> {
        self.read(|c| {
            c.query_row(
                &format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE org_id = ?1 AND id = ?2"),
                params![org.0, id],
                webhook_row,
            )
            .optional()
        })
    }

    /// Enables or disables one of the organisation's webhooks; `None` when it has none of that id.
    pub fn set_webhook_enabled(&self, org: OrgId, id: &str, enabled: bool) -> StoreResult<Option<WebhookRow>> {
        self.with(|c| {
            c.query_row(
                &format!(
                    "UPDATE webhooks SET enabled = ?3, updated_at = ?4 WHERE org_id = ?1 AND id = ?2 \
                     RETURNING {WEBHOOK_COLUMNS}"
                ),
                params![org.0, id, enabled, now()],
                webhook_row,
            )
            .optional()
        })
    }

    /// Deletes one of the organisation's webhooks and its delivery log; whether it existed.
    pub fn delete_webhook(&self, org: OrgId, id: &str) -> StoreResult<bool> {
        self.with(|c| Ok(c.execute("DELETE FROM webhooks WHERE org_id = ?1 AND id = ?2", params![org.0, id])? > 0))
    }

    /// Queues an event for every enabled webhook of its organisation subscribed to it, in one
    /// transaction. Returns how many deliveries were queued.
    pub fn queue_event(&self, out: &Outgoing) -> StoreResult<usize> {
        self.with(|c| {
            let queued = queue_in(c, out)?;
            Ok(queued)
        })
    }

    /// Queues a Test delivery (`event`, `body`) to one of the organisation's webhooks, unless the
    /// organisation has `max_pending` deliveries queued by hand (tests and redeliveries) not yet
    /// sent.
    pub fn queue_delivery(
        &self,
        org: OrgId,
        webhook_id: &str,
        id: &str,
        event: &str,
        body: &[u8],
        max_pending: usize,
    ) -> StoreResult<ByHand> {
        self.with(|c| {
            if pending_by_hand(c, org)? >= max_pending {
                return full_unless_missing(c, "SELECT 1 FROM webhooks WHERE org_id = ?1 AND id = ?2", org, webhook_id);
            }
            let row = c
                .query_row(
                    &format!(
                        "INSERT INTO webhook_deliveries (id, org_id, webhook_id, event, body, state, created_at) \
                         SELECT ?1, org_id, id, ?3, ?4, 'pending', ?5 FROM webhooks WHERE org_id = ?6 AND id = ?2 \
                         RETURNING {DELIVERY_COLUMNS}"
                    ),
                    params![id, webhook_id, event, body, now(), org.0],
                    delivery_row,
                )
                .optional()?;
            Ok(row.map_or(ByHand::NotFound, ByHand::Queued))
        })
    }

    /// Queues a new delivery of the same body to the same webhook as one of the organisation's
    /// deliveries, unless the organisation has `max_pending` deliveries queued by hand not yet
    /// sent.
    pub fn queue_redelivery(&self, org: OrgId, delivery_id: &str, id: &str, max_pending: usize) -> StoreResult<ByHand> {
        self.with(|c| {
            if pending_by_hand(c, org)? >= max_pending {
                let sql = "SELECT 1 FROM webhook_deliveries WHERE org_id = ?1 AND id = ?2";
                return full_unless_missing(c, sql, org, delivery_id);
            }
            let row = c
                .query_row(
                    &format!(
                        "INSERT INTO webhook_deliveries \
                         (id, org_id, webhook_id, event, body, state, created_at, redelivery_of) \
                         SELECT ?1, org_id, webhook_id, event, body, 'pending', ?2, id FROM webhook_deliveries \
                         WHERE org_id = ?3 AND id = ?4 RETURNING {DELIVERY_COLUMNS}"
                    ),
                    params![id, now(), org.0, delivery_id],
                    delivery_row,
                )
                .optional()?;
            Ok(row.map_or(ByHand::NotFound, ByHand::Queued))
        })
    }

    /// One of the organisation's deliveries with its body.
    pub fn delivery(&self, org: OrgId, id: &str) -> StoreResult<Option<(DeliveryRow, Vec<u8>)>> {
        self.read(|c| {
            c.query_row(
                &format!("SELECT {DELIVERY_COLUMNS}, body FROM webhook_deliveries WHERE org_id = ?1 AND id = ?2"),
                params![org.0, id],
                |r| Ok((delivery_row(r)?, r.get(10)?)),
            )
            .optional()
        })
    }

    /// The latest `limit` deliveries of one webhook, newest first.
    pub fn deliveries(&self, org: OrgId, webhook_id: &str, limit: usize) -> StoreResult<Vec<DeliveryRow>> {
        self.read(|c| {
            c.query_map(
                &format!(
                    "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE org_id = ?1 AND webhook_id = ?2 \
                 ORDER BY {} DESC LIMIT ?3",
                    c.dialect().insertion_order()
                ),
                params![org.0, webhook_id, limit as i64],
                delivery_row,
            )
        })
    }

    /// Claims up to `limit` pending deliveries, oldest first (pending -> sending).
    pub fn claim_deliveries(&self, limit: usize) -> StoreResult<Vec<ClaimedDelivery>> {
        self.with(|c| {
            let claimed: Vec<ClaimedDelivery> = {
                c.query_map(
                    &format!(
                        "SELECT d.id, w.url, w.secret, d.event, d.body FROM webhook_deliveries d \
                     JOIN webhooks w ON w.id = d.webhook_id WHERE d.state = 'pending' ORDER BY d.{} LIMIT ?1{}",
                        c.dialect().insertion_order(),
                        c.dialect().skip_locked("d")
                    ),
                    params![limit as i64],
                    |r| {
                        Ok(ClaimedDelivery {
                            id: r.get(0)?,
                            url: r.get(1)?,
                            secret: r.get(2)?,
                            event: r.get(3)?,
                            body: r.get(4)?,
                        })
                    },
                )?
            };
            for d in &claimed {
                c.execute("UPDATE webhook_deliveries SET state = 'sending' WHERE id = ?1", params![&d.id])?;
            }
            Ok(claimed)
        })
    }

    /// Records the outcome of a claimed delivery's attempt.
    pub fn finish_delivery(&self, id: &str, outcome: &DeliveryOutcome) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "UPDATE webhook_deliveries SET state = ?2, status_code = ?3, duration_ms = ?4, error = ?5, \
                 attempted_at = ?6 WHERE id = ?1",
                params![
                    id,
                    if outcome.succeeded { DeliveryState::Succeeded } else { DeliveryState::Failed },
                    outcome.status_code,
                    outcome.duration_ms as i64,
                    outcome.error,
                    outcome.attempted_at
                ],
            )?;
            Ok(())
        })
    }

    /// Marks every delivery left `sending` as failed with `error` (no retries: a person
    /// redelivers); how many there were.
    pub fn fail_sending_deliveries(&self, error: &str) -> StoreResult<usize> {
        self.with(|c| {
            c.execute(
                "UPDATE webhook_deliveries SET state = 'failed', error = ?1, \
                 attempted_at = COALESCE(attempted_at, ?2) WHERE state = 'sending'",
                params![error, now()],
            )
        })
    }

    /// Deletes finished deliveries (succeeded or failed) created before `before` (RFC 3339);
    /// pending and sending ones are kept whatever their age. How many were deleted.
    pub fn prune_deliveries(&self, before: &str) -> StoreResult<usize> {
        self.with(|c| {
            c.execute(
                "DELETE FROM webhook_deliveries WHERE state IN ('succeeded', 'failed') AND created_at < ?1",
                params![before],
            )
        })
    }
}
