//! Rendering with `kino-media` (ffmpeg): preview clip generation (`trigger_generation`) and the
//! files of creative assets, written under the bucket root at relative paths.
//!
//! Bucket layout: `gen/<gen_id>/clip-<n>.mp4`, `gen/<gen_id>/clip-<n>-large.jpg`,
//! `gen/<gen_id>/clip-<n>-small.jpg`; `creative-assets/<recipe_id>/<asset_id>.mp4|-large.jpg|-small.jpg`.

use std::path::{Path, PathBuf};

use kino::clips::GenPaths;
use kino::thumbnail::{FrameRule, choose_frame};
use kino::{Clip, Signals};
use kino_media::render::{RenderOptions, SubjectTrack, cut_clip, cut_vertical, thumbnail};
use serde_json::{Value, json};

use crate::files::{LocalMedia, MediaFile, MediaRoot};
use crate::state::{AppState, Config};
use crate::store::{ClaimedGeneration, CreativeAssetRow, GenerationRow, ItemRow, OrgId, RenderState};

/// Width of large thumbnails (at most the source width).
pub const LARGE_WIDTH: u32 = 1280;
/// Width of small thumbnails.
pub const SMALL_WIDTH: u32 = 320;

/// Where an item's `asset_info.file_uri` leads: a regular file under the media root, a remote
/// URI, or a local path that cannot be used (see [`MediaRoot::resolve`]).
pub fn local_media(config: &Config, body: &Value) -> LocalMedia {
    match body["asset_info"]["file_uri"].as_str() {
        Some(uri) => media_root(config).resolve(uri),
        None => LocalMedia::NotLocal,
    }
}

/// The sidecar signals file beside an item's `file_uri` (`<file_uri>.signals.json`), resolved
/// like the video itself.
pub fn local_sidecar(config: &Config, body: &Value) -> LocalMedia {
    match body["asset_info"]["file_uri"].as_str() {
        Some(uri) => media_root(config).resolve(&format!("{uri}.signals.json")),
        None => LocalMedia::NotLocal,
    }
}

fn media_root(config: &Config) -> MediaRoot<'_> {
    MediaRoot { root: &config.media_root, private: &config.private_paths }
}

/// What a caller is told about a `file_uri` that cannot be used, whatever the reason (missing,
/// unreadable, not a regular file, outside the media root): one message, so that answers do not
/// reveal which files exist on the server. The reason is logged.
pub fn unusable_media(item: &ItemRow, reason: &str) -> String {
    let uri = item.body["asset_info"]["file_uri"].as_str().unwrap_or_default();
    tracing::warn!(item = %item.id, file_uri = uri, reason, "the item's media file cannot be used");
    format!("file_uri {uri:?} is not a readable media file under the service's media root")
}

/// The item's video, opened beneath the media root: render from its [`MediaFile::tool_path`]
/// while it is held, never by name.
fn video_of(state: &AppState, item: &ItemRow) -> Result<MediaFile, String> {
    match local_media(&state.config, &item.body) {
        LocalMedia::File(file) => Ok(file),
        LocalMedia::NotLocal => {
            Err(format!("item {:?} has no local media file under the media root (asset_info.file_uri)", item.id))
        }
        LocalMedia::Unusable { reason, .. } => Err(unusable_media(item, &reason)),
    }
}

/// Where a bucket path lives on disk (its folder created).
fn bucket_file(state: &AppState, relative: &str) -> Result<PathBuf, String> {
    let full = state.config.bucket_root.join(relative);
    if let Some(dir) = full.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    Ok(full)
}

/// Renders `[start, stop)` of `video` to the file `out`: as it is, or 9:16 following the subject
/// track inside the black bars.
fn cut(video: &Path, s: &Signals, start: f64, stop: f64, vertical: bool, out: &Path) -> Result<(), String> {
    let options = RenderOptions::default();
    let result = if vertical {
        let fallback = [0.5f32];
        let (step, x) = match &s.vertical {
            Some(v) if !v.x_center.is_empty() => (v.step, v.x_center.as_slice()),
            _ => (s.duration.max(1.0), &fallback[..]),
        };
        let blackbars = s.vertical.as_ref().map_or([0, 0], |v| v.blackbars);
        cut_vertical(video, start, stop, SubjectTrack { step, x_center: x, blackbars }, out, &options).map(|_| ())
    } else {
        cut_clip(video, start, stop, out, &options).map(|_| ())
    };
    result.map_err(|e| e.to_string())
}

/// Renders a clip to the bucket path `relative`.
fn clip_file(
    state: &AppState,
    video: &Path,
    s: &Signals,
    span: (f64, f64),
    vertical: bool,
    relative: &str,
) -> Result<(), String> {
    cut(video, s, span.0, span.1, vertical, &bucket_file(state, relative)?)?;
    publish(state, relative)
}

