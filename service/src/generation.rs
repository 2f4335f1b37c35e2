//! Media generation, as a domain: a clip or thumbnail search with `trigger_generation` queues the
//! rendering of what it chose, durably, for catalogs where generation is on; the renderers
//! ([`crate::jobs::render`]) claim it; its status is readable once it has finished. An identical
//! request still queued or rendering is the same generation. Errors are the domain's own
//! ([`GenerationError`]); the routes turn them into HTTP answers.

use kino::Clip;
use serde_json::Value;

use crate::changes::Effects;
use crate::store::{NewGeneration, OrgId, Queued, RenderState, Store, StoreError};

/// Why a generation could not be queued or read.
#[derive(Debug, thiserror::Error)]
pub enum GenerationError {
    /// Media generation is off for the catalog (the default).
    #[error("media asset generation is not enabled for catalog {0:?}")]
    NotEnabled(String),
    /// The organisation has as many unfinished generations as it may.
    #[error("too many clip generations queued for this organisation (at most {0}); try again when some have finished")]
    QueueFull(usize),
    /// No finished generation of that id (it may still be queued or rendering).
    #[error("generation {0:?} is not finished or does not exist")]
    NotFinished(String),
    /// The request could not be stored.
    #[error("the generation request cannot be stored: {0}")]
    Unstorable(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How a generation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
    /// Every file was rendered; the files, as stored.
    Success(Option<Value>),
    /// Rendering failed; why.
    Failed(String),
}

/// Refuses generation for a catalog where it is not on.
pub fn require_enabled(store: &Store, org: OrgId, catalog: &str) -> Result<(), GenerationError> {
    if store.catalog_generation(org, catalog)? { Ok(()) } else { Err(GenerationError::NotEnabled(catalog.to_string())) }
}

/// Queues the rendering of `request` for `item_id`, or finds an identical generation still queued
/// or rendering; its id. An organisation has at most `max_queued` generations unfinished.
pub fn queue(
    store: &Store,
    fx: &Effects,
    max_queued: usize,
    org: OrgId,
    item_id: &str,
    request: GenerationRequest,
) -> Result<String, GenerationError> {
    let fingerprint = request.fingerprint(item_id);
    let gen_id = crate::ids::random_hex(16);
    let request = serde_json::to_value(&request).map_err(|e| GenerationError::Unstorable(e.to_string()))?;
    let new = NewGeneration { id: &gen_id, item_id, request: &request, fingerprint: &fingerprint };
    match store.queue_generation(org, &new, max_queued)? {
        Queued::New => {
            fx.queued(crate::changes::Queued::Generation);
            Ok(gen_id)
        }
        Queued::Existing(id) => Ok(id),
        Queued::Full => Err(GenerationError::QueueFull(max_queued)),
    }
}

/// How the generation `gen_id` ended; [`GenerationError::NotFinished`] until it has.
pub fn finished(store: &Store, org: OrgId, gen_id: &str) -> Result<Finished, GenerationError> {
    match store.generation(org, gen_id)? {
        Some(g) if g.state == RenderState::Success => Ok(Finished::Success(g.data)),
        Some(g) if g.state == RenderState::Failed => Ok(Finished::Failed(g.error)),
        _ => Err(GenerationError::NotFinished(gen_id.to_string())),
    }
}

/// What a generation renders: the chosen clips' spans, horizontal or 9:16, and the previews
/// version; stored with the queued generation so that it can be rendered after a restart.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GenerationRequest {
    /// The clips, best first.
    pub clips: Vec<ClipSpan>,
    /// 9:16 (following the subject track) instead of the source frame.
    pub vertical: bool,
    /// The previews version of the answer.
    pub version: String,
    /// A thumbnails generation: the frame times, one per clip, whose images alone are rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<Vec<f64>>,
}

/// `data` of a finished generation: the rendered files of each clip.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct GenerationData {
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = crate::vocabulary::ResultType)]
    pub item_type: &'static str,
    /// The service's own item id.
    pub service_id: String,
    /// The previews version of the answer that triggered it.
    pub version_id: String,
    /// The generation.
    pub gen_id: String,
    /// What was rendered.
    pub context: GenerationContext,
    /// The clips, best first (empty for a thumbnails generation).
    pub jitpreview: Vec<GeneratedClip>,
    /// The thumbnails of a thumbnails generation, in the answer's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitthumbnail: Option<Vec<GeneratedThumbnail>>,
}

