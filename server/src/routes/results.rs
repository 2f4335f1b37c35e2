//! Per-item results: profanity, emotions, item and scene embeddings, similar titles, and lists.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use kino::TextEncoder;
use kino::vectors::similar::SimilarQuery;
use kino::vectors::{ItemKind, VectorIndex};
use serde_json::{Value, json};

use super::{caller, live_item, result_envelope, status_envelope};
use crate::auth::Accept;
use crate::catalog::result_type;
use crate::error::AppError;
use crate::query::{Collect, Params};
use crate::state::{AppState, Collection};
use crate::store::OrgId;

/// Which part of a stored payload an endpoint returns.
#[derive(Debug, Clone, Copy)]
pub enum Part {
    /// The whole payload.
    All,
    /// `profanity.label` only.
    ProfanityLabel,
    /// `profanity.segments` only.
    ProfanitySegments,
}

fn shape(payload: Option<Value>, part: Part) -> Option<Value> {
    let p = payload?;
    Some(match part {
        Part::All => p,
        Part::ProfanityLabel => json!({"profanity": {"label": p["profanity"]["label"]}}),
        Part::ProfanitySegments => json!({"profanity": {"segments": p["profanity"]["segments"]}}),
    })
}

/// A result envelope with data (404 when the item or result is missing).
pub fn item_result(
    state: &AppState,
    org: OrgId,
    params: &Params,
    id: &str,
    product: &str,
    part: Part,
) -> Result<Value, AppError> {
    let item = live_item(state, org, id)?;
    let r = state
        .store
        .result(org, id, product, params.get("version"))?
        .ok_or_else(|| AppError::NotFound(format!("no {product} result for item {id:?}")))?;
    let payload = if r.status == "success" { shape(r.data.clone(), part) } else { None };
    Ok(result_envelope(&item, &r, payload))
}

/// A status envelope (404 when the item or result is missing).
pub fn item_status(state: &AppState, org: OrgId, params: &Params, id: &str, product: &str) -> Result<Value, AppError> {
    let item = live_item(state, org, id)?;
    let r = state
        .store
        .result(org, id, product, params.get("version"))?
        .ok_or_else(|| AppError::NotFound(format!("no {product} result for item {id:?}")))?;
    Ok(status_envelope(&item, &r))
}

/// A list response of a product's results, with an optional item-type filter.
pub fn list_product(
    state: &AppState,
    org: OrgId,
    params: &Params,
    product: &str,
    default_size: i64,
    types: Option<&[&str]>,
) -> Result<Value, AppError> {
    let mut c = Collect::default();
    let page_num = c.take(params.int("page_num", 0, 0), 0);
    let page_size = c.take(params.int("page_size", default_size, 1), default_size);
    let from = c.take(params.datetime("from_utcdatetime"), None);
    let to = c.take(params.datetime("to_utcdatetime"), None).unwrap_or_else(crate::store::now);
    c.finish()?;
    let (rows, _) = state.store.results(org, product, params.get("version"), from.as_deref(), &to, 0, i64::MAX)?;
    let mut envelopes = Vec::new();
    for r in rows {
        let Some(item) = state.store.item(org, &r.item_id)? else { continue };
        if item.deleted || types.is_some_and(|t| !t.contains(&item.item_type.as_str())) {
            continue;
        }
        let payload = if r.status == "success" { r.data.clone() } else { None };
        envelopes.push(result_envelope(&item, &r, payload));
    }
    let total = envelopes.len();
    let page: Vec<Value> =
        envelopes.into_iter().skip((page_num.saturating_mul(page_size)) as usize).take(page_size as usize).collect();
    Ok(json!({"page_num": page_num, "page_size": page_size, "total_count": total, "data": page}))
}

macro_rules! item_endpoint {
    ($name:ident, $product:literal, $part:expr) => {
        /// The item's result envelope.
        pub async fn $name(
            State(state): State<AppState>,
            Path(id): Path<String>,
            RawQuery(raw): RawQuery,
            headers: HeaderMap,
        ) -> Result<Json<Value>, AppError> {
            let (org, params) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
            item_result(&state, org, &params, &id, $product, $part).map(Json)
        }
    };
}

macro_rules! status_endpoint {
    ($name:ident, $product:literal) => {
        /// The item's status envelope.
        pub async fn $name(
            State(state): State<AppState>,
            Path(id): Path<String>,
            RawQuery(raw): RawQuery,
            headers: HeaderMap,
        ) -> Result<Json<Value>, AppError> {
            let (org, params) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
            item_status(&state, org, &params, &id, $product).map(Json)
        }
    };
}

item_endpoint!(profanity, "profanity", Part::ProfanityLabel);
item_endpoint!(profanity_segments, "profanity", Part::ProfanitySegments);
item_endpoint!(emotions, "emotions", Part::All);
item_endpoint!(semantic, "semantic", Part::All);
item_endpoint!(semantic_scenes, "semantic_scenes", Part::All);
status_endpoint!(profanity_status, "profanity");
status_endpoint!(emotions_status, "emotions");
status_endpoint!(semantic_status, "semantic");
status_endpoint!(semantic_scenes_status, "semantic_scenes");

/// `GET /results/profanity/v2/`.
pub async fn profanity_list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    let (org, params) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    list_product(&state, org, &params, "profanity", 500, None).map(Json)
}

