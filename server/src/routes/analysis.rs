//! Analysis input: `PUT /analysis/v1/item/{item_type}/{id}` with a signals document.

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use kino::Signals;
use serde_json::json;

use super::{ApiCaller, blocking, live_item};
use crate::error::{AppError, Detail};
use crate::state::AppState;

pub use crate::signals::MAX_SIGNALS_BYTES;

/// The answer to stored signals.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct SignalsAccepted {
    /// `accepted`.
    pub status: String,
    /// The item.
    pub inventory_id: String,
    /// Timeline samples in the document.
    pub samples: usize,
}

/// Validates and stores an item's signals (a `kino.signals/1` document, docs/signals.md; 422 names
/// the field and the rule); jobs waiting for them resume.
#[utoipa::path(
    put,
    path = "/analysis/v1/item/{item_type}/{id}",
    tag = "catalog",
    description = "The credential and the item are checked before the body is read; the body is parsed as it \
        streams in, a limited number of uploads at once (503 with `Retry-After` beyond).",
    params(crate::openapi::TypedItem),
    request_body = kino::Signals,
    responses(
        (status = 200, description = "Stored", body = SignalsAccepted),
        (status = 400, description = "The body could not be read", body = crate::error::ErrorDetail),
        (status = 401, description = "No or unknown API key", body = crate::error::ErrorDetail),
        (status = 404, description = "No such item", body = crate::error::ErrorDetail),
        (status = 413, description = "Larger than 64 MiB", body = crate::error::ErrorDetail),
        (status = 422, description = "Invalid signals", body = crate::error::ValidationError),
        (status = 503, description = "Too many uploads at once; try again after `Retry-After`", body = crate::error::ErrorDetail),
    ),
    security(("api_key" = []), ("api_key_header" = [])),
)]
///
/// The credential and the item are checked before a byte of the body is read; the body is then
/// parsed as it streams in (never held whole in memory), on a blocking thread, at most
/// [`crate::state::Config::max_uploads`] at once (503 beyond).
pub async fn put_signals(
    State(state): State<AppState>,
    Path((item_type, id)): Path<(String, String)>,
    ApiCaller { org, .. }: ApiCaller,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<SignalsAccepted>, AppError> {
    let (s, item_id) = (state.clone(), id.clone());
    let item = blocking(move || live_item(&s, org, &item_id)).await?;
    if item.item_type.as_str() != item_type {
        return Err(AppError::item_not_found(&id));
    }
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_SIGNALS_BYTES as u64) {
        return Err(too_large());
    }
    let Ok(_slot) = state.guards.uploads.clone().try_acquire_owned() else {
        return Err(AppError::Unavailable {
            detail: format!("{} signals uploads are being read already; try again shortly", state.config.max_uploads),
            retry_after: 5,
        });
    };
    let (chunks, reader) = BodyReader::channel();
    // The body is fed to the parser while it parses: both run at once, the parser on the
    // blocking pool.
    let parse = blocking(move || Ok::<_, AppError>(Signals::from_reader(reader)));
    let (fed, parsed) = tokio::join!(feed(body, chunks), parse);
    let signals = match (fed, parsed?) {
        (Err(e), _) => return Err(e),
        (Ok(()), parsed) => parsed?,
    };
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
    blocking(move || crate::signals::put(&s.store, &s.signals, &s.effects, org, &id2, signals).map_err(AppError::from))
        .await?;
    Ok(Json(SignalsAccepted { status: "accepted".into(), inventory_id: id, samples }))
}

fn too_large() -> AppError {
    AppError::PayloadTooLarge(format!("a signals document may have at most {MAX_SIGNALS_BYTES} bytes"))
}

/// Sends the body's chunks to the parser; fails (and stops the parser) when the body breaks off or
/// exceeds [`MAX_SIGNALS_BYTES`].
async fn feed(mut body: Body, chunks: Chunks) -> Result<(), AppError> {
    use http_body_util::BodyExt as _;
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                let _ = chunks.send(Err(())).await;
                return Err(AppError::BadRequest(format!("the request body could not be read: {e}")));
            }
        };
        let Ok(chunk) = frame.into_data() else { continue };
        total += chunk.len();
        if total > MAX_SIGNALS_BYTES {
            let _ = chunks.send(Err(())).await;
            return Err(too_large());
        }
        // A full channel waits for the parser; a parser that stopped (it found an error) closes
        // the channel, and the rest of the body is not read.
        if chunks.send(Ok(chunk)).await.is_err() {
            return Ok(());
        }
    }
    Ok(())
}

type Chunks = tokio::sync::mpsc::Sender<Result<Bytes, ()>>;

/// A blocking [`std::io::Read`] over body chunks sent from the async side.
struct BodyReader {
    chunks: tokio::sync::mpsc::Receiver<Result<Bytes, ()>>,
    current: Bytes,
}

impl BodyReader {
    fn channel() -> (Chunks, BodyReader) {
        let (tx, rx) = tokio::sync::mpsc::channel(8);
        (tx, BodyReader { chunks: rx, current: Bytes::new() })
    }
}

impl std::io::Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.chunks.blocking_recv() {
                Some(Ok(chunk)) => self.current = chunk,
                Some(Err(())) => return Err(std::io::Error::other("the upload was cut off")),
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        self.current = self.current.slice(n..);
        Ok(n)
    }
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::put;
    axum::Router::new().route(
        "/analysis/v1/item/{item_type}/{id}",
        put(put_signals).layer(axum::extract::DefaultBodyLimit::max(MAX_SIGNALS_BYTES)),
    )
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(put_signals))]
pub struct Api;
