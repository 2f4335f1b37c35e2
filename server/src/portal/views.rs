//! The JSON the portal interface shows for each resource (list and detail views).

use serde_json::{Value, json};

use crate::store::{CreativeAssetRow, RecipeRow, SmartlistRow};

/// A smartlist; the detail view adds `catalog` and `filter`.
pub fn smartlist(s: &SmartlistRow, detail: bool) -> Value {
    let mut v = json!({
        "id": s.id,
        "title": s.title,
        "description": s.description,
        "type": s.kind,
        "publishing_state": if s.published_at.is_some() { "published" } else { "draft" },
        "purpose": s.purpose,
        "is_ai_generated": s.is_ai_generated,
        "creator": s.creator,
        "item_count": s.item_count,
        "published_at": s.published_at,
        "created_at": s.created_at,
        "updated_at": s.updated_at,
        "_links": {"self": format!("/smartlists/{}", s.id), "assets": format!("/smartlists/{}/assets", s.id)},
    });
    if detail {
        v["catalog"] = json!(s.catalog_name);
        v["filter"] = s.filter.clone();
    }
    v
}

/// A member of a smartlist.
pub fn smartlist_asset(inventory_id: &str, title: &str, position: usize) -> Value {
    json!({"inventory_id": inventory_id, "title": title, "position": position})
}

/// A recipe; the detail view adds `config` and `version`.
pub fn recipe(r: &RecipeRow, detail: bool) -> Value {
    let mut v = json!({
        "id": r.id,
        "title": r.title,
        "description": r.description,
        "status": r.status,
        "type": r.kind,
        "creator": r.creator,
        "catalog": r.catalog_name,
        "test_runs_count": r.test_runs_count,
        "published_at": r.published_at,
        "created_at": r.created_at,
        "updated_at": r.updated_at,
        "_links": {"self": format!("/recipes/{}", r.id)},
    });
    if detail {
        v["config"] = r.config.clone();
        v["version"] = json!(r.version);
    }
    v
}

/// Where a stored file is served: the configured public base joined with its bucket path.
pub fn file_url(base: &str, uri: Option<&String>) -> Value {
    match uri {
        Some(u) => json!(format!("{}/{}", base.trim_end_matches('/'), u.trim_start_matches('/'))),
        None => Value::Null,
    }
}

/// A creative asset; the detail view adds `run_number` and `asset_index`.
pub fn creative_asset(a: &CreativeAssetRow, media_base: &str, detail: bool) -> Value {
    let mut v = json!({
        "id": a.id,
        "title": a.title,
        "type": a.kind,
        "status": a.status,
        "recipe_id": a.recipe_id,
        "recipe_title": a.recipe_title,
        "inventory_id": a.item_id,
        "asset_title": a.asset_title,
        "image_uri": a.image_uri,
        "image_url": file_url(media_base, a.image_uri.as_ref()),
        "small_image_uri": a.small_image_uri,
        "small_image_url": file_url(media_base, a.small_image_uri.as_ref()),
        "video_uri": a.video_uri,
        "video_url": file_url(media_base, a.video_uri.as_ref()),
        "start_time": a.start_time,
        "stop_time": a.stop_time,
        "metadata": a.metadata,
        "logo_data": a.logo_data,
        "created_at": a.created_at,
        "updated_at": a.updated_at,
        "_links": {"self": format!("/creative-assets/{}", a.id), "recipe": format!("/recipes/{}", a.recipe_id)},
    });
    if detail {
        v["run_number"] = json!(a.run_number);
        v["asset_index"] = json!(a.asset_index);
    }
    v
}
