//! `kino-server admin ...`: organisations, catalogs, API keys, OAuth clients and users, the
//! portal's smartlists, recipes and webhooks (the same operations as the admin HTTP API, on the
//! same database), and the rotation of the secrets key. Every command is here; `main.rs` only
//! parses the command line and hands it over. Events they cause are queued durably and sent by
//! the running service's webhook dispatcher.

use std::path::Path;

use clap::Subcommand;
use serde_json::{Value, json};

use crate::portal::{recipes, smartlists, views};
use crate::state::AppState;
use crate::store::{OrgId, Store};
use crate::webhooks;

/// Every `kino-server admin` command. No `Debug`: `revoke-key` may be given a whole key.
#[derive(Subcommand)]
pub enum AdminCommand {
    /// Create an organisation (with a catalog of the same name).
    CreateOrg { name: String },
    /// List organisations.
    ListOrgs,
    /// Create a catalog in an organisation.
    CreateCatalog { org: String, name: String },
    /// Create an API key for an organisation; the key is printed once and stored hashed.
    CreateKey { org: String },
    /// List an organisation's keys (prefixes only).
    ListKeys { org: String },
    /// Revoke one of an organisation's keys, given whole or by its prefix (as shown by list-keys).
    RevokeKey { org: String, key: String },
    /// Create an OAuth client (client credentials) for the portal; the secret is printed once.
    CreateClient { org: String },
    /// Create a user of the web application (`/app`) in an organisation; the password is read
    /// from the KINO_NEW_PASSWORD environment variable, else from the first line of standard input.
    CreateUser { org: String, email: String },
    /// List an organisation's OAuth clients (client ids and times; secrets are never shown).
    ListClients { org: String },
    /// Revoke an OAuth client: it gets no new token, and the tokens it holds are refused at once.
    RevokeClient { org: String, client_id: String },
    /// Seal every webhook signing secret under a new key in <data-dir>/secrets.key and drop the
    /// old key (stop the service first, or restart it after).
    RotateSecretsKey,
    #[command(flatten)]
    Portal(PortalCommand),
}

impl std::fmt::Debug for AdminCommand {
    /// Without its arguments: `revoke-key` may carry a whole key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminCommand").finish_non_exhaustive()
    }
}

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

fn org_id(store: &Store, name: &str) -> Result<OrgId, String> {
    store
        .org_by_name(name)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no organisation named {name:?} (see `kino-server admin list-orgs`)"))
}

