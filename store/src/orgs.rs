//! Organisations and their catalogs.

use super::backend::{Store, StoreResult};
use super::db::{OptionalExtension, params};
use super::types::{OrgId, now};

impl Store {
    // ---- organisations ----

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

    /// An organisation's name.
    pub fn org_name(&self, org: OrgId) -> StoreResult<Option<String>> {
        self.read(|c| c.query_row("SELECT name FROM orgs WHERE id = ?1", params![org.0], |r| r.get(0)).optional())
    }

    // ---- catalogs ----

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

    /// The name of the organisation's catalog of that id.
    pub fn catalog_by_id(&self, org: OrgId, id: i64) -> StoreResult<Option<String>> {
        self.read(|c| {
            c.query_row("SELECT name FROM catalogs WHERE org_id = ?1 AND id = ?2", params![org.0, id], |r| r.get(0))
                .optional()
        })
    }
}
