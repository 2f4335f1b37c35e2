//! A recipe run: the items it applies to, the moments chosen in each, the creative assets made,
//! rendered and announced.

use kino::Clip;
use kino::thumbnail::{FrameChoice, FrameRule, choose_frame};
use serde_json::{Value, json};

use super::config::{Config, Targets};
use crate::changes::Queued;
use crate::portal::Portal;
use crate::portal::events;
use crate::portal::kinds::CreativeAssetType;
use crate::store::Store;
use crate::store::{CreativeAssetRow, CreativeAssetStatus, ItemRow, OrgId, Outgoing, RecipeRow, RecipeStatus, now};

/// Runs a recipe to the end (on the calling thread): creates, renders and records its assets,
/// then finishes the run and emits the recipe event. `only` restricts the run to those items (a
/// follow-up run for titles that joined the recipe's smartlist).
pub fn execute(p: &Portal, org: OrgId, r: &RecipeRow, config: &Config, run: i64, only: Option<&[String]>) {
    let published = r.published_at.is_some();
    // Events of published recipes, each queued with the change it reports.
    let event = |name: &str, data: Value| -> Vec<Outgoing> {
        if published { events::outgoing(org, name, data).into_iter().collect() } else { Vec::new() }
    };
    let outcome = produce(p, org, r, config, run, only, &event);
    let (status, error) = match &outcome {
        Ok(ids) if !ids.is_empty() => (RecipeStatus::Completed, None),
        Ok(_) => (RecipeStatus::Failed, Some("no creative asset could be made: every asset failed".to_string())),
        Err(e) => (RecipeStatus::Failed, Some(e.clone())),
    };
    let announce = match (&outcome, &error) {
        (Ok(ids), None) => {
            event("recipe.completed", json!(events::recipe_completed(&r.id, &r.title, config.data_only, ids)))
        }
        (_, Some(e)) => event("recipe.failed", json!(events::recipe_failed(&r.id, &r.title, config.data_only, e))),
        (Err(_), None) => Vec::new(),
    };
    match p.store.finish_recipe_run(&r.id, status, error.as_deref(), &announce) {
        Ok(()) => p.effects.queued(Queued::Deliveries),
        Err(e) => tracing::error!(recipe = %r.id, error = %e, "cannot record the end of a recipe run"),
    }
}

/// The live items a recipe applies to.
fn targets(store: &Store, org: OrgId, t: &Targets) -> Result<Vec<ItemRow>, String> {
    let ids = match t {
        Targets::Smartlist(id) => {
            if store.smartlist(org, id).map_err(|e| e.to_string())?.is_none() {
                return Err(format!("smartlist {id} no longer exists"));
            }
            store.smartlist_members(id).map_err(|e| e.to_string())?
        }
        Targets::Items(ids) => ids.clone(),
    };
    let mut items = Vec::new();
    for id in ids {
        match store.item(org, &id).map_err(|e| e.to_string())? {
            Some(item) if !item.deleted => items.push(item),
            _ => {}
        }
    }
    if items.is_empty() {
        return Err("the recipe applies to no live catalog item".into());
    }
    Ok(items)
}

