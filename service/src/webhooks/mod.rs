//! Portal webhooks, as the interface's Events section describes: an organisation subscribes
//! HTTPS URLs to events; each event is serialised once into the envelope
//! `{"event", "timestamp", "data"}`, and the exact bytes are queued durably, one delivery per
//! subscribed enabled webhook. The [`run_dispatcher`] task sends them (POST, signed with
//! [`kino::webhook::sign`], one attempt, 30 s timeout) and logs each attempt.
//!
//! The functions here only touch the database and wake the dispatcher: they never wait on the
//! network, so emitting an event never slows the request that caused it. The one exception is
//! [`create`], which resolves the URL's host once to refuse internal addresses.

mod address;
mod dispatch;
pub mod events;

use serde::Serialize;

use crate::changes::{Effects, Queued};
use crate::ids::random_hex;
use crate::secrets::SecretBox;
use crate::store::{ByHand, OrgId, Outgoing, Store, StoreError, WebhookRow};

pub use address::{check_url, forbidden_reason};
pub use dispatch::{DISPATCHER_LEASE, Dispatcher, INTERRUPTED, MAX_IN_FLIGHT, run_dispatcher};

/// The events a webhook can subscribe to.
pub const EVENTS: [&str; 6] = [
    "recipe.completed",
    "recipe.failed",
    "creative_asset.completed",
    "creative_asset.created",
    "creative_asset.failed",
    "smart_list.updated",
];

/// The event name of Test deliveries (not subscribable).
pub const TEST_EVENT: &str = "test";

/// The `data.message` of Test deliveries.
pub const TEST_MESSAGE: &str = "This is a test delivery from kino: your webhook endpoint is reachable.";

/// The interface's delivery timeout.
pub const DEFAULT_TIMEOUT: std::time::Duration = crate::config::DEFAULT_WEBHOOK_TIMEOUT;

/// The default of [`crate::state::Config::webhook_lease`]: 30 s.
pub const DEFAULT_LEASE: std::time::Duration = crate::config::DEFAULT_WEBHOOK_LEASE;

/// Most deliveries [`deliveries`] returns at once.
pub const MAX_LIST: usize = 1000;

/// Most deliveries an organisation may have queued by hand ([`test`](fn@test), [`redeliver`]) and not yet
/// sent; more are refused ([`WebhookError::TooManyPending`]): the delivery queue and its
/// dispatcher are shared by every organisation.
pub const MAX_PENDING_BY_HAND: usize = 10;

/// A webhook as shown to its organisation (the signing secret is shown once, by [`create`]).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(description = "A webhook (its signing secret is shown once, when it is created).")]
pub struct WebhookView {
    /// UUID v4.
    pub id: String,
    /// The receiving URL.
    pub url: String,
    /// Subscribed events.
    #[schema(value_type = Vec<WebhookEvent>)]
    pub events: Vec<String>,
    /// Whether events are delivered.
    pub enabled: bool,
    /// RFC 3339 creation time.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// RFC 3339 time of the last change.
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// A delivery as its log shows it (the stored row: the body is not shown).
pub use crate::store::DeliveryRow as DeliveryView;

/// What can go wrong managing webhooks or emitting events.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// A value broke a rule.
    #[error("{field}: {rule}")]
    Invalid {
        /// The field (`url`, `events`, `event`, `data`).
        field: &'static str,
        /// The rule it broke.
        rule: String,
    },
    /// The organisation has no such webhook or delivery.
    #[error("no {what} with id {id:?}")]
    NotFound {
        /// `webhook` or `delivery`.
        what: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The organisation has [`MAX_PENDING_BY_HAND`] deliveries queued by hand not yet sent.
    #[error(
        "at most {limit} test deliveries and redeliveries may wait to be sent per organisation; try again when \
         some have been sent"
    )]
    TooManyPending {
        /// The limit.
        limit: usize,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid(field: &'static str, rule: impl Into<String>) -> WebhookError {
    WebhookError::Invalid { field, rule: rule.into() }
}

/// A random (version 4) UUID.
fn uuid_v4() -> String {
    crate::portal::new_id()
}

/// The envelope, serialised once: field order `event`, `timestamp`, `data`; the timestamp is
/// ISO 8601 UTC with milliseconds.
fn envelope(event: &str, data: &serde_json::Value) -> Vec<u8> {
    #[derive(Serialize)]
    struct Envelope<'a> {
        event: &'a str,
        timestamp: String,
        data: &'a serde_json::Value,
    }
    serde_json::to_vec(&Envelope { event, timestamp: crate::store::now(), data })
        .expect("a JSON value always serialises")
}

