//! The admin HTTP API: what the interface places in its web application (organisations,
//! catalogs, API keys, OAuth clients, smartlists, recipes, webhooks), under `/admin/v1`, behind
//! the admin credential (`Authorization: Bearer <admin token>`). Errors use the portal error body.
//! `kino-server admin ...` offers the same operations from the command line.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

use super::portal::PortalError;
use crate::auth::{generate_key, hash_key, key_prefix};
use crate::portal::{ManageError, recipes, smartlists, views};
use crate::state::AppState;
use crate::store::OrgId;
use crate::webhooks;

impl From<ManageError> for PortalError {
    fn from(e: ManageError) -> Self {
        match &e {
            ManageError::Invalid { .. } => PortalError::new(StatusCode::BAD_REQUEST, e.to_string()),
            ManageError::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            ManageError::Conflict(_) => PortalError::new(StatusCode::CONFLICT, e.to_string()),
            ManageError::Store(inner) => {
                tracing::error!(error = %inner, "database error");
                PortalError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error")
            }
        }
    }
}

type Answer = Result<(StatusCode, Value), PortalError>;

/// Checks the admin credential, then runs `f`.
fn admin(state: &AppState, headers: &HeaderMap, f: impl FnOnce() -> Answer) -> Response {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    let ok = match (&state.config.admin_token, given) {
        (Some(expected), Some(given)) => bool::from(hash_key(given).as_bytes().ct_eq(hash_key(expected).as_bytes())),
        _ => false,
    };
    if !ok {
        let mut res =
            PortalError::new(StatusCode::UNAUTHORIZED, "the admin API needs Authorization: Bearer <admin token>")
                .into_response();
        res.headers_mut().insert(header::WWW_AUTHENTICATE, "Bearer realm=\"kino-admin\"".parse().expect("valid"));
        return res;
    }
    match f() {
        Ok((status, body)) => (status, Json(body)).into_response(),
        Err(e) => e.into_response(),
    }
}

fn body(bytes: &Bytes) -> Result<Value, PortalError> {
    if bytes.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| PortalError::new(StatusCode::BAD_REQUEST, format!("the body must be a JSON object: {e}")))
}

fn org(state: &AppState, name: &str) -> Result<OrgId, PortalError> {
    state
        .store
        .orgs()?
        .into_iter()
        .find(|(_, n)| n == name)
        .map(|(id, _)| id)
        .ok_or_else(|| PortalError::new(StatusCode::NOT_FOUND, format!("organisation {name:?} not found")))
}

fn ok(v: Value) -> Answer {
    Ok((StatusCode::OK, v))
}

fn created(v: Value) -> Answer {
    Ok((StatusCode::CREATED, v))
}

/// `GET /admin/v1/orgs`.
pub async fn list_orgs(State(state): State<AppState>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || {
        ok(json!(
            state.store.orgs()?.into_iter().map(|(id, name)| json!({"id": id.0, "name": name})).collect::<Vec<_>>()
        ))
    })
}

/// `POST /admin/v1/orgs` `{name}`: an organisation with a catalog of the same name.
pub async fn create_org(State(state): State<AppState>, headers: HeaderMap, bytes: Bytes) -> Response {
    admin(&state, &headers, || {
        let b = body(&bytes)?;
        let name = crate::portal::text("name", b.get("name"), true, 100)?.unwrap_or_default();
        let (id, new) = state.store.ensure_org(&name)?;
        state.store.ensure_catalog(id, &name)?;
        Ok((if new { StatusCode::CREATED } else { StatusCode::OK }, json!({"id": id.0, "name": name, "created": new})))
    })
}

/// `GET /admin/v1/orgs/{org}/catalogs`.
pub async fn list_catalogs(State(state): State<AppState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        ok(json!(
            state
                .store
                .catalogs(id)?
                .into_iter()
                .map(|(cid, name, created)| {
                    let generation = state.store.catalog_generation(id, &name).unwrap_or(false);
                    json!({"id": cid, "name": name, "created_at": created, "media_generation": generation})
                })
                .collect::<Vec<_>>()
        ))
    })
}

/// `POST /admin/v1/orgs/{org}/catalogs` `{name}`.
pub async fn create_catalog(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        let catalog = crate::portal::text("name", body(&bytes)?.get("name"), true, 200)?.unwrap_or_default();
        let cid = state.store.ensure_catalog(id, &catalog)?;
        created(json!({"id": cid, "name": catalog}))
    })
}