/// `GET /results/emotions/v2/` with `type` (`all`, `movie`, `episode`, ...).
pub async fn emotions_list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    let (org, params) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    let kind = params.get("type").unwrap_or("all");
    let types: Option<&[&str]> = match kind {
        "all" => None,
        "movie" | "standalone" => Some(&["standalone"]),
        "episode" => Some(&["episode"]),
        "series" => Some(&["series"]),
        "season" => Some(&["season"]),
        other => {
            return Err(AppError::invalid(crate::error::Detail::query(
                "type",
                "enum",
                "Input should be 'all', 'movie', 'episode', 'series' or 'season'",
                json!(other),
                json!({"expected": "'all', 'movie', 'episode', 'series' or 'season'"}),
            )));
        }
    };
    list_product(&state, org, &params, "emotions", 500, types).map(Json)
}

fn embedding_list(state: &AppState, raw: Option<&str>, headers: &HeaderMap, product: &str) -> Result<Value, AppError> {
    let (org, params) = caller(state, raw, headers, Accept::ApiKey)?;
    let include_episodes = params.bool("include_episodes", false).map_err(AppError::invalid)?;
    let types: &[&str] = if include_episodes {
        &["standalone", "episode", "series", "season"]
    } else {
        &["standalone", "series", "season"]
    };
    list_product(state, org, &params, product, 500, Some(types))
}

/// `GET /results/semantic/v2/video-embedding`.
pub async fn semantic_list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    embedding_list(&state, raw.as_deref(), &headers, "semantic").map(Json)
}

/// `GET /results/semantic_scenes/v1/video-embedding`.
pub async fn semantic_scenes_list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    embedding_list(&state, raw.as_deref(), &headers, "semantic_scenes").map(Json)
}

/// `GET /results/semantic_scenes/v1/text-embedding?q=`.
pub async fn text_embedding(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    let (_, params) = caller(&state, raw.as_deref(), &headers, Accept::ApiKey)?;
    let q = params.required("q").map_err(AppError::invalid)?;
    if q.trim().is_empty() {
        return Err(AppError::invalid(crate::error::Detail::query(
            "q",
            "string_too_short",
            "String should have at least 1 character",
            json!(q),
            json!({"min_length": 1}),
        )));
    }
    let embedding = state.encoder.encode(q)?;
    Ok(Json(json!({"version_id": params.get("version").unwrap_or(state.encoder.version()), "embedding": embedding})))
}

/// `GET /results/similar/similar/v2/{movies|series|}/{id}`: nearest titles by item embedding.
pub async fn similar(
    state: &AppState,
    raw: Option<&str>,
    headers: &HeaderMap,
    id: &str,
    only: Option<&'static str>,
) -> Result<Value, AppError> {
    let (org, params) = caller(state, raw, headers, Accept::ApiKey)?;
    let mut c = Collect::default();
    let skip = c.take(params.int("skip", 0, 0), 0) as usize;
    let count = c.take(params.int("count", 10, 1), 10) as usize;
    let max_score = c.take(params.float("max_score", Some(0.0), Some(1.0)), None);
    c.finish()?;
    let item = live_item(state, org, id)?;
    let mine = state.store.result(org, id, "similar", None)?.filter(|r| r.status == "success");
    let not_found = || AppError::NotFound(format!("no similar result for item {id:?}"));
    let Some(mine) = mine else { return Err(not_found()) };
    let mut index = state.index(org, Collection::Items)?;
    if index.as_ref().is_none_or(|i| i.nodes_of(id).is_empty()) {
        // The result is newer than the index (stored, rebuild not yet swapped in): rebuild now.
        index = state.rebuild_index(org, Collection::Items)?;
    }
    let Some(index) = index.filter(|i| !i.nodes_of(id).is_empty()) else { return Err(not_found()) };
    let kind = only.map(|t| if t == "series" { ItemKind::Series } else { ItemKind::Movie });
    let query = SimilarQuery { skip, count, max_score, kind };
    let found = kino::vectors::similar::similar(&*index, id, &query)?;
    let mut similar = Vec::with_capacity(found.len());
    for f in found {
        let Some(other) = state.store.item(org, &f.inventory_id)? else { continue };
        similar.push(json!({"inventory_id": other.id, "type": result_type(&other.item_type), "service_id": other.service_id, "score": f.score}));
    }
    Ok(json!({
        "inventory_id": item.id,
        "type": result_type(&item.item_type),
        "service_id": item.service_id,
        "last_updated": mine.updated_at,
        "version_id": params.get("version").unwrap_or(&mine.version),
        "similar": similar,
    }))
}

/// `/results/similar/similar/v2/{id}`.
pub async fn similar_any(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    similar(&state, raw.as_deref(), &headers, &id, None).await.map(Json)
}

/// `/results/similar/similar/v2/movies/{id}`.
pub async fn similar_movies(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    similar(&state, raw.as_deref(), &headers, &id, Some("standalone")).await.map(Json)
}

/// `/results/similar/similar/v2/series/{id}`.
pub async fn similar_series(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Json<Value>, AppError> {
    similar(&state, raw.as_deref(), &headers, &id, Some("series")).await.map(Json)
}
