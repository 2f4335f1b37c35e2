//! Tasks (`/tasks/catalog-item/...`): exactly the interface's state table.
//!
//! | state | trigger | result |
//! |---|---|---|
//! | no task, no result | POST | task created active, job queued: `pending` |
//! | no task, a result | POST | task created, the result reused: `ready` / `failed` |
//! | any | POST again | options, active flag and timestamp overwritten; reactivated |
//! | any | DELETE | task deactivated; its queued job dropped; the status returned |
//! | `failed` | PUT reset | result dropped, job queued again: `{}` |
//! | not `failed` | PUT reset | 400 |
//! | no task, no result | GET / DELETE / PUT reset | 404 |

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use serde_json::{Value, json};

use super::{caller, live_item};
use crate::auth::Accept;
use crate::error::{AppError, Detail};
use crate::products::PRODUCTS;
use crate::state::AppState;
use crate::store::{JobState, OrgId};

type TaskPath = (String, String, String);

fn check_product(product: &str) -> Result<(), AppError> {
    if PRODUCTS.contains(&product) {
        return Ok(());
    }
    let expected = PRODUCTS.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ");
    Err(AppError::invalid(Detail {
        kind: "enum".into(),
        loc: vec!["path".into(), "product".into()],
        msg: format!("Input should be {expected}"),
        input: json!(product),
        ctx: json!({"expected": expected}),
    }))
}

/// `(status, error)` of a tuple, or `None` when neither task nor result is known.
fn status_of(
    state: &AppState,
    org: OrgId,
    id: &str,
    product: &str,
    version: &str,
) -> Result<Option<(String, String)>, AppError> {
    let store = &state.store;
    if let Some(r) = store.result(org, id, product, Some(version))? {
        let status = if r.status == "success" { "ready" } else { "failed" };
        return Ok(Some((status.into(), r.error)));
    }
    let Some(task) = store.task(org, id, product, version)? else { return Ok(None) };
    let job = store.job_state(org, id, product, version)?;
    let error = match (job, state.analysis_progress(org, id)) {
        (Some(_), Some(done)) => format!("analysing the media file: {:.0}% done", 100.0 * done),
        (Some(JobState::Waiting), None) => {
            "waiting for the item's signals (PUT /analysis/v1/item/{item_type}/{id})".to_string()
        }
        (None, _) if !task.active => "task is inactive".to_string(),
        _ => String::new(),
    };
    Ok(Some(("pending".into(), error)))
}

fn task_body(id: &str, product: &str, version: &str, status: (String, String)) -> Value {
    let href = format!("/tasks/catalog-item/{id}/product/{product}/version/{version}");
    json!({
        "status": status.0,
        "error": status.1,
        "_links": {
            "self": {"href": href, "method": "GET"},
            "update": {"href": href, "method": "POST"},
            "deactivate": {"href": href, "method": "DELETE"},
            "reset": {"href": format!("{href}/reset"), "method": "PUT"},
        },
    })
}

/// The task status body of a tuple, or 404 when neither task nor result is known.
fn answer(state: &AppState, org: OrgId, id: &str, product: &str, version: &str) -> Result<Json<Value>, AppError> {
    let status = status_of(state, org, id, product, version)?.ok_or_else(|| not_found(id, product, version))?;
    Ok(Json(task_body(id, product, version, status)))
}

fn not_found(id: &str, product: &str, version: &str) -> AppError {
    AppError::NotFound(format!("no task and no result for item {id:?}, product {product:?}, version {version:?}"))
}

/// `GET`: the task's status.
pub async fn get(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    let (org, _) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    check_product(&product)?;
    answer(&state, org, &id, &product, &version)
}

/// `POST`: create or update (idempotent); reactivates.
pub async fn post(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, AppError> {
    let (org, _) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    check_product(&product)?;
    if version.is_empty() {
        return Err(AppError::invalid(Detail::query(
            "version",
            "string_too_short",
            "String should have at least 1 character",
            json!(version),
            json!({"min_length": 1}),
        )));
    }
    live_item(&state, org, &id)?;
    let options: Value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(v @ Value::Object(_)) => v,
            Ok(other) => {
                return Err(AppError::invalid(Detail {
                    kind: "model_attributes_type".into(),
                    loc: vec!["body".into()],
                    msg: "Input should be a valid dictionary or object".into(),
                    input: other,
                    ctx: Value::Null,
                }));
            }
            Err(e) => {
                return Err(AppError::invalid(Detail {
                    kind: "json_invalid".into(),
                    loc: vec!["body".into()],
                    msg: format!("JSON decode error: {e}"),
                    input: Value::Null,
                    ctx: Value::Null,
                }));
            }
        }
    };
    if let Some(p) = options.get("priority") {
        if !p.is_string() {
            return Err(AppError::invalid(Detail {
                kind: "string_type".into(),
                loc: vec!["body".into(), "priority".into()],
                msg: "Input should be a valid string".into(),
                input: p.clone(),
                ctx: Value::Null,
            }));
        }
    }
    state.store.upsert_task(org, &id, &product, &version, &options.to_string())?;
    state.wake.notify_waiters();
    answer(&state, org, &id, &product, &version)
}

/// `DELETE`: deactivate.
pub async fn delete(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    let (org, _) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    check_product(&product)?;
    let existed = state.store.deactivate_task(org, &id, &product, &version)?;
    let status = status_of(&state, org, &id, &product, &version)?;
    match status {
        Some(status) if existed || status.0 != "pending" => Ok(Json(task_body(&id, &product, &version, status))),
        _ => Err(not_found(&id, &product, &version)),
    }
}

/// `PUT .../reset`: only from `failed`.
pub async fn reset(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<impl IntoResponse, AppError> {
    let (org, _) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    check_product(&product)?;
    let (status, _) =
        status_of(&state, org, &id, &product, &version)?.ok_or_else(|| not_found(&id, &product, &version))?;
    if status != "failed" {
        return Err(AppError::BadRequest(format!("only a failed task can be reset; this one is {status}")));
    }
    state.store.reprocess(org, &id, &product, &version)?;
    state.wake.notify_waiters();
    Ok((StatusCode::OK, Json(json!({}))))
}

/// `GET /tasks/catalog-item/{id}`: every task of an item.
pub async fn list(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    let (org, _) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    if state.store.item(org, &id)?.is_none() {
        return Err(AppError::item_not_found(&id));
    }
    let mut out = Vec::new();
    for task in state.store.tasks(org, &id)? {
        let (status, error) =
            status_of(&state, org, &id, &task.product, &task.version)?.unwrap_or(("pending".into(), String::new()));
        out.push(json!({"task_status": {"status": status, "error": error}, "product": task.product, "version": task.version}));
    }
    Ok(Json(json!(out)))
}
