//! The catalog's items, and the signals of each (what its media analysis measured).

use super::backend::{Store, StoreResult};
use super::db::{DbResult, OptionalExtension, Row, params};
use super::types::{OrgId, now};

/// A stored catalog item.
#[derive(Debug, Clone)]
pub struct ItemRow {
    /// Customer id.
    pub id: String,
    /// The service's own id.
    pub service_id: String,
    /// `standalone`, `series`, `season` or `episode`.
    pub item_type: crate::vocabulary::ItemType,
    /// The item as last upserted (JSON).
    pub body: serde_json::Value,
    /// Whether the item is deleted.
    pub deleted: bool,
}

impl ItemRow {
    /// A field of the item's `episodic_info` (else `extended_episodic_info`), e.g. `season_id`;
    /// `None` when neither has it (or it is `null`).
    pub fn episodic(&self, key: &str) -> Option<&serde_json::Value> {
        ["episodic_info", "extended_episodic_info"].iter().find_map(|k| self.body[*k].get(key).filter(|v| !v.is_null()))
    }

    /// An integer field of its episodic information (`season_number`, `episode_number`).
    pub fn episodic_number(&self, key: &str) -> Option<i64> {
        self.episodic(key).and_then(serde_json::Value::as_i64)
    }

    /// Its `title`, when it has one.
    pub fn title(&self) -> Option<&str> {
        self.body["title"].as_str()
    }

    /// Its title, or its id when it has none (or an empty one): what a listing shows.
    pub fn title_or_id(&self) -> &str {
        self.title().filter(|t| !t.is_empty()).unwrap_or(&self.id)
    }

    /// Its `release_year`.
    pub fn release_year(&self) -> Option<i64> {
        self.body["release_year"].as_i64()
    }

    /// Where its media file is: `asset_info.file_uri`, when it has one.
    pub fn file_uri(&self) -> Option<&str> {
        self.body["asset_info"]["file_uri"].as_str()
    }

    /// Its `metadata.short_description`.
    pub fn short_description(&self) -> Option<&str> {
        self.body["metadata"]["short_description"].as_str()
    }

    /// Its `metadata.genres`, in the order given (entries that are not text left out).
    pub fn genres(&self) -> impl Iterator<Item = &str> {
        self.body["metadata"]["genres"].as_array().into_iter().flatten().filter_map(serde_json::Value::as_str)
    }
}

impl Store {
    // ---- catalog items ----

    /// Creates or replaces an item; returns its (stable) service id.
    pub fn upsert_item(
        &self,
        org: OrgId,
        id: &str,
        item_type: crate::vocabulary::ItemType,
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

    /// An item (deleted or not) and the version of its stored signals, when it has any, in one
    /// call (what a previews request reads).
    pub fn item_and_signals_version(&self, org: OrgId, id: &str) -> StoreResult<Option<(ItemRow, Option<i64>)>> {
        self.read(|c| {
            c.query_row(
                "SELECT i.id, i.service_id, i.type, i.body, i.deleted, s.version FROM items i \
                 LEFT JOIN signals s ON s.org_id = i.org_id AND s.item_id = i.id WHERE i.org_id = ?1 AND i.id = ?2",
                params![org.0, id],
                |r| Ok((item_row(r)?, r.get(5)?)),
            )
            .optional()
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
    format!("svc-{}", crate::ids::random_hex(12))
}
