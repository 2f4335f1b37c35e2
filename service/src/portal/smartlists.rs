//! Smartlists: management (create, edit, publish, delete) and membership refresh.
//!
//! Membership is computed by [`super::filter`] over the organisation's catalog items and stored
//! with positions. It is recomputed when the catalog changes (item upserts, deletions, new
//! signals), when a smartlist's filter changes, by a daily refresh at a configured UTC time of day
//! (items whose license window opened or closed), and on demand (admin). Every change of the stored
//! membership of a **published** smartlist emits one `smart_list.updated` event carrying exactly
//! the service asset ids that joined and left; drafts are kept current silently.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, NaiveTime, Utc};
use serde_json::Value;
use tokio::sync::watch;

use super::Portal;
use super::filter::{Candidate, Filter, diff, members};
use super::kinds::Purpose;
use super::{ManageError, events, is_email, new_id, text};
use crate::changes::Queued;
use crate::signals::SignalsCache;
use crate::store::{OrgId, SmartlistRow, Store, Write, millis, now, now_ms};

pub use super::refresh::Refresher;

/// A membership change of one smartlist (the admin API's refresh answers these).
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
#[schema(as = MembershipChange)]
pub struct Change {
    /// Smartlist id.
    pub id: String,
    /// Customer ids that joined.
    pub added: Vec<String>,
    /// Customer ids that left.
    pub removed: Vec<String>,
}

fn purposes(v: &Value) -> Result<Vec<Purpose>, ManageError> {
    let list = v.as_array().ok_or_else(|| ManageError::invalid("purpose", "must be a list of strings"))?;
    let mut out = Vec::new();
    for p in list {
        match p.as_str().and_then(Purpose::parse) {
            Some(purpose) => {
                if !out.contains(&purpose) {
                    out.push(purpose);
                }
            }
            None => {
                return Err(ManageError::invalid("purpose", format!("values must be one of {}", Purpose::listed())));
            }
        }
    }
    Ok(out)
}

pub(crate) fn catalog_of(store: &Store, org: OrgId, input: &Value) -> Result<Option<(i64, String)>, ManageError> {
    if let Some(id) = input.get("catalog_id").filter(|v| !v.is_null()) {
        let id = id.as_i64().ok_or_else(|| ManageError::invalid("catalog_id", "must be an integer"))?;
        let name = store
            .catalog_by_id(org, id)?
            .ok_or_else(|| ManageError::NotFound { what: "catalog", id: id.to_string() })?;
        return Ok(Some((id, name)));
    }
    match text("catalog", input.get("catalog"), false, 200)? {
        None => Ok(None),
        Some(name) => {
            let id = store
                .catalogs(org)?
                .into_iter()
                .find(|(_, n, _)| *n == name)
                .map(|(id, _, _)| id)
                .ok_or_else(|| ManageError::NotFound { what: "catalog", id: name.clone() })?;
            Ok(Some((id, name)))
        }
    }
}

fn flag(input: &Value, field: &str) -> Result<Option<bool>, ManageError> {
    match input.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ManageError::invalid(field, "must be true or false")),
    }
}

/// Applies the fields present in `input` to `s` (all validated before anything changes).
fn apply(store: &Store, org: OrgId, s: &mut SmartlistRow, input: &Value, creating: bool) -> Result<(), ManageError> {
    if !input.is_object() {
        return Err(ManageError::invalid("body", "must be a JSON object"));
    }
    const KNOWN: [&str; 9] = [
        "title",
        "description",
        "catalog",
        "catalog_id",
        "purpose",
        "is_ai_generated",
        "creator",
        "filter",
        "published",
    ];
    if let Some(k) = input.as_object().into_iter().flatten().map(|(k, _)| k).find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(ManageError::invalid(k.clone(), format!("is not a smartlist field (use {})", KNOWN.join(", "))));
    }
    let title = text("title", input.get("title"), creating, 200)?;
    let description = text("description", input.get("description"), false, 5000)?;
    let catalog = catalog_of(store, org, input)?;
    if creating && catalog.is_none() {
        return Err(ManageError::invalid("catalog", "is required (a catalog name, or catalog_id)"));
    }
    let creator = text("creator", input.get("creator"), creating, 254)?;
    if let Some(c) = &creator
        && !is_email(c)
    {
        return Err(ManageError::invalid("creator", "must be an email address"));
    }
    let purpose = input.get("purpose").filter(|v| !v.is_null()).map(purposes).transpose()?;
    let ai = flag(input, "is_ai_generated")?;
    let filter = match input.get("filter").filter(|v| !v.is_null()) {
        Some(f) => {
            Filter::parse(f).map_err(|rule| ManageError::invalid("filter", rule))?;
            Some(f.clone())
        }
        None => None,
    };
    let published = flag(input, "published")?;
    if let Some(t) = title {
        s.title = t;
    }
    if let Some(d) = description {
        s.description = d;
    }
    if let Some((id, name)) = catalog {
        (s.catalog_id, s.catalog_name) = (id, name);
    }
    if let Some(c) = creator {
        s.creator = c;
    }
    if let Some(p) = purpose {
        s.purpose = p;
    }
    if let Some(a) = ai {
        s.is_ai_generated = a;
    }
    if let Some(f) = filter {
        s.filter = f;
    }
    match published {
        Some(true) if s.published_at.is_none() => s.published_at = Some(now()),
        Some(false) => s.published_at = None,
        _ => {}
    }
    Ok(())
}

