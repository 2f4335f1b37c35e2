//! Recipes (what creative assets to make from a smartlist's items) and their runs.

use serde_json::{Value, json};

use crate::backend::{Store, StoreResult};
use crate::db::{DbResult, OptionalExtension, Row, params};
use crate::types::json;
use crate::types::{OrgId, Write, now};
use crate::webhooks::Outgoing;
use crate::webhooks::queue_in;

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

text_enum! {
    RecipeStatus {
        Draft => "draft",
        Published => "published",
        Running => "running",
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
    pub kind: crate::portal::kinds::RecipeType,
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

impl Store {
    /// Writes a recipe's fields: `Write::Insert` creates it, `Write::Update` changes an existing
    /// one and answers false when it no longer exists.
    pub fn put_recipe(&self, r: &RecipeRow, write: Write) -> StoreResult<bool> {
        // ?1 and ?2 name the recipe; ?3 to ?14 are the fields both statements write.
        let key = params![r.id, r.org.0].to_vec();
        let fields = params![
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
        ]
        .to_vec();
        let (sql, times) = match write {
            Write::Insert => (
                "INSERT INTO recipes (id, org_id, catalog_id, title, description, type, creator, config, version, \
                 status, test_runs_count, runs, last_error, published_at, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                params![r.created_at, r.updated_at].to_vec(),
            ),
            // An update keeps the creation time: it sets `updated_at` only.
            Write::Update => (
                "UPDATE recipes SET catalog_id = ?3, title = ?4, description = ?5, type = ?6, creator = ?7, \
                 config = ?8, version = ?9, status = ?10, test_runs_count = ?11, runs = ?12, last_error = ?13, \
                 published_at = ?14, updated_at = ?15 WHERE id = ?1 AND org_id = ?2",
                params![r.updated_at].to_vec(),
            ),
        };
        let values = [key, fields, times].concat();
        self.with(|c| Ok(c.execute(sql, &values)? > 0))
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
        let now_ms = crate::types::now_ms();
        self.with(|c| {
            let ids: Vec<(OrgId, String)> = c.query_map(
                &format!(
                    "SELECT org_id, id FROM recipes WHERE status = 'running' AND NOT {}",
                    crate::leases::owner_alive("recipes.owner", "?1")
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An update writes every field but the creation time, and changes nothing once the recipe is
    /// gone.
    #[test]
    fn an_update_keeps_the_creation_time() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("kino.sqlite3")).unwrap();
        let (org, _) = store.ensure_org("acme").unwrap();
        let catalog_id = store.ensure_catalog(org, "acme").unwrap();
        let r = RecipeRow {
            id: "recipe-1".into(),
            org,
            catalog_id,
            title: "Trailers".into(),
            kind: crate::portal::kinds::RecipeType::Thumbnails,
            config: json!({"count": 3}),
            version: 1,
            created_at: "2024-01-01T00:00:00.000Z".into(),
            updated_at: "2024-01-01T00:00:00.000Z".into(),
            ..RecipeRow::default()
        };
        assert!(store.put_recipe(&r, Write::Insert).unwrap());
        let changed = RecipeRow {
            title: "Teasers".into(),
            config: json!({"count": 5}),
            version: 2,
            status: RecipeStatus::Published,
            last_error: Some("none yet".into()),
            published_at: Some("2024-01-02T00:00:00.000Z".into()),
            created_at: "2030-01-01T00:00:00.000Z".into(),
            updated_at: "2024-01-02T00:00:00.000Z".into(),
            ..r.clone()
        };
        assert!(store.put_recipe(&changed, Write::Update).unwrap());
        let stored = store.recipe(org, "recipe-1").unwrap().unwrap();
        assert_eq!(
            (stored.title.as_str(), stored.version, stored.status, stored.config["count"].as_i64()),
            ("Teasers", 2, RecipeStatus::Published, Some(5))
        );
        assert_eq!(stored.last_error.as_deref(), Some("none yet"));
        assert_eq!(stored.published_at.as_deref(), Some("2024-01-02T00:00:00.000Z"));
        assert_eq!(stored.created_at, "2024-01-01T00:00:00.000Z", "an update keeps the creation time");
        assert_eq!(stored.updated_at, "2024-01-02T00:00:00.000Z");

        let other = RecipeRow { id: "recipe-2".into(), ..r };
        assert!(!store.put_recipe(&other, Write::Update).unwrap(), "an update of a missing recipe changes nothing");
        assert!(store.recipe(org, "recipe-2").unwrap().is_none());
    }
}
