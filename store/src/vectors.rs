//! What the vector indexes read: the version of every item's latest successful embedding result
//! (to check an index against the database), catalog membership, and a page of found items.

use super::db::{Dialect, OptionalExtension, Value, params};

use super::backend::{Store, StoreResult};
use super::items::ItemRow;
use super::types::OrgId;
use crate::vocabulary::Product;

/// The latest successful result of an item: its version and time, which together say whether an
/// index holds the current vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultStamp {
    /// Customer item id.
    pub item_id: String,
    /// Product version.
    pub version: String,
    /// RFC 3339 time of the result.
    pub updated_at: String,
}

impl Store {
    /// The latest successful `product` result of every live item.
    pub fn result_stamps(&self, org: OrgId, product: Product) -> StoreResult<Vec<ResultStamp>> {
        self.read(|c| {
            // The row of the latest time per item: SQLite takes a bare column from the row of
            // MAX(); PostgreSQL says so with DISTINCT ON.
            let sql = match c.dialect() {
                Dialect::Sqlite => {
                    "SELECT r.item_id, r.version, MAX(r.updated_at) FROM results r
                     JOIN items i ON i.org_id = r.org_id AND i.id = r.item_id AND i.deleted = 0
                     WHERE r.org_id = ?1 AND r.product = ?2 AND r.status = 'success'
                     GROUP BY r.item_id ORDER BY r.item_id"
                }
                Dialect::Postgres => {
                    "SELECT DISTINCT ON (r.item_id) r.item_id, r.version, r.updated_at FROM results r
                     JOIN items i ON i.org_id = r.org_id AND i.id = r.item_id AND i.deleted = 0
                     WHERE r.org_id = ?1 AND r.product = ?2 AND r.status = 'success'
                     ORDER BY r.item_id, r.updated_at DESC"
                }
            };
            c.query_map(sql, params![org.0, product], |r| {
                Ok(ResultStamp { item_id: r.get(0)?, version: r.get(1)?, updated_at: r.get(2)? })
            })
        })
    }

    /// The latest successful `product` result of one item, when it is live and has one.
    pub fn result_stamp(&self, org: OrgId, item_id: &str, product: Product) -> StoreResult<Option<ResultStamp>> {
        self.read(|c| {
            c.query_row(
                "SELECT r.item_id, r.version, r.updated_at FROM results r
                 JOIN items i ON i.org_id = r.org_id AND i.id = r.item_id AND i.deleted = 0
                 WHERE r.org_id = ?1 AND r.item_id = ?2 AND r.product = ?3 AND r.status = 'success'
                 ORDER BY r.updated_at DESC LIMIT 1",
                params![org.0, item_id, product],
                |r| Ok(ResultStamp { item_id: r.get(0)?, version: r.get(1)?, updated_at: r.get(2)? }),
            )
            .optional()
        })
    }

    /// The items listed by the smartlists of a catalog (deleted ones included: callers filter).
    pub fn catalog_members(&self, org: OrgId, catalog_id: i64) -> StoreResult<Vec<String>> {
        self.read(|c| {
            c.query_map(
                "SELECT DISTINCT m.item_id FROM smartlist_members m JOIN smartlists s ON s.id = m.smartlist_id
                 WHERE s.org_id = ?1 AND s.catalog_id = ?2",
                params![org.0, catalog_id],
                |r| r.get(0),
            )
        })
    }

    /// The live items among `ids`, in no particular order (one query for a page of results).
    pub fn live_items(&self, org: OrgId, ids: &[&str]) -> StoreResult<Vec<ItemRow>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (0..ids.len()).map(|i| format!("?{}", i + 2)).collect();
        let sql = format!(
            "SELECT id, service_id, type, body, deleted FROM items WHERE org_id = ?1 AND deleted = 0 AND id IN ({})",
            marks.join(", ")
        );
        let mut args = vec![Value::Int(org.0)];
        args.extend(ids.iter().map(|id| Value::Text(id.to_string())));
        self.read(|c| c.query_map(&sql, &args, super::items::item_row))
    }

    /// Whether the organisation has the catalog.
    pub fn has_catalog_id(&self, org: OrgId, catalog_id: i64) -> StoreResult<bool> {
        self.read(|c| {
            c.query_row("SELECT 1 FROM catalogs WHERE org_id = ?1 AND id = ?2", params![org.0, catalog_id], |_| Ok(()))
                .optional()
                .map(|found| found.is_some())
        })
    }
}