/// Publishes a rendered bucket file to the object store, when there is one.
fn publish(state: &AppState, relative: &str) -> Result<(), String> {
    state.bucket.publish(relative).map_err(|e| format!("cannot publish {relative}: {e}"))
}

/// Large and small JPEGs of the frame at `time`: their sizes. Horizontal: the large one at the
/// source width up to [`LARGE_WIDTH`], the small one [`SMALL_WIDTH`] wide. Vertical: the frame of
/// the 9:16 crop (cut from a one-second vertical clip around `time`), the large one at the crop's
/// width, the small one half of it up to [`SMALL_WIDTH`].
fn thumbnails(
    state: &AppState,
    video: &Path,
    s: &Signals,
    time: f64,
    vertical: bool,
    (large_rel, small_rel): (&str, &str),
) -> Result<[(u32, u32); 2], String> {
    let sizes = render_thumbnails(state, video, s, time, vertical, (large_rel, small_rel))?;
    publish(state, large_rel)?;
    publish(state, small_rel)?;
    Ok(sizes)
}

fn render_thumbnails(
    state: &AppState,
    video: &Path,
    s: &Signals,
    time: f64,
    vertical: bool,
    (large, small): (&str, &str),
) -> Result<[(u32, u32); 2], String> {
    let (large, small) = (bucket_file(state, large)?, bucket_file(state, small)?);
    if !vertical {
        let large_w = LARGE_WIDTH.min(s.frame_width.max(2));
        let l = thumbnail(video, time, &large, large_w).map_err(|e| e.to_string())?;
        let sm = thumbnail(video, time, &small, SMALL_WIDTH).map_err(|e| e.to_string())?;
        return Ok([l, sm]);
    }
    let scratch = tempfile::Builder::new()
        .suffix(".mp4")
        .tempfile_in(large.parent().unwrap_or(Path::new(".")))
        .map_err(|e| format!("cannot create a scratch file: {e}"))?;
    let from = (time - 0.5).max(0.0);
    cut(video, s, from, (time + 0.5).min(s.duration).max(from + 0.1), true, scratch.path())?;
    let crop_w = kino_media::probe(scratch.path()).map_err(|e| e.to_string())?.width;
    let l = thumbnail(scratch.path(), time - from, &large, crop_w.min(LARGE_WIDTH)).map_err(|e| e.to_string())?;
    let small_w = (crop_w / 2).clamp(2, SMALL_WIDTH) & !1;
    let sm = thumbnail(scratch.path(), time - from, &small, small_w).map_err(|e| e.to_string())?;
    Ok([l, sm])
}

fn frame_in(s: &Signals, start: f64, stop: f64) -> f64 {
    choose_frame(s, start, stop, &FrameRule::default()).map_or((start + stop) / 2.0, |f| f.time)
}