/// Creates a smartlist from `{title, description?, catalog | catalog_id, purpose?, is_ai_generated?,
/// creator, filter?, published?}` and computes its membership.
pub fn create(p: &Portal, org: OrgId, input: &Value) -> Result<SmartlistRow, ManageError> {
    let stamp = now();
    let mut s = SmartlistRow {
        id: new_id(),
        org,
        kind: "dynamic".into(),
        purpose: vec![Purpose::Editorial],
        filter: serde_json::json!({}),
        created_at: stamp.clone(),
        updated_at: stamp,
        ..SmartlistRow::default()
    };
    apply(&p.store, org, &mut s, input, true)?;
    p.store.put_smartlist(&s, Write::Insert)?;
    refresh(p, org, Some(&s.id), Utc::now())?;
    get(&p.store, org, &s.id)
}

/// Changes the fields present in `input`; a new filter recomputes the membership.
pub fn update(p: &Portal, org: OrgId, id: &str, input: &Value) -> Result<SmartlistRow, ManageError> {
    let mut s = get(&p.store, org, id)?;
    apply(&p.store, org, &mut s, input, false)?;
    s.updated_at = now();
    if !p.store.put_smartlist(&s, Write::Update)? {
        return Err(ManageError::NotFound { what: "smartlist", id: id.into() });
    }
    refresh(p, org, Some(id), Utc::now())?;
    get(&p.store, org, id)
}

/// Publishes or unpublishes.
pub fn set_published(p: &Portal, org: OrgId, id: &str, published: bool) -> Result<SmartlistRow, ManageError> {
    update(p, org, id, &serde_json::json!({ "published": published }))
}

/// One smartlist.
pub fn get(store: &Store, org: OrgId, id: &str) -> Result<SmartlistRow, ManageError> {
    store.smartlist(org, id)?.ok_or_else(|| ManageError::NotFound { what: "smartlist", id: id.into() })
}

/// Deletes a smartlist.
pub fn delete(store: &Store, org: OrgId, id: &str) -> Result<(), ManageError> {
    if store.delete_smartlist(org, id)? {
        Ok(())
    } else {
        Err(ManageError::NotFound { what: "smartlist", id: id.into() })
    }
}

/// The engine's view of every item of the organisation.
fn candidates(
    store: &Store,
    cache: &SignalsCache,
    org: OrgId,
) -> Result<(Vec<Candidate>, HashMap<String, String>), ManageError> {
    let mut out = Vec::new();
    let mut service_ids = HashMap::new();
    let mut offset = 0;
    loop {
        let page = store.items(org, true, offset, 1000)?;
        if page.is_empty() {
            break;
        }
        offset += page.len() as i64;
        for item in page {
            let (keywords, moods) = crate::signals::tags(store, cache, org, &item.id);
            let arc = crate::signals::arc_shape(store, cache, org, &item.id);
            out.push(Candidate::from_item(&item.body, item.deleted, &keywords, &moods).with_arc(arc));
            service_ids.insert(item.id, item.service_id);
        }
    }
    Ok((out, service_ids))
}

