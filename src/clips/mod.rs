//! Clip selection: what a previews request returns (`clip-selection.md`).
//!
//! ```
//! use kino::{ClipQuery, Prepared, select};
//!
//! let prepared = Prepared::new(kino::synth::demo_signals("tt-demo", 3600.0, 1.0, 42))?;
//! let query = ClipQuery::from_pairs([("number_of_top_candidates", "3"), ("clip_length", "20")])?;
//! let clips = select(&prepared, &query, None)?;
//! assert!(clips.len() <= 3);
//! for clip in &clips {
//!     assert!(clip.start_time < clip.stop_time);
//! }
//! # Ok::<(), kino::Error>(())
//! ```

mod candidates;
mod clip;
mod describe;
mod geometry;
mod parameters;
mod query;
mod refine;
mod shots;
pub(crate) mod types;

use rayon::prelude::*;
use serde_json::json;

pub use clip::{Clip, CropWindow, GenPaths, TagScore, VerticalConversion};
pub use parameters::{ParameterKind, ParameterSpec};
pub use query::{ClipQuery, ClipTypesInfo, clip_types_info};
pub use shots::ShotKind;
pub use types::{AspectRatio, CharacterPreference, ClipType, PreviewsVersion};

use crate::error::{Error, IssueKind, QueryIssue, Result};
use crate::signals::{Prepared, SCENE_EMBEDDING_DIM, unit_vector};
use candidates::{SceneScores, ranking_for, select_starts};
use describe::{Refined, acceptable, describe};
use geometry::grid_time;
use refine::{SpeechZones, snap};
use shots::ShotCoverage;

/// Selects preview clips for one item. `query_embedding` is the text embedding of
/// `query.search_query` (1024 floats, from a [`TextEncoder`](crate::TextEncoder)); both or
/// neither must be given. A query that no clip satisfies gives an empty list, not an error.
/// Times and scores are rounded as [`crate::report`] says.
pub fn select(p: &Prepared, q: &ClipQuery, query_embedding: Option<&[f32]>) -> Result<Vec<Clip>> {
    let mut clips: Vec<Clip> = select_exact(p, q, query_embedding)?.into_iter().map(|(_, clip)| clip).collect();
    for clip in &mut clips {
        clip.round_for_report(p.duration());
    }
    Ok(clips)
}

/// A content filter (nudity, blood/gore, profanity) on a channel that the item's analysis lists
/// as absent would pass every clip on zeros that measure nothing: it is refused, naming the
/// parameter and why the channel is absent (a model not installed, or speech recognition still
/// to come). Filters left at their defaults are not in use and are never refused. A `shot_type`
/// filter on an item without shot types (`visual.shot_types`) could pass no clip: it is refused
/// the same way, whoever wrote the signals.
fn refuse_unmeasured_filters(p: &Prepared, q: &ClipQuery, shots: &ShotCoverage) -> Result<()> {
    let analysis = p.signals().analysis.as_ref();
    if !q.shot_type.is_empty() && !shots.measured() {
        let why = analysis.and_then(|a| a.reasons.get("visual")).map(|r| format!(" ({r})")).unwrap_or_default();
        return Err(Error::InvalidParameter {
            param: "shot_type",
            rule: format!(
                "filters on visual.shot_types, which this item's signals do not have (the picture's shot types \
                 were not measured{why}); leave it unset"
            ),
        });
    }
    let Some(analysis) = analysis else { return Ok(()) };
    let filters = [
        ("timelines.nudity", ("min_nudity", q.min_nudity), ("max_nudity", q.max_nudity)),
        ("timelines.blood_gore", ("min_blood_gore", q.min_blood_gore), ("max_blood_gore", q.max_blood_gore)),
        ("timelines.profanity", ("min_profanity", q.min_profanity), ("max_profanity", q.max_profanity)),
    ];
    for (channel, (min_name, min), (max_name, max)) in filters {
        if !analysis.absent.iter().any(|c| c == channel) {
            continue;
        }
        let param = if min > 0.0 {
            min_name
        } else if max < 1.0 {
            max_name
        } else {
            continue;
        };
        let why = analysis.reasons.get(channel).map(|r| format!(" ({r})")).unwrap_or_default();
        return Err(Error::InvalidParameter {
            param,
            rule: format!("filters on {channel}, which this item's analysis did not measure{why}; leave it unset"),
        });
    }
    Ok(())
}

/// A selected clip with the grid candidate it grew from, for explaining a choice.
#[derive(Debug, Clone, PartialEq)]
pub struct TracedClip {
    /// The candidate `[start, start + clip_length]` as accepted, before refinement.
    pub candidate: (f64, f64),
    /// The clip as returned by [`select`].
    pub clip: Clip,
    /// The same clip before its times and scores were rounded for reporting: the exact interval
    /// the selection rules (thresholds, character preference, snap, speech) were checked on.
    pub exact: Clip,
}

/// [`select`], also returning each clip's candidate before refinement and its exact form.
pub fn select_traced(p: &Prepared, q: &ClipQuery, query_embedding: Option<&[f32]>) -> Result<Vec<TracedClip>> {
    let traced = select_exact(p, q, query_embedding)?.into_iter().map(|(candidate, exact)| {
        let mut clip = exact.clone();
        clip.round_for_report(p.duration());
        TracedClip { candidate, clip, exact }
    });
    Ok(traced.collect())
}

