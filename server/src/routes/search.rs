//! Catalog-wide scene search (`GET /search/v1/scenes`): the HTTP side of
//! [`crate::indexes::search_scenes`] (parameters, the answer's shape, errors).

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::ApiCaller;
use crate::catalog::ItemType;
use crate::error::{AppError, Detail};
use crate::indexes::{ItemCriteria, MAX_SEARCH_DEPTH, SceneQuery, SceneSearch, SearchError, search_scenes};
use crate::openapi::params::SceneSearchQuery;
use crate::query::{Collect, Params};
use crate::state::AppState;

impl From<SearchError> for AppError {
    fn from(e: SearchError) -> Self {
        match e {
            SearchError::Store(e) => e.into(),
            SearchError::Index(e) => e.into(),
            SearchError::NotFound(m) => AppError::NotFound(m),
            SearchError::Invalid { field, rule } => AppError::invalid(Detail::query(
                field,
                "value_error",
                format!("Value error, {rule}"),
                Value::Null,
                Value::Null,
            )),
        }
    }
}

/// The scenes found, best first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SceneSearchAnswer {
    /// The text encoder's version (text queries only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoder: Option<String>,
    /// Results skipped.
    pub skip: usize,
    /// Results asked for.
    pub count: usize,
    /// The scenes, best first (fewer than `count` when the catalog has no more that pass the
    /// filters).
    pub scenes: Vec<SceneFound>,
}

/// One scene found.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SceneFound {
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = super::envelope::ResultType)]
    pub item_type: &'static str,
    /// The service's own item id.
    pub service_id: String,
    /// The item's title, when it has one.
    pub title: Option<String>,
    /// Scene start, seconds.
    pub start_ts: f64,
    /// Scene end, seconds.
    pub end_ts: f64,
    /// `(cos + 1) / 2` between the query and the scene embedding, 0 to 1.
    pub score: f64,
}

/// Reads and checks every parameter (all problems in one 422).
fn search_of(params: &Params) -> Result<SceneSearch, AppError> {
    let mut c = Collect::default();
    let text = params.get("text").map(str::to_string);
    let item_id = params.get("item_id").map(str::to_string);
    let start_ts = c.take(params.float("start_ts", Some(0.0), None), None);
    let query = match (text, item_id, start_ts) {
        (Some(text), None, None) => Some(SceneQuery::Text(text)),
        (None, Some(item_id), Some(start_ts)) => Some(SceneQuery::Scene { item_id, start_ts }),
        (None, Some(item_id), None) => Some(SceneQuery::Item(item_id)),
        (None, None, Some(_)) => {
            c.0.push(value_error("start_ts", "start_ts goes with item_id (a scene of that item)"));
            None
        }
        (Some(_), Some(_), _) | (Some(_), None, Some(_)) => {
            c.0.push(value_error("text", "give text, or item_id (with start_ts for one scene), not both"));
            None
        }
        (None, None, None) => {
            c.0.push(Detail::query(
                "text",
                "missing",
                "Field required: text, or item_id (with start_ts for one scene)",
                Value::Null,
                Value::Null,
            ));
            None
        }
    };
    let skip = c.take(params.int("skip", 0, 0), 0);
    let count = c.take(params.int("count", 10, 1), 10);
    if count > 100 {
        c.0.push(Detail::query(
            "count",
            "less_than_equal",
            "Input should be less than or equal to 100",
            json!(params.get("count")),
            json!({"le": 100}),
        ));
    }
    if skip.saturating_add(count) > MAX_SEARCH_DEPTH as i64 {
        c.0.push(value_error("skip", &format!("skip + count must be at most {MAX_SEARCH_DEPTH}")));
    }
    let catalog_id = params.get("catalog_id").map(|_| c.take(params.int("catalog_id", 0, i64::MIN), 0));
    let mut types = Vec::new();
    for t in params.get("type").into_iter().flat_map(|t| t.split(',')).map(str::trim).filter(|t| !t.is_empty()) {
        if let Some(kind) = ItemType::parse(t) {
            types.push(kind);
        } else {
            let expected: Vec<&str> = ItemType::ALL.iter().map(|k| k.as_str()).collect();
            c.0.push(Detail::query(
                "type",
                "enum",
                format!("Input should be one of {} (comma-separated)", expected.join(", ")),
                json!(t),
                json!({"expected": expected}),
            ));
        }
    }
    let series_id = params.get("series_id").map(str::to_string);
    if series_id.as_deref().is_some_and(|s| s.trim().is_empty()) {
        c.0.push(value_error("series_id", "must not be empty"));
    }
    let year = |c: &mut Collect, name: &str| match params.get(name) {
        Some(_) => {
            let y = c.take(params.int(name, 0, 1901), 1901);
            if y > 2049 {
                c.0.push(value_error(name, "a release year is below 2050"));
            }
            Some(y)
        }
        None => None,
    };
    let year_from = year(&mut c, "release_year_gte");
    let year_to = year(&mut c, "release_year_lte");
    let from = c.take(params.float("from_ts", Some(0.0), None), None);
    let to = c.take(params.float("to_ts", Some(0.0), None), None);
    if let (Some(from), Some(to)) = (from, to)
        && to < from
    {
        c.0.push(value_error("to_ts", "must be at least from_ts"));
    }
    c.finish()?;
    let window = (from.is_some() || to.is_some()).then(|| [from.unwrap_or(0.0), to.unwrap_or(f64::MAX)]);
    Ok(SceneSearch {
        query: query.expect("a query when no problem was recorded"),
        criteria: ItemCriteria { catalog_id, series_id, year_from, year_to },
        types,
        window,
        skip: skip as usize,
        count: count as usize,
    })
}