/// Creates every asset of the run; returns the ids of those that completed.
fn produce(
    p: &Portal,
    org: OrgId,
    r: &RecipeRow,
    config: &Config,
    run: i64,
    only: Option<&[String]>,
    event: &dyn Fn(&str, Value) -> Vec<Outgoing>,
) -> Result<Vec<String>, String> {
    let mut items = targets(&p.store, org, &config.targets)?;
    if let Some(only) = only {
        items.retain(|item| only.contains(&item.id));
        if items.is_empty() {
            return Err("none of the titles this run was for is still among the recipe's assets".into());
        }
    }
    let embedding = match &config.query.search_query {
        Some(q) => Some(p.encoder.encode(q).map_err(|e| e.to_string())?),
        None => None,
    };
    let kinds = r.kind.assets(config.vertical);
    let mut completed = Vec::new();
    let mut index = 0;
    for item in &items {
        let title = item.title().unwrap_or(&item.id).to_string();
        let signals = crate::signals::prepared(&p.store, &p.signals, org, &item.id).map_err(|e| e.to_string());
        let clips: Result<Vec<Clip>, String> = match &signals {
            Ok(Some(prepared)) => match kino::select(prepared, &config.query, embedding.as_deref()) {
                Ok(c) if c.is_empty() => Err("no moment of the item meets the recipe's previews parameters".into()),
                other => other.map_err(|e| e.to_string()),
            },
            Ok(None) => Err("the item has no analysis signals yet".into()),
            Err(e) => Err(e.clone()),
        };
        let signals = signals.ok().flatten();
        for &kind in &kinds {
            let moments: Vec<Option<&Clip>> = match &clips {
                Ok(c) => c.iter().map(Some).collect(),
                Err(_) => vec![None],
            };
            for (n, clip) in moments.into_iter().enumerate() {
                let stamp = now();
                let mut a = CreativeAssetRow {
                    id: crate::portal::new_id(),
                    recipe_id: r.id.clone(),
                    recipe_title: r.title.clone(),
                    run_number: run,
                    asset_index: index,
                    kind,
                    status: CreativeAssetStatus::Pending,
                    item_id: item.id.clone(),
                    title: format!("{title} – {} {}", kind.as_str().replace('-', " "), n + 1),
                    created_at: stamp.clone(),
                    updated_at: stamp,
                    ..CreativeAssetRow::default()
                };
                index += 1;
                let choice = match (clip, signals.as_deref()) {
                    (Some(c), Some(prepared)) => moment(prepared.signals(), c, kind, &config.frame),
                    _ => None,
                };
                match (&clips, choice) {
                    (Ok(_), Some((start, stop, metadata, brightness))) => {
                        a.start_time = start;
                        a.stop_time = stop;
                        a.metadata = metadata;
                        a.logo_data = logo(&item.body, brightness);
                    }
                    (Err(e), _) => {
                        a.status = CreativeAssetStatus::Failed;
                        a.error = Some(e.clone());
                        a.metadata = json!({"error": e});
                    }
                    (Ok(_), None) => {
                        a.status = CreativeAssetStatus::Failed;
                        a.error = Some("no frame of the clip can be chosen".into());
                        a.metadata = json!({"error": a.error});
                    }
                }
                let keep = |a: &CreativeAssetRow, queued: &[Outgoing]| {
                    p.store
                        .put_creative_asset(org, a, queued)
                        .map_err(|e| format!("cannot store a creative asset: {e}"))?;
                    p.effects.queued(Queued::Deliveries);
                    Ok::<(), String>(())
                };
                let asset_event =
                    |name: &str, a: &CreativeAssetRow| event(name, json!(events::creative_asset(a, &item.service_id)));
                let created = asset_event("creative_asset.created", &a);
                if a.status == CreativeAssetStatus::Failed {
                    keep(&a, &[created, asset_event("creative_asset.failed", &a)].concat())?;
                    continue;
                }
                keep(&a, &created)?;
                finish_asset(p, org, item, &mut a, config.data_only);
                let done = match a.status {
                    CreativeAssetStatus::Completed => {
                        completed.push(a.id.clone());
                        asset_event("creative_asset.completed", &a)
                    }
                    CreativeAssetStatus::Failed => asset_event("creative_asset.failed", &a),
                    CreativeAssetStatus::Pending => Vec::new(),
                };
                keep(&a, &done)?;
            }
        }
    }
    Ok(completed)
}

/// Renders an asset's files (or, for data-only recipes, completes it without files).
fn finish_asset(p: &Portal, org: OrgId, item: &ItemRow, a: &mut CreativeAssetRow, data_only: bool) {
    a.updated_at = now();
    if data_only {
        a.status = CreativeAssetStatus::Completed;
        a.metadata["files"] = json!("none: data-only recipe");
        return;
    }
    match crate::jobs::render::creative_asset(&p.renderer, org, item, a) {
        Ok(()) => a.status = CreativeAssetStatus::Completed,
        Err(e) => {
            let shown = e.shown("creative asset", &a.id);
            a.status = CreativeAssetStatus::Failed;
            a.metadata["error"] = json!(shown);
            a.error = Some(shown);
        }
    }
}

