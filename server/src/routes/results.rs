//! Per-item results: profanity, emotions, item and scene embeddings, similar titles, and lists.

use crate::catalog::ItemType;
use crate::products::Product;
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
use super::{ApiCaller, ApiCredential, ResultEnvelope, ResultList, StatusEnvelope, blocking, live_item};
use crate::error::AppError;
use crate::openapi::params::{
    EmotionsTypeQuery, EpisodesQuery, ResultListQuery, SimilarQuery as SimilarParams, VersionQuery,
};
use crate::products::{
    ProfanityLabelOnly, ProfanityLabelPayload, ProfanityPayload, ProfanitySegmentsOnly, ProfanitySegmentsPayload,
};
use crate::query::{Collect, Params};
use crate::results::{Window, live_results};
use crate::similar::similar_titles;
pub use crate::similar::{SimilarTitle, SimilarTitles};
use crate::state::AppState;
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
    product: Product,
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
    product: Product,
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
    product: Product,
    default_size: i64,
    types: Option<&[ItemType]>,
) -> Result<ResultList, AppError> {
    let q = ListQuery::parse(params, default_size)?;
    let mut envelopes = Vec::new();
    for (item, r) in live_results(&state.store, org, product, q.window(params), types)? {
        let payload = if r.status == ResultStatus::Success { r.data.clone() } else { None };
        envelopes.push(ResultEnvelope::new(&item, &r, payload));
    }
    let total_count = envelopes.len();
    Ok(ResultList { page_num: q.page_num, page_size: q.page_size, total_count, data: q.page(envelopes) })
}

/// The query of a results list: the page (`page_num` from 0, `page_size` from 1) and the window
/// of update times (`from_utcdatetime`, `to_utcdatetime`, default now), every problem named at once.
#[derive(Debug)]
pub struct ListQuery {
    /// The page, from 0.
    pub page_num: i64,
    /// Rows per page.
    pub page_size: i64,
    from: Option<String>,
    to: String,
}

impl ListQuery {
    /// From the list's parameters, `default_size` rows per page unless `page_size` says.
    pub fn parse(params: &Params, default_size: i64) -> Result<ListQuery, AppError> {
        let mut c = Collect::default();
        let page_num = c.take(params.int("page_num", 0, 0), 0);
        let page_size = c.take(params.int("page_size", default_size, 1), default_size);
        let from = c.take(params.datetime("from_utcdatetime"), None);
        let to = c.take(params.datetime("to_utcdatetime"), None).unwrap_or_else(crate::store::now);
        c.finish()?;
        Ok(ListQuery { page_num, page_size, from, to })
    }

    /// The window of results it asks for (`version` from `params`: one version, or any).
    pub fn window<'a>(&'a self, params: &'a Params) -> Window<'a> {
        Window { version: params.get("version"), from: self.from.as_deref(), to: &self.to }
    }

    /// Its page of `rows`.
    pub fn page<T>(&self, rows: Vec<T>) -> Vec<T> {
        rows.into_iter()
            .skip(self.page_num.saturating_mul(self.page_size) as usize)
            .take(self.page_size as usize)
            .collect()
    }
}

/// The responses every per-item endpoint may give besides success.
#[derive(Debug)]
pub struct ItemErrors;

impl utoipa::IntoResponses for ItemErrors {
    fn responses() -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::response::Response>> {
        crate::openapi::error_responses(&[400, 401, 404, 422])
    }
}

/// The responses of the lists besides success.
#[derive(Debug)]
pub struct ListErrors;

impl utoipa::IntoResponses for ListErrors {
    fn responses() -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::response::Response>> {
        crate::openapi::error_responses(&[401, 422])
    }
}

/// The item types a list keeps (`None`: every type).
type ItemTypes = Option<&'static [ItemType]>;

/// The lists of most products keep every item type.
fn every_type(_: &Params) -> Result<ItemTypes, AppError> {
    Ok(None)
}

