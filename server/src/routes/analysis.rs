//! Analysis input: `PUT /analysis/v1/item/{item_type}/{id}` with a signals document.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use kino::Signals;
use serde_json::{Value, json};

use super::{caller, live_item};
use crate::auth::Accept;
use crate::error::{AppError, Detail};
use crate::state::AppState;

/// The largest signals document accepted (the default request limit of 2 MiB is below a
/// two-hour title with scene embeddings; 64 MiB holds several hours).
pub const MAX_SIGNALS_BYTES: usize = 64 * 1024 * 1024;

/// Validates and stores an item's signals; jobs waiting for them resume.
pub async fn put_signals(
    State(state): State<AppState>,
    Path((item_type, id)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, AppError> {
    let (org, _) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    let item = live_item(&state, org, &id)?;
    if item.item_type != item_type {
        return Err(AppError::item_not_found(&id));
    }
    // Parsing and validating megabytes of JSON is CPU work: off the async threads.
    let signals = tokio::task::spawn_blocking(move || -> Result<Signals, AppError> {
        let text = std::str::from_utf8(&body).map_err(|_| {
            AppError::invalid(Detail {
                kind: "json_invalid".into(),
                loc: vec!["body".into()],
                msg: "body is not UTF-8".into(),
                input: Value::Null,
                ctx: Value::Null,
            })
        })?;
        Ok(Signals::from_json(text)?)
    })
    .await
    .map_err(|e| AppError::Internal(e.to_string()))??;
    if signals.inventory_id != id {
        return Err(AppError::invalid(Detail {
            kind: "value_error".into(),
            loc: vec!["body".into(), "inventory_id".into()],
            msg: format!("Value error, inventory_id must be the item's id {id:?}"),
            input: json!(signals.inventory_id),
            ctx: json!({"error": "inventory_id must match the path"}),
        }));
    }
    let samples = kino::signals::sample_count(signals.duration, signals.step);
    let s = state.clone();
    let id2 = id.clone();
    tokio::task::spawn_blocking(move || s.put_signals(org, &id2, signals))
        .await
        .map_err(|e| AppError::Internal(e.to_string()))??;
    Ok(Json(json!({"status": "accepted", "inventory_id": id, "samples": samples})))
}
