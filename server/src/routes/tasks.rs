//! Tasks (`/tasks/catalog-item/...`): the request shapes and answers of the interface's task
//! state machine, which lives in [`crate::tasks`].

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::{ApiCaller, ApiCredential, blocking};
use crate::error::{AppError, Detail};
use crate::openapi::schemas::Empty;
use crate::products::Product;
use crate::state::AppState;
use crate::tasks::{Status, TaskError, TaskState};

type TaskPath = (String, String, String);

fn check_product(product: &str) -> Result<Product, AppError> {
    if let Some(known) = Product::parse(product) {
        return Ok(known);
    }
    let expected = Product::ALL.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ");
    Err(AppError::invalid(Detail {
        kind: "enum".into(),
        loc: vec!["path".into(), "product".into()],
        msg: format!("Input should be {expected}"),
        input: json!(product),
        ctx: json!({"expected": expected}),
    }))
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
    pub status: TaskState,
    /// Why it failed, or what a pending task waits for; empty otherwise.
    pub error: String,
    /// What can be done with the task.
    pub _links: TaskLinks,
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
    pub status: TaskState,
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

fn task_body(id: &str, product: &str, version: &str, status: Status) -> TaskStatus {
    let href = format!("/tasks/catalog-item/{id}/product/{product}/version/{version}");
    let link = |href: &str, method: &str| Link { href: href.to_string(), method: method.to_string() };
    TaskStatus {
        status: status.state,
        error: status.error,
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

impl From<TaskError> for AppError {
    fn from(e: TaskError) -> Self {
        match e {
            not_found @ TaskError::NotFound { .. } => AppError::NotFound(not_found.to_string()),
            TaskError::ItemNotFound(id) => AppError::item_not_found(&id),
            not_failed @ TaskError::NotFailed(_) => AppError::BadRequest(not_failed.to_string()),
            too_many @ TaskError::TooManyVersions { .. } => {
                AppError::TooManyRequests { detail: too_many.to_string(), retry_after: 60 }
            }
            TaskError::Store(e) => e.into(),
        }
    }
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
    credential: ApiCredential,
) -> Result<Json<TaskStatus>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let known = check_product(&product)?;
        let status = state.tasks().status(org, &id, known, &version)?;
        Ok(Json(task_body(&id, &product, &version, status)))
    })
    .await
}

/// Creates or updates a task (idempotent; reactivates it); a job is queued unless a result exists.
#[utoipa::path(
    post,
    operation_id = "create_task",
    path = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}",
    tag = "tasks",
    params(crate::openapi::InventoryId, crate::openapi::ProductPath, crate::openapi::ProductVersion),
    request_body(content = Option<TaskOptions>, description = "Options (an empty body is `{}`)"),
    responses(
        (status = 200, description = "The task's status", body = TaskStatus),
        (status = 429, description = "The item has 8 other versions of the product active; deactivate one first", body = crate::error::ErrorDetail),
        TaskErrors
    ),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn post(
    State(state): State<AppState>,
    Path((id, product, version)): Path<TaskPath>,
    ApiCaller { org, .. }: ApiCaller,
    body: Bytes,
) -> Result<Json<TaskStatus>, AppError> {
    blocking(move || {
        let known = check_product(&product)?;
        if version.is_empty() {
            return Err(AppError::invalid(Detail::query(
                "version",
                "string_too_short",
                "String should have at least 1 character",
                json!(version),
                json!({"min_length": 1}),
            )));
        }
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
        let status = state.tasks().upsert(org, &id, known, &version, &options)?;
        Ok(Json(task_body(&id, &product, &version, status)))
    })
    .await
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
    credential: ApiCredential,
) -> Result<Json<TaskStatus>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let known = check_product(&product)?;
        let status = state.tasks().deactivate(org, &id, known, &version)?;
        Ok(Json(task_body(&id, &product, &version, status)))
    })
    .await
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
    credential: ApiCredential,
) -> Result<impl IntoResponse, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let known = check_product(&product)?;
        state.tasks().reset(org, &id, known, &version)?;
        Ok((StatusCode::OK, Json(Empty {})))
    })
    .await
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
    credential: ApiCredential,
) -> Result<Json<Vec<TaskSummary>>, AppError> {
    blocking(move || {
        let ApiCaller { org, .. } = credential.check(&state.store)?;
        let list = state.tasks().of_item(org, &id)?;
        Ok(Json(
            list.into_iter()
                .map(|t| TaskSummary {
                    task_status: TaskSummaryStatus { status: t.status.state, error: t.status.error },
                    product: t.product,
                    version: t.version,
                })
                .collect(),
        ))
    })
    .await
}

/// The path of one task.
const TASK: &str = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}";

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing as on;
    axum::Router::new()
        .route(TASK, on::get(get).post(post).delete(delete))
        .route(&format!("{TASK}/reset"), on::put(reset))
        .route("/tasks/catalog-item/{inventory_id}", on::get(list))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(get, post, delete, reset, list))]
pub struct Api;