/// The selection itself: each clip with its candidate, times and scores not yet rounded.
fn select_exact(p: &Prepared, q: &ClipQuery, query_embedding: Option<&[f32]>) -> Result<Vec<((f64, f64), Clip)>> {
    q.validate()?;
    let shots = ShotCoverage::new(p.signals());
    refuse_unmeasured_filters(p, q, &shots)?;
    let scenes = scene_scores(p, q, query_embedding)?;
    if q.aspect_ratio == AspectRatio::Vertical9x16 && p.signals().vertical.is_none() {
        return Err(Error::MissingSignal { field: "vertical", needed_by: "aspect_ratio=9:16" });
    }
    if let (Some(start), Some(stop)) = (q.custom_start_timestamp, q.custom_stop_timestamp) {
        let d = p.duration();
        if stop > d {
            return Err(Error::InvalidQuery {
                issues: vec![QueryIssue {
                    param: "custom_stop_timestamp".into(),
                    kind: IssueKind::LessThanEqual,
                    message: format!("Input should be less than or equal to the item's duration ({d})"),
                    input: Some(stop.to_string()),
                    ctx: json!({ "le": d }),
                }],
            });
        }
        let clip = describe(p, q, scenes.as_ref(), &shots, Refined::unchanged(start, stop), 0);
        return Ok(vec![((start, stop), clip)]);
    }
    let ranking = ranking_for(p, q, scenes.as_ref());
    let starts = select_starts(p, q, &shots, &ranking);
    let clips = starts
        .into_iter()
        .enumerate()
        .map(|(index, i)| {
            let s = grid_time(i, p.step());
            let refined = refine(p, q, &shots, s, s + q.clip_length);
            ((s, s + q.clip_length), describe(p, q, scenes.as_ref(), &shots, refined, index))
        })
        .collect();
    Ok(clips)
}

/// [`select`] over many items in parallel (rayon); one result per item, in order.
pub fn select_many(items: &[&Prepared], q: &ClipQuery, query_embedding: Option<&[f32]>) -> Vec<Result<Vec<Clip>>> {
    items.par_iter().map(|p| select(p, q, query_embedding)).collect()
}

/// Applies snap then speech avoidance to `[start, stop]`, each step only when the guard allows.
fn refine(p: &Prepared, q: &ClipQuery, kinds: &ShotCoverage, start: f64, stop: f64) -> Refined {
    let shots = &p.signals().shots;
    let mut r = Refined::unchanged(start, stop);
    let snapped = (
        snap(start, q.start_bwd_snap_search, q.start_fwd_snap_search, shots),
        snap(stop, q.end_bwd_snap_search, q.end_fwd_snap_search, shots),
    );
    if snapped != (start, stop) && acceptable(p, q, kinds, snapped.0, snapped.1) {
        (r.start, r.stop) = snapped;
        (r.snapped_start, r.snapped_stop) = snapped;
    }
    let speech = &p.signals().speech;
    let start_zones = SpeechZones::new(speech, q.start_speech_stop_silence_before, q.start_speech_stop_silence_after);
    let stop_zones = SpeechZones::new(speech, q.end_speech_stop_silence_before, q.end_speech_stop_silence_after);
    let moved = (
        start_zones.nearest_safe(r.start, q.start_bwd_speech_search, q.start_fwd_speech_search).unwrap_or(r.start),
        stop_zones.nearest_safe(r.stop, q.end_bwd_speech_search, q.end_fwd_speech_search).unwrap_or(r.stop),
    );
    if moved != (r.start, r.stop) && acceptable(p, q, kinds, moved.0, moved.1) {
        r.start_shift = moved.0 - r.start;
        r.stop_shift = moved.1 - r.stop;
        (r.start, r.stop) = moved;
    }
    r
}

/// Scene scores `(cos + 1) / 2` against the query embedding, when there is a search query.
fn scene_scores(p: &Prepared, q: &ClipQuery, embedding: Option<&[f32]>) -> Result<Option<SceneScores>> {
    let embedding = match (&q.search_query, embedding) {
        (None, None) => return Ok(None),
        (Some(_), Some(e)) => e,
        _ => return Err(Error::MissingQueryEmbedding),
    };
    if embedding.len() != SCENE_EMBEDDING_DIM {
        return Err(Error::WrongVectorDimension {
            what: "query_embedding",
            expected: SCENE_EMBEDDING_DIM,
            received: embedding.len(),
        });
    }
    if let Some(i) = embedding.iter().position(|v| !v.is_finite()) {
        return Err(Error::InvalidQuery {
            issues: vec![QueryIssue {
                param: format!("query_embedding[{i}]"),
                kind: IssueKind::FiniteNumber,
                message: "Input should be a finite number".into(),
                input: None,
                ctx: serde_json::Value::Null,
            }],
        });
    }
    let Some(flat) = &p.scene_unit else {
        return Err(Error::MissingSignal { field: "scene_embeddings", needed_by: "search_query" });
    };
    let query: Vec<f32> = unit_vector(embedding).collect();
    let scores = flat
        .chunks_exact(SCENE_EMBEDDING_DIM)
        .map(|scene| {
            let cos = crate::text::dot(&query, scene);
            let score = (cos + 1.0) / 2.0;
            if score > 0.0 { score.min(1.0) } else { 0.0 }
        })
        .collect();
    let spans = p.signals().scenes.iter().map(|s| (s.start, s.end)).collect();
    Ok(Some(SceneScores::new(spans, scores)))
}
