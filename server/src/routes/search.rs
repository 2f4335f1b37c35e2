//! Catalog-wide scene search (`GET /search/v1/scenes`): the HTTP side of
//! [`crate::scene_search::search_scenes`] (parameters, the answer's shape, errors).

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use kino_media::example::ExampleError;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::{ApiCaller, blocking};
use crate::catalog::ItemType;
use crate::error::{AppError, Detail};
use crate::indexes::{ItemCriteria, SearchError};
use crate::openapi::params::{SceneExampleQuery, SceneSearchQuery, TextEmbeddingQuery};
use crate::query::{Collect, Params};
use crate::scene_search::{MAX_SEARCH_DEPTH, SceneQuery, SceneSearch, search_scenes};
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
    /// The encoder of the query: the text encoder's version for a text, the image classifier's
    /// for a picture; absent for a scene or an item.
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
    /// `(cos + 1) / 2`, 0 to 1: for a text, `cos` is the fused cosine of the query with the scene's
    /// description and its channels (seen, said, written, heard); otherwise the cosine with the
    /// scene embedding.
    pub score: f64,
}

/// Reads and checks every parameter (all problems in one 422). `example` is the query a POST's
/// body gave; the query string must then hold none.
fn search_of(params: &Params, example: Option<SceneQuery>) -> Result<SceneSearch, AppError> {
    let mut c = Collect::default();
    let text = params.get("text").map(str::to_string);
    let item_id = params.get("item_id").map(str::to_string);
    let start_ts = c.take(params.float("start_ts", Some(0.0), None), None);
    let query = match (text, item_id, start_ts) {
        _ if example.is_some() => {
            for name in ["text", "item_id", "start_ts"].into_iter().filter(|n| params.get(n).is_some()) {
                c.0.push(value_error(name, "the example is the request body; give the query string filters only"));
            }
            example
        }
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
    ApiCaller { org, params, .. }: ApiCaller,
) -> Result<Json<SceneSearchAnswer>, AppError> {
    let search = search_of(&params, None)?;
    let encoder = matches!(search.query, SceneQuery::Text(_)).then(|| state.analysis.encoder.version().to_string());
    answer(state, org, search, encoder).await
}

/// Runs a checked search and shapes its answer.
async fn answer(
    state: AppState,
    org: crate::store::OrgId,
    search: SceneSearch,
    encoder: Option<String>,
) -> Result<Json<SceneSearchAnswer>, AppError> {
    let (skip, count) = (search.skip, search.count);
    // Opening an index, encoding a text and reading the store block: off the async workers. The
    // key is checked by its own hand-off first (`ApiCaller`), not inside this one
    // (`ApiCredential`): in one hand-off, 16 clients' filtered searches gained median and
    // throughput but lost tail (p99 31.5 -> 37.5 ms, the README's scene-search bench).
    let s = state.clone();
    let found = blocking(move || {
        search_scenes(&s.effects.indexes, &s.store, &*s.analysis.encoder, org, &search).map_err(AppError::from)
    })
    .await?;
    let scenes = found
        .into_iter()
        .map(|m| SceneFound {
            inventory_id: m.item.id.clone(),
            item_type: m.item.item_type.result_type(),
            service_id: m.item.service_id.clone(),
            title: m.item.title().map(str::to_string),
            start_ts: m.start_ts,
            end_ts: m.end_ts,
            score: m.score,
        })
        .collect();
    Ok(Json(SceneSearchAnswer { encoder, skip, count, scenes }))
}

/// Bytes a picture given as an example may have.
pub const MAX_EXAMPLE_BYTES: usize = 16 << 20;

/// One scene of an item as the example (`application/json`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"item_id": "tt0001", "start_ts": 84.0})))]
pub struct SceneExample {
    /// The item (left out of the results).
    pub item_id: String,
    /// The start of the scene in the item, seconds (the scene starting nearest, within 1 s).
    pub start_ts: f64,
}

/// The scenes that look like a picture, or like one scene, across the organisation's catalog.
///
/// The example is the body: a picture (`image/jpeg` or `image/png`, at most 16 MiB, 16,384 pixels
/// a side and 50 million pixels), such as a frame grabbed from a video, read by the image
/// classifier media analysis uses; or one scene of an item (`application/json`,
/// `{"item_id", "start_ts"}`, as `GET` takes it in the query string). A picture ranks scenes by
/// what they look like alone (their visual part); a scene, by all of its embedding. The filters and
/// paging are `GET`'s, in the query string. A picture needs the image classifier
/// (`efficientnet-lite0`): without it the answer is 503. Picture searches run a model, so at most
/// twice as many as the machine has cores run at once; past that the answer is 503 with
/// `Retry-After`.
#[utoipa::path(
    post,
    path = "/search/v1/scenes",
    tag = "retrieval",
    params(SceneExampleQuery),
    request_body(
        description = "A picture (JPEG or PNG), or one scene of an item",
        content(
            (crate::openapi::schemas::Binary = "image/jpeg"),
            (crate::openapi::schemas::Binary = "image/png"),
            (SceneExample = "application/json"),
        ),
    ),
    responses(
        (status = 200, description = "The scenes found", body = SceneSearchAnswer),
        (status = 413, description = "The picture is larger than 16 MiB", body = crate::error::ErrorDetail),
        (status = 415, description = "A body neither JPEG, PNG nor JSON", body = crate::error::ErrorDetail),
        (status = 503, description = "No image classifier, or too many picture searches at once", body = crate::error::ErrorDetail),
        super::results::ItemErrors,
    ),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn scenes_by_example(
    State(state): State<AppState>,
    ApiCaller { org, params, .. }: ApiCaller,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<SceneSearchAnswer>, AppError> {
    let media_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or_default().trim().to_ascii_lowercase())
        .unwrap_or_default();
    match media_type.as_str() {
        "application/json" => {
            let example: SceneExample = serde_json::from_slice(&body).map_err(|e| {
                AppError::invalid(Detail {
                    kind: "json_invalid".into(),
                    loc: vec!["body".into()],
                    msg: format!("the body must be {{\"item_id\": string, \"start_ts\": number}}: {e}"),
                    input: Value::Null,
                    ctx: Value::Null,
                })
            })?;
            if !(example.start_ts.is_finite() && example.start_ts >= 0.0) {
                return Err(AppError::invalid(Detail {
                    kind: "greater_than_equal".into(),
                    loc: vec!["body".into(), "start_ts".into()],
                    msg: "Input should be greater than or equal to 0".into(),
                    input: json!(example.start_ts),
                    ctx: json!({"ge": 0}),
                }));
            }
            let query = SceneQuery::Scene { item_id: example.item_id, start_ts: example.start_ts };
            let search = search_of(&params, Some(query))?;
            answer(state, org, search, None).await
        }
        "image/jpeg" | "image/png" => {
            // The filters first: a bad page is refused before a model runs.
            search_of(&params, Some(SceneQuery::Picture(Vec::new())))?;
            let Ok(_permit) = state.analysis.pictures.clone().try_acquire_owned() else {
                return Err(AppError::Unavailable {
                    detail: "too many picture searches are running; try again shortly".into(),
                    retry_after: 1,
                });
            };
            let models = state.analysis.models.clone();
            let vector =
                super::blocking(move || kino_media::example::picture_query(&models, &body).map_err(AppError::from))
                    .await?;
            let search = search_of(&params, Some(SceneQuery::Picture(vector)))?;
            let encoder = state.analysis.models.loaded().into_iter().find(|m| m.starts_with("efficientnet-lite0"));
            answer(state, org, search, encoder).await
        }
        "" => Err(AppError::UnsupportedMediaType(
            "give the example's Content-Type: image/jpeg, image/png or application/json".into(),
        )),
        other => Err(AppError::UnsupportedMediaType(format!(
            "a {other} body is not an example; give image/jpeg, image/png or application/json"
        ))),
    }
}

impl From<ExampleError> for AppError {
    fn from(e: ExampleError) -> Self {
        match e {
            ExampleError::Unreadable(_) | ExampleError::TooLarge { .. } => AppError::invalid(Detail {
                kind: "value_error".into(),
                loc: vec!["body".into()],
                msg: format!("Value error, {e}"),
                input: Value::Null,
                ctx: Value::Null,
            }),
            ExampleError::NoModel(_) => AppError::Unavailable { detail: e.to_string(), retry_after: 60 },
            ExampleError::Model(e) => AppError::Internal(format!("the image classifier failed: {e}")),
        }
    }
}

/// The embedding of a text query (1024 floats), for searching scene embeddings.
#[utoipa::path(
    get,
    path = "/results/semantic_scenes/v1/text-embedding",
    tag = "retrieval",
    params(TextEmbeddingQuery),
    responses((status = 200, description = "The embedding", body = TextEmbedding), super::results::ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn text_embedding(
    State(state): State<AppState>,
    ApiCaller { params, .. }: ApiCaller,
) -> Result<Json<TextEmbedding>, AppError> {
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
    // The sentence model's workers answer through a one-shot channel: no thread waits per query.
    let (answer, vector) = tokio::sync::oneshot::channel();
    state.analysis.encoder.encode_then(
        q,
        Box::new(move |v| {
            let _ = answer.send(v);
        }),
    );
    let embedding =
        vector.await.map_err(|_| AppError::Internal("the text encoder dropped a query unanswered".into()))??;
    let version_id = params.get("version").unwrap_or(state.analysis.encoder.version()).to_string();
    Ok(Json(TextEmbedding { version_id, embedding }))
}

/// The embedding of a text query.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct TextEmbedding {
    /// The encoder version.
    pub version_id: String,
    /// 1024 floats, unit length.
    pub embedding: Vec<f32>,
}

/// This module's routes (merged in `app.rs`): scene search by text and by example, and the
/// embedding of a text query that the scene search is made of.
pub fn router() -> axum::Router<AppState> {
    use axum::extract::DefaultBodyLimit;
    use axum::routing::get;
    axum::Router::new()
        .route("/search/v1/scenes", get(scenes).post(scenes_by_example).layer(DefaultBodyLimit::max(MAX_EXAMPLE_BYTES)))
        .route("/results/semantic_scenes/v1/text-embedding", get(text_embedding))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(scenes, scenes_by_example, text_embedding), components(schemas(SceneExample)))]
pub struct Api;