/// Renders the files of creative asset `a` (a clip or a thumbnail, horizontal or 9:16) and sets
/// its URIs.
pub fn creative_asset(state: &AppState, org: OrgId, item: &ItemRow, a: &mut CreativeAssetRow) -> Result<(), String> {
    let opened = video_of(state, item)?;
    let video = opened.tool_path();
    let prepared =
        crate::signals::prepared(state, org, &item.id).map_err(|e| e.to_string())?.ok_or("the item has no signals")?;
    let s = prepared.signals();
    let base = format!("creative-assets/{}/{}", a.recipe_id, a.id);
    let vertical = a.kind.ends_with("-vertical");
    let (large, small) = (format!("{base}-large.jpg"), format!("{base}-small.jpg"));
    if a.kind.starts_with("preview") {
        let video_rel = format!("{base}.mp4");
        clip_file(state, &video, s, (a.start_time, a.stop_time), vertical, &video_rel)?;
        let time = frame_in(s, a.start_time, a.stop_time);
        let sizes = thumbnails(state, &video, s, time, vertical, (&large, &small))?;
        a.video_uri = Some(video_rel);
        a.metadata["image_sizes"] = json!(sizes);
    } else {
        let sizes = thumbnails(state, &video, s, a.start_time, vertical, (&large, &small))?;
        a.metadata["image_sizes"] = json!(sizes);
    }
    a.image_uri = Some(large);
    a.small_image_uri = Some(small);
    Ok(())
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
    #[schema(value_type = crate::routes::envelope::ResultType)]
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

/// Renders a claimed generation and records the outcome: `SUCCESS` with the files' paths and
/// image sizes, or `FAILED` with why.
pub fn render_generation(state: &AppState, g: &ClaimedGeneration) {
    let outcome = (|| -> Result<Value, String> {
        let request: GenerationRequest = serde_json::from_value(g.request.clone())
            .map_err(|e| format!("the stored generation request is unreadable: {e}"))?;
        let item = state
            .store
            .item(g.org, &g.item_id)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("item {:?} no longer exists", g.item_id))?;
        let opened = video_of(state, &item)?;
        let video = opened.tool_path();
        let prepared = crate::signals::prepared(state, g.org, &item.id)
            .map_err(|e| e.to_string())?
            .ok_or("the item has no signals")?;
        let s = prepared.signals();
        let mut out = Vec::new();
        let mut stills = None;
        if let Some(frames) = &request.frames {
            let mut rendered = Vec::new();
            for (n, &time) in frames.iter().enumerate() {
                let p = thumbnail_paths(&g.id, n);
                let files = (p.large_image_path.as_str(), p.small_image_path.as_str());
                let [(lw, lh), (sw, sh)] = thumbnails(state, &video, s, time, request.vertical, files)?;
                rendered.push(GeneratedThumbnail {
                    time,
                    generated: GeneratedImages {
                        large_image_width: lw,
                        large_image_height: lh,
                        small_image_width: sw,
                        small_image_height: sh,
                        large_image_path: p.large_image_path,
                        small_image_path: p.small_image_path,
                    },
                });
            }
            stills = Some(rendered);
        }
        for (n, clip) in request.clips.iter().enumerate().filter(|_| request.frames.is_none()) {
            let paths = paths(&g.id, n);
            clip_file(state, &video, s, (clip.start_time, clip.stop_time), request.vertical, &paths.clip_path)?;
            let time = frame_in(s, clip.start_time, clip.stop_time);
            let files = (paths.large_image_path.as_str(), paths.small_image_path.as_str());
            let [(lw, lh), (sw, sh)] = thumbnails(state, &video, s, time, request.vertical, files)?;
            out.push(GeneratedClip {
                span: clip.clone(),
                generated: GeneratedFiles {
                    clip_path: paths.clip_path,
                    large_image_path: paths.large_image_path,
                    small_image_path: paths.small_image_path,
                    large_image_width: lw,
                    large_image_height: lh,
                    small_image_width: sw,
                    small_image_height: sh,
                },
            });
        }
        let data = GenerationData {
            inventory_id: item.id,
            item_type: crate::catalog::result_type(&item.item_type),
            service_id: item.service_id,
            version_id: request.version.clone(),
            gen_id: g.id.clone(),
            context: GenerationContext {
                aspect_ratio: if request.vertical { "9:16" } else { "None" },
                clips: request.clips.len(),
            },
            jitpreview: out,
            jitthumbnail: stills,
        };
        serde_json::to_value(data).map_err(|e| e.to_string())
    })();
    let row = match outcome {
        Ok(data) => GenerationRow { state: RenderState::Success, error: String::new(), data: Some(data) },
        Err(e) => {
            tracing::warn!(gen_id = %g.id, item = %g.item_id, error = %e, "clip generation failed");
            GenerationRow { state: RenderState::Failed, error: e, data: None }
        }
    };
    if let Err(e) = state.store.finish_generation(g.org, &g.id, &row) {
        tracing::error!(gen_id = %g.id, error = %e, "cannot record a generation's outcome");
    }
}

/// Claims and renders one queued generation; whether there was one.
pub fn render_one(state: &AppState) -> bool {
    match state.store.claim_generation() {
        Ok(Some(g)) => {
            render_generation(state, &g);
            true
        }
        Ok(None) => false,
        Err(e) => {
            tracing::error!(error = %e, "cannot claim a generation");
            false
        }
    }
}

/// Runs `count` renderers (each one ffmpeg at a time) over the durable generation queue until
/// `shutdown` turns true; a render in flight is finished first.
pub async fn run_renderers(state: AppState, count: usize, shutdown: tokio::sync::watch::Receiver<bool>) {
    let wake = state.wake.renderers.clone();
    crate::worker::run_pool(state, count, shutdown, wake, render_one).await;
}

pub use crate::config::default_render_workers;

/// The bucket paths of the images of thumbnail `n` of generation `gen_id`.
pub fn thumbnail_paths(gen_id: &str, n: usize) -> crate::routes::envelope::ImagePaths {
    crate::routes::envelope::ImagePaths {
        large_image_path: format!("gen/{gen_id}/thumbnail-{n}-large.jpg"),
        small_image_path: format!("gen/{gen_id}/thumbnail-{n}-small.jpg"),
    }
}

/// The bucket paths of clip `n` of generation `gen_id`.
pub fn paths(gen_id: &str, n: usize) -> GenPaths {
    GenPaths {
        clip_path: format!("gen/{gen_id}/clip-{n}.mp4"),
        large_image_path: format!("gen/{gen_id}/clip-{n}-large.jpg"),
        small_image_path: format!("gen/{gen_id}/clip-{n}-small.jpg"),
    }
}
