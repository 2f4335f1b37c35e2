//! Recipes: management, and runs that apply a recipe to its assets and create creative assets.
//!
//! A recipe's `config` (validated when it is saved):
//!
//! | key | value | default |
//! |---|---|---|
//! | `smartlist_id` | UUID of one of the organisation's smartlists (its members are the assets) | one of the two is required |
//! | `inventory_ids` | list of customer item ids | |
//! | `per_item` | creative assets of each type per item, 1 to 10 | 1 |
//! | `vertical` | also make the `-vertical` (9:16) form of each asset | false |
//! | `data_only` | choose moments and scores only; render no files | false |
//! | `previews` | any previews parameter (`clip_length`, `clip_type`, `max_nudity`, `search_query`, ...) as in the clip search | `{}` |
//! | `thumbnail` | the frame rule: `min_brightness`, `max_brightness`, `max_nudity`, `max_blood_gore`, `shot_margin`, `main_character` | see [`kino::thumbnail::FrameRule`] |
//!
//! A `preview-clips` recipe makes `preview` assets (the clips the core selects with the recipe's
//! previews parameters); a `thumbnails` recipe makes `thumbnail` assets (the frame chosen inside
//! each clip by the documented frame rule, `start_time == stop_time` = the frame's time).
//!
//! A run creates each asset record (`creative_asset.created`), then renders its files and marks it
//! `completed` or `failed` (`creative_asset.completed` / `.failed`), then the recipe is
//! `completed` (`recipe.completed`, with every asset id) when at least one asset completed, or
//! `failed` (`recipe.failed` with the reason). Events are sent for published recipes; runs of a
//! draft are test runs (counted in `test_runs_count`) and send none. Publishing a recipe runs it.

use kino::thumbnail::{FrameChoice, FrameRule, choose_frame};
use kino::{Clip, ClipQuery, TextEncoder};
use serde_json::{Value, json};

use super::{ManageError, events, is_email, is_uuid, new_id, text};
use crate::state::AppState;
use crate::store::{CreativeAssetRow, ItemRow, OrgId, RecipeRow, now};

/// The values of a recipe's `type`.
pub const TYPES: [&str; 2] = ["thumbnails", "preview-clips"];

/// A validated recipe config.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the assets come from.
    pub targets: Targets,
    /// Assets of each type per item.
    pub per_item: usize,
    /// Whether to make the vertical forms too.
    pub vertical: bool,
    /// Whether to skip rendering.
    pub data_only: bool,
    /// The clip search.
    pub query: ClipQuery,
    /// The thumbnail frame rule.
    pub frame: FrameRule,
}

/// The assets a recipe applies to.
#[derive(Debug, Clone, PartialEq)]
pub enum Targets {
    /// The members of a smartlist.
    Smartlist(String),
    /// Listed items.
    Items(Vec<String>),
}

fn param_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn number(obj: &Value, key: &str, default: f64, lo: f64, hi: f64) -> Result<f64, ManageError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v.as_f64().filter(|x| (lo..=hi).contains(x)).ok_or_else(|| {
            ManageError::invalid(format!("config.thumbnail.{key}"), format!("must be a number from {lo} to {hi}"))
        }),
    }
}

