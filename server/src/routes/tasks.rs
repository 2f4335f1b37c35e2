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
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::{ApiCaller, live_item};
use crate::error::{AppError, Detail};
use crate::openapi::schemas::Empty;
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
        (Some(_), Some(done)) if store.signals_partial(org, id)? => {
            format!("transcribing speech (the fast channels are ready): the analysis is {:.0}% done", 100.0 * done)
        }
        (Some(_), Some(done)) => format!("analysing the media file: {:.0}% done", 100.0 * done),
        (Some(JobState::Waiting), None) => {
            "waiting for the item's signals (PUT /analysis/v1/item/{item_type}/{id})".to_string()
        }
        (None, _) if !task.active => "task is inactive".to_string(),
        _ => String::new(),
    };
    Ok(Some(("pending".into(), error)))
}

/// The status of a task: that of the latest result of (item, product, version).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"status": "pending", "error": "", "_links": {
    "self": {"href": "/tasks/catalog-item/tt-demo-001/product/profanity/version/1.0.0", "method": "GET"},
    "update": {"href": "/tasks/catalog-item/tt-demo-001/product/profanity/version/1.0.0", "method": "POST"},
    "deactivate": {"href": "/tasks/catalog-item/tt-demo-001/product/profanity/version/1.0.0", "method": "DELETE"},
    "reset": {"href": "/tasks/catalog-item/tt-demo-001/product/profanity/version/1.0.0/reset", "method": "PUT"}}})))]
pub struct TaskStatus {
    /// `pending`, `ready` or `failed`.
    #[schema(value_type = TaskState)]
    pub status: String,
    /// Why it failed, or what a pending task waits for; empty otherwise.
    pub error: String,
    /// What can be done with the task.
    pub _links: TaskLinks,
}

/// The state of a task.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    /// Not computed yet.
    Pending,
    /// The latest result succeeded.
    Ready,
    /// The latest result failed.
    Failed,
}

/// The operations on a task.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TaskLinks {
    /// Its status.
    #[serde(rename = "self")]
    pub self_: Link,
    /// Create or update it.
    pub update: Link,
    /// Deactivate it.
    pub deactivate: Link,
    /// Reset it when failed.
    pub reset: Link,
}

/// An operation: where and how.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Link {
    /// The path.
    pub href: String,
    /// The HTTP method.
    pub method: String,
}

/// One task of an item.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TaskSummary {
    /// Its status.
    pub task_status: TaskSummaryStatus,
    /// The product.
    pub product: String,
    /// The product version.
    pub version: String,
}

/// The status of one task of an item.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TaskSummaryStatus {
    /// `pending`, `ready` or `failed`.
    #[schema(value_type = TaskState)]
    pub status: String,
    /// Why it failed, or what a pending task waits for; empty otherwise.
    pub error: String,
}

/// Options of a task (free-form; `priority` must be a string when given).
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema)]
#[schema(examples(json!({"priority": "low"})))]
pub struct TaskOptions {
    /// A priority (`low` occurs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
}

fn task_body(id: &str, product: &str, version: &str, status: (String, String)) -> TaskStatus {
    let href = format!("/tasks/catalog-item/{id}/product/{product}/version/{version}");
    let link = |href: &str, method: &str| Link { href: href.to_string(), method: method.to_string() };
    TaskStatus {
        status: status.0,
        error: status.1,
        _links: TaskLinks {
            self_: link(&href, "GET"),
            update: link(&href, "POST"),
            deactivate: link(&href, "DELETE"),
            reset: link(&format!("{href}/reset"), "PUT"),
        },
    }
}

/// The responses of the task endpoints besides success.
#[derive(Debug)]
pub struct TaskErrors;

impl utoipa::IntoResponses for TaskErrors {
    fn responses() -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::response::Response>> {
        crate::openapi::error_responses(&[400, 401, 404, 422])
    }
}

/// The task status body of a tuple, or 404 when neither task nor result is known.
fn answer(state: &AppState, org: OrgId, id: &str, product: &str, version: &str) -> Result<Json<TaskStatus>, AppError> {
    let status = status_of(state, org, id, product, version)?.ok_or_else(|| not_found(id, product, version))?;
    Ok(Json(task_body(id, product, version, status)))
}

fn not_found(id: &str, product: &str, version: &str) -> AppError {
    AppError::NotFound(format!("no task and no result for item {id:?}, product {product:?}, version {version:?}"))
}

