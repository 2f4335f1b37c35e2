//! Creative assets: what a recipe's run makes (thumbnails, previews), one row each.

use serde_json::Value;

use crate::backend::{Store, StoreResult};
use crate::db::{DbResult, Dialect, OptionalExtension, Row, params};
use crate::types::OrgId;
use crate::types::json;
use crate::webhooks::Outgoing;
use crate::webhooks::queue_in;

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
    CreativeAssetStatus {
        Pending => "pending",
        Completed => "completed",
        Failed => "failed",
    }
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
    pub kind: crate::portal::kinds::CreativeAssetType,
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
}
