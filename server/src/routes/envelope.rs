//! The envelopes of the results interfaces: the status of a stored result, the result with its
//! `data`, the list response, the answer of a clip search and the status of a generation. The handlers build [`StatusEnvelope`], [`ResultEnvelope`] and
//! [`ResultList`]; for the OpenAPI document each product has its own named result, data and list
//! types (`product_result!`) made of the same parts and of the product's payload type (the type
//! `products::compute` stores), so that generated clients get a typed `data`.

use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::products::{
    ContentSummaryPayload, EmbeddingPayload, EmotionsPayload, FingerprintPayload, FingerprintplusPayload,
    JitpreviewsPayload, JitthumbnailsPayload, NudityPayload, ProfanityLabelPayload, ProfanityPayload,
    ProfanitySegmentsPayload, SceneEmbeddingsPayload, SceneTagsPayload,
};
use crate::store::{ItemRow, ResultRow, ResultStatus};

pub use crate::generation::ImagePaths;
pub use crate::vocabulary::ResultType;

/// The status of a stored result, without data (`.../status/{inventory_id}`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StatusEnvelope {
    /// Whether the product was computed.
    pub status: ResultStatus,
    /// Why the result failed; empty on success.
    pub error: String,
    /// When the result was stored (RFC 3339, UTC).
    #[schema(format = DateTime)]
    pub updated: String,
    /// The product version of the result.
    pub version_id: String,
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = ResultType)]
    pub item_type: &'static str,
}

/// The identity fields every result's `data` carries.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ItemIdentity {
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = ResultType)]
    pub item_type: &'static str,
    /// The service's own item id.
    pub service_id: String,
    /// The product version of the result.
    pub version_id: String,
}

impl StatusEnvelope {
    /// The status of `r`, a result of `item`.
    pub fn new(item: &ItemRow, r: &ResultRow) -> StatusEnvelope {
        StatusEnvelope {
            status: r.status,
            error: r.error.clone(),
            updated: r.updated_at.clone(),
            version_id: r.version_id(),
            inventory_id: item.id.clone(),
            item_type: item.item_type.result_type(),
        }
    }
}

/// A result with its data; the payload is the product's stored fields (a product payload type,
/// serialised).
#[derive(Debug, Clone, Serialize)]
pub struct ResultEnvelope {
    /// The status fields.
    #[serde(flatten)]
    pub status: StatusEnvelope,
    /// Identity and payload.
    pub data: ResultData,
}

/// `data` of a result: identity fields, then the product's fields.
#[derive(Debug, Clone, Serialize)]
pub struct ResultData {
    /// Identity.
    #[serde(flatten)]
    pub item: ItemIdentity,
    /// The product's fields (none when the result failed).
    #[serde(flatten)]
    pub payload: Map<String, Value>,
}

impl ResultEnvelope {
    /// The result `r` of `item` with `payload` (an object; anything else adds no field).
    pub fn new(item: &ItemRow, r: &ResultRow, payload: Option<Value>) -> ResultEnvelope {
        let payload = match payload {
            Some(Value::Object(fields)) => fields,
            _ => Map::new(),
        };
        ResultEnvelope {
            status: StatusEnvelope::new(item, r),
            data: ResultData {
                item: ItemIdentity {
                    inventory_id: item.id.clone(),
                    item_type: item.item_type.result_type(),
                    service_id: item.service_id.clone(),
                    version_id: r.version_id(),
                },
                payload,
            },
        }
    }
}

/// A page of results, oldest update first.
#[derive(Debug, Clone, Serialize)]
pub struct ResultList {
    /// The page, from 0.
    pub page_num: i64,
    /// Results per page.
    pub page_size: i64,
    /// Results on every page.
    pub total_count: usize,
    /// This page's results.
    pub data: Vec<ResultEnvelope>,
}

/// Declares the documented result, data and list types of one product.
macro_rules! product_result {
    ($what:literal, $result:ident, $data:ident, $list:ident, $payload:ty) => {
        #[doc = concat!("A ", $what, " result: its status and `data`.")]
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct $result {
            /// The status fields.
            #[serde(flatten)]
            pub status: StatusEnvelope,
            /// Identity and the product's fields.
            pub data: $data,
        }

        #[doc = concat!("`data` of a ", $what, " result: the item's identity and the product's fields (absent when the result failed).")]
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct $data {
            /// Identity.
            #[serde(flatten)]
            pub item: ItemIdentity,
            /// The product's fields.
            #[serde(flatten)]
            pub payload: $payload,
        }

        #[doc = concat!("A page of ", $what, " results, oldest update first.")]
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct $list {
            /// The page, from 0.
            pub page_num: i64,
            /// Results per page.
            pub page_size: i64,
            /// Results on every page.
            pub total_count: usize,
            /// This page's results.
            pub data: Vec<$result>,
        }
    };
}

