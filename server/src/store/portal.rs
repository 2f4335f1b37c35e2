//! Storage of the portal's resources: smartlists and their membership, recipes, creative assets.

use super::db::{DbResult, Dialect, OptionalExtension, Row, params};
use serde_json::{Value, json};

use super::webhooks::queue_in;
use super::{OrgId, Outgoing, Store, StoreResult, Write, now};

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
    /// Purposes (`editorial`, `creative-lab`, `review-filter`).
    pub purpose: Vec<String>,
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

/// Where a recipe stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RecipeStatus {
    /// Not published.
    #[default]
    Draft,
    /// Published, not running.
    Published,
    /// A run is in progress.
    Running,
    /// The last run made at least one asset.
    Completed,
    /// The last run made none.
    Failed,
}

/// How far a creative asset got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CreativeAssetStatus {
    /// Being made.
    #[default]
    Pending,
    /// Made (files rendered, or data only).
    Completed,
    /// Not made; the admin view's `error` says why.
    Failed,
}

text_enum! {
    RecipeStatus {
        Draft => "draft",
        Published => "published",
        Running => "running",
        Completed => "completed",
        Failed => "failed",
    }
}

text_enum! {
    CreativeAssetStatus {
        Pending => "pending",
        Completed => "completed",
        Failed => "failed",
    }
}

/// A stored recipe.
#[derive(Debug, Clone, Default)]
pub struct RecipeRow {
    /// UUID.
    pub id: String,
    /// Owner.
    pub org: OrgId,
    /// Catalog id.
    pub catalog_id: i64,
    /// Catalog name.
    pub catalog_name: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// `thumbnails` or `preview-clips`.
    pub kind: String,
    /// Creator's email.
    pub creator: String,
    /// The generation parameters.
    pub config: Value,
    /// Bumped on every config change.
    pub version: i64,
    /// Where it stands.
    pub status: RecipeStatus,
    /// Runs of the recipe while unpublished.
    pub test_runs_count: i64,
    /// All runs.
    pub runs: i64,
    /// Why the last run failed.
    pub last_error: Option<String>,
    /// When published.
    pub published_at: Option<String>,
    /// Created.
    pub created_at: String,
    /// Last changed.
    pub updated_at: String,
}

/// A stored creative asset.
#[derive(Debug, Clone, Default)]
pub struct CreativeAssetRow {
    /// UUID.
    pub id: String,
    /// Recipe UUID.
    pub recipe_id: String,
    /// Recipe title (joined).
    pub recipe_title: String,
    /// Title of the item (joined; empty when the item is gone).
    pub asset_title: String,
    /// Which run of the recipe made it (from 1).
    pub run_number: i64,
    /// Its index within the run (from 0).
    pub asset_index: i64,
    /// `thumbnail`, `preview`, `thumbnail-vertical`, `preview-vertical`.
    pub kind: String,
    /// How far it got.
    pub status: CreativeAssetStatus,
    /// Customer item id.
    pub item_id: String,
    /// Title.
    pub title: String,
    /// Seconds.
    pub start_time: f64,
    /// Seconds.
    pub stop_time: f64,
    /// Scores that justified the choice.
    pub metadata: Value,
    /// Logo of the item, when it has one.
    pub logo_data: Option<Value>,
    /// Large image, relative to the bucket.
    pub image_uri: Option<String>,
    /// Small image, relative to the bucket.
    pub small_image_uri: Option<String>,
    /// Video, relative to the bucket.
    pub video_uri: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// Created.
    pub created_at: String,
    /// Last changed.
    pub updated_at: String,
}

