//! What the vision models see in the sampled frames ([`crate::vision`]): one [`Seen`] per frame,
//! gathered by the [`Sight`] sink and turned into channels after the pass.

use std::io;

use kino_models::RgbFrame;

use crate::models::AnalysisModels;
use crate::vision::FrameSink;

/// What the vision models measured in one sampled frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    /// Seconds into the video.
    pub time: f64,
}

/// The vision models of one analysis and what they saw, frame by frame.
#[derive(Debug)]
pub(crate) struct Sight {
    pub seen: Vec<Seen>,
}

impl Sight {
    /// The sink for `models`, when at least one vision model is loaded (`None`: no sampled stream
    /// is decoded at all).
    pub(crate) fn new(models: &AnalysisModels) -> Option<Sight> {
        let _ = models;
        None
    }

    /// A sink with no model, for tests of the stream itself.
    #[cfg(test)]
    pub(crate) fn empty() -> Sight {
        Sight { seen: Vec::new() }
    }
}

impl FrameSink for Sight {
    fn frame(&mut self, time: f64, frame: RgbFrame<'_>) -> io::Result<()> {
        let _ = frame;
        self.seen.push(Seen { time });
        Ok(())
    }
}