/// Recomputes the membership of one smartlist (or all of the organisation's) as of `at`, stores
/// what changed and emits `smart_list.updated` for published ones. Refreshes run one at a time.
pub fn refresh(p: &Portal, org: OrgId, only: Option<&str>, at: DateTime<Utc>) -> Result<Vec<Change>, ManageError> {
    let _one_at_a_time = p.effects.refresher.running.lock().unwrap_or_else(|e| e.into_inner());
    let lists: Vec<SmartlistRow> =
        p.store.smartlists(org)?.into_iter().filter(|s| only.is_none_or(|id| s.id == id)).collect();
    if lists.is_empty() {
        return Ok(Vec::new());
    }
    let (candidates, service_ids) = candidates(&p.store, &p.signals, org)?;
    let mut changes = Vec::new();
    for s in lists {
        let Ok(filter) = Filter::parse(&s.filter) else {
            tracing::error!(smartlist = %s.id, "stored filter no longer parses; membership left as it was");
            continue;
        };
        let new = members(&filter, &candidates, at);
        let old = p.store.smartlist_members(&s.id)?;
        if new == old {
            continue;
        }
        let (added, removed) = diff(&old, &new);
        let ids = |v: &[String]| {
            v.iter().map(|id| service_ids.get(id).cloned().unwrap_or_else(|| id.clone())).collect::<Vec<_>>()
        };
        let announce = s.published_at.is_some() && !(added.is_empty() && removed.is_empty());
        let event = announce
            .then(|| {
                let data = events::smart_list_updated(&s.id, &s.title, &ids(&added), &ids(&removed));
                events::outgoing(org, "smart_list.updated", data)
            })
            .flatten();
        if !p.store.set_smartlist_members(&s.id, &old, &new, event.as_slice())? {
            // Deleted, or refreshed meanwhile by another process (which announced its change):
            // look again soon, from what is stored now.
            p.effects.refresher.catalog_changed(org);
            continue;
        }
        if event.is_some() {
            p.effects.queued(Queued::Deliveries);
        }
        if s.published_at.is_some()
            && !added.is_empty()
            && let Err(e) = super::recipes::follow(p, org, &s.id, &added)
        {
            tracing::error!(smartlist = %s.id, error = %e, "cannot queue follow-up recipe runs");
        }
        changes.push(Change { id: s.id, added, removed });
    }
    Ok(changes)
}

/// Refreshes every organisation's smartlists as of `at`.
pub fn refresh_all(p: &Portal, at: DateTime<Utc>) -> Result<usize, ManageError> {
    let mut changed = 0;
    for (org, _) in p.store.orgs()? {
        changed += refresh(p, org, None, at)?.len();
    }
    Ok(changed)
}

/// How long a process holds a daily refresh it started before another may take it over (it
/// renews the lease every third of this while the refresh runs).
pub const DAILY_RUN_LEASE: Duration = Duration::from_secs(600);

/// How long a finished daily refresh stays recorded as done (longer than a day, so no process
/// runs the same day's refresh again).
const DAILY_DONE_MS: i64 = 36 * 3600 * 1000;

/// The lease of one day's refresh, by its scheduled time.
fn daily_lease(slot: DateTime<Utc>) -> String {
    format!("smartlist-refresh@{}", slot.format("%Y-%m-%dT%H:%MZ"))
}

/// What a process found when the daily refresh of `slot` came due ([`begin_daily`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Daily {
    /// This process runs it (nobody had, or the process that started it died).
    Run,
    /// Another process ran it already.
    Done,
    /// Another process is running it; its lease runs until this time (ms since the epoch).
    Running(i64),
}

/// Among processes sharing the database, the daily refresh of `slot` runs once: the first to
/// come takes the slot's lease for [`DAILY_RUN_LEASE`] and runs it; the others find it running
/// (and look again when that lease would expire: if its holder died, they take over) or done.
pub fn begin_daily(store: &Store, slot: DateTime<Utc>, holder: &str, now_ms: i64) -> Result<Daily, ManageError> {
    let name = daily_lease(slot);
    let run_ms = millis(DAILY_RUN_LEASE);
    let done = |lease: Option<(String, i64)>| lease.is_some_and(|(_, until)| until > now_ms.saturating_add(run_ms));
    if done(store.lease(&name)?) {
        return Ok(Daily::Done);
    }
    match store.take_lease(&name, holder, now_ms, run_ms)? {
        crate::store::Lease::Taken | crate::store::Lease::Renewed => Ok(Daily::Run),
        crate::store::Lease::Busy => match store.lease(&name)? {
            lease if done(lease.clone()) => Ok(Daily::Done),
            Some((_, until)) => Ok(Daily::Running(until)),
            None => Ok(Daily::Running(now_ms)),
        },
    }
}

/// Renews the lease of a daily refresh this process is running.
pub fn renew_daily(store: &Store, slot: DateTime<Utc>, holder: &str, now_ms: i64) -> Result<(), ManageError> {
    let run_ms = millis(DAILY_RUN_LEASE);
    store.take_lease(&daily_lease(slot), holder, now_ms, run_ms)?;
    Ok(())
}

/// Records the daily refresh of `slot` done, and forgets the slots of earlier days.
pub fn end_daily(store: &Store, slot: DateTime<Utc>, holder: &str, now_ms: i64) -> Result<(), ManageError> {
    store.take_lease(&daily_lease(slot), holder, now_ms, DAILY_DONE_MS)?;
    store.prune_leases("smartlist-refresh@", now_ms)?;
    Ok(())
}