fn json(text: String) -> Value {
    serde_json::from_str(&text).unwrap_or(Value::Null)
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

const RECIPE_COLUMNS: &str = "r.id, r.org_id, r.catalog_id, c.name, r.title, r.description, r.type, r.creator, \
     r.config, r.version, r.status, r.test_runs_count, r.runs, r.last_error, r.published_at, r.created_at, r.updated_at";

fn recipe(r: &Row) -> DbResult<RecipeRow> {
    Ok(RecipeRow {
        id: r.get(0)?,
        org: OrgId(r.get(1)?),
        catalog_id: r.get(2)?,
        catalog_name: r.get(3)?,
        title: r.get(4)?,
        description: r.get(5)?,
        kind: r.get(6)?,
        creator: r.get(7)?,
        config: json(r.get(8)?),
        version: r.get(9)?,
        status: r.get(10)?,
        test_runs_count: r.get(11)?,
        runs: r.get(12)?,
        last_error: r.get(13)?,
        published_at: r.get(14)?,
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
    })
}

/// The columns [`asset`] reads, from the joins of [`ASSET_FROM`].
fn asset_columns(dialect: Dialect) -> String {
    format!(
        "a.id, a.recipe_id, r.title, a.run_number, a.asset_index, a.type, a.status, a.item_id, \
         a.title, a.start_time, a.stop_time, a.metadata, a.logo_data, a.image_uri, a.small_image_uri, a.video_uri, \
         a.error, a.created_at, a.updated_at, COALESCE({}, '')",
        dialect.json_text("i.body", &["title"])
    )
}

/// The joins behind [`asset_columns`].
const ASSET_FROM: &str = "creative_assets a JOIN recipes r ON r.id = a.recipe_id \
     LEFT JOIN items i ON i.org_id = a.org_id AND i.id = a.item_id";

fn asset(r: &Row) -> DbResult<CreativeAssetRow> {
    Ok(CreativeAssetRow {
        id: r.get(0)?,
        recipe_id: r.get(1)?,
        recipe_title: r.get(2)?,
        run_number: r.get(3)?,
        asset_index: r.get(4)?,
        kind: r.get(5)?,
        status: r.get(6)?,
        item_id: r.get(7)?,
        title: r.get(8)?,
        start_time: r.get(9)?,
        stop_time: r.get(10)?,
        metadata: json(r.get(11)?),
        logo_data: r.get::<_, Option<String>>(12)?.map(json),
        image_uri: r.get(13)?,
        small_image_uri: r.get(14)?,
        video_uri: r.get(15)?,
        error: r.get(16)?,
        created_at: r.get(17)?,
        updated_at: r.get(18)?,
        asset_title: r.get(19)?,
    })
}

impl Store {
    // ---- smartlists ----

    /// Writes a smartlist's own fields (not its membership): `Write::Insert` creates it,
    /// `Write::Update` changes an existing one and answers false when it no longer exists (a
    /// concurrent delete is not undone by a late update).
    pub fn put_smartlist(&self, s: &SmartlistRow, write: Write) -> StoreResult<bool> {
        let sql = match write {
            Write::Insert => {
                "INSERT INTO smartlists (id, org_id, catalog_id, title, description, type, purpose, is_ai_generated, \
                 creator, filter, published_at, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
            }
            Write::Update => {
                "UPDATE smartlists SET catalog_id = ?3, title = ?4, description = ?5, type = ?6, purpose = ?7, \
                 is_ai_generated = ?8, creator = ?9, filter = ?10, published_at = ?11, updated_at = ?12 \
                 WHERE id = ?1 AND org_id = ?2"
            }
        };
        self.with(|c| {
            let mut values = params![
                s.id,
                s.org.0,
                s.catalog_id,
                s.title,
                s.description,
                s.kind,
                serde_json::to_string(&s.purpose).unwrap_or_else(|_| "[]".into()),
                s.is_ai_generated,
                s.creator,
                s.filter.to_string(),
                s.published_at,
                s.created_at,
                s.updated_at,
            ]
            .to_vec();
            if write == Write::Update {
                // An update keeps the creation time: the statement has no parameter for it.
                values.remove(11);
            }
            Ok(c.execute(sql, &values)? > 0)
        })
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

    // ---- recipes ----

    /// Writes a recipe's fields: `Write::Insert` creates it, `Write::Update` changes an existing
    /// one and answers false when it no longer exists.
    pub fn put_recipe(&self, r: &RecipeRow, write: Write) -> StoreResult<bool> {
        let sql = match write {
            Write::Insert => {
                "INSERT INTO recipes (id, org_id, catalog_id, title, description, type, creator, config, version, \
                 status, test_runs_count, runs, last_error, published_at, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
            }
            Write::Update => {
                "UPDATE recipes SET catalog_id = ?3, title = ?4, description = ?5, type = ?6, creator = ?7, \
                 config = ?8, version = ?9, status = ?10, test_runs_count = ?11, runs = ?12, last_error = ?13, \
                 published_at = ?14, updated_at = ?15 WHERE id = ?1 AND org_id = ?2"
            }
        };
        self.with(|c| {
            let mut values = params![
                r.id,
                r.org.0,
                r.catalog_id,
                r.title,
                r.description,
                r.kind,
                r.creator,
                r.config.to_string(),
                r.version,
                r.status,
                r.test_runs_count,
                r.runs,
                r.last_error,
                r.published_at,
                r.created_at,
                r.updated_at,
            ]
            .to_vec();
            if write == Write::Update {
                // An update keeps the creation time: the statement has no parameter for it.
                values.remove(14);
            }
            Ok(c.execute(sql, &values)? > 0)
        })
    }

    /// One of the organisation's recipes.
    pub fn recipe(&self, org: OrgId, id: &str) -> StoreResult<Option<RecipeRow>> {
        self.read(|c| {
            c.query_row(
                &format!(
                    "SELECT {RECIPE_COLUMNS} FROM recipes r JOIN catalogs c ON c.id = r.catalog_id \
                     WHERE r.org_id = ?1 AND r.id = ?2"
                ),
                params![org.0, id],
                recipe,
            )
            .optional()
        })
    }

    /// The organisation's recipes, oldest first.
    pub fn recipes(&self, org: OrgId) -> StoreResult<Vec<RecipeRow>> {
        self.read(|c| {
            c.query_map(
                &format!(
                    "SELECT {RECIPE_COLUMNS} FROM recipes r JOIN catalogs c ON c.id = r.catalog_id \
                 WHERE r.org_id = ?1 ORDER BY r.created_at, r.id"
                ),
                params![org.0],
                recipe,
            )
        })
    }

    /// Starts a run: counts it (as a test run while unpublished), marks the recipe `running`, and
    /// returns the run number. `None` when a run is already in progress.
    pub fn start_recipe_run(&self, org: OrgId, id: &str) -> StoreResult<Option<i64>> {
        self.with(|c| {
            let n = c.execute(
                "UPDATE recipes SET runs = runs + 1, \
                 test_runs_count = test_runs_count + (CASE WHEN published_at IS NULL THEN 1 ELSE 0 END), \
                 status = 'running', last_error = NULL, updated_at = ?3, owner = ?4 \
                 WHERE org_id = ?1 AND id = ?2 AND status != 'running'",
                params![org.0, id, now(), self.owner()],
            )?;
            let run = if n == 1 {
                Some(c.query_row("SELECT runs FROM recipes WHERE id = ?1", params![id], |r| r.get(0))?)
            } else {
                None
            };
            Ok(run)
        })
    }

    /// Queues items that joined a recipe's smartlist for a follow-up run (without duplicates).
    pub fn add_recipe_followups(&self, id: &str, items: &[String]) -> StoreResult<()> {
        self.with(|c| {
            let Some(text) = c
                .query_row("SELECT followup_items FROM recipes WHERE id = ?1", params![id], |r| r.get::<_, String>(0))
                .optional()?
            else {
                return Ok(());
            };
            let mut queued: Vec<String> = serde_json::from_str(&text).unwrap_or_default();
            for item in items {
                if !queued.contains(item) {
                    queued.push(item.clone());
                }
            }
            c.execute("UPDATE recipes SET followup_items = ?2 WHERE id = ?1", params![id, json!(queued).to_string()])?;
            Ok(())
        })
    }

    /// Starts a follow-up run when items are queued and no run is in progress: takes the queued
    /// items and returns them with the run number.
    pub fn start_followup_run(&self, org: OrgId, id: &str) -> StoreResult<Option<(i64, Vec<String>)>> {
        self.with(|c| {
            let row: Option<(String, String)> = c
                .query_row(
                    "SELECT status, followup_items FROM recipes WHERE org_id = ?1 AND id = ?2",
                    params![org.0, id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some((status, text)) = row else { return Ok(None) };
            let items: Vec<String> = serde_json::from_str(&text).unwrap_or_default();
            if status == "running" || items.is_empty() {
                return Ok(None);
            }
            c.execute(
                "UPDATE recipes SET runs = runs + 1, status = 'running', last_error = NULL, followup_items = '[]', \
                 updated_at = ?2, owner = ?3 WHERE id = ?1",
                params![id, now(), self.owner()],
            )?;
            let run: i64 = c.query_row("SELECT runs FROM recipes WHERE id = ?1", params![id], |r| r.get(0))?;
            Ok(Some((run, items)))
        })
    }

    /// Ends a run, `completed` or `failed` (with its error), and queues `events`, in one transaction.
    pub fn finish_recipe_run(
        &self,
        id: &str,
        status: RecipeStatus,
        error: Option<&str>,
        events: &[Outgoing],
    ) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "UPDATE recipes SET status = ?2, last_error = ?3, updated_at = ?4 WHERE id = ?1",
                params![id, status, error, now()],
            )?;
            for out in events {
                queue_in(c, out)?;
            }
            Ok(())
        })
    }

    /// Recipes left `running` by a process no longer alive become `failed`, with their pending
    /// creative assets; returns their ids.
    pub fn fail_interrupted_recipes(&self) -> StoreResult<Vec<(OrgId, String)>> {
        let now_ms = super::now_ms();
        self.with(|c| {
            let ids: Vec<(OrgId, String)> = c.query_map(
                &format!(
                    "SELECT org_id, id FROM recipes WHERE status = 'running' AND NOT {}",
                    super::leases::owner_alive("recipes.owner", "?1")
                ),
                params![now_ms],
                |r| Ok((OrgId(r.get(0)?), r.get(1)?)),
            )?;
            for (_, id) in &ids {
                c.execute(
                    "UPDATE creative_assets SET status = 'failed', error = 'interrupted by a restart', updated_at = ?2 \
                     WHERE recipe_id = ?1 AND status = 'pending'",
                    params![id, now()],
                )?;
                c.execute(
                    "UPDATE recipes SET status = 'failed', last_error = 'interrupted by a restart', updated_at = ?2, \
                     owner = NULL WHERE id = ?1",
                    params![id, now()],
                )?;
            }
            Ok(ids)
        })
    }

    // ---- creative assets ----

    /// Inserts or replaces a creative asset and queues `events`, in one transaction.
    pub fn put_creative_asset(&self, org: OrgId, a: &CreativeAssetRow, events: &[Outgoing]) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "INSERT INTO creative_assets (id, org_id, recipe_id, run_number, asset_index, type, status, item_id, \
                 title, start_time, stop_time, metadata, logo_data, image_uri, small_image_uri, video_uri, error, \
                 created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19) \
                 ON CONFLICT (id) DO UPDATE SET status = ?7, title = ?9, start_time = ?10, stop_time = ?11, \
                 metadata = ?12, logo_data = ?13, image_uri = ?14, small_image_uri = ?15, video_uri = ?16, \
                 error = ?17, updated_at = ?19",
                params![
                    a.id,
                    org.0,
                    a.recipe_id,
                    a.run_number,
                    a.asset_index,
                    a.kind,
                    a.status,
                    a.item_id,
                    a.title,
                    a.start_time,
                    a.stop_time,
                    a.metadata.to_string(),
                    a.logo_data.as_ref().map(Value::to_string),
                    a.image_uri,
                    a.small_image_uri,
                    a.video_uri,
                    a.error,
                    a.created_at,
                    a.updated_at,
                ],
            )?;
            for out in events {
                queue_in(c, out)?;
            }
            Ok(())
        })
    }

    /// One of the organisation's creative assets.
    pub fn creative_asset(&self, org: OrgId, id: &str) -> StoreResult<Option<CreativeAssetRow>> {
        self.read(|c| {
            c.query_row(
                &format!(
                    "SELECT {} FROM {ASSET_FROM} \
                     WHERE a.org_id = ?1 AND a.id = ?2",
                    asset_columns(c.dialect())
                ),
                params![org.0, id],
                asset,
            )
            .optional()
        })
    }

    /// The organisation's creative assets (optionally of one recipe), in creation order.
    pub fn creative_assets(&self, org: OrgId, recipe: Option<&str>) -> StoreResult<Vec<CreativeAssetRow>> {
        self.read(|c| {
            c.query_map(
                &format!(
                    "SELECT {} FROM {ASSET_FROM} \
                 WHERE a.org_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR a.recipe_id = ?2) \
                 ORDER BY a.created_at, a.run_number, a.asset_index",
                    asset_columns(c.dialect())
                ),
                params![org.0, recipe],
                asset,
            )
        })
    }

    /// The organisation of a catalog id.
    pub fn catalog_by_id(&self, org: OrgId, id: i64) -> StoreResult<Option<String>> {
        self.read(|c| {
            c.query_row("SELECT name FROM catalogs WHERE org_id = ?1 AND id = ?2", params![org.0, id], |r| r.get(0))
                .optional()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
