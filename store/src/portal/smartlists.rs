//! Smartlists: their own fields, and their membership (the items their filter selects, in order).

use serde_json::Value;

use crate::backend::{Store, StoreResult};
use crate::db::{DbResult, OptionalExtension, Row, params};
use crate::types::json;
use crate::types::{OrgId, Write, now};
use crate::webhooks::Outgoing;
use crate::webhooks::queue_in;

/// A stored smartlist.
#[derive(Debug, Clone, Default)]
pub struct SmartlistRow {
    /// UUID.
    pub id: String,
    /// Owner.
    pub org: OrgId,
    /// Catalog id and name.
    pub catalog_id: i64,
    /// Catalog name.
    pub catalog_name: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// `dynamic` (membership from the filter).
    pub kind: String,
    /// Purposes.
    pub purpose: Vec<crate::portal::kinds::Purpose>,
    /// Whether a model generated it.
    pub is_ai_generated: bool,
    /// Creator's email.
    pub creator: String,
    /// The membership filter.
    pub filter: Value,
    /// When published; `None` while a draft.
    pub published_at: Option<String>,
    /// Created.
    pub created_at: String,
    /// Last changed (fields or membership).
    pub updated_at: String,
    /// Current membership size.
    pub item_count: i64,
}

const SMARTLIST_COLUMNS: &str = "s.id, s.org_id, s.catalog_id, c.name, s.title, s.description, s.type, s.purpose, \
     s.is_ai_generated, s.creator, s.filter, s.published_at, s.created_at, s.updated_at, \
     (SELECT COUNT(*) FROM smartlist_members m WHERE m.smartlist_id = s.id)";

fn smartlist(r: &Row) -> DbResult<SmartlistRow> {
    Ok(SmartlistRow {
        id: r.get(0)?,
        org: OrgId(r.get(1)?),
        catalog_id: r.get(2)?,
        catalog_name: r.get(3)?,
        title: r.get(4)?,
        description: r.get(5)?,
        kind: r.get(6)?,
        purpose: serde_json::from_str(&r.get::<_, String>(7)?).unwrap_or_default(),
        is_ai_generated: r.get(8)?,
        creator: r.get(9)?,
        filter: json(r.get(10)?),
        published_at: r.get(11)?,
        created_at: r.get(12)?,
        updated_at: r.get(13)?,
        item_count: r.get(14)?,
    })
}

impl Store {
    /// Writes a smartlist's own fields (not its membership): `Write::Insert` creates it,
    /// `Write::Update` changes an existing one and answers false when it no longer exists (a
    /// concurrent delete is not undone by a late update).
    pub fn put_smartlist(&self, s: &SmartlistRow, write: Write) -> StoreResult<bool> {
        // ?1 and ?2 name the smartlist; ?3 to ?11 are the fields both statements write.
        let key = params![s.id, s.org.0].to_vec();
        let fields = params![
            s.catalog_id,
            s.title,
            s.description,
            s.kind,
            serde_json::to_string(&s.purpose).unwrap_or_else(|_| "[]".into()),
            s.is_ai_generated,
            s.creator,
            s.filter.to_string(),
            s.published_at,
        ]
        .to_vec();
        let (sql, times) = match write {
            Write::Insert => (
                "INSERT INTO smartlists (id, org_id, catalog_id, title, description, type, purpose, is_ai_generated, \
                 creator, filter, published_at, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![s.created_at, s.updated_at].to_vec(),
            ),
            // An update keeps the creation time: it sets `updated_at` only.
            Write::Update => (
                "UPDATE smartlists SET catalog_id = ?3, title = ?4, description = ?5, type = ?6, purpose = ?7, \
                 is_ai_generated = ?8, creator = ?9, filter = ?10, published_at = ?11, updated_at = ?12 \
                 WHERE id = ?1 AND org_id = ?2",
                params![s.updated_at].to_vec(),
            ),
        };
        let values = [key, fields, times].concat();
        self.with(|c| Ok(c.execute(sql, &values)? > 0))
    }

    /// One of the organisation's smartlists.
    pub fn smartlist(&self, org: OrgId, id: &str) -> StoreResult<Option<SmartlistRow>> {
        self.read(|c| {
            c.query_row(
                &format!(
                    "SELECT {SMARTLIST_COLUMNS} FROM smartlists s JOIN catalogs c ON c.id = s.catalog_id \
                     WHERE s.org_id = ?1 AND s.id = ?2"
                ),
                params![org.0, id],
                smartlist,
            )
            .optional()
        })
    }

    /// The organisation's smartlists, oldest first.
    pub fn smartlists(&self, org: OrgId) -> StoreResult<Vec<SmartlistRow>> {
        self.read(|c| {
            c.query_map(
                &format!(
                    "SELECT {SMARTLIST_COLUMNS} FROM smartlists s JOIN catalogs c ON c.id = s.catalog_id \
                 WHERE s.org_id = ?1 ORDER BY s.created_at, s.id"
                ),
                params![org.0],
                smartlist,
            )
        })
    }