impl Config {
    /// Validates a config; errors name the key (`config.previews.clip_length`) and the rule.
    pub fn parse(v: &Value) -> Result<Config, ManageError> {
        let obj = v.as_object().ok_or_else(|| ManageError::invalid("config", "must be a JSON object"))?;
        const KNOWN: [&str; 7] =
            ["smartlist_id", "inventory_ids", "per_item", "vertical", "data_only", "previews", "thumbnail"];
        if let Some(k) = obj.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(ManageError::invalid(
                format!("config.{k}"),
                format!("is not a config key (use {})", KNOWN.join(", ")),
            ));
        }
        let targets = match (obj.get("smartlist_id"), obj.get("inventory_ids")) {
            (Some(id), None) => match id.as_str() {
                Some(s) if is_uuid(s) => Targets::Smartlist(s.to_ascii_lowercase()),
                _ => return Err(ManageError::invalid("config.smartlist_id", "must be a smartlist UUID")),
            },
            (None, Some(ids)) => {
                let list = ids.as_array().filter(|a| !a.is_empty() && a.len() <= 10_000).ok_or_else(|| {
                    ManageError::invalid("config.inventory_ids", "must be a list of 1 to 10000 item ids")
                })?;
                let mut out = Vec::new();
                for id in list {
                    match id.as_str() {
                        Some(s) if !s.is_empty() => out.push(s.to_string()),
                        _ => return Err(ManageError::invalid("config.inventory_ids", "must hold non-empty strings")),
                    }
                }
                Targets::Items(out)
            }
            _ => return Err(ManageError::invalid("config", "needs exactly one of smartlist_id and inventory_ids")),
        };
        let per_item = match obj.get("per_item") {
            None => 1,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=10).contains(n))
                .ok_or_else(|| ManageError::invalid("config.per_item", "must be an integer from 1 to 10"))?
                as usize,
        };
        let flag = |key: &str| match obj.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ManageError::invalid(format!("config.{key}"), "must be true or false")),
        };
        let (vertical, data_only) = (flag("vertical")?, flag("data_only")?);
        let empty = json!({});
        let previews = obj.get("previews").unwrap_or(&empty);
        let pairs: Vec<(String, String)> = match previews.as_object() {
            Some(p) => p
                .iter()
                .map(|(k, v)| {
                    param_text(v).map(|t| (k.clone(), t)).ok_or_else(|| {
                        ManageError::invalid(format!("config.previews.{k}"), "must be a string, number or boolean")
                    })
                })
                .collect::<Result<_, _>>()?,
            None => return Err(ManageError::invalid("config.previews", "must be an object of previews parameters")),
        };
        for banned in ["trigger_generation", "generate", "aspect_ratio", "number_of_top_candidates"] {
            if pairs.iter().any(|(k, _)| k == banned) {
                return Err(ManageError::invalid(
                    format!("config.previews.{banned}"),
                    "is set by the recipe itself (use per_item, vertical)",
                ));
            }
        }
        let mut query =
            ClipQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(|e| match e {
                kino::Error::InvalidQuery { issues } => {
                    let i = &issues[0];
                    ManageError::invalid(format!("config.previews.{}", i.param), i.message.clone())
                }
                other => ManageError::invalid("config.previews", other.to_string()),
            })?;
        query.number_of_top_candidates = per_item;
        let t = obj.get("thumbnail").unwrap_or(&empty);
        if !t.is_object() {
            return Err(ManageError::invalid("config.thumbnail", "must be an object"));
        }
        let d = FrameRule::default();
        let frame = FrameRule {
            min_brightness: number(t, "min_brightness", d.min_brightness, 0.0, 1.0)?,
            max_brightness: number(t, "max_brightness", d.max_brightness, 0.0, 1.0)?,
            max_nudity: number(t, "max_nudity", d.max_nudity, 0.0, 1.0)?,
            max_blood_gore: number(t, "max_blood_gore", d.max_blood_gore, 0.0, 1.0)?,
            shot_margin: number(t, "shot_margin", d.shot_margin, 0.0, 60.0)?,
            main_character: match t.get("main_character") {
                None => d.main_character,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(ManageError::invalid("config.thumbnail.main_character", "must be true or false"));
                }
            },
        };
        if frame.min_brightness > frame.max_brightness {
            return Err(ManageError::invalid("config.thumbnail.min_brightness", "must not exceed max_brightness"));
        }
        Ok(Config { targets, per_item, vertical, data_only, query, frame })
    }
}