/// The emotions list keeps the item types its `type` names (`all` by default).
fn emotions_types(params: &Params) -> Result<ItemTypes, AppError> {
    let types: ItemTypes = match params.get("type").unwrap_or("all") {
        "all" => None,
        "movie" | "standalone" => Some(&[ItemType::Standalone]),
        "episode" => Some(&[ItemType::Episode]),
        "series" => Some(&[ItemType::Series]),
        "season" => Some(&[ItemType::Season]),
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
    Ok(types)
}

/// The embedding lists keep episodes only with `include_episodes`.
fn embedding_types(params: &Params) -> Result<ItemTypes, AppError> {
    let include_episodes = params.bool("include_episodes", false).map_err(AppError::invalid)?;
    Ok(Some(if include_episodes {
        &[ItemType::Standalone, ItemType::Episode, ItemType::Series, ItemType::Season]
    } else {
        &[ItemType::Standalone, ItemType::Series, ItemType::Season]
    }))
}

/// The result endpoints of the stored products, from one table. Per product (and the OpenAPI tag
/// it is documented under), a row per endpoint: its kind, the handler's name and what the kind
/// needs, its path and the sentence that documents it. The kinds:
///
/// - `item name(part, envelope)`: the item's result with the payload (or the part of it named);
/// - `status name`: the item's result without the payload;
/// - `list name(list, types[, query])`: the product's results, a page at a time, of the item
///   types `types` keeps (with the extra query parameters `query` documented);
/// - `similar name(only)`: the titles nearest the item, of the type `only` (any when `None`).
///
/// The table also gives the module's `router()` and its OpenAPI `Api`: each path is written once.
macro_rules! result_endpoints {
    ($($product:ident, tag $tag:literal {
        $($kind:ident $name:ident $(($($arg:tt)*))? at $path:literal: $doc:literal;)*
    })*) => {
        $($(result_endpoints!(@$kind $name, $product, $tag, $path, $doc $(, $($arg)*)?);)*)*

        /// This module's routes (merged in `app.rs`): the table's.
        pub fn router() -> axum::Router<AppState> {
            use axum::routing::get;
            axum::Router::new()
                $($(.route($path, get($name)))*)*
        }

        /// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
        #[derive(Debug, utoipa::OpenApi)]
        #[openapi(paths($($($name),*),*))]
        pub struct Api;
    };
    (@item $name:ident, $product:ident, $tag:literal, $path:literal, $doc:literal, $part:expr, $body:ident) => {
        #[doc = $doc]
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
            credential: ApiCredential,
        ) -> Result<Json<ResultEnvelope>, AppError> {
            blocking(move || {
                let ApiCaller { org, params, .. } = credential.check(&state.store)?;
                item_result(&state, org, &params, &id, Product::$product, $part)
            })
            .await
            .map(Json)
        }
    };
    (@status $name:ident, $product:ident, $tag:literal, $path:literal, $doc:literal) => {
        #[doc = $doc]
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
            credential: ApiCredential,
        ) -> Result<Json<StatusEnvelope>, AppError> {
            blocking(move || {
                let ApiCaller { org, params, .. } = credential.check(&state.store)?;
                item_status(&state, org, &params, &id, Product::$product)
            })
            .await
            .map(Json)
        }
    };
    (@list $name:ident, $product:ident, $tag:literal, $path:literal, $doc:literal, $body:ident, $types:ident $(, $query:ident)?) => {
        #[doc = $doc]
        #[utoipa::path(
            get,
            path = $path,
            tag = $tag,
            params(ResultListQuery $(, $query)?),
            responses((status = 200, description = "A page of results", body = $body), ListErrors),
            security(("api_key" = []), ("api_key_header" = [])),
        )]
        pub async fn $name(
            State(state): State<AppState>,
            credential: ApiCredential,
        ) -> Result<Json<ResultList>, AppError> {
            blocking(move || {
                let ApiCaller { org, params, .. } = credential.check(&state.store)?;
                let types = $types(&params)?;
                list_product(&state, org, &params, Product::$product, 500, types).map(Json)
            })
            .await
        }
    };
    (@similar $name:ident, $product:ident, $tag:literal, $path:literal, $doc:literal, $only:expr) => {
        #[doc = $doc]
        #[utoipa::path(
            get,
            path = $path,
            tag = $tag,
            params(crate::openapi::InventoryId, SimilarParams),
            responses((status = 200, description = "The similar titles", body = SimilarTitles), ItemErrors),
            security(("api_key" = []), ("api_key_header" = [])),
        )]
        pub async fn $name(
            State(state): State<AppState>,
            Path(id): Path<String>,
            credential: ApiCredential,
        ) -> Result<Json<SimilarTitles>, AppError> {
            blocking(move || {
                let ApiCaller { org, params, .. } = credential.check(&state.store)?;
                similar(&state, org, &params, &id, $only)
            })
            .await
            .map(Json)
        }
    };
}

