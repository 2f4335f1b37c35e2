//! The portal's management from the command line (`kino-server admin ...`): the same operations
//! as the admin HTTP API, on the same database. Events they cause are queued durably and sent by
//! the running service's webhook dispatcher.

use clap::Subcommand;
use serde_json::{Value, json};

use crate::portal::{recipes, smartlists, views};
use crate::state::AppState;
use crate::store::OrgId;
use crate::webhooks;

/// Smartlist, recipe and webhook commands. JSON arguments take the admin API's bodies.
#[derive(Debug, Subcommand)]
pub enum PortalCommand {
    /// List an organisation's catalogs.
    ListCatalogs { org: String },
    /// Turn media asset generation (`trigger_generation`) on or off for a catalog (off by default).
    SetGeneration {
        org: String,
        catalog: String,
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// Create a smartlist: JSON like {"title":..,"catalog":..,"creator":..,"filter":{..},"published":true}.
    CreateSmartlist { org: String, json: String },
    /// List an organisation's smartlists (drafts too), with filters.
    ListSmartlists { org: String },
    /// Change a smartlist's fields (JSON with the fields to change).
    UpdateSmartlist { org: String, id: String, json: String },
    /// Publish a smartlist.
    PublishSmartlist { org: String, id: String },
    /// Unpublish a smartlist.
    UnpublishSmartlist { org: String, id: String },
    /// Delete a smartlist.
    DeleteSmartlist { org: String, id: String },
    /// Recompute smartlist membership now (one organisation, or all).
    RefreshSmartlists { org: Option<String> },
    /// Create a recipe: JSON like {"title":..,"type":"thumbnails","catalog":..,"creator":..,"config":{..}}.
    CreateRecipe { org: String, json: String },
    /// List an organisation's recipes (drafts too).
    ListRecipes { org: String },
    /// Change a recipe's fields.
    UpdateRecipe { org: String, id: String, json: String },
    /// Publish a recipe (which runs it).
    PublishRecipe { org: String, id: String },
    /// Unpublish a recipe.
    UnpublishRecipe { org: String, id: String },
    /// Run a recipe now, here, to the end; prints its creative assets.
    RunRecipe { org: String, id: String },
    /// Create a webhook (disabled unless --enable); the signing secret is printed once.
    CreateWebhook {
        org: String,
        url: String,
        /// Comma-separated events (default: all).
        #[arg(long, value_delimiter = ',')]
        events: Vec<String>,
        /// Enable it at once.
        #[arg(long)]
        enable: bool,
    },
    /// List an organisation's webhooks.
    ListWebhooks { org: String },
    /// Enable a webhook.
    EnableWebhook { org: String, id: String },
    /// Disable a webhook.
    DisableWebhook { org: String, id: String },
    /// Delete a webhook and its delivery log.
    DeleteWebhook { org: String, id: String },
    /// Queue a Test delivery (sent by the running service).
    TestWebhook { org: String, id: String },
    /// A webhook's delivery log, newest first.
    Deliveries { org: String, id: String },
    /// Queue a delivery again, same bytes (sent by the running service).
    Redeliver { org: String, delivery_id: String },
}

fn org(state: &AppState, name: &str) -> Result<OrgId, String> {
    state
        .store
        .org_by_name(name)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no organisation named {name:?} (see `kino-server admin list-orgs`)"))
}

fn parse(json: &str) -> Result<Value, String> {
    serde_json::from_str(json).map_err(|e| format!("the JSON argument does not parse: {e}"))
}

fn print(v: &impl serde::Serialize) {
    println!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// Runs one command.
pub fn run(state: &AppState, cmd: &PortalCommand) -> Result<(), String> {
    use PortalCommand as C;
    let e = |e: &dyn std::fmt::Display| e.to_string();
    match cmd {
        C::ListCatalogs { org: o } => {
            let catalogs = state.store.catalogs(org(state, o)?).map_err(|x| e(&x))?;
            print(&json!(catalogs.iter().map(|(id, name, _)| json!({"id": id, "name": name})).collect::<Vec<_>>()));
        }
        C::SetGeneration { org: o, catalog, state: on } => {
            if !state.store.set_catalog_generation(org(state, o)?, catalog, on == "on").map_err(|x| e(&x))? {
                return Err(format!("{o:?} has no catalog {catalog:?}"));
            }
            println!("media generation {on} for catalog {catalog:?}");
        }
        C::CreateSmartlist { org: o, json } => print(&views::smartlist_detail(
            &smartlists::create(&state.portal(), org(state, o)?, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::ListSmartlists { org: o } => {
            let lists = state.store.smartlists(org(state, o)?).map_err(|x| e(&x))?;
            print(&lists.iter().map(views::smartlist_detail).collect::<Vec<_>>());
        }
        C::UpdateSmartlist { org: o, id, json } => print(&views::smartlist_detail(
            &smartlists::update(&state.portal(), org(state, o)?, id, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::PublishSmartlist { org: o, id } | C::UnpublishSmartlist { org: o, id } => {
            let publish = matches!(cmd, C::PublishSmartlist { .. });
            print(&views::smartlist_detail(
                &smartlists::set_published(&state.portal(), org(state, o)?, id, publish).map_err(|x| e(&x))?,
            ))
        }
        C::DeleteSmartlist { org: o, id } => {
            smartlists::delete(&state.store, org(state, o)?, id).map_err(|x| e(&x))?;
            println!("deleted {id}");
        }
        C::RefreshSmartlists { org: o } => {
            let now = chrono::Utc::now();
            let n = match o {
                Some(o) => smartlists::refresh(&state.portal(), org(state, o)?, None, now).map_err(|x| e(&x))?.len(),
                None => smartlists::refresh_all(&state.portal(), now).map_err(|x| e(&x))?,
            };
            println!("{n} smartlist(s) changed");
        }
        C::CreateRecipe { org: o, json } => print(&views::recipe_detail(
            &recipes::create(&state.portal(), org(state, o)?, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::ListRecipes { org: o } => {
            let list = state.store.recipes(org(state, o)?).map_err(|x| e(&x))?;
            print(&list.iter().map(views::recipe_detail).collect::<Vec<_>>());
        }
        C::UpdateRecipe { org: o, id, json } => print(&views::recipe_detail(
            &recipes::update(&state.portal(), org(state, o)?, id, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::PublishRecipe { org: o, id } | C::UnpublishRecipe { org: o, id } => {
            let publish = matches!(cmd, C::PublishRecipe { .. });
            print(&views::recipe_detail(
                &recipes::set_published(&state.portal(), org(state, o)?, id, publish).map_err(|x| e(&x))?,
            ))
        }
        C::RunRecipe { org: o, id } => {
            let org = org(state, o)?;
            let run = recipes::start(&state.portal(), org, id).map_err(|x| e(&x))?;
            let r = recipes::get(&state.store, org, id).map_err(|x| e(&x))?;
            let assets = state.store.creative_assets(org, Some(id)).map_err(|x| e(&x))?;
            let this_run: Vec<_> = assets
                .iter()
                .filter(|a| a.run_number == run)
                .map(|a| views::admin_creative_asset(a, &state.config.media_base_url))
                .collect();
            print(
                &json!({"recipe": r.id, "status": r.status, "error": r.last_error, "run_number": run, "creative_assets": this_run}),
            );
        }
        C::CreateWebhook { org: o, url, events, enable } => {
            let org = org(state, o)?;
            let events: Vec<String> = if events.is_empty() {
                webhooks::EVENTS.iter().map(|s| s.to_string()).collect()
            } else {
                events.clone()
            };
            let (mut view, secret) = webhooks::create(
                &state.store,
                &state.keys.secrets,
                state.config.webhook_allow_loopback,
                org,
                url,
                &events,
            )
            .map_err(|x| e(&x))?;
            if *enable {
                view = webhooks::set_enabled(&state.store, org, &view.id, true).map_err(|x| e(&x))?;
            }
            print(&json!(view));
            println!("signing secret (shown once): {secret}");
        }
        C::ListWebhooks { org: o } => print(&json!(webhooks::list(&state.store, org(state, o)?).map_err(|x| e(&x))?)),
        C::EnableWebhook { org: o, id } | C::DisableWebhook { org: o, id } => {
            let enable = matches!(cmd, C::EnableWebhook { .. });
            print(&json!(webhooks::set_enabled(&state.store, org(state, o)?, id, enable).map_err(|x| e(&x))?))
        }
        C::DeleteWebhook { org: o, id } => {
            webhooks::delete(&state.store, org(state, o)?, id).map_err(|x| e(&x))?;
            println!("deleted {id}");
        }
        C::TestWebhook { org: o, id } => {
            print(&json!(webhooks::test(&state.store, &state.effects, org(state, o)?, id).map_err(|x| e(&x))?))
        }
        C::Deliveries { org: o, id } => print(&json!(
            webhooks::deliveries(&state.store, org(state, o)?, id, webhooks::MAX_LIST).map_err(|x| e(&x))?
        )),
        C::Redeliver { org: o, delivery_id } => print(&json!(
            webhooks::redeliver(&state.store, &state.effects, org(state, o)?, delivery_id).map_err(|x| e(&x))?
        )),
    }
    Ok(())
}
