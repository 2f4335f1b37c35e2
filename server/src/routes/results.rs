//! Per-item results: profanity, emotions, item and scene embeddings, similar titles, and lists.

use axum::Json;
use axum::extract::{Path, State};
use kino::vectors::ItemKind;
use kino::vectors::similar::SimilarQuery;
use serde_json::{Value, json};

use super::envelope::{
    ContentSummaryEnvelope, ContentSummaryList, EmotionsEnvelope, EmotionsList, FingerprintEnvelope,
    FingerprintplusEnvelope, FingerprintplusList, ItemEmbeddingEnvelope, ItemEmbeddingList, NudityEnvelope, NudityList,
    ProfanityLabelEnvelope, ProfanityList, ProfanitySegmentsEnvelope, SceneEmbeddingsEnvelope, SceneEmbeddingsList,
    SceneTagsEnvelope, SceneTagsList,
};
use super::{ApiCaller, ResultEnvelope, ResultList, StatusEnvelope, blocking, live_item};
use crate::catalog::result_type;
use crate::error::AppError;
use crate::openapi::params::{
    EmotionsTypeQuery, EpisodesQuery, ResultListQuery, SimilarQuery as SimilarParams, TextEmbeddingQuery, VersionQuery,
};
use crate::products::{
    ProfanityLabelOnly, ProfanityLabelPayload, ProfanityPayload, ProfanitySegmentsOnly, ProfanitySegmentsPayload,
};
use crate::query::{Collect, Params};
use crate::state::{AppState, Collection};
use crate::store::{OrgId, ResultStatus};

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
    let profanity = || serde_json::from_value::<ProfanityPayload>(p.clone()).ok().and_then(|p| p.profanity);
    Some(match part {
        Part::All => p,
        Part::ProfanityLabel => {
            json!(ProfanityLabelPayload { profanity: profanity().map(|r| ProfanityLabelOnly { label: r.label }) })
        }
        Part::ProfanitySegments => json!(ProfanitySegmentsPayload {
            profanity: profanity().map(|r| ProfanitySegmentsOnly { segments: r.segments }),
        }),
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
) -> Result<ResultEnvelope, AppError> {
    let item = live_item(state, org, id)?;
    let r = state
        .store
        .result(org, id, product, params.get("version"))?
        .ok_or_else(|| AppError::NotFound(format!("no {product} result for item {id:?}")))?;
    let payload = if r.status == ResultStatus::Success { shape(r.data.clone(), part) } else { None };
    Ok(ResultEnvelope::new(&item, &r, payload))
}

/// A status envelope (404 when the item or result is missing).
pub fn item_status(
    state: &AppState,
    org: OrgId,
    params: &Params,
    id: &str,
    product: &str,
) -> Result<StatusEnvelope, AppError> {
    let item = live_item(state, org, id)?;
    let r = state
        .store
        .result(org, id, product, params.get("version"))?
        .ok_or_else(|| AppError::NotFound(format!("no {product} result for item {id:?}")))?;
    Ok(StatusEnvelope::new(&item, &r))
}

/// A list response of a product's results, with an optional item-type filter.
pub fn list_product(
    state: &AppState,
    org: OrgId,
    params: &Params,
    product: &str,
    default_size: i64,
    types: Option<&[&str]>,
) -> Result<ResultList, AppError> {
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
        let payload = if r.status == ResultStatus::Success { r.data.clone() } else { None };
        envelopes.push(ResultEnvelope::new(&item, &r, payload));
    }
    let total_count = envelopes.len();
    let data =
        envelopes.into_iter().skip((page_num.saturating_mul(page_size)) as usize).take(page_size as usize).collect();
    Ok(ResultList { page_num, page_size, total_count, data })
}

/// The responses every per-item endpoint may give besides success.
#[derive(Debug)]
pub struct ItemErrors;

impl utoipa::IntoResponses for ItemErrors {
    fn responses() -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::response::Response>> {
        crate::openapi::error_responses(&[400, 401, 404, 422])
    }
}

macro_rules! item_endpoint {
    ($name:ident, $product:literal, $part:expr, $path:literal, $body:ty, $tag:literal, $summary:literal) => {
        #[doc = $summary]
        #[utoipa::path(
                                    get,
                                    path = $path,
                                    tag = $tag,
                                    params(crate::openapi::InventoryId, VersionQuery),
                                    responses((status = 200, description = "The result", body = $body), ItemErrors),
                                    security(("api_key" = []), ("api_key_header" = [])),
                                )]
        pub async fn $name(
            State(state): State<AppState>,
            Path(id): Path<String>,
            ApiCaller { org, params }: ApiCaller,
        ) -> Result<Json<ResultEnvelope>, AppError> {
            blocking(move || item_result(&state, org, &params, &id, $product, $part)).await.map(Json)
        }
    };
}