fn apply(state: &AppState, org: OrgId, r: &mut RecipeRow, input: &Value, creating: bool) -> Result<(), ManageError> {
    let obj = input.as_object().ok_or_else(|| ManageError::invalid("body", "must be a JSON object"))?;
    const KNOWN: [&str; 8] =
        ["title", "description", "type", "creator", "catalog", "catalog_id", "config", "published"];
    if let Some(k) = obj.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(ManageError::invalid(k.clone(), format!("is not a recipe field (use {})", KNOWN.join(", "))));
    }
    let title = text("title", input.get("title"), creating, 200)?;
    let description = text("description", input.get("description"), false, 5000)?;
    let kind = text("type", input.get("type"), creating, 40)?;
    if let Some(k) = &kind {
        if !TYPES.contains(&k.as_str()) {
            return Err(ManageError::invalid("type", format!("must be one of {}", TYPES.join(", "))));
        }
    }
    let creator = text("creator", input.get("creator"), creating, 254)?;
    if creator.as_deref().is_some_and(|c| !is_email(c)) {
        return Err(ManageError::invalid("creator", "must be an email address"));
    }
    let catalog = super::smartlists::catalog_of(state, org, input)?;
    if creating && catalog.is_none() {
        return Err(ManageError::invalid("catalog", "is required (a catalog name, or catalog_id)"));
    }
    let config = match input.get("config") {
        None | Some(Value::Null) if creating => return Err(ManageError::invalid("config", "is required")),
        None | Some(Value::Null) => None,
        Some(c) => {
            let parsed = Config::parse(c)?;
            if let Targets::Smartlist(id) = &parsed.targets {
                if state.store.smartlist(org, id)?.is_none() {
                    return Err(ManageError::invalid(
                        "config.smartlist_id",
                        format!("no smartlist {id} in this organisation"),
                    ));
                }
            }
            Some(c.clone())
        }
    };
    let published = match input.get("published") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err(ManageError::invalid("published", "must be true or false")),
    };
    if r.status == "running" && (config.is_some() || kind.is_some()) {
        return Err(ManageError::Conflict("the recipe is running; change its config when the run ends".into()));
    }
    if let Some(t) = title {
        r.title = t;
    }
    if let Some(d) = description {
        r.description = d;
    }
    if let Some(k) = kind {
        r.kind = k;
    }
    if let Some(c) = creator {
        r.creator = c;
    }
    if let Some((id, name)) = catalog {
        (r.catalog_id, r.catalog_name) = (id, name);
    }
    if let Some(c) = config {
        if !creating && c != r.config {
            r.version += 1;
        }
        r.config = c;
    }
    match published {
        Some(true) if r.published_at.is_none() => {
            r.published_at = Some(now());
            if r.status == "draft" {
                r.status = "published".into();
            }
        }
        Some(false) => {
            r.published_at = None;
            if r.status != "running" {
                r.status = "draft".into();
            }
        }
        _ => {}
    }
    Ok(())
}

/// Creates a recipe from `{title, description?, type, creator, catalog | catalog_id, config,
/// published?}`; publishing runs it.
pub fn create(state: &AppState, org: OrgId, input: &Value) -> Result<RecipeRow, ManageError> {
    let stamp = now();
    let mut r = RecipeRow {
        id: new_id(),
        org,
        catalog_id: 0,
        catalog_name: String::new(),
        title: String::new(),
        description: String::new(),
        kind: String::new(),
        creator: String::new(),
        config: json!({}),
        version: 1,
        status: "draft".into(),
        test_runs_count: 0,
        runs: 0,
        last_error: None,
        published_at: None,
        created_at: stamp.clone(),
        updated_at: stamp,
    };
    apply(state, org, &mut r, input, true)?;
    state.store.put_recipe(&r)?;
    if r.published_at.is_some() {
        start(state, org, &r.id)?;
    }
    get(state, org, &r.id)
}

/// Changes the fields present in `input`; publishing a draft runs it.
pub fn update(state: &AppState, org: OrgId, id: &str, input: &Value) -> Result<RecipeRow, ManageError> {
    let mut r = get(state, org, id)?;
    let was_published = r.published_at.is_some();
    apply(state, org, &mut r, input, false)?;
    r.updated_at = now();
    state.store.put_recipe(&r)?;
    if !was_published && r.published_at.is_some() {
        start(state, org, id)?;
    }
    get(state, org, id)
}

/// Publishes (and so runs) or unpublishes.
pub fn set_published(state: &AppState, org: OrgId, id: &str, published: bool) -> Result<RecipeRow, ManageError> {
    update(state, org, id, &json!({ "published": published }))
}

