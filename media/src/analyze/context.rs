//! [`Context`]: what the pass and every stage of one analysis read (the video, its options and
//! probe, the models and why the missing ones are missing), in a leaf that the pass, the stages
//! and `analyze/mod.rs` (which builds it) all use.

use std::collections::BTreeMap;
use std::path::Path;

use super::options::AnalyzeOptions;
use crate::error::Error;
use crate::models::AnalysisModels;
use crate::probe::MediaInfo;

/// What the pass and every stage of one analysis read.
pub(super) struct Context<'a> {
    pub(super) path: &'a Path,
    pub(super) options: &'a AnalyzeOptions,
    pub(super) info: MediaInfo,
    /// Timeline samples.
    pub(super) n: usize,
    pub(super) models: &'a AnalysisModels,
    /// Why each model that is not loaded is not, by model id.
    pub(super) missing: BTreeMap<&'static str, &'a str>,
}

impl Context<'_> {
    pub(super) fn duration(&self) -> f64 {
        self.info.duration
    }

    pub(super) fn model_error(&self, source: kino_models::Error) -> Error {
        Error::Model { path: self.path.into(), source }
    }

    /// Why the channels of the model `id` (the `what` model) are absent.
    pub(super) fn absent_reason(&self, id: &str, what: &str) -> String {
        self.missing.get(id).map_or_else(|| format!("the {what} model is not loaded"), |r| r.to_string())
    }
}