fn webhook_view(w: WebhookRow) -> WebhookView {
    WebhookView {
        id: w.id,
        url: w.url,
        events: w.events,
        enabled: w.enabled,
        created_at: w.created_at,
        updated_at: w.updated_at,
    }
}

/// Checks a subscription: at least one event, each one of [`EVENTS`]; returns them deduplicated
/// in the order given.
fn check_events(events: &[String]) -> Result<Vec<String>, WebhookError> {
    if events.is_empty() {
        return Err(invalid("events", "select at least one event"));
    }
    let mut out: Vec<String> = Vec::new();
    for e in events {
        if !EVENTS.contains(&e.as_str()) {
            return Err(invalid("events", format!("unknown event {e:?}; one of {}", EVENTS.join(", "))));
        }
        if !out.contains(e) {
            out.push(e.clone());
        }
    }
    Ok(out)
}

/// Creates a webhook, enabled when `enabled` (the interface's flow creates it disabled: create,
/// copy the secret, enable), and returns it with its signing secret (64 hex characters), which is
/// shown this once. The URL
/// must be `https://` with a host, no userinfo, and a host that resolves only to public
/// addresses; this resolves it (a blocking DNS lookup: from async code, call it on a blocking
/// thread). `allow_loopback` admits loopback addresses (for tests and local set-ups only).
pub fn create(
    store: &Store,
    secrets: &SecretBox,
    allow_loopback: bool,
    org: OrgId,
    url: &str,
    events: &[String],
    enabled: bool,
) -> Result<(WebhookView, String), WebhookError> {
    let parsed = check_url(url, allow_loopback).map_err(|rule| invalid("url", rule))?;
    let events = check_events(events)?;
    address::check_resolves(&parsed, allow_loopback).map_err(|rule| invalid("url", rule))?;
    let secret = random_hex(32);
    let sealed = secrets.seal(&secret);
    let row = store.add_webhook(org, &uuid_v4(), parsed.as_str(), &events, &sealed, enabled)?;
    Ok((webhook_view(row), secret))
}

/// The organisation's webhooks, oldest first.
pub fn list(store: &Store, org: OrgId) -> Result<Vec<WebhookView>, WebhookError> {
    Ok(store.webhooks(org)?.into_iter().map(webhook_view).collect())
}

/// Enables or disables one of the organisation's webhooks. Deliveries already queued are still
/// sent; a disabled webhook gets no new events (Test and redelivery, by hand, still work).
pub fn set_enabled(store: &Store, org: OrgId, id: &str, enabled: bool) -> Result<WebhookView, WebhookError> {
    let row = store.set_webhook_enabled(org, id, enabled)?;
    row.map(webhook_view).ok_or_else(|| WebhookError::NotFound { what: "webhook", id: id.to_string() })
}

/// Deletes one of the organisation's webhooks with its delivery log (queued deliveries are
/// dropped).
pub fn delete(store: &Store, org: OrgId, id: &str) -> Result<(), WebhookError> {
    if store.delete_webhook(org, id)? {
        Ok(())
    } else {
        Err(WebhookError::NotFound { what: "webhook", id: id.to_string() })
    }
}

/// Emits an event of the organisation: the envelope is serialised once and queued for every
/// enabled webhook subscribed to `event`; returns how many deliveries were queued. `event` must
/// be one of [`EVENTS`] and `data` an object (see [`events`] for the shapes).
pub fn emit(
    store: &Store,
    fx: &Effects,
    org: OrgId,
    event: &str,
    data: serde_json::Value,
) -> Result<usize, WebhookError> {
    let queued = store.queue_event(&outgoing(org, event, data)?)?;
    if queued > 0 {
        fx.queued(Queued::Deliveries);
    }
    Ok(queued)
}

/// The envelope of `event` for the organisation's webhooks, checked and serialised once, to be
/// queued in the same transaction as the change that caused it (see [`crate::store::Outgoing`]);
/// wake the dispatcher ([`Queued::Deliveries`]) after that transaction commits.
pub fn outgoing(org: OrgId, event: &str, data: serde_json::Value) -> Result<Outgoing, WebhookError> {
    if !EVENTS.contains(&event) {
        return Err(invalid("event", format!("unknown event {event:?}; one of {}", EVENTS.join(", "))));
    }
    if !data.is_object() {
        return Err(invalid("data", "must be a JSON object"));
    }
    Ok(Outgoing { org, event: event.to_string(), body: envelope(event, &data) })
}