    /// Deletes a smartlist and its membership; whether it existed.
    pub fn delete_smartlist(&self, org: OrgId, id: &str) -> StoreResult<bool> {
        self.with(|c| {
            c.execute("DELETE FROM smartlist_members WHERE smartlist_id = (SELECT id FROM smartlists WHERE org_id = ?1 AND id = ?2)", params![org.0, id])?;
            let n = c.execute("DELETE FROM smartlists WHERE org_id = ?1 AND id = ?2", params![org.0, id])?;
            Ok(n > 0)
        })
    }

    /// A smartlist's members (customer item ids) in position order.
    pub fn smartlist_members(&self, id: &str) -> StoreResult<Vec<String>> {
        self.read(|c| {
            c.query_map(
                "SELECT item_id FROM smartlist_members WHERE smartlist_id = ?1 ORDER BY position",
                params![id],
                |r| r.get(0),
            )
        })
    }

    /// One page of a smartlist's members: (position, customer id, title), in position order.
    pub fn smartlist_page(
        &self,
        org: OrgId,
        id: &str,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Vec<(i64, String, String)>> {
        self.read(|c| {
            let title = c.dialect().json_text("i.body", &["title"]);
            c.query_map(
                &format!(
                    "SELECT m.position, m.item_id, COALESCE({title}, '') FROM smartlist_members m \
                 LEFT JOIN items i ON i.org_id = ?1 AND i.id = m.item_id \
                 WHERE m.smartlist_id = ?2 ORDER BY m.position LIMIT ?3 OFFSET ?4"
                ),
                params![org.0, id, limit, offset],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
        })
    }

    /// Replaces a smartlist's membership `expected` (as the caller read it) by `members`
    /// (positions from 1), touches its `updated_at` and queues `events`, in one transaction.
    /// Nothing is stored (false) when the list was deleted meanwhile, or when its membership is no
    /// longer `expected`: another process refreshed it first, and announced that change itself.
    pub fn set_smartlist_members(
        &self,
        id: &str,
        expected: &[String],
        members: &[String],
        events: &[Outgoing],
    ) -> StoreResult<bool> {
        self.with(|c| {
            // Deleted meanwhile: nothing to store, nothing to announce.
            if c.query_row("SELECT 1 FROM smartlists WHERE id = ?1", params![id], |_| Ok(())).optional()?.is_none() {
                return Ok(false);
            }
            let current: Vec<String> = c.query_map(
                "SELECT item_id FROM smartlist_members WHERE smartlist_id = ?1 ORDER BY position",
                params![id],
                |r| r.get(0),
            )?;
            if current != expected {
                return Ok(false);
            }
            for out in events {
                queue_in(c, out)?;
            }
            c.execute("DELETE FROM smartlist_members WHERE smartlist_id = ?1", params![id])?;
            for (i, item) in members.iter().enumerate() {
                c.execute(
                    "INSERT INTO smartlist_members (smartlist_id, position, item_id) VALUES (?1, ?2, ?3)",
                    params![id, i as i64 + 1, item],
                )?;
            }
            c.execute("UPDATE smartlists SET updated_at = ?2 WHERE id = ?1", params![id, now()])?;
            Ok(true)
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::types::now;

    /// An update or a membership refresh that lands after a delete neither brings the smartlist
    /// back nor fails on its foreign key.
    #[test]
    fn writes_after_a_delete_do_not_resurrect_a_smartlist() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("kino.sqlite3")).unwrap();
        let (org, _) = store.ensure_org("acme").unwrap();
        let catalog_id = store.ensure_catalog(org, "acme").unwrap();
        let s = SmartlistRow {
            id: "list-1".into(),
            org,
            catalog_id,
            title: "Noir".into(),
            kind: "dynamic".into(),
            filter: json!({}),
            created_at: now(),
            updated_at: now(),
            ..SmartlistRow::default()
        };
        assert!(store.put_smartlist(&s, Write::Insert).unwrap());
        assert!(store.put_smartlist(&SmartlistRow { title: "Neo-noir".into(), ..s.clone() }, Write::Update).unwrap());
        assert_eq!(store.smartlist(org, "list-1").unwrap().unwrap().title, "Neo-noir");
        assert!(store.set_smartlist_members("list-1", &[], &["a".into()], &[]).unwrap());
        assert!(
            !store.set_smartlist_members("list-1", &[], &["b".into()], &[]).unwrap(),
            "another refresh changed it first: this one's change (and its event) is not stored"
        );
        assert_eq!(store.smartlist_members("list-1").unwrap(), vec!["a".to_string()]);

        assert!(store.delete_smartlist(org, "list-1").unwrap());
        assert!(!store.put_smartlist(&s, Write::Update).unwrap(), "an update of a deleted list changes nothing");
        assert!(!store.set_smartlist_members("list-1", &["a".into()], &["a".into()], &[]).unwrap());
        assert!(store.smartlist(org, "list-1").unwrap().is_none());
        assert!(store.smartlist_members("list-1").unwrap().is_empty());
        assert!(store.put_smartlist(&s, Write::Insert).is_ok());
    }
}