/// One recipe.
pub fn get(state: &AppState, org: OrgId, id: &str) -> Result<RecipeRow, ManageError> {
    state.store.recipe(org, id)?.ok_or_else(|| ManageError::NotFound { what: "recipe", id: id.into() })
}

/// Starts a run in the background; returns its run number. 409 while a run is in progress.
pub fn start(state: &AppState, org: OrgId, id: &str) -> Result<i64, ManageError> {
    let r = get(state, org, id)?;
    let config = Config::parse(&r.config)?;
    let run = state
        .store
        .start_recipe_run(org, id)?
        .ok_or_else(|| ManageError::Conflict(format!("recipe {id} is already running")))?;
    let s = state.clone();
    let spawn = move || {
        let r = match s.store.recipe(org, &r.id) {
            Ok(Some(r)) => r,
            _ => return,
        };
        execute(&s, org, &r, &config, run);
    };
    match tokio::runtime::Handle::try_current() {
        Ok(h) => {
            h.spawn_blocking(spawn);
        }
        Err(_) => spawn(),
    }
    Ok(run)
}

/// Runs a recipe to the end (on the calling thread): creates, renders and records its assets,
/// then finishes the run and emits the recipe event.
pub fn execute(state: &AppState, org: OrgId, r: &RecipeRow, config: &Config, run: i64) {
    let published = r.published_at.is_some();
    let emit = |event: &str, data: Value| {
        if published {
            events::emit(state, org, event, data);
        }
    };
    let outcome = produce(state, org, r, config, run, &emit);
    let (status, error) = match &outcome {
        Ok(ids) if !ids.is_empty() => ("completed", None),
        Ok(_) => ("failed", Some("no creative asset could be made: every asset failed".to_string())),
        Err(e) => ("failed", Some(e.clone())),
    };
    if let Err(e) = state.store.finish_recipe_run(&r.id, status, error.as_deref()) {
        tracing::error!(recipe = %r.id, error = %e, "cannot record the end of a recipe run");
    }
    match (outcome, error) {
        (Ok(ids), None) => {
            emit("recipe.completed", json!(events::recipe_completed(&r.id, &r.title, config.data_only, &ids)))
        }
        (_, Some(e)) => emit("recipe.failed", json!(events::recipe_failed(&r.id, &r.title, config.data_only, &e))),
        (Err(_), None) => {}
    }
}