macro_rules! status_endpoint {
    ($name:ident, $product:literal, $path:literal, $tag:literal, $summary:literal) => {
        #[doc = $summary]
        #[utoipa::path(
                    get,
                    path = $path,
                    tag = $tag,
                    params(crate::openapi::InventoryId, VersionQuery),
                    responses((status = 200, description = "The result's status", body = StatusEnvelope), ItemErrors),
                    security(("api_key" = []), ("api_key_header" = [])),
                )]
        pub async fn $name(
            State(state): State<AppState>,
            Path(id): Path<String>,
            ApiCaller { org, params }: ApiCaller,
        ) -> Result<Json<StatusEnvelope>, AppError> {
            blocking(move || item_status(&state, org, &params, &id, $product)).await.map(Json)
        }
    };
}

item_endpoint!(
    profanity,
    "profanity",
    Part::ProfanityLabel,
    "/results/profanity/v2/{inventory_id}",
    ProfanityLabelEnvelope,
    "profanity",
    "The item's profanity classification (`data.profanity.label`)."
);
item_endpoint!(
    profanity_segments,
    "profanity",
    Part::ProfanitySegments,
    "/results/profanity/v2/segments/{inventory_id}",
    ProfanitySegmentsEnvelope,
    "profanity",
    "The item's spans of speech with profanity (`data.profanity.segments`)."
);
item_endpoint!(
    emotions,
    "emotions",
    Part::All,
    "/results/emotions/v2/{inventory_id}",
    EmotionsEnvelope,
    "emotions",
    "The item's emotion windows (`data.emotion`)."
);
item_endpoint!(
    semantic,
    "semantic",
    Part::All,
    "/results/semantic/v2/video-embedding/{inventory_id}",
    ItemEmbeddingEnvelope,
    "retrieval",
    "The item's embedding (256 floats, `data.embedding`)."
);
item_endpoint!(
    semantic_scenes,
    "semantic_scenes",
    Part::All,
    "/results/semantic_scenes/v1/video-embedding/{inventory_id}",
    SceneEmbeddingsEnvelope,
    "retrieval",
    "The item's scene embeddings (1024 floats each, `data.scene_embeddings`)."
);
item_endpoint!(
    nudity,
    "nudity",
    Part::All,
    "/results/nudity/v1/{inventory_id}",
    NudityEnvelope,
    "nudity",
    "The item's nudity (`data.nudity`): the timeline measured on sampled frames, its segments at or above 0.5, the maximum and the mean."
);
status_endpoint!(
    nudity_status,
    "nudity",
    "/results/nudity/v1/status/{inventory_id}",
    "nudity",
    "The status of the item's nudity result."
);
item_endpoint!(
    fingerprint,
    "fingerprint",
    Part::All,
    "/results/fingerprint/v1/{inventory_id}",
    FingerprintEnvelope,
    "fingerprints",
    "The item's audio fingerprint (`data.fingerprint`, one 32-bit hash every `data.fingerprint_hop` seconds)."
);
status_endpoint!(
    fingerprint_status,
    "fingerprint",
    "/results/fingerprint/v1/status/{inventory_id}",
    "fingerprints",
    "The status of the item's fingerprint result."
);
item_endpoint!(
    fingerprintplus,
    "fingerprintplus",
    Part::All,
    "/results/fingerprintplus/v3/{inventory_id}",
    FingerprintplusEnvelope,
    "fingerprints",
    "The item's fingerprint and profile: `data.fingerprint`, `fingerprint_hop`, and the `mood`, `genre`, `keyword` and `mood_tag` maps (name: score) and `language.main` from its analysis."
);
status_endpoint!(
    fingerprintplus_status,
    "fingerprintplus",
    "/results/fingerprintplus/v3/status/{inventory_id}",
    "fingerprints",
    "The status of the item's fingerprint+ result."
);
item_endpoint!(
    scene_tags,
    "scene_tags",
    Part::All,
    "/results/scene_tags/v1/{inventory_id}",
    SceneTagsEnvelope,
    "scene_tags",
    "The item's tags per scene (`data.scene_tags`): keywords, moods and environments with scores."
);
status_endpoint!(
    scene_tags_status,
    "scene_tags",
    "/results/scene_tags/v1/status/{inventory_id}",
    "scene_tags",
    "The status of the item's scene tags."
);
item_endpoint!(
    content_summary,
    "content_summary",
    Part::All,
    "/results/content_summary/v1/{inventory_id}",
    ContentSummaryEnvelope,
    "content_summary",
    "The item's content summary (`data.content_summary`): the sentences most central to what is said, in order, with their times."
);
status_endpoint!(
    content_summary_status,
    "content_summary",
    "/results/content_summary/v1/status/{inventory_id}",
    "content_summary",
    "The status of the item's content summary."
);
status_endpoint!(
    profanity_status,
    "profanity",
    "/results/profanity/v2/status/{inventory_id}",
    "profanity",
    "The status of the item's profanity result."
);
status_endpoint!(
    emotions_status,
    "emotions",
    "/results/emotions/v2/status/{inventory_id}",
    "emotions",
    "The status of the item's emotions result."
);
status_endpoint!(
    semantic_status,
    "semantic",
    "/results/semantic/v2/status/{inventory_id}",
    "retrieval",
    "The status of the item's embedding."
);
status_endpoint!(
    semantic_scenes_status,
    "semantic_scenes",
    "/results/semantic_scenes/v1/status/{inventory_id}",
    "retrieval",
    "The status of the item's scene embeddings."
);