/// `PATCH /admin/v1/orgs/{org}/catalogs/{name}` `{"media_generation": true}`: turns media asset
/// generation (`trigger_generation`) on or off for the catalog (off by default).
pub async fn update_catalog(
    State(state): State<AppState>,
    Path((name, catalog)): Path<(String, String)>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        let enabled = match body(&bytes)?.get("media_generation") {
            Some(Value::Bool(b)) => *b,
            _ => return Err(PortalError::new(StatusCode::BAD_REQUEST, "media_generation: must be true or false")),
        };
        if !state.store.set_catalog_generation(id, &catalog, enabled)? {
            return Err(PortalError::new(StatusCode::NOT_FOUND, format!("catalog {catalog:?} not found")));
        }
        ok(json!({"name": catalog, "media_generation": enabled}))
    })
}

/// `GET /admin/v1/orgs/{org}/api-keys`: prefixes only.
pub async fn list_keys(State(state): State<AppState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        ok(json!(
            state
                .store
                .keys(id)?
                .into_iter()
                .map(
                    |(prefix, created, revoked)| json!({"prefix": prefix, "created_at": created, "revoked_at": revoked})
                )
                .collect::<Vec<_>>()
        ))
    })
}

/// `POST /admin/v1/orgs/{org}/api-keys`: the key is in this answer only.
pub async fn create_key(State(state): State<AppState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        let key = generate_key();
        state.store.add_key(id, &hash_key(&key), &key_prefix(&key))?;
        created(json!({"key": key, "prefix": key_prefix(&key), "note": "shown once; stored only as a hash"}))
    })
}

/// `POST /admin/v1/orgs/{org}/clients`: OAuth client credentials; the secret is in this answer only.
pub async fn create_client(State(state): State<AppState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        let (client_id, secret) = crate::identity::new_client();
        state.store.add_client(id, &client_id, &hash_key(&secret))?;
        created(
            json!({"client_id": client_id, "client_secret": secret, "note": "the secret is shown once; stored only as a hash"}),
        )
    })
}

// ---- smartlists ----

/// `GET /admin/v1/orgs/{org}/smartlists`: drafts included.
pub async fn list_smartlists(State(state): State<AppState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        ok(json!(state.store.smartlists(id)?.iter().map(|s| views::smartlist(s, true)).collect::<Vec<_>>()))
    })
}

/// `POST /admin/v1/orgs/{org}/smartlists`.
pub async fn create_smartlist(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        created(views::smartlist(&smartlists::create(&state, id, &body(&bytes)?)?, true))
    })
}

/// `GET /admin/v1/orgs/{org}/smartlists/{id}`.
pub async fn get_smartlist(
    State(state): State<AppState>,
    Path((name, sid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        ok(views::smartlist(&smartlists::get(&state, id, &sid)?, true))
    })
}

/// `PATCH /admin/v1/orgs/{org}/smartlists/{id}`: the fields given.
pub async fn update_smartlist(
    State(state): State<AppState>,
    Path((name, sid)): Path<(String, String)>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        ok(views::smartlist(&smartlists::update(&state, id, &sid, &body(&bytes)?)?, true))
    })
}

/// `DELETE /admin/v1/orgs/{org}/smartlists/{id}`.
pub async fn delete_smartlist(
    State(state): State<AppState>,
    Path((name, sid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        smartlists::delete(&state, org(&state, &name)?, &sid)?;
        ok(json!({"deleted": sid}))
    })
}

/// `POST /admin/v1/orgs/{org}/smartlists/{id}/publish`.
pub async fn publish_smartlist(
    State(state): State<AppState>,
    Path((name, sid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        ok(views::smartlist(&smartlists::set_published(&state, org(&state, &name)?, &sid, true)?, true))
    })
}

/// `POST /admin/v1/orgs/{org}/smartlists/{id}/unpublish`.
pub async fn unpublish_smartlist(
    State(state): State<AppState>,
    Path((name, sid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        ok(views::smartlist(&smartlists::set_published(&state, org(&state, &name)?, &sid, false)?, true))
    })
}