/// The span, metadata and brightness of an asset made from `clip`.
fn moment(s: &kino::Signals, clip: &Clip, kind: CreativeAssetType, rule: &FrameRule) -> Option<(f64, f64, Value, f64)> {
    let scores = json!({
        "relevance": clip.relevance,
        "type_score": clip.type_score,
        "query_relevance": clip.query_relevance,
        "clip_type": clip.clip_type,
        "nudity": clip.nudity,
        "blood_gore": clip.blood_gore,
        "profanity": clip.profanity,
        "brightness": clip.brightness,
        "clip_index": clip.clip_index,
        "snapped_start": clip.snapped_start,
        "snapped_stop": clip.snapped_stop,
        "start_speech_avoidance": clip.start_speech_avoidance,
        "end_speech_avoidance": clip.end_speech_avoidance,
    });
    let vertical = kind.is_vertical().then(|| vertical_info(s, clip.start_time, clip.stop_time));
    if !kind.is_clip() {
        let f: FrameChoice = choose_frame(s, clip.start_time, clip.stop_time, rule)?;
        let mut m = json!({"rule": "thumbnail frame rule (docs/portal.md)", "frame": f, "clip": scores});
        if let Some(v) = vertical {
            m["vertical"] = v;
        }
        Some((f.time, f.time, m, f.brightness))
    } else {
        let mut m = json!({"rule": "clip selection (clip-selection.md)", "clip": scores});
        if let Some(v) = vertical {
            m["vertical"] = v;
        }
        Some((clip.start_time, clip.stop_time, m, clip.brightness))
    }
}

/// The vertical crop centre over a span: mean of the `x_center` track, and the black bars.
fn vertical_info(s: &kino::Signals, start: f64, stop: f64) -> Value {
    match &s.vertical {
        Some(v) if v.step > 0.0 && !v.x_center.is_empty() => {
            let a = ((start / v.step) as usize).min(v.x_center.len() - 1);
            let b = ((stop / v.step).ceil() as usize).clamp(a + 1, v.x_center.len());
            let mean = v.x_center[a..b].iter().map(|x| *x as f64).sum::<f64>() / (b - a) as f64;
            json!({"x_center": mean, "blackbars": v.blackbars, "aspect_ratio": "9:16"})
        }
        _ => {
            json!({"x_center": 0.5, "blackbars": [0, 0], "aspect_ratio": "9:16", "note": "no vertical track; centred"})
        }
    }
}

/// The logo to lay over an asset, from the item's `logo_urls`: the `bright` logo on a dark frame,
/// the `dark` logo on a bright one (either when only one exists). Placement is the top-left title
/// safe area as fractions of the frame `[x, y, width, height]`; `score` is the contrast between the
/// logo kind and the frame (1 = ideal).
fn logo(item: &Value, brightness: f64) -> Option<Value> {
    let urls = item["logo_urls"].as_object().filter(|m| !m.is_empty())?;
    let preferred = if brightness > 0.5 { "dark" } else { "bright" };
    let (name, url) = urls
        .get_key_value(preferred)
        .or_else(|| urls.iter().next())
        .and_then(|(k, v)| v.as_str().map(|u| (k.clone(), u.to_string())))?;
    let contrast = match name.as_str() {
        "dark" => brightness,
        "bright" => 1.0 - brightness,
        _ => 0.5,
    };
    Some(json!({
        "has_logo": true,
        "coordinates": [0.05, 0.05, 0.25, 0.12],
        "size": 0.25,
        "logo_image": url,
        "logo_name": name,
        "score": (contrast * 1000.0).round() / 1000.0,
    }))
}