/// The commands that need only the store.
fn run_on_store(store: &Store, cmd: &AdminCommand) -> Result<(), String> {
    match cmd {
        AdminCommand::CreateOrg { name } => {
            let (id, created) = store.ensure_org(name).map_err(|e| e.to_string())?;
            store.ensure_catalog(id, name).map_err(|e| e.to_string())?;
            println!("{} organisation {name:?} with catalog {name:?}", if created { "created" } else { "existing" });
        }
        AdminCommand::ListOrgs => {
            for (_, name) in store.orgs().map_err(|e| e.to_string())? {
                println!("{name}");
            }
        }
        AdminCommand::CreateCatalog { org, name } => {
            store.ensure_catalog(org_id(store, org)?, name).map_err(|e| e.to_string())?;
            println!("catalog {name:?} in {org:?}");
        }
        AdminCommand::CreateKey { org } => {
            let id = org_id(store, org)?;
            let (key, _) = crate::auth::create_key(store, id).map_err(|e| e.to_string())?;
            println!("{key}");
            eprintln!("store this key now: it is shown once and kept only as a hash");
        }
        AdminCommand::ListKeys { org } => {
            for k in crate::auth::keys(store, org_id(store, org)?).map_err(|e| e.to_string())? {
                let revoked = k.revoked_at.map(|r| format!("  revoked {r}")).unwrap_or_default();
                println!("{}…  created {}{revoked}", k.prefix, k.created_at);
            }
        }
        AdminCommand::ListClients { org } => {
            for c in crate::identity::clients(store, org_id(store, org)?).map_err(|e| e.to_string())? {
                let revoked = c.revoked_at.map(|r| format!("  revoked {r}")).unwrap_or_default();
                println!("{}  created {}{revoked}", c.client_id, c.created_at);
            }
        }
        AdminCommand::RevokeClient { org, client_id } => {
            crate::identity::revoke_client(store, org_id(store, org)?, client_id).map_err(|e| e.to_string())?;
            println!("revoked {}", client_id.trim());
        }
        AdminCommand::CreateUser { org, email } => {
            let id = org_id(store, org)?;
            let password = match std::env::var("KINO_NEW_PASSWORD") {
                Ok(p) => p,
                Err(_) => {
                    let mut line = String::new();
                    std::io::stdin().read_line(&mut line).map_err(|e| format!("password: {e}"))?;
                    line.trim_end_matches(['\r', '\n']).to_string()
                }
            };
            let email = crate::web::account::email(email).map_err(|e| e.to_string())?;
            crate::web::account::check_password(&password).map_err(|e| e.to_string())?;
            let hash = crate::web::account::hash_password(&password);
            match store.add_user(id, &email, &hash).map_err(|e| e.to_string())? {
                Some(_) => println!("user {email} in {org:?}: sign in at /app/sign-in"),
                None => return Err(format!("email: {email} already has an account")),
            }
        }
        AdminCommand::CreateClient { org } => {
            let id = org_id(store, org)?;
            let (client_id, secret) = crate::identity::create_client(store, id).map_err(|e| e.to_string())?;
            println!("client_id: {client_id}");
            println!("client_secret: {secret}");
            eprintln!("store the secret now: it is shown once and kept only as a hash");
        }
        AdminCommand::Portal(_) | AdminCommand::RotateSecretsKey => unreachable!("run by `run` itself"),
        AdminCommand::RevokeKey { org, key } => {
            let prefix = crate::auth::revoke_key(store, org_id(store, org)?, key).map_err(|e| e.to_string())?;
            println!("revoked {prefix}…");
        }
    }
    Ok(())
}

/// Runs one `kino-server admin` command: the organisation, key, client and user commands on
/// `store`; the portal's (smartlists, recipes, webhooks) with the service state `open` builds over
/// it, so that the events they cause are queued for the running service's dispatcher; the key
/// rotation with the secrets key file `secrets_key`.
pub fn run(
    cmd: &AdminCommand,
    store: Store,
    secrets_key: &Path,
    open: impl FnOnce(Store) -> Result<AppState, String>,
) -> Result<(), String> {
    match cmd {
        AdminCommand::Portal(portal) => open(store).and_then(|state| run_portal(&state, portal)),
        AdminCommand::RotateSecretsKey => crate::state::rotate_secrets_key(&store, secrets_key).map(|n| {
            println!("{n} webhook signing secrets sealed under a new key; the old key is dropped");
        }),
        other => run_on_store(&store, other),
    }
}

fn parse(json: &str) -> Result<Value, String> {
    serde_json::from_str(json).map_err(|e| format!("the JSON argument does not parse: {e}"))
}