result_endpoints! {
    Profanity, tag "profanity" {
        item profanity(Part::ProfanityLabel, ProfanityLabelEnvelope) at "/results/profanity/v2/{inventory_id}":
            "The item's profanity classification (`data.profanity.label`).";
        item profanity_segments(Part::ProfanitySegments, ProfanitySegmentsEnvelope)
            at "/results/profanity/v2/segments/{inventory_id}":
            "The item's spans of speech with profanity (`data.profanity.segments`).";
        status profanity_status at "/results/profanity/v2/status/{inventory_id}":
            "The status of the item's profanity result.";
        list profanity_list(ProfanityList, every_type) at "/results/profanity/v2/":
            "Items with profanity results, oldest update first.";
    }
    Emotions, tag "emotions" {
        item emotions(Part::All, EmotionsEnvelope) at "/results/emotions/v2/{inventory_id}":
            "The item's emotion windows (`data.emotion`).";
        status emotions_status at "/results/emotions/v2/status/{inventory_id}":
            "The status of the item's emotions result.";
        list emotions_list(EmotionsList, emotions_types, EmotionsTypeQuery) at "/results/emotions/v2/":
            "Items with emotions results, oldest update first, of one type or all.";
    }
    Semantic, tag "retrieval" {
        item semantic(Part::All, ItemEmbeddingEnvelope) at "/results/semantic/v2/video-embedding/{inventory_id}":
            "The item's embedding (256 floats, `data.embedding`).";
        status semantic_status at "/results/semantic/v2/status/{inventory_id}":
            "The status of the item's embedding.";
        list semantic_list(ItemEmbeddingList, embedding_types, EpisodesQuery)
            at "/results/semantic/v2/video-embedding":
            "Items with item embeddings, oldest update first.";
    }
    SemanticScenes, tag "retrieval" {
        item semantic_scenes(Part::All, SceneEmbeddingsEnvelope)
            at "/results/semantic_scenes/v1/video-embedding/{inventory_id}":
            "The item's scene embeddings (1024 floats each, `data.scene_embeddings`).";
        status semantic_scenes_status at "/results/semantic_scenes/v1/status/{inventory_id}":
            "The status of the item's scene embeddings.";
        list semantic_scenes_list(SceneEmbeddingsList, embedding_types, EpisodesQuery)
            at "/results/semantic_scenes/v1/video-embedding":
            "Items with scene embeddings, oldest update first.";
    }
    Nudity, tag "nudity" {
        item nudity(Part::All, NudityEnvelope) at "/results/nudity/v1/{inventory_id}":
            "The item's nudity (`data.nudity`): the timeline measured on sampled frames, its segments at or above 0.5, the maximum and the mean.";
        status nudity_status at "/results/nudity/v1/status/{inventory_id}":
            "The status of the item's nudity result.";
        list nudity_list(NudityList, every_type) at "/results/nudity/v1/":
            "Items with nudity results, oldest update first.";
    }
    Fingerprint, tag "fingerprints" {
        item fingerprint(Part::All, FingerprintEnvelope) at "/results/fingerprint/v1/{inventory_id}":
            "The item's audio fingerprint (`data.fingerprint`, one 32-bit hash every `data.fingerprint_hop` seconds).";
        status fingerprint_status at "/results/fingerprint/v1/status/{inventory_id}":
            "The status of the item's fingerprint result.";
    }
    Fingerprintplus, tag "fingerprints" {
        item fingerprintplus(Part::All, FingerprintplusEnvelope) at "/results/fingerprintplus/v3/{inventory_id}":
            "The item's fingerprint and profile: `data.fingerprint`, `fingerprint_hop`, and the `mood`, `genre`, `keyword` and `mood_tag` maps (name: score) and `language.main` from its analysis.";
        status fingerprintplus_status at "/results/fingerprintplus/v3/status/{inventory_id}":
            "The status of the item's fingerprint+ result.";
        list fingerprintplus_list(FingerprintplusList, every_type) at "/results/fingerprintplus/v3/":
            "Items with fingerprint+ results, oldest update first.";
    }
    SceneTags, tag "scene_tags" {
        item scene_tags(Part::All, SceneTagsEnvelope) at "/results/scene_tags/v1/{inventory_id}":
            "The item's tags per scene (`data.scene_tags`): keywords, moods and environments with scores.";
        status scene_tags_status at "/results/scene_tags/v1/status/{inventory_id}":
            "The status of the item's scene tags.";
        list scene_tags_list(SceneTagsList, every_type) at "/results/scene_tags/v1/":
            "Items with scene tags, oldest update first.";
    }
    ContentSummary, tag "content_summary" {
        item content_summary(Part::All, ContentSummaryEnvelope) at "/results/content_summary/v1/{inventory_id}":
            "The item's content summary (`data.content_summary`): the sentences most central to what is said, in order, with their times.";
        status content_summary_status at "/results/content_summary/v1/status/{inventory_id}":
            "The status of the item's content summary.";
        list content_summary_list(ContentSummaryList, every_type) at "/results/content_summary/v1/":
            "Items with content summaries, oldest update first.";
    }
    Similar, tag "similar" {
        similar similar_any(None) at "/results/similar/similar/v2/{inventory_id}":
            "Titles similar to an item, of any type (deprecated).";
        similar similar_movies(Some(ItemType::Standalone)) at "/results/similar/similar/v2/movies/{inventory_id}":
            "Movies (standalone items) similar to an item (deprecated).";
        similar similar_series(Some(ItemType::Series)) at "/results/similar/similar/v2/series/{inventory_id}":
            "Series similar to an item (deprecated).";
    }
}

/// `GET /results/similar/similar/v2/{movies|series|}/{id}`: nearest titles by item embedding;
/// titles of equal score in the order of their emotional arcs' distance to the item's.
pub fn similar(
    state: &AppState,
    org: OrgId,
    params: &Params,
    id: &str,
    only: Option<ItemType>,
) -> Result<SimilarTitles, AppError> {
    let mut c = Collect::default();
    let skip = c.take(params.int("skip", 0, 0), 0) as usize;
    let count = c.take(params.int("count", 10, 1), 10) as usize;
    let max_score = c.take(params.float("max_score", Some(0.0), Some(1.0)), None);
    c.finish()?;
    let kind = only.map(|t| if t == ItemType::Series { ItemKind::Series } else { ItemKind::Movie });
    let query = SimilarQuery { skip, count, max_score, kind };
    let indexes = &state.effects.indexes;
    Ok(similar_titles(&state.store, &state.signals, indexes, org, id, &query, params.get("version"))?)
}