/// A rendered thumbnail.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct GeneratedThumbnail {
    /// The frame's time, seconds.
    pub time: f64,
    /// Its image files.
    #[serde(rename = "gen")]
    pub generated: GeneratedImages,
}

/// The image files of a rendered thumbnail, relative to the bucket (served under `/media`).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct GeneratedImages {
    /// The large image.
    pub large_image_path: String,
    /// The small image.
    pub small_image_path: String,
    /// Large image width in pixels.
    pub large_image_width: u32,
    /// Large image height in pixels.
    pub large_image_height: u32,
    /// Small image width in pixels.
    pub small_image_width: u32,
    /// Small image height in pixels.
    pub small_image_height: u32,
}

/// What a generation rendered.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct GenerationContext {
    /// `None` (the source's frame) or `9:16`.
    pub aspect_ratio: &'static str,
    /// Number of clips.
    pub clips: usize,
}

/// A rendered clip.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct GeneratedClip {
    /// The clip's span.
    #[serde(flatten)]
    pub span: ClipSpan,
    /// Its files.
    #[serde(rename = "gen")]
    pub generated: GeneratedFiles,
}

/// The files of a rendered clip, relative to the bucket (served under `/media`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct GeneratedFiles {
    /// The clip.
    pub clip_path: String,
    /// The large thumbnail.
    pub large_image_path: String,
    /// The small thumbnail.
    pub small_image_path: String,
    /// Large thumbnail width in pixels.
    pub large_image_width: u32,
    /// Large thumbnail height in pixels.
    pub large_image_height: u32,
    /// Small thumbnail width in pixels.
    pub small_image_width: u32,
    /// Small thumbnail height in pixels.
    pub small_image_height: u32,
}

/// The span of one clip to render.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct ClipSpan {
    /// Start in seconds.
    pub start_time: f64,
    /// End in seconds.
    pub stop_time: f64,
    /// First frame.
    pub start_frame: i64,
    /// End frame.
    pub stop_frame: i64,
}

impl GenerationRequest {
    /// The request for a previews answer.
    pub fn new(clips: &[Clip], vertical: bool, version: &str) -> GenerationRequest {
        let clips = clips
            .iter()
            .map(|c| ClipSpan {
                start_time: c.start_time,
                stop_time: c.stop_time,
                start_frame: c.start_frame,
                stop_frame: c.stop_frame,
            })
            .collect();
        GenerationRequest { clips, vertical, version: version.to_string(), frames: None }
    }

    /// The request for a thumbnails answer: the images of each thumbnail's frame.
    pub fn thumbnails(thumbnails: &[kino::thumbnail::JitThumbnail], fps: f64, vertical: bool, version: &str) -> Self {
        let frame = |t: f64| if fps > 0.0 { (t * fps).round() as i64 } else { 0 };
        let clips = thumbnails
            .iter()
            .map(|t| ClipSpan {
                start_time: t.clip_start_time,
                stop_time: t.clip_stop_time,
                start_frame: frame(t.clip_start_time),
                stop_frame: frame(t.clip_stop_time),
            })
            .collect();
        let frames = Some(thumbnails.iter().map(|t| t.frame.time).collect());
        GenerationRequest { clips, vertical, version: version.to_string(), frames }
    }

    /// Identifies identical requests for the same item: they render the same files.
    pub fn fingerprint(&self, item_id: &str) -> String {
        use sha2::{Digest, Sha256};
        let text = serde_json::to_string(self).unwrap_or_default();
        hex::encode(Sha256::new().chain_update(item_id.as_bytes()).chain_update([0]).chain_update(text).finalize())
    }
}

/// The image files of a generated thumbnail.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct ImagePaths {
    /// The large image (the source width up to 1280 pixels, or the 9:16 crop's).
    pub large_image_path: String,
    /// The small image.
    pub small_image_path: String,
}