/// The live items a recipe applies to.
fn targets(state: &AppState, org: OrgId, t: &Targets) -> Result<Vec<ItemRow>, String> {
    let ids = match t {
        Targets::Smartlist(id) => {
            if state.store.smartlist(org, id).map_err(|e| e.to_string())?.is_none() {
                return Err(format!("smartlist {id} no longer exists"));
            }
            state.store.smartlist_members(id).map_err(|e| e.to_string())?
        }
        Targets::Items(ids) => ids.clone(),
    };
    let mut items = Vec::new();
    for id in ids {
        match state.store.item(org, &id).map_err(|e| e.to_string())? {
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
    state: &AppState,
    org: OrgId,
    r: &RecipeRow,
    config: &Config,
    run: i64,
    emit: &dyn Fn(&str, Value),
) -> Result<Vec<String>, String> {
    let items = targets(state, org, &config.targets)?;
    let embedding = match &config.query.search_query {
        Some(q) => Some(state.encoder.encode(q).map_err(|e| e.to_string())?),
        None => None,
    };
    let base = if r.kind == "thumbnails" { "thumbnail" } else { "preview" };
    let kinds: Vec<String> =
        std::iter::once(base.to_string()).chain(config.vertical.then(|| format!("{base}-vertical"))).collect();
    let mut completed = Vec::new();
    let mut index = 0;
    for item in &items {
        let title = item.body["title"].as_str().unwrap_or(&item.id).to_string();
        let chosen: Result<Vec<Clip>, String> = match state.prepared(org, &item.id) {
            Ok(Some(p)) => kino::select(&p, &config.query, embedding.as_deref()).map_err(|e| e.to_string()),
            Ok(None) => Err("the item has no analysis signals yet".into()),
            Err(e) => Err(e.to_string()),
        };
        let clips = match chosen {
            Ok(c) if c.is_empty() => Err("no moment of the item meets the recipe's previews parameters".to_string()),
            other => other,
        };
        let signals = state.prepared(org, &item.id).ok().flatten();
        for kind in &kinds {
            let moments: Vec<Option<&Clip>> = match &clips {
                Ok(c) => c.iter().map(Some).collect(),
                Err(_) => vec![None],
            };
            for (n, clip) in moments.into_iter().enumerate() {
                let stamp = now();
                let mut a = CreativeAssetRow {
                    id: super::new_id(),
                    recipe_id: r.id.clone(),
                    recipe_title: r.title.clone(),
                    run_number: run,
                    asset_index: index,
                    kind: kind.clone(),
                    status: "pending".into(),
                    item_id: item.id.clone(),
                    title: format!("{title} – {} {}", kind.replace('-', " "), n + 1),
                    created_at: stamp.clone(),
                    updated_at: stamp,
                    ..CreativeAssetRow::default()
                };
                index += 1;
                let choice = match (clip, signals.as_deref()) {
                    (Some(c), Some(p)) => moment(p.signals(), c, kind, &config.frame),
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
                        a.status = "failed".into();
                        a.error = Some(e.clone());
                        a.metadata = json!({"error": e});
                    }
                    (Ok(_), None) => {
                        a.status = "failed".into();
                        a.error = Some("no frame of the clip can be chosen".into());
                        a.metadata = json!({"error": a.error});
                    }
                }
                let failed_early = a.status == "failed";
                if let Err(e) = state.store.put_creative_asset(org, &a) {
                    return Err(format!("cannot store a creative asset: {e}"));
                }
                emit("creative_asset.created", json!(events::creative_asset(&a, &item.service_id)));
                if !failed_early {
                    finish_asset(state, org, item, &mut a, config.data_only);
                    state
                        .store
                        .put_creative_asset(org, &a)
                        .map_err(|e| format!("cannot store a creative asset: {e}"))?;
                }
                match a.status.as_str() {
                    "completed" => {
                        completed.push(a.id.clone());
                        emit("creative_asset.completed", json!(events::creative_asset(&a, &item.service_id)));
                    }
                    "failed" => emit("creative_asset.failed", json!(events::creative_asset(&a, &item.service_id))),
                    _ => {}
                }
            }
        }
    }
    Ok(completed)
}

/// Renders an asset's files (or, for data-only recipes, completes it without files).
fn finish_asset(state: &AppState, org: OrgId, item: &ItemRow, a: &mut CreativeAssetRow, data_only: bool) {
    a.updated_at = now();
    if data_only {
        a.status = "completed".into();
        a.metadata["files"] = json!("none: data-only recipe");
        return;
    }
    match crate::render::creative_asset(state, org, item, a) {
        Ok(()) => a.status = "completed".into(),
        Err(crate::render::RenderError::Pending(why)) => {
            a.metadata["files"] = json!(format!("pending: {why}"));
        }
        Err(e) => {
            a.status = "failed".into();
            a.error = Some(e.to_string());
            a.metadata["error"] = json!(e.to_string());
        }
    }
}

/// The span, metadata and brightness of an asset made from `clip`.
fn moment(s: &kino::Signals, clip: &Clip, kind: &str, rule: &FrameRule) -> Option<(f64, f64, Value, f64)> {
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
    let vertical = kind.ends_with("-vertical").then(|| vertical_info(s, clip.start_time, clip.stop_time));
    if kind.starts_with("thumbnail") {
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

/// Recipes left running by a stopped process become failed (and say so); their pending assets too.
pub fn recover(state: &AppState) -> Result<(), ManageError> {
    state.store.fail_interrupted_assets()?;
    for (org, id) in state.store.fail_interrupted_recipes()? {
        if let Some(r) = state.store.recipe(org, &id)? {
            if r.published_at.is_some() {
                let data_only = r.config["data_only"].as_bool().unwrap_or(false);
                events::emit(
                    state,
                    org,
                    "recipe.failed",
                    events::recipe_failed(&id, &r.title, data_only, "interrupted by a restart"),
                );
            }
        }
    }
    Ok(())
}
