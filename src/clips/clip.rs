//! The clip returned by a previews request: the fields of `data.jitpreview[]`, and kino's
//! addition `shot_type`.

use serde::{Deserialize, Serialize};

use super::shots::ShotKind;
use super::types::ClipType;
use crate::report;

/// A tag name with its best score inside a clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TagScore {
    /// Tag name.
    pub name: String,
    /// Best score of this name among the tags overlapping the clip.
    pub score: f64,
    /// Where the best-scored tag came from: `picture` (what is seen, `visual.tags`) or `tags`
    /// (the document's tags: sound events, a sidecar, the customer's analysers).
    pub source: String,
}

/// A crop window in source pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CropWindow {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// Vertical (9:16) conversion of a clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerticalConversion {
    /// The crop window centred on the median subject position over the clip.
    pub coordinates: CropWindow,
    /// Black bar rows `[top, bottom]` the window stays clear of.
    pub blackbars: [u32; 2],
    /// The window at the clip's first sample.
    pub start_buffer: CropWindow,
    /// The window at the clip's last sample.
    pub end_buffer: CropWindow,
}

/// Paths of generated media, relative to the configured bucket (filled by the service).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GenPaths {
    /// The clip file.
    pub clip_path: String,
    /// The large thumbnail.
    pub large_image_path: String,
    /// The small thumbnail.
    pub small_image_path: String,
}

/// One preview clip; serializes to the interface's `data.jitpreview[]` field names, plus
/// `shot_type` (a kino addition, absent when the item has no shot types).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Clip {
    /// Start in seconds, after refinement.
    pub start_time: f64,
    /// End in seconds, after refinement.
    pub stop_time: f64,
    /// Mean relevance over the clip.
    pub relevance: f64,
    /// Best `(cos + 1) / 2` between the query and the scenes overlapping the clip; 0 without a
    /// `search_query`.
    pub query_relevance: f64,
    /// The `search_query` echoed; empty without one.
    pub search_query: String,
    /// `round(start_time * fps)`.
    pub start_frame: i64,
    /// `round(stop_time * fps)`.
    pub stop_frame: i64,
    /// Ranks of the characters that appear, ascending.
    pub characters: Vec<u32>,
    /// Maximum nudity over the clip.
    pub nudity: f64,
    /// Maximum blood/gore over the clip.
    pub blood_gore: f64,
    /// Maximum spoken profanity over the clip.
    pub profanity: f64,
    /// Mean brightness over the clip.
    pub brightness: f64,
    /// The shot type covering the most of the clip (`visual.shot_types`); absent when the item
    /// has no shot types (or, for a custom range, when no shot overlaps it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shot_type: Option<ShotKind>,
    /// Rank of the clip in the answer, from 0.
    pub clip_index: usize,
    /// Start after the snap step.
    pub snapped_start: f64,
    /// End after the snap step.
    pub snapped_stop: f64,
    /// The requested type, or for `ANY` the type with the highest mean over the clip.
    pub clip_type: ClipType,
    /// Environment tags overlapping the clip, best first.
    pub environment: Vec<TagScore>,
    /// Keyword tags overlapping the clip, best first (empty when `add_keyword_tags=false`).
    pub keywords: Vec<TagScore>,
    /// The best keyword, if any.
    pub keyword: Option<TagScore>,
    /// Mood tags overlapping the clip, best first.
    pub mood: Vec<TagScore>,
    /// The best mood, if any.
    pub mood_tag: Option<TagScore>,
    /// Signed shift of the start by speech avoidance, in seconds.
    pub start_speech_avoidance: f64,
    /// Signed shift of the end by speech avoidance, in seconds.
    pub end_speech_avoidance: f64,
    /// Mean of the requested clip type's timeline (of relevance for `ANY`).
    pub type_score: f64,
    /// The service's own item id (set by the service).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_id: Option<String>,
    /// The customer's item id.
    pub inventory_id: String,
    /// Frames per second of the source.
    pub fps: f64,
    /// Generated media paths (set by the service when generation was triggered).
    #[serde(rename = "gen", default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<GenPaths>,
    /// Crop windows, only with `aspect_ratio=9:16`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertical_conversion: Option<VerticalConversion>,
    /// Source frame width in pixels.
    pub source_frame_width: u32,
    /// Source frame height in pixels.
    pub source_frame_height: u32,
}

impl TagScore {
    fn round_for_report(&mut self) {
        self.score = report::score(self.score);
    }
}

impl Clip {
    /// Rounds the clip's times and scores as every result is reported ([`crate::report`]): edges
    /// to the millisecond (never past `duration`), the speech-avoidance shifts as the difference
    /// of the rounded edges (so `start_time == snapped_start + start_speech_avoidance` holds for
    /// the reported digits), frames from the rounded edges (`round(start_time * fps)`), scores to
    /// six decimals. `fps` and the frame sizes are the document's and stay as they are.
    pub(crate) fn round_for_report(&mut self, duration: f64) {
        let within = |t: f64| report::time_within(t, duration);
        (self.start_time, self.stop_time) = (within(self.start_time), within(self.stop_time));
        (self.snapped_start, self.snapped_stop) = (within(self.snapped_start), within(self.snapped_stop));
        self.start_speech_avoidance = report::time(self.start_time - self.snapped_start);
        self.end_speech_avoidance = report::time(self.stop_time - self.snapped_stop);
        self.start_frame = (self.start_time * self.fps).round() as i64;
        self.stop_frame = (self.stop_time * self.fps).round() as i64;
        for v in [
            &mut self.relevance,
            &mut self.query_relevance,
            &mut self.nudity,
            &mut self.blood_gore,
            &mut self.profanity,
            &mut self.brightness,
            &mut self.type_score,
        ] {
            *v = report::score(*v);
        }
        let tags = [&mut self.environment, &mut self.keywords, &mut self.mood];
        tags.into_iter()
            .flatten()
            .chain(&mut self.keyword)
            .chain(&mut self.mood_tag)
            .for_each(TagScore::round_for_report);
    }
}