/// The next daily refresh after `now` at `at` (UTC time of day).
pub fn next_daily(now: DateTime<Utc>, at: NaiveTime) -> DateTime<Utc> {
    let today = now.date_naive().and_time(at).and_utc();
    if today > now { today } else { today + chrono::Duration::days(1) }
}

/// One step of the daily refresh's lease ([`begin_daily`], [`renew_daily`], [`end_daily`]), for
/// this process, now, on the blocking pool.
async fn lease_step<T: Send + 'static>(
    p: &Portal,
    slot: DateTime<Utc>,
    step: fn(&Store, DateTime<Utc>, &str, i64) -> Result<T, ManageError>,
) -> Option<Result<T, ManageError>> {
    let store = p.store.clone();
    crate::blocking::in_background("the daily refresh's lease", move || step(&store, slot, store.owner(), now_ms()))
        .await
}

/// Runs the daily refresh of `slot` when this process is the one to ([`begin_daily`]), renewing
/// its lease while it runs; returns when to look again (`None`: the slot is settled).
async fn daily(p: &Portal, slot: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match lease_step(p, slot, begin_daily).await {
        Some(Ok(Daily::Run)) => {}
        Some(Ok(Daily::Done)) => return None,
        Some(Ok(Daily::Running(until))) => {
            // Look again when that lease would run out (its holder may die before finishing).
            return Some(DateTime::from_timestamp_millis(until.saturating_add(1000)).unwrap_or_else(Utc::now));
        }
        Some(Err(e)) => {
            tracing::error!(error = %e, "cannot take the daily smartlist refresh's lease; trying again in a minute");
            return Some(Utc::now() + chrono::Duration::minutes(1));
        }
        None => return None, // it panicked (logged)
    }
    let s = p.clone();
    let run = crate::blocking::in_background("the daily smartlist refresh", move || refresh_all(&s, Utc::now()));
    tokio::pin!(run);
    let mut renew = tokio::time::interval(DAILY_RUN_LEASE / 3);
    renew.tick().await;
    let outcome = loop {
        tokio::select! {
            done = &mut run => break done,
            _ = renew.tick() => {
                if let Some(Err(e)) = lease_step(p, slot, renew_daily).await {
                    tracing::error!(error = %e, "cannot renew the daily smartlist refresh's lease");
                }
            }
        }
    };
    match outcome {
        Some(Ok(n)) => tracing::info!(changed = n, "daily smartlist refresh"),
        Some(Err(e)) => tracing::error!(error = %e, "daily smartlist refresh failed"),
        None => {} // it panicked (logged)
    }
    if let Some(Err(e)) = lease_step(p, slot, end_daily).await {
        tracing::error!(error = %e, "cannot record the daily smartlist refresh done");
    }
    None
}

/// Runs the refresher until `shutdown`: catalog changes as they come, and everything daily at
/// `daily_at` (UTC), once among the processes sharing the database.
pub async fn run_refresher(p: Portal, daily_at: NaiveTime, mut shutdown: watch::Receiver<bool>) {
    let mut slot = next_daily(Utc::now(), daily_at);
    let mut next = slot;
    loop {
        let wait = (next - Utc::now()).to_std().unwrap_or(Duration::ZERO);
        tokio::select! {
            _ = p.effects.refresher.wake.notified() => {
                let orgs: Vec<OrgId> = p.effects.refresher.dirty.lock().unwrap_or_else(|e| e.into_inner()).drain().collect();
                let s = p.clone();
                crate::blocking::in_background("a smartlist refresh", move || {
                    for org in orgs {
                        if let Err(e) = refresh(&s, org, None, Utc::now()) {
                            tracing::error!(org = org.0, error = %e, "smartlist refresh failed");
                        }
                    }
                }).await;
            }
            _ = tokio::time::sleep(wait) => {
                match daily(&p, slot).await {
                    Some(again) => next = again,
                    None => {
                        slot = next_daily(Utc::now().max(slot), daily_at);
                        next = slot;
                    }
                }
            }
            _ = shutdown.changed() => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_daily_is_strictly_later() {
        let at = NaiveTime::from_hms_opt(4, 0, 0).unwrap();
        let now: DateTime<Utc> = "2026-11-22T03:59:59Z".parse().unwrap();
        assert_eq!(next_daily(now, at).to_rfc3339(), "2026-11-22T04:00:00+00:00");
        let now: DateTime<Utc> = "2026-11-22T04:00:00Z".parse().unwrap();
        assert_eq!(next_daily(now, at).to_rfc3339(), "2026-11-23T04:00:00+00:00");
    }
}