/// The status of a task (404 when neither a task nor a result is known).
#[utoipa::path(
    get,
    operation_id = "get_task",
    path = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}",
    tag = "tasks",
    params(crate::openapi::InventoryId, crate::openapi::ProductPath, crate::openapi::ProductVersion),
    responses((status = 200, description = "The task's status", body = TaskStatus), TaskErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn get(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    ApiCaller { org, .. }: ApiCaller,
) -> Result<Json<TaskStatus>, AppError> {
    check_product(&product)?;
    answer(&state, org, &id, &product, &version)
}

/// Creates or updates a task (idempotent; reactivates it); a job is queued unless a result exists.
#[utoipa::path(
    post,
    operation_id = "create_task",
    path = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}",
    tag = "tasks",
    params(crate::openapi::InventoryId, crate::openapi::ProductPath, crate::openapi::ProductVersion),
    request_body(content = Option<TaskOptions>, description = "Options (an empty body is `{}`)"),
    responses((status = 200, description = "The task's status", body = TaskStatus), TaskErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn post(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    ApiCaller { org, .. }: ApiCaller,
    body: Bytes,
) -> Result<Json<TaskStatus>, AppError> {
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
    if let Some(p) = options.get("priority")
        && !p.is_string()
    {
        return Err(AppError::invalid(Detail {
            kind: "string_type".into(),
            loc: vec!["body".into(), "priority".into()],
            msg: "Input should be a valid string".into(),
            input: p.clone(),
            ctx: Value::Null,
        }));
    }
    state.store.upsert_task(org, &id, &product, &version, &options.to_string())?;
    state.wake.notify_waiters();
    answer(&state, org, &id, &product, &version)
}

/// Deactivates a task (its queued job is dropped); answers its status.
#[utoipa::path(
    delete,
    operation_id = "deactivate_task",
    path = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}",
    tag = "tasks",
    params(crate::openapi::InventoryId, crate::openapi::ProductPath, crate::openapi::ProductVersion),
    responses((status = 200, description = "The task's status", body = TaskStatus), TaskErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn delete(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    ApiCaller { org, .. }: ApiCaller,
) -> Result<Json<TaskStatus>, AppError> {
    check_product(&product)?;
    let existed = state.store.deactivate_task(org, &id, &product, &version)?;
    let status = status_of(&state, org, &id, &product, &version)?;
    match status {
        Some(status) if existed || status.0 != "pending" => Ok(Json(task_body(&id, &product, &version, status))),
        _ => Err(not_found(&id, &product, &version)),
    }
}

/// Resets a failed task: its result is dropped and the job queued again (400 unless failed).
#[utoipa::path(
    put,
    operation_id = "reset_task",
    path = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}/reset",
    tag = "tasks",
    params(crate::openapi::InventoryId, crate::openapi::ProductPath, crate::openapi::ProductVersion),
    responses(
        (status = 200, description = "Reset (400 when the task is not failed)", body = Empty),
        TaskErrors,
    ),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn reset(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    ApiCaller { org, .. }: ApiCaller,
) -> Result<impl IntoResponse, AppError> {
    check_product(&product)?;
    let (status, _) =
        status_of(&state, org, &id, &product, &version)?.ok_or_else(|| not_found(&id, &product, &version))?;
    if status != "failed" {
        return Err(AppError::BadRequest(format!("only a failed task can be reset; this one is {status}")));
    }
    state.store.reprocess(org, &id, &product, &version)?;
    state.wake.notify_waiters();
    Ok((StatusCode::OK, Json(Empty {})))
}

/// Every task of an item, with its status.
#[utoipa::path(
    get,
    operation_id = "list_tasks",
    path = "/tasks/catalog-item/{inventory_id}",
    tag = "tasks",
    params(crate::openapi::InventoryId),
    responses((status = 200, description = "The item's tasks", body = Vec<TaskSummary>), TaskErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn list(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiCaller { org, .. }: ApiCaller,
) -> Result<Json<Vec<TaskSummary>>, AppError> {
    if state.store.item(org, &id)?.is_none() {
        return Err(AppError::item_not_found(&id));
    }
    let mut out = Vec::new();
    for task in state.store.tasks(org, &id)? {
        let (status, error) =
            status_of(&state, org, &id, &task.product, &task.version)?.unwrap_or(("pending".into(), String::new()));
        out.push(TaskSummary {
            task_status: TaskSummaryStatus { status, error },
            product: task.product,
            version: task.version,
        });
    }
    Ok(Json(out))
}