fn value_error(name: &str, rule: &str) -> Detail {
    Detail::query(name, "value_error", format!("Value error, {rule}"), Value::Null, Value::Null)
}

/// The best scenes across the organisation's catalog for a text, a scene or a title.
///
/// Searches the scene embeddings of every live item whose `semantic_scenes` task succeeded (HNSW
/// segments kept current as results arrive). The query is `text` (encoded like
/// `text-embedding`), or `item_id` with `start_ts` (that scene; its item is left out of the
/// results), or `item_id` alone (the mean of its scenes; left out too). Filters narrow the
/// candidates during the search, so a page holds `count` scenes whenever the catalog has them.
#[utoipa::path(
    get,
    path = "/search/v1/scenes",
    tag = "retrieval",
    params(SceneSearchQuery),
    responses((status = 200, description = "The scenes found", body = SceneSearchAnswer), super::results::ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn scenes(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<SceneSearchAnswer>, AppError> {
    let search = search_of(&params)?;
    let encoder = matches!(search.query, SceneQuery::Text(_)).then(|| state.analysis.encoder.version().to_string());
    let (skip, count) = (search.skip, search.count);
    // Opening an index, encoding a text and reading the store block: off the async workers. The
    // key is checked by its own hand-off first (`ApiCaller`), not inside this one
    // (`ApiCredential`): in one hand-off, 16 clients' filtered searches gained median and
    // throughput but lost tail (p99 31.5 -> 37.5 ms, the README's scene-search bench).
    let s = state.clone();
    let found = tokio::task::spawn_blocking(move || {
        search_scenes(&s.effects.indexes, &s.store, &*s.analysis.encoder, org, &search)
    })
    .await
    .map_err(|e| AppError::Internal(format!("the search task failed: {e}")))??;
    let scenes = found
        .into_iter()
        .map(|m| SceneFound {
            inventory_id: m.item.id.clone(),
            item_type: m.item.item_type.result_type(),
            service_id: m.item.service_id.clone(),
            title: m.item.body["title"].as_str().map(str::to_string),
            start_ts: m.start_ts,
            end_ts: m.end_ts,
            score: m.score,
        })
        .collect();
    Ok(Json(SceneSearchAnswer { encoder, skip, count, scenes }))
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new().route("/search/v1/scenes", get(scenes))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(scenes))]
pub struct Api;