fn print(v: &impl serde::Serialize) {
    println!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// Runs one portal command.
fn run_portal(state: &AppState, cmd: &PortalCommand) -> Result<(), String> {
    use PortalCommand as C;
    let e = |e: &dyn std::fmt::Display| e.to_string();
    match cmd {
        C::ListCatalogs { org: o } => {
            let catalogs = state.store.catalogs(org_id(&state.store, o)?).map_err(|x| e(&x))?;
            print(&json!(catalogs.iter().map(|(id, name, _)| json!({"id": id, "name": name})).collect::<Vec<_>>()));
        }
        C::SetGeneration { org: o, catalog, state: on } => {
            if !state.store.set_catalog_generation(org_id(&state.store, o)?, catalog, on == "on").map_err(|x| e(&x))? {
                return Err(format!("{o:?} has no catalog {catalog:?}"));
            }
            println!("media generation {on} for catalog {catalog:?}");
        }
        C::CreateSmartlist { org: o, json } => print(&views::smartlist_detail(
            &smartlists::create(&state.portal(), org_id(&state.store, o)?, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::ListSmartlists { org: o } => {
            let lists = state.store.smartlists(org_id(&state.store, o)?).map_err(|x| e(&x))?;
            print(&lists.iter().map(views::smartlist_detail).collect::<Vec<_>>());
        }
        C::UpdateSmartlist { org: o, id, json } => print(&views::smartlist_detail(
            &smartlists::update(&state.portal(), org_id(&state.store, o)?, id, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::PublishSmartlist { org: o, id } | C::UnpublishSmartlist { org: o, id } => {
            let publish = matches!(cmd, C::PublishSmartlist { .. });
            print(&views::smartlist_detail(
                &smartlists::set_published(&state.portal(), org_id(&state.store, o)?, id, publish)
                    .map_err(|x| e(&x))?,
            ))
        }
        C::DeleteSmartlist { org: o, id } => {
            smartlists::delete(&state.store, org_id(&state.store, o)?, id).map_err(|x| e(&x))?;
            println!("deleted {id}");
        }
        C::RefreshSmartlists { org: o } => {
            let now = chrono::Utc::now();
            let n = match o {
                Some(o) => {
                    smartlists::refresh(&state.portal(), org_id(&state.store, o)?, None, now).map_err(|x| e(&x))?.len()
                }
                None => smartlists::refresh_all(&state.portal(), now).map_err(|x| e(&x))?,
            };
            println!("{n} smartlist(s) changed");
        }
        C::CreateRecipe { org: o, json } => print(&views::recipe_detail(
            &recipes::create(&state.portal(), org_id(&state.store, o)?, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::ListRecipes { org: o } => {
            let list = state.store.recipes(org_id(&state.store, o)?).map_err(|x| e(&x))?;
            print(&list.iter().map(views::recipe_detail).collect::<Vec<_>>());
        }
        C::UpdateRecipe { org: o, id, json } => print(&views::recipe_detail(
            &recipes::update(&state.portal(), org_id(&state.store, o)?, id, &parse(json)?).map_err(|x| e(&x))?,
        )),
        C::PublishRecipe { org: o, id } | C::UnpublishRecipe { org: o, id } => {
            let publish = matches!(cmd, C::PublishRecipe { .. });
            print(&views::recipe_detail(
                &recipes::set_published(&state.portal(), org_id(&state.store, o)?, id, publish).map_err(|x| e(&x))?,
            ))
        }
        C::RunRecipe { org: o, id } => {
            let org = org_id(&state.store, o)?;
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
            let org = org_id(&state.store, o)?;
            let events: Vec<String> = if events.is_empty() {
                webhooks::EVENTS.iter().map(|s| s.to_string()).collect()
            } else {
                events.clone()
            };
            let (view, secret) = webhooks::create(
                &state.store,
                &state.keys.secrets,
                state.config.webhook_allow_loopback,
                org,
                url,
                &events,
                *enable,
            )
            .map_err(|x| e(&x))?;
            print(&json!(view));
            println!("signing secret (shown once): {secret}");
        }
        C::ListWebhooks { org: o } => {
            print(&json!(webhooks::list(&state.store, org_id(&state.store, o)?).map_err(|x| e(&x))?))
        }
        C::EnableWebhook { org: o, id } | C::DisableWebhook { org: o, id } => {
            let enable = matches!(cmd, C::EnableWebhook { .. });
            print(&json!(webhooks::set_enabled(&state.store, org_id(&state.store, o)?, id, enable).map_err(|x| e(&x))?))
        }
        C::DeleteWebhook { org: o, id } => {
            webhooks::delete(&state.store, org_id(&state.store, o)?, id).map_err(|x| e(&x))?;
            println!("deleted {id}");
        }
        C::TestWebhook { org: o, id } => print(&json!(
            webhooks::test(&state.store, &state.effects, org_id(&state.store, o)?, id).map_err(|x| e(&x))?
        )),
        C::Deliveries { org: o, id } => print(&json!(
            webhooks::deliveries(&state.store, org_id(&state.store, o)?, id, webhooks::MAX_LIST).map_err(|x| e(&x))?
        )),
        C::Redeliver { org: o, delivery_id } => print(&json!(
            webhooks::redeliver(&state.store, &state.effects, org_id(&state.store, o)?, delivery_id)
                .map_err(|x| e(&x))?
        )),
    }
    Ok(())
}
