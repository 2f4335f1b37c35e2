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
//! A published recipe over a smartlist follows it: titles that join are queued for a follow-up
//! run restricted to them ([`follow`]).

pub mod config;
mod run;

use serde_json::{Value, json};

pub use config::{Config, RecipeConfig, Targets, ThumbnailRule};
pub use run::execute;

use super::Portal;
use super::kinds::RecipeType;
use super::{ManageError, events, is_email, new_id, text};
use crate::changes::Effects;
use crate::store::{OrgId, RecipeRow, RecipeStatus, Store, Write, now};

fn apply(store: &Store, org: OrgId, r: &mut RecipeRow, input: &Value, creating: bool) -> Result<(), ManageError> {
    let obj = input.as_object().ok_or_else(|| ManageError::invalid("body", "must be a JSON object"))?;
    const KNOWN: [&str; 8] =
        ["title", "description", "type", "creator", "catalog", "catalog_id", "config", "published"];
    if let Some(k) = obj.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(ManageError::invalid(k.clone(), format!("is not a recipe field (use {})", KNOWN.join(", "))));
    }
    let title = text("title", input.get("title"), creating, 200)?;
    let description = text("description", input.get("description"), false, 5000)?;
    let kind = match text("type", input.get("type"), creating, 40)? {
        Some(k) => Some(
            RecipeType::parse(&k)
                .ok_or_else(|| ManageError::invalid("type", format!("must be one of {}", RecipeType::listed())))?,
        ),
        None => None,
    };
    let creator = text("creator", input.get("creator"), creating, 254)?;
    if creator.as_deref().is_some_and(|c| !is_email(c)) {
        return Err(ManageError::invalid("creator", "must be an email address"));
    }
    let catalog = super::smartlists::catalog_of(store, org, input)?;
    if creating && catalog.is_none() {
        return Err(ManageError::invalid("catalog", "is required (a catalog name, or catalog_id)"));
    }
    let config = match input.get("config") {
        None | Some(Value::Null) if creating => return Err(ManageError::invalid("config", "is required")),
        None | Some(Value::Null) => None,
        Some(c) => {
            let parsed = Config::parse(c)?;
            if let Targets::Smartlist(id) = &parsed.targets
                && store.smartlist(org, id)?.is_none()
            {
                return Err(ManageError::invalid(
                    "config.smartlist_id",
                    format!("no smartlist {id} in this organisation"),
                ));
            }
            Some(c.clone())
        }
    };
    let published = match input.get("published") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err(ManageError::invalid("published", "must be true or false")),
    };
    if r.status == RecipeStatus::Running && (config.is_some() || kind.is_some()) {
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
            if r.status == RecipeStatus::Draft {
                r.status = RecipeStatus::Published;
            }
        }
        Some(false) => {
            r.published_at = None;
            if r.status != RecipeStatus::Running {
                r.status = RecipeStatus::Draft;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Creates a recipe from `{title, description?, type, creator, catalog | catalog_id, config,
/// published?}`; publishing runs it.
pub fn create(p: &Portal, org: OrgId, input: &Value) -> Result<RecipeRow, ManageError> {
    let stamp = now();
    let mut r = RecipeRow {
        id: new_id(),
        org,
        config: json!({}),
        version: 1,
        status: RecipeStatus::Draft,
        created_at: stamp.clone(),
        updated_at: stamp,
        ..RecipeRow::default()
    };
    apply(&p.store, org, &mut r, input, true)?;
    p.store.put_recipe(&r, Write::Insert)?;
    if r.published_at.is_some() {
        start(p, org, &r.id)?;
    }
    get(&p.store, org, &r.id)
}

/// Changes the fields present in `input`; publishing a draft runs it.
pub fn update(p: &Portal, org: OrgId, id: &str, input: &Value) -> Result<RecipeRow, ManageError> {
    let mut r = get(&p.store, org, id)?;
    let was_published = r.published_at.is_some();
    apply(&p.store, org, &mut r, input, false)?;
    r.updated_at = now();
    if !p.store.put_recipe(&r, Write::Update)? {
        return Err(ManageError::NotFound { what: "recipe", id: id.into() });
    }
    if !was_published && r.published_at.is_some() {
        start(p, org, id)?;
    }
    get(&p.store, org, id)
}

/// Publishes (and so runs) or unpublishes.
pub fn set_published(p: &Portal, org: OrgId, id: &str, published: bool) -> Result<RecipeRow, ManageError> {
    update(p, org, id, &json!({ "published": published }))
}

/// One recipe.
pub fn get(store: &Store, org: OrgId, id: &str) -> Result<RecipeRow, ManageError> {
    store.recipe(org, id)?.ok_or_else(|| ManageError::NotFound { what: "recipe", id: id.into() })
}

/// Starts a run in the background; returns its run number. 409 while a run is in progress.
pub fn start(p: &Portal, org: OrgId, id: &str) -> Result<i64, ManageError> {
    let r = get(&p.store, org, id)?;
    let config = Config::parse(&r.config)?;
    let run = p
        .store
        .start_recipe_run(org, id)?
        .ok_or_else(|| ManageError::Conflict(format!("recipe {id} is already running")))?;
    launch(p, org, r.id, config, run, None);
    Ok(run)
}

/// Runs a started run in the background (on the calling thread outside a runtime), then starts a
/// follow-up run when items are queued for one.
fn launch(p: &Portal, org: OrgId, id: String, config: Config, run: i64, only: Option<Vec<String>>) {
    let s = p.clone();
    let work = move || {
        if let Ok(Some(r)) = s.store.recipe(org, &id) {
            execute(&s, org, &r, &config, run, only.as_deref());
        }
        follow_up(&s, org, &id);
    };
    match tokio::runtime::Handle::try_current() {
        Ok(_) => crate::blocking::detach("a recipe run", work),
        Err(_) => work(),
    }
}

/// Published recipes follow their smartlist: the service asset ids that joined it are queued for
/// a follow-up run of each published recipe over that smartlist, restricted to them; it starts now,
/// or when the run in progress ends.
pub fn follow(p: &Portal, org: OrgId, smartlist_id: &str, joined: &[String]) -> Result<(), ManageError> {
    for r in p.store.recipes(org)? {
        let follows = r.published_at.is_some()
            && matches!(Config::parse(&r.config), Ok(Config { targets: Targets::Smartlist(ref s), .. }) if s == smartlist_id);
        if follows {
            p.store.add_recipe_followups(&r.id, joined)?;
            follow_up(p, org, &r.id);
        }
    }
    Ok(())
}

/// Starts the follow-up runs left queued by a stopped process (call inside the runtime).
pub fn resume_followups(p: &Portal) -> Result<(), ManageError> {
    for (org, _) in p.store.orgs()? {
        for r in p.store.recipes(org)? {
            follow_up(p, org, &r.id);
        }
    }
    Ok(())
}

fn follow_up(p: &Portal, org: OrgId, id: &str) {
    let started = match p.store.start_followup_run(org, id) {
        Ok(s) => s,
        Err(e) => return tracing::error!(recipe = id, error = %e, "cannot start a follow-up run"),
    };
    let Some((run, items)) = started else { return };
    match get(&p.store, org, id).and_then(|r| Config::parse(&r.config)) {
        Ok(config) => launch(p, org, id.to_string(), config, run, Some(items)),
        Err(e) => {
            tracing::error!(recipe = id, error = %e, "a follow-up run cannot start: the stored config no longer parses");
            let _ = p.store.finish_recipe_run(id, RecipeStatus::Failed, Some(&e.to_string()), &[]);
        }
    }
}

/// Recipes left running by a process no longer alive become failed (and say so), with their
/// pending assets; runs of live processes, this one's included, go on.
pub fn recover(store: &Store, fx: &Effects) -> Result<(), ManageError> {
    for (org, id) in store.fail_interrupted_recipes()? {
        if let Some(r) = store.recipe(org, &id)?
            && r.published_at.is_some()
        {
            let data_only = r.config["data_only"].as_bool().unwrap_or(false);
            events::emit(
                store,
                fx,
                org,
                "recipe.failed",
                events::recipe_failed(&id, &r.title, data_only, "interrupted by a restart"),
            );
        }
    }
    Ok(())
}