/// The responses of the lists besides success.
#[derive(Debug)]
pub struct ListErrors;

impl utoipa::IntoResponses for ListErrors {
    fn responses() -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::response::Response>> {
        crate::openapi::error_responses(&[401, 422])
    }
}

/// Items with profanity results, oldest update first.
#[utoipa::path(
    get,
    path = "/results/profanity/v2/",
    tag = "profanity",
    params(ResultListQuery),
    responses((status = 200, description = "A page of results", body = ProfanityList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn profanity_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || list_product(&state, org, &params, "profanity", 500, None).map(Json)).await
}

/// Items with nudity results, oldest update first.
#[utoipa::path(
    get,
    path = "/results/nudity/v1/",
    tag = "nudity",
    params(ResultListQuery),
    responses((status = 200, description = "A page of results", body = NudityList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn nudity_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || list_product(&state, org, &params, "nudity", 500, None).map(Json)).await
}

/// Items with fingerprint+ results, oldest update first.
#[utoipa::path(
    get,
    path = "/results/fingerprintplus/v3/",
    tag = "fingerprints",
    params(ResultListQuery),
    responses((status = 200, description = "A page of results", body = FingerprintplusList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn fingerprintplus_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || list_product(&state, org, &params, "fingerprintplus", 500, None).map(Json)).await
}

/// Items with scene tags, oldest update first.
#[utoipa::path(
    get,
    path = "/results/scene_tags/v1/",
    tag = "scene_tags",
    params(ResultListQuery),
    responses((status = 200, description = "A page of results", body = SceneTagsList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn scene_tags_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || list_product(&state, org, &params, "scene_tags", 500, None).map(Json)).await
}

/// Items with content summaries, oldest update first.
#[utoipa::path(
    get,
    path = "/results/content_summary/v1/",
    tag = "content_summary",
    params(ResultListQuery),
    responses((status = 200, description = "A page of results", body = ContentSummaryList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn content_summary_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || list_product(&state, org, &params, "content_summary", 500, None).map(Json)).await
}

/// Items with emotions results, oldest update first, of one type or all.
#[utoipa::path(
    get,
    path = "/results/emotions/v2/",
    tag = "emotions",
    params(ResultListQuery, EmotionsTypeQuery),
    responses((status = 200, description = "A page of results", body = EmotionsList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn emotions_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || {
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
    })
    .await
}

fn embedding_list(state: &AppState, org: OrgId, params: &Params, product: &str) -> Result<ResultList, AppError> {
    let include_episodes = params.bool("include_episodes", false).map_err(AppError::invalid)?;
    let types: &[&str] = if include_episodes {
        &["standalone", "episode", "series", "season"]
    } else {
        &["standalone", "series", "season"]
    };
    list_product(state, org, params, product, 500, Some(types))
}

/// Items with item embeddings, oldest update first.
#[utoipa::path(
    get,
    path = "/results/semantic/v2/video-embedding",
    tag = "retrieval",
    params(ResultListQuery, EpisodesQuery),
    responses((status = 200, description = "A page of results", body = ItemEmbeddingList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn semantic_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || embedding_list(&state, org, &params, "semantic").map(Json)).await
}

/// Items with scene embeddings, oldest update first.
#[utoipa::path(
    get,
    path = "/results/semantic_scenes/v1/video-embedding",
    tag = "retrieval",
    params(ResultListQuery, EpisodesQuery),
    responses((status = 200, description = "A page of results", body = SceneEmbeddingsList), ListErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn semantic_scenes_list(
    State(state): State<AppState>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<ResultList>, AppError> {
    blocking(move || embedding_list(&state, org, &params, "semantic_scenes").map(Json)).await
}

/// The embedding of a text query (1024 floats), for searching scene embeddings.
#[utoipa::path(
    get,
    path = "/results/semantic_scenes/v1/text-embedding",
    tag = "retrieval",
    params(TextEmbeddingQuery),
    responses((status = 200, description = "The embedding", body = TextEmbedding), ListErrors),
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

/// Titles similar to an item (deprecated interface).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct SimilarTitles {
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = super::envelope::ResultType)]
    pub item_type: &'static str,
    /// The service's own item id.
    pub service_id: String,
    /// When the item's similarity data was computed (RFC 3339).
    #[schema(format = DateTime)]
    pub last_updated: String,
    /// The similarity version.
    pub version_id: String,
    /// The similar titles, most similar first.
    pub similar: Vec<SimilarTitle>,
}