product_result!("previews", PreviewsEnvelope, PreviewsData, PreviewsList, JitpreviewsPayload);
product_result!("thumbnails", ThumbnailsEnvelope, ThumbnailsData, ThumbnailsList, JitthumbnailsPayload);
product_result!("fingerprint", FingerprintEnvelope, FingerprintData, FingerprintList, FingerprintPayload);
product_result!(
    "fingerprint+",
    FingerprintplusEnvelope,
    FingerprintplusData,
    FingerprintplusList,
    FingerprintplusPayload
);
product_result!("item embedding", ItemEmbeddingEnvelope, ItemEmbeddingData, ItemEmbeddingList, EmbeddingPayload);
product_result!(
    "scene embeddings",
    SceneEmbeddingsEnvelope,
    SceneEmbeddingsData,
    SceneEmbeddingsList,
    SceneEmbeddingsPayload
);
product_result!("profanity", ProfanityEnvelope, ProfanityData, ProfanityList, ProfanityPayload);
product_result!(
    "profanity label",
    ProfanityLabelEnvelope,
    ProfanityLabelData,
    ProfanityLabelList,
    ProfanityLabelPayload
);
product_result!(
    "profanity segments",
    ProfanitySegmentsEnvelope,
    ProfanitySegmentsData,
    ProfanitySegmentsList,
    ProfanitySegmentsPayload
);
product_result!("emotions", EmotionsEnvelope, EmotionsData, EmotionsList, EmotionsPayload);
product_result!("nudity", NudityEnvelope, NudityData, NudityList, NudityPayload);
product_result!("scene tags", SceneTagsEnvelope, SceneTagsData, SceneTagsList, SceneTagsPayload);
product_result!(
    "content summary",
    ContentSummaryEnvelope,
    ContentSummaryData,
    ContentSummaryList,
    ContentSummaryPayload
);

/// The answer of a clip search: the clips, computed for this request.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(clips_example))]
pub struct ClipsEnvelope {
    /// `success`.
    pub status: ResultStatus,
    /// Empty.
    pub error: String,
    /// When the answer was computed (RFC 3339, UTC).
    #[schema(format = DateTime)]
    pub updated: String,
    /// The previews version in force.
    pub version_id: String,
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = ResultType)]
    pub item_type: &'static str,
    /// Identity, clips and the generation.
    pub data: ClipsData,
}

/// `data` of a clip search.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClipsData {
    /// Identity.
    #[serde(flatten)]
    pub item: ItemIdentity,
    /// The clips, best first (fewer than asked when the criteria are strict).
    pub jitpreview: Vec<kino::Clip>,
    /// The generation started by `trigger_generation=true` (poll its status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen_id: Option<String>,
}

/// The answer of a thumbnails search: a frame in each of the best clips, chosen for this request.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ThumbnailsAnswer {
    /// `success`.
    pub status: ResultStatus,
    /// Empty.
    pub error: String,
    /// When the answer was computed (RFC 3339, UTC).
    #[schema(format = DateTime)]
    pub updated: String,
    /// The previews version in force (the clips are chosen by it).
    pub version_id: String,
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = ResultType)]
    pub item_type: &'static str,
    /// Identity, thumbnails and the generation.
    pub data: ThumbnailsAnswerData,
}

/// `data` of a thumbnails search.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ThumbnailsAnswerData {
    /// Identity.
    #[serde(flatten)]
    pub item: ItemIdentity,
    /// The thumbnails, in the order of their clips (best first).
    pub jitthumbnail: Vec<ThumbnailOut>,
    /// The generation of the images started by `trigger_generation=true` (poll its status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen_id: Option<String>,
}

/// One thumbnail: its frame, the clip it was chosen in, and (when generated) its image files.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ThumbnailOut {
    /// The frame and its scores.
    #[serde(flatten)]
    pub thumbnail: kino::thumbnail::JitThumbnail,
    /// The image files the generation renders (relative to the bucket, served under `/media`).
    #[serde(rename = "gen", default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<ImagePaths>,
}

/// The status of a finished generation (unfinished ones answer 404).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GenerationStatus {
    /// `SUCCESS` or `FAILED`.
    pub status: GenerationState,
    /// Why it failed; empty on success.
    pub error: String,
    /// The rendered files, as stored when the generation finished; `null` when it failed.
    #[schema(value_type = Option<crate::generation::GenerationData>)]
    pub data: Option<Value>,
}

/// How a generation ended.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum GenerationState {
    /// Every file was rendered.
    Success,
    /// Rendering failed (media missing, ffmpeg failed, interrupted by a restart).
    Failed,
}

/// An answer of the demo catalog, for the document.
fn clips_example() -> serde_json::Value {
    serde_json::from_str(
        r#"{
    "status": "success", "error": "", "updated": "2026-11-24T15:37:37.957Z", "version_id": "27",
    "inventory_id": "tt-demo-001", "type": "movie",
    "data": {"inventory_id": "tt-demo-001", "type": "movie", "service_id": "svc-13bb0795c0dfe43e92622c06",
        "version_id": "27", "jitpreview": [{
            "start_time": 4253.0, "stop_time": 4270.632, "relevance": 1.0, "query_relevance": 0.0,
            "search_query": "", "start_frame": 102072, "stop_frame": 102495, "characters": [0, 1, 3],
            "nudity": 0.02, "blood_gore": 0.02, "profanity": 0.0, "brightness": 0.509556, "clip_index": 0,
            "snapped_start": 4253.0, "snapped_stop": 4273.0, "clip_type": "High-octane action",
            "environment": [{"name": "hospital", "score": 0.8291, "source": "picture"}],
            "keywords": [{"name": "sword fight", "score": 0.9383, "source": "tags"},
                {"name": "party", "score": 0.7235, "source": "tags"}],
            "keyword": {"name": "sword fight", "score": 0.9383, "source": "tags"},
            "mood": [{"name": "romantic", "score": 0.62, "source": "tags"}],
            "mood_tag": {"name": "romantic", "score": 0.62, "source": "tags"},
            "start_speech_avoidance": 0.0, "end_speech_avoidance": -2.368, "type_score": 1.0,
            "service_id": "svc-13bb0795c0dfe43e92622c06", "inventory_id": "tt-demo-001", "fps": 24.0,
            "source_frame_width": 1920, "source_frame_height": 1080}]}
}"#,
    )
    .expect("the example is JSON")
}
