//! Rendering with `kino-media` (ffmpeg): preview clip generation (`trigger_generation`) and the
//! files of creative assets, written under the bucket root at relative paths.
//!
//! Bucket layout: `gen/<gen_id>/clip-<n>.mp4`, `gen/<gen_id>/clip-<n>-large.jpg`,
//! `gen/<gen_id>/clip-<n>-small.jpg`; `creative-assets/<recipe_id>/<asset_id>.mp4|-large.jpg|-small.jpg`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kino::Signals;
use kino::clips::GenPaths;
use kino::thumbnail::{FrameRule, choose_frame};
use kino_media::render::{RenderOptions, SubjectTrack, cut_clip, cut_vertical, thumbnail};
use serde_json::{Value, json};

use crate::bucket::Bucket;
use crate::config::Config;
use crate::files::{LocalMedia, MediaFile, local_media, unusable_media};
use crate::generation::{
    GeneratedClip, GeneratedFiles, GeneratedImages, GeneratedThumbnail, GenerationContext, GenerationData,
    GenerationRequest,
};
use crate::signals::SignalsCache;
use crate::store::{ClaimedGeneration, CreativeAssetRow, GenerationRow, ItemRow, OrgId, RenderState, Store};

/// What rendering reads and writes: the store (generations, items), the items' signals, the
/// settings (media root, bucket root) and the bucket files are published to. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Renderer {
    /// The database.
    pub store: Arc<Store>,
    /// Prepared signals.
    pub signals: Arc<SignalsCache>,
    /// Settings: the media root, the bucket root.
    pub config: Arc<Config>,
    /// Where rendered files are published.
    pub bucket: Arc<Bucket>,
}

/// Width of large thumbnails (at most the source width).
pub const LARGE_WIDTH: u32 = 1280;
/// Width of small thumbnails.
pub const SMALL_WIDTH: u32 = 320;

/// Why a render failed: the item itself (shown to the customer as it is), or the service's work,
/// whose text (ffmpeg's output, server paths, the process's descriptors) is only logged.
#[derive(Debug)]
pub enum RenderError {
    /// The item cannot be rendered as it is: no usable media file, no signals, deleted.
    Item(String),
    /// Rendering, storing or publishing failed.
    Service(String),
}

impl From<String> for RenderError {
    fn from(detail: String) -> Self {
        RenderError::Service(detail)
    }
}

impl RenderError {
    /// What the customer is shown of the failed `what` (`clip generation`, `creative asset`) of
    /// `job` (its id): the item's problem as it is; for the service's own failure a plain sentence
    /// with a request id, the details logged under that id here.
    pub fn shown(self, what: &str, job: &str) -> String {
        match self {
            RenderError::Item(message) => message,
            RenderError::Service(detail) => {
                let request_id = crate::ids::random_hex(8);
                tracing::error!(request_id = %request_id, job, error = %detail, "{what} failed");
                format!("the {what} could not be rendered; request id {request_id} (the service's log has the details)")
            }
        }
    }
}

/// The item's video, opened beneath the media root: render from its [`MediaFile::tool_path`]
/// while it is held, never by name.
fn video_of(r: &Renderer, item: &ItemRow) -> Result<MediaFile, RenderError> {
    match local_media(&r.config, item) {
        LocalMedia::File(file) => Ok(file),
        LocalMedia::NotLocal => Err(RenderError::Item(format!(
            "item {:?} has no local media file under the media root (asset_info.file_uri)",
            item.id
        ))),
        LocalMedia::Unusable { reason, .. } => Err(RenderError::Item(unusable_media(item, &reason))),
    }
}

/// The item's prepared signals; an item without any cannot be rendered.
fn signals_of(r: &Renderer, org: OrgId, item: &ItemRow) -> Result<Arc<kino::Prepared>, RenderError> {
    crate::signals::prepared(&r.store, &r.signals, org, &item.id)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| RenderError::Item("the item has no signals".into()))
}

/// Where a bucket path lives on disk (its folder created).
fn bucket_file(r: &Renderer, relative: &str) -> Result<PathBuf, String> {
    let full = r.config.bucket_root.join(relative);
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
    r: &Renderer,
    video: &Path,
    s: &Signals,
    span: (f64, f64),
    vertical: bool,
    relative: &str,
) -> Result<(), String> {
    cut(video, s, span.0, span.1, vertical, &bucket_file(r, relative)?)?;
    publish(r, relative)
}

/// Publishes a rendered bucket file to the object store, when there is one.
fn publish(r: &Renderer, relative: &str) -> Result<(), String> {
    r.bucket.publish(relative).map_err(|e| format!("cannot publish {relative}: {e}"))
}

/// Large and small JPEGs of the frame at `time`: their sizes. Horizontal: the large one at the
/// source width up to [`LARGE_WIDTH`], the small one [`SMALL_WIDTH`] wide. Vertical: the frame of
/// the 9:16 crop (cut from a one-second vertical clip around `time`), the large one at the crop's
/// width, the small one half of it up to [`SMALL_WIDTH`].
fn thumbnails(
    r: &Renderer,
    video: &Path,
    s: &Signals,
    time: f64,
    vertical: bool,
    (large_rel, small_rel): (&str, &str),
) -> Result<[(u32, u32); 2], String> {
    let sizes = render_thumbnails(r, video, s, time, vertical, (large_rel, small_rel))?;
    publish(r, large_rel)?;
    publish(r, small_rel)?;
    Ok(sizes)
}

