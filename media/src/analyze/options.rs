//! What an analysis is asked for: [`AnalyzeOptions`] (checked by [`check`]) and where its
//! sidecar document comes from ([`Sidecar`]). Plain types that the pass and the stages read
//! without reaching back into `analyze/mod.rs`.

use std::path::PathBuf;

use kino::Signals;

use crate::affect::best::Relevance;
use crate::error::{Error, Result};
use crate::shots::{ContentParams, FadeParams};
use crate::speech::SpeechParams;

/// Options of [`analyze`](super::analyze). `Default` gives the documented settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyzeOptions {
    /// The document's `inventory_id`; the file stem when `None`.
    pub inventory_id: Option<String>,
    /// Seconds between timeline samples (default 1: the clip-selection grid).
    pub step: f64,
    /// The sidecar signals document with the learned channels: looked for beside the video
    /// ([`Sidecar::Discover`], the default), a given file, a document already read, or none.
    pub sidecar: Sidecar,
    /// Frames are analysed at the source rate up to this many per second (default 30); above it,
    /// at this rate, and cuts are accurate to one analysed frame.
    pub max_fps: f64,
    /// Width of the analysis frames in pixels (default 160; height keeps the aspect ratio).
    pub width: u32,
    /// ffmpeg decoder threads (0 = ffmpeg's choice).
    pub threads: u32,
    /// Shortest shot, seconds (default 0.5).
    pub min_shot: f64,
    /// Shots are grouped into scenes of at least this many seconds (default 8).
    pub min_scene: f64,
    /// Content detector parameters (`min_shot_frames` is derived from `min_shot`).
    pub content: ContentParams,
    /// Fade detector parameters.
    pub fade: FadeParams,
    /// Parameters of the spectral voice activity detector (used when the Silero VAD is absent).
    pub speech: SpeechParams,
    /// The item's catalog metadata as text ([`crate::embed::item_text`]); with the sentence model,
    /// the item embedding combines it with the content. `None`: the content alone.
    pub item_text: Option<String>,
    /// Seconds between the frames the vision models see (default 2), decoded at
    /// [`vision::VISION_WIDTH`] pixels wide from the same pass as the analysis frames.
    pub vision_interval: f64,
    /// How much of a scene's embedding is what is seen (the image classifier's labels put into
    /// the sentence space, [`crate::picture::conse`]) against its description (what is heard, said
    /// and written, and the labels named): in `[0, 1]`, default [`SEEN_WEIGHT`].
    pub seen_weight: f32,
    /// How the best moments (`timelines.relevance`) are found: from the affect (the default) or
    /// by the activity rule that preceded it, kept to compare the two.
    pub relevance: Relevance,
}

/// The default [`AnalyzeOptions::seen_weight`], measured on real footage judged by eye
/// (`docs/media.md`, "What the picture shows").
pub const SEEN_WEIGHT: f32 = 0.5;

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            inventory_id: None,
            step: 1.0,
            sidecar: Sidecar::Discover,
            max_fps: 30.0,
            width: 160,
            threads: 0,
            min_shot: 0.5,
            min_scene: 8.0,
            content: ContentParams::default(),
            fade: FadeParams::default(),
            speech: SpeechParams::default(),
            item_text: None,
            vision_interval: 2.0,
            seen_weight: SEEN_WEIGHT,
            relevance: Relevance::Affect,
        }
    }
}

pub(super) fn check(options: &AnalyzeOptions) -> Result<()> {
    let positive = |name: &'static str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(Error::argument(name, format!("must be finite and > 0 (got {v})")))
        }
    };
    positive("step", options.step)?;
    positive("max_fps", options.max_fps)?;
    positive("min_scene", options.min_scene)?;
    positive("vision_interval", options.vision_interval)?;
    if !(0.0..=1.0).contains(&options.seen_weight) {
        return Err(Error::argument("seen_weight", format!("must be in [0, 1] (got {})", options.seen_weight)));
    }
    if !(options.min_shot.is_finite() && options.min_shot >= 0.0) {
        return Err(Error::argument("min_shot", format!("must be finite and >= 0 (got {})", options.min_shot)));
    }
    if !(8..=1920).contains(&options.width) {
        return Err(Error::argument("width", format!("must be in [8, 1920] (got {})", options.width)));
    }
    Ok(())
}

/// Where the sidecar signals document of an analysis comes from. The caller decides: a service
/// that opened the video and its sidecar itself (beneath its media root) passes the document it
/// read, and the analysis never looks beside the path it was given.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Sidecar {
    /// `<video>.signals.json` (e.g. `movie.mp4.signals.json`), then `<stem>.signals.json`, when
    /// one exists beside the video (the command line's and Python's behaviour).
    #[default]
    Discover,
    /// This file, which must exist.
    File(PathBuf),
    /// This document, already read; `name` names it in errors.
    Document {
        /// The document.
        signals: Box<Signals>,
        /// Where it came from (for errors).
        name: PathBuf,
    },
    /// No sidecar.
    None,
}