/// One similar title.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct SimilarTitle {
    /// The customer's item id.
    pub inventory_id: String,
    /// Its result type.
    #[serde(rename = "type")]
    #[schema(value_type = super::envelope::ResultType)]
    pub item_type: &'static str,
    /// The service's own item id.
    pub service_id: String,
    /// `(cos + 1) / 2` of the item embeddings, 0 to 1.
    pub score: f64,
}

/// `GET /results/similar/similar/v2/{movies|series|}/{id}`: nearest titles by item embedding.
pub fn similar(
    state: &AppState,
    org: OrgId,
    params: &Params,
    id: &str,
    only: Option<&'static str>,
) -> Result<SimilarTitles, AppError> {
    let mut c = Collect::default();
    let skip = c.take(params.int("skip", 0, 0), 0) as usize;
    let count = c.take(params.int("count", 10, 1), 10) as usize;
    let max_score = c.take(params.float("max_score", Some(0.0), Some(1.0)), None);
    c.finish()?;
    let item = live_item(state, org, id)?;
    let mine = state.store.result(org, id, "similar", None)?.filter(|r| r.status == ResultStatus::Success);
    let not_found = || AppError::NotFound(format!("no similar result for item {id:?}"));
    let Some(mine) = mine else { return Err(not_found()) };
    let index = state.indexes.get(&state.store, org, Collection::Items)?;
    if !index.contains(id) {
        // The result is newer than the index (stored, not yet synced by its job): sync now.
        state.indexes.sync_item(&state.store, org, id)?;
    }
    if !index.contains(id) {
        return Err(not_found());
    }
    let kind = only.map(|t| if t == "series" { ItemKind::Series } else { ItemKind::Movie });
    let query = SimilarQuery { skip, count, max_score, kind };
    let found = kino::vectors::similar::similar_in(&index, id, &query)?;
    // One query for the page's items; one deleted since the index saw it is left out.
    let ids: Vec<&str> = found.iter().map(|f| f.inventory_id.as_str()).collect();
    let items: std::collections::HashMap<String, crate::store::ItemRow> =
        state.store.live_items(org, &ids)?.into_iter().map(|i| (i.id.clone(), i)).collect();
    let similar = found
        .iter()
        .filter_map(|f| {
            let other = items.get(&f.inventory_id)?;
            Some(SimilarTitle {
                inventory_id: other.id.clone(),
                item_type: result_type(&other.item_type),
                service_id: other.service_id.clone(),
                score: f.score,
            })
        })
        .collect();
    Ok(SimilarTitles {
        inventory_id: item.id,
        item_type: result_type(&item.item_type),
        service_id: item.service_id,
        version_id: params.get("version").map_or_else(|| mine.version_id(), str::to_string),
        last_updated: mine.updated_at,
        similar,
    })
}

/// Titles similar to an item, of any type (deprecated).
#[utoipa::path(
    get,
    path = "/results/similar/similar/v2/{inventory_id}",
    tag = "similar",
    params(crate::openapi::InventoryId, SimilarParams),
    responses((status = 200, description = "The similar titles", body = SimilarTitles), ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn similar_any(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<SimilarTitles>, AppError> {
    blocking(move || similar(&state, org, &params, &id, None)).await.map(Json)
}

/// Movies (standalone items) similar to an item (deprecated).
#[utoipa::path(
    get,
    path = "/results/similar/similar/v2/movies/{inventory_id}",
    tag = "similar",
    params(crate::openapi::InventoryId, SimilarParams),
    responses((status = 200, description = "The similar titles", body = SimilarTitles), ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn similar_movies(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<SimilarTitles>, AppError> {
    blocking(move || similar(&state, org, &params, &id, Some("standalone"))).await.map(Json)
}

/// Series similar to an item (deprecated).
#[utoipa::path(
    get,
    path = "/results/similar/similar/v2/series/{inventory_id}",
    tag = "similar",
    params(crate::openapi::InventoryId, SimilarParams),
    responses((status = 200, description = "The similar titles", body = SimilarTitles), ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn similar_series(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiCaller { org, params }: ApiCaller,
) -> Result<Json<SimilarTitles>, AppError> {
    blocking(move || similar(&state, org, &params, &id, Some("series"))).await.map(Json)
}