/// Queues a Test delivery (`{"event": "test", ..., "data": {"message": ...}}`, no event header)
/// to one of the organisation's webhooks, enabled or not: it is a by-hand check, typically made
/// before enabling. At most [`MAX_PENDING_BY_HAND`] wait to be sent per organisation.
pub fn test(store: &Store, fx: &Effects, org: OrgId, id: &str) -> Result<DeliveryView, WebhookError> {
    let body = envelope(TEST_EVENT, &serde_json::json!({ "message": TEST_MESSAGE }));
    let queued = store.queue_delivery(org, id, &uuid_v4(), TEST_EVENT, &body, MAX_PENDING_BY_HAND)?;
    by_hand(fx, queued, "webhook", id)
}

/// The delivery queued by hand, the dispatcher woken; or why none was.
fn by_hand(fx: &Effects, queued: ByHand, what: &'static str, id: &str) -> Result<DeliveryView, WebhookError> {
    match queued {
        ByHand::Queued(row) => {
            fx.queued(Queued::Deliveries);
            Ok(row)
        }
        ByHand::NotFound => Err(WebhookError::NotFound { what, id: id.to_string() }),
        ByHand::Full => Err(WebhookError::TooManyPending { limit: MAX_PENDING_BY_HAND }),
    }
}

/// The latest `limit` (at most [`MAX_LIST`]) deliveries of one of the organisation's webhooks,
/// newest first.
pub fn deliveries(
    store: &Store,
    org: OrgId,
    webhook_id: &str,
    limit: usize,
) -> Result<Vec<DeliveryView>, WebhookError> {
    if store.webhook(org, webhook_id)?.is_none() {
        return Err(WebhookError::NotFound { what: "webhook", id: webhook_id.to_string() });
    }
    let rows = store.deliveries(org, webhook_id, limit.min(MAX_LIST))?;
    Ok(rows.into_iter().collect())
}

/// Queues a new delivery with the same body bytes as one of the organisation's deliveries (and so
/// the same signature), linked to it by `redelivery_of`; sent even if the webhook is disabled.
/// At most [`MAX_PENDING_BY_HAND`] wait to be sent per organisation, tests included.
pub fn redeliver(store: &Store, fx: &Effects, org: OrgId, delivery_id: &str) -> Result<DeliveryView, WebhookError> {
    let queued = store.queue_redelivery(org, delivery_id, &uuid_v4(), MAX_PENDING_BY_HAND)?;
    by_hand(fx, queued, "delivery", delivery_id)
}

/// The events a webhook can subscribe to.
#[derive(Debug, Clone, Copy, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub enum WebhookEvent {
    /// A published recipe finished with at least one asset.
    #[serde(rename = "recipe.completed")]
    RecipeCompleted,
    /// A published recipe failed.
    #[serde(rename = "recipe.failed")]
    RecipeFailed,
    /// A creative asset was made.
    #[serde(rename = "creative_asset.completed")]
    CreativeAssetCompleted,
    /// A creative asset record was created.
    #[serde(rename = "creative_asset.created")]
    CreativeAssetCreated,
    /// A creative asset could not be made.
    #[serde(rename = "creative_asset.failed")]
    CreativeAssetFailed,
    /// A published smartlist's membership changed.
    #[serde(rename = "smart_list.updated")]
    SmartListUpdated,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4() {
        let id = uuid_v4();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(id, uuid_v4());
    }

    #[test]
    fn envelope_field_order_and_timestamp() {
        let body = envelope("recipe.failed", &serde_json::json!({"b": 1, "a": 2}));
        let text = String::from_utf8(body).unwrap();
        assert!(text.starts_with(r#"{"event":"recipe.failed","timestamp":""#), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let ts = v["timestamp"].as_str().unwrap();
        assert_eq!(ts.len(), 24, "{ts}");
        assert!(ts.ends_with('Z'));
    }

    #[test]
    fn events_are_checked_and_deduplicated() {
        assert!(check_events(&[]).is_err());
        assert!(check_events(&["test".into()]).is_err());
        let e = check_events(&["recipe.failed".into(), "recipe.failed".into()]).unwrap();
        assert_eq!(e, ["recipe.failed"]);
    }
}