/// `GET /admin/v1/orgs/{org}/smartlists/{id}/assets`: the members (drafts too).
pub async fn smartlist_members(
    State(state): State<AppState>,
    Path((name, sid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        let s = smartlists::get(&state, id, &sid)?;
        let mut out = Vec::new();
        for (i, item) in state.store.smartlist_members(&s.id)?.iter().enumerate() {
            let title = state.store.item(id, item)?.and_then(|it| it.body["title"].as_str().map(String::from));
            out.push(views::smartlist_asset(item, title.as_deref().unwrap_or(""), i + 1));
        }
        ok(json!(out))
    })
}

/// `POST /admin/v1/orgs/{org}/smartlists/refresh`: recompute every smartlist of the organisation now.
pub async fn refresh_smartlists(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let s = state.clone();
    let headers2 = headers.clone();
    tokio::task::spawn_blocking(move || {
        admin(&s, &headers2, || {
            let id = org(&s, &name)?;
            let changes = smartlists::refresh(&s, id, None, chrono::Utc::now())?;
            ok(json!({"changed": changes.iter().map(|c| json!({"id": c.id, "added": c.added, "removed": c.removed})).collect::<Vec<_>>()}))
        })
    })
    .await
    .unwrap_or_else(|_| PortalError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error").into_response())
}

// ---- recipes ----

/// `GET /admin/v1/orgs/{org}/recipes`: drafts included.
pub async fn list_recipes(State(state): State<AppState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        ok(json!(state.store.recipes(id)?.iter().map(recipe_json).collect::<Vec<_>>()))
    })
}

fn recipe_json(r: &crate::store::RecipeRow) -> Value {
    let mut v = views::recipe(r, true);
    v["runs"] = json!(r.runs);
    v["last_error"] = json!(r.last_error);
    v
}

/// `POST /admin/v1/orgs/{org}/recipes`; a published recipe starts running.
pub async fn create_recipe(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    admin(&state, &headers, || created(recipe_json(&recipes::create(&state, org(&state, &name)?, &body(&bytes)?)?)))
}