fn render_thumbnails(
    r: &Renderer,
    video: &Path,
    s: &Signals,
    time: f64,
    vertical: bool,
    (large, small): (&str, &str),
) -> Result<[(u32, u32); 2], String> {
    let (large, small) = (bucket_file(r, large)?, bucket_file(r, small)?);
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
pub fn creative_asset(r: &Renderer, org: OrgId, item: &ItemRow, a: &mut CreativeAssetRow) -> Result<(), RenderError> {
    let opened = video_of(r, item)?;
    let video = opened.tool_path();
    let prepared = signals_of(r, org, item)?;
    let s = prepared.signals();
    let base = format!("creative-assets/{}/{}", a.recipe_id, a.id);
    let vertical = a.kind.is_vertical();
    let (large, small) = (format!("{base}-large.jpg"), format!("{base}-small.jpg"));
    if a.kind.is_clip() {
        let video_rel = format!("{base}.mp4");
        clip_file(r, &video, s, (a.start_time, a.stop_time), vertical, &video_rel)?;
        let time = frame_in(s, a.start_time, a.stop_time);
        let sizes = thumbnails(r, &video, s, time, vertical, (&large, &small))?;
        a.video_uri = Some(video_rel);
        a.metadata["image_sizes"] = json!(sizes);
    } else {
        let sizes = thumbnails(r, &video, s, a.start_time, vertical, (&large, &small))?;
        a.metadata["image_sizes"] = json!(sizes);
    }
    a.image_uri = Some(large);
    a.small_image_uri = Some(small);
    Ok(())
}

/// Renders a claimed generation and records the outcome: `SUCCESS` with the files' paths and
/// image sizes, or `FAILED` with why ([`RenderError::shown`]).
pub fn render_generation(r: &Renderer, g: &ClaimedGeneration) {
    let outcome = (|| -> Result<Value, RenderError> {
        let request: GenerationRequest = serde_json::from_value(g.request.clone())
            .map_err(|e| format!("the stored generation request is unreadable: {e}"))?;
        let item = r
            .store
            .item(g.org, &g.item_id)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| RenderError::Item(format!("item {:?} no longer exists", g.item_id)))?;
        let opened = video_of(r, &item)?;
        let video = opened.tool_path();
        let prepared = signals_of(r, g.org, &item)?;
        let s = prepared.signals();
        let mut out = Vec::new();
        let mut stills = None;
        if let Some(frames) = &request.frames {
            let mut rendered = Vec::new();
            for (n, &time) in frames.iter().enumerate() {
                let p = thumbnail_paths(&g.id, n);
                let files = (p.large_image_path.as_str(), p.small_image_path.as_str());
                let [(lw, lh), (sw, sh)] = thumbnails(r, &video, s, time, request.vertical, files)?;
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
            clip_file(r, &video, s, (clip.start_time, clip.stop_time), request.vertical, &paths.clip_path)?;
            let time = frame_in(s, clip.start_time, clip.stop_time);
            let files = (paths.large_image_path.as_str(), paths.small_image_path.as_str());
            let [(lw, lh), (sw, sh)] = thumbnails(r, &video, s, time, request.vertical, files)?;
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
            item_type: item.item_type.result_type(),
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
        Ok(serde_json::to_value(data).map_err(|e| e.to_string())?)
    })();
    let row = match outcome {
        Ok(data) => GenerationRow { state: RenderState::Success, error: String::new(), data: Some(data) },
        Err(e) => {
            tracing::warn!(gen_id = %g.id, item = %g.item_id, "clip generation failed");
            GenerationRow { state: RenderState::Failed, error: e.shown("clip generation", &g.id), data: None }
        }
    };
    if let Err(e) = r.store.finish_generation(g.org, &g.id, &row) {
        tracing::error!(gen_id = %g.id, error = %e, "cannot record a generation's outcome");
    }
}

/// Claims and renders one queued generation; whether there was one.
pub fn render_one(r: &Renderer) -> bool {
    match r.store.claim_generation() {
        Ok(Some(g)) => {
            render_generation(r, &g);
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
/// `shutdown` turns true; a render in flight is finished first. `wake` is notified when a
/// generation is queued.
pub async fn run_renderers(
    renderer: Renderer,
    wake: Arc<tokio::sync::Notify>,
    count: usize,
    shutdown: tokio::sync::watch::Receiver<bool>,
) {
    super::pool::run_pool(renderer, count, shutdown, wake, render_one).await;
}

pub use crate::config::default_render_workers;

/// The bucket paths of the images of thumbnail `n` of generation `gen_id`.
pub fn thumbnail_paths(gen_id: &str, n: usize) -> crate::generation::ImagePaths {
    crate::generation::ImagePaths {
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