/// `GET /admin/v1/orgs/{org}/recipes/{id}`.
pub async fn get_recipe(
    State(state): State<AppState>,
    Path((name, rid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || ok(recipe_json(&recipes::get(&state, org(&state, &name)?, &rid)?)))
}

/// `PATCH /admin/v1/orgs/{org}/recipes/{id}`.
pub async fn update_recipe(
    State(state): State<AppState>,
    Path((name, rid)): Path<(String, String)>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    admin(&state, &headers, || ok(recipe_json(&recipes::update(&state, org(&state, &name)?, &rid, &body(&bytes)?)?)))
}

/// `POST /admin/v1/orgs/{org}/recipes/{id}/publish` (runs it).
pub async fn publish_recipe(
    State(state): State<AppState>,
    Path((name, rid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || ok(recipe_json(&recipes::set_published(&state, org(&state, &name)?, &rid, true)?)))
}

/// `POST /admin/v1/orgs/{org}/recipes/{id}/unpublish`.
pub async fn unpublish_recipe(
    State(state): State<AppState>,
    Path((name, rid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || ok(recipe_json(&recipes::set_published(&state, org(&state, &name)?, &rid, false)?)))
}

/// `POST /admin/v1/orgs/{org}/recipes/{id}/run`: 202 with the run number.
pub async fn run_recipe(
    State(state): State<AppState>,
    Path((name, rid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        let run = recipes::start(&state, org(&state, &name)?, &rid)?;
        Ok((StatusCode::ACCEPTED, json!({"recipe_id": rid, "run_number": run, "status": "running"})))
    })
}

/// `GET /admin/v1/orgs/{org}/recipes/{id}/creative-assets`: every asset of every run.
pub async fn recipe_assets(
    State(state): State<AppState>,
    Path((name, rid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        let id = org(&state, &name)?;
        let r = recipes::get(&state, id, &rid)?;
        let mut out = Vec::new();
        for a in state.store.creative_assets(id, Some(&r.id))? {
            let title = state.store.item(id, &a.item_id)?.and_then(|it| it.body["title"].as_str().map(String::from));
            let mut v = views::creative_asset(&a, title.as_deref().unwrap_or(""), &state.config.media_base_url, true);
            v["error"] = json!(a.error);
            out.push(v);
        }
        ok(json!(out))
    })
}

// ---- webhooks ----

impl From<crate::webhooks::WebhookError> for PortalError {
    fn from(e: crate::webhooks::WebhookError) -> Self {
        use crate::webhooks::WebhookError as W;
        match e {
            W::Invalid { .. } => PortalError::new(StatusCode::BAD_REQUEST, e.to_string()),
            W::NotFound { .. } => PortalError::new(StatusCode::NOT_FOUND, e.to_string()),
            W::Store(inner) => inner.into(),
        }
    }
}

/// `GET /admin/v1/orgs/{org}/webhooks`.
pub async fn list_webhooks(State(state): State<AppState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    admin(&state, &headers, || ok(json!(webhooks::list(&state, org(&state, &name)?)?)))
}

/// `POST /admin/v1/orgs/{org}/webhooks` `{url, events, enabled?}`: the signing secret is in this
/// answer only. Created disabled unless `enabled` is true.
pub async fn create_webhook(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let s = state.clone();
    // Creation resolves the URL's host (to refuse internal addresses): off the async threads.
    tokio::task::spawn_blocking(move || {
        admin(&s, &headers, || {
            let id = org(&s, &name)?;
            let b = body(&bytes)?;
            let url = crate::portal::text("url", b.get("url"), true, 2048)?.unwrap_or_default();
            let events: Vec<String> = match b.get("events") {
                Some(Value::Array(list)) => {
                    list.iter().map(|e| e.as_str().map(String::from)).collect::<Option<_>>().ok_or_else(|| {
                        PortalError::new(StatusCode::BAD_REQUEST, "events: must be a list of event names")
                    })?
                }
                None => webhooks::EVENTS.iter().map(|e| e.to_string()).collect(),
                Some(_) => {
                    return Err(PortalError::new(StatusCode::BAD_REQUEST, "events: must be a list of event names"));
                }
            };
            let enable = match b.get("enabled") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(v)) => *v,
                Some(_) => return Err(PortalError::new(StatusCode::BAD_REQUEST, "enabled: must be true or false")),
            };
            let (mut view, secret) = webhooks::create(&s, id, &url, &events)?;
            if enable {
                view = webhooks::set_enabled(&s, id, &view.id, true)?;
            }
            let mut v = json!(view);
            v["signing_secret"] = json!(secret);
            v["note"] = json!("the signing secret is shown once");
            created(v)
        })
    })
    .await
    .unwrap_or_else(|_| PortalError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error").into_response())
}

/// `DELETE /admin/v1/orgs/{org}/webhooks/{id}` (its delivery log too).
pub async fn delete_webhook(
    State(state): State<AppState>,
    Path((name, wid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        webhooks::delete(&state, org(&state, &name)?, &wid)?;
        ok(json!({"deleted": wid}))
    })
}

/// `POST /admin/v1/orgs/{org}/webhooks/{id}/enable`.
pub async fn enable_webhook(
    State(state): State<AppState>,
    Path((name, wid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || ok(json!(webhooks::set_enabled(&state, org(&state, &name)?, &wid, true)?)))
}

/// `POST /admin/v1/orgs/{org}/webhooks/{id}/disable`.
pub async fn disable_webhook(
    State(state): State<AppState>,
    Path((name, wid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || ok(json!(webhooks::set_enabled(&state, org(&state, &name)?, &wid, false)?)))
}

/// `POST /admin/v1/orgs/{org}/webhooks/{id}/test`: queues a Test delivery (202).
pub async fn test_webhook(
    State(state): State<AppState>,
    Path((name, wid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || Ok((StatusCode::ACCEPTED, json!(webhooks::test(&state, org(&state, &name)?, &wid)?))))
}

/// `GET /admin/v1/orgs/{org}/webhooks/{id}/deliveries`: the delivery log, newest first.
pub async fn webhook_deliveries(
    State(state): State<AppState>,
    Path((name, wid)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || ok(json!(webhooks::deliveries(&state, org(&state, &name)?, &wid, webhooks::MAX_LIST)?)))
}

/// `POST /admin/v1/orgs/{org}/webhook-deliveries/{id}/redeliver`: the same bytes again (202).
pub async fn redeliver(
    State(state): State<AppState>,
    Path((name, did)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    admin(&state, &headers, || {
        Ok((StatusCode::ACCEPTED, json!(webhooks::redeliver(&state, org(&state, &name)?, &did)?)))
    })
}
