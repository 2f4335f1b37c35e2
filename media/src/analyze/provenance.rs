//! The provenance of a document: which channels were measured, by which model, and why each
//! learned channel that was not is absent. The pass and each stage write to a [`Ledger`]; sealing
//! it merges the sidecar and writes the document's `analysis` record.

use std::collections::BTreeMap;
use std::path::Path;

use kino::Signals;
use kino::signals::Analysis;

use crate::error::{Error, Result};
use crate::sidecar::{learned_channels, merge as merge_sidecar};

/// What an analysis measured and how, stage by stage.
#[derive(Debug, Clone, Default)]
pub(super) struct Ledger {
    /// The channels measured, in the order they were.
    measured: Vec<String>,
    /// The model behind a measured channel and how it was used.
    models: BTreeMap<String, String>,
    /// Why a channel is not measured.
    reasons: BTreeMap<String, String>,
}

impl Ledger {
    /// `channels` measured by signal processing alone.
    pub(super) fn new(channels: &[&str]) -> Ledger {
        Ledger { measured: channels.iter().map(|c| c.to_string()).collect(), ..Ledger::default() }
    }

    /// `channel` measured by `model` (`id version`, then how): a channel already measured keeps
    /// its place and gets the model.
    pub(super) fn measured(&mut self, channel: &str, model: impl Into<String>) {
        if !self.measured.iter().any(|m| m == channel) {
            self.measured.push(channel.to_string());
        }
        self.models.insert(channel.to_string(), model.into());
    }

    /// `channel` not measured, and why (a later reason replaces an earlier one; a channel that
    /// is measured after all drops it when sealed).
    pub(super) fn absent(&mut self, channel: &str, reason: impl Into<String>) {
        self.reasons.insert(channel.to_string(), reason.into());
    }

    /// Finishes a document: merges the sidecar's channels (which replace what was measured), lists
    /// what is absent and why in `analysis`, and validates it.
    pub(super) fn seal(mut self, doc: &mut Signals, path: &Path, sidecar: Option<(&Signals, &Path)>) -> Result<()> {
        if let Some((side, side_path)) = sidecar {
            let from_sidecar = merge_sidecar(doc, side, side_path)?;
            // Characters from the sidecar replace the measured ones, and their descriptors with them.
            if doc.character_descriptors.as_ref().is_some_and(|d| d.len() != doc.characters.len())
                || from_sidecar.contains(&"characters")
            {
                doc.character_descriptors =
                    side.character_descriptors.clone().filter(|d| d.len() == doc.characters.len());
                if doc.character_descriptors.is_none() {
                    self.measured.retain(|m| m != "character_descriptors");
                    self.models.remove("character_descriptors");
                    self.absent("character_descriptors", "the characters come from the sidecar, without descriptors");
                }
            }
            // Scenes from the sidecar (its scene embeddings) leave the measured scenes' channel
            // vectors without their scenes.
            if doc.scene_channels.is_some() && from_sidecar.contains(&"scene_embeddings") {
                doc.scene_channels = None;
                self.measured.retain(|m| m != "scene_channels");
                self.models.remove("scene_channels");
                self.absent("scene_channels", "the scenes come from the sidecar, without channel vectors");
            }
            for channel in &from_sidecar {
                // A sidecar channel replaces what was measured here, model included.
                self.models.remove(*channel);
                self.reasons.remove(*channel);
                if !self.measured.iter().any(|m| m == channel) {
                    self.measured.push(channel.to_string());
                }
            }
        }
        let Ledger { measured, models, mut reasons } = self;
        let absent: Vec<String> =
            learned_channels().into_iter().filter(|c| !measured.iter().any(|m| m == c)).map(String::from).collect();
        reasons.retain(|channel, _| absent.contains(channel));
        for channel in &absent {
            reasons.entry(channel.clone()).or_insert_with(|| "no model of this build measures it".to_string());
        }
        doc.analysis = Some(Analysis {
            analyzer: format!("kino-media {}", env!("CARGO_PKG_VERSION")),
            measured,
            absent,
            models,
            reasons,
        });
        doc.validate().map_err(|source| Error::InvalidOutput { path: path.into(), source })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_channel_measured_again_keeps_its_place_and_takes_the_model() {
        let mut ledger = Ledger::new(&["shots", "speech"]);
        ledger.measured("tags", "yamnet 0.2.1");
        ledger.measured("speech", "silero-vad 6.2.3");
        ledger.absent("emotions", "no evidence");
        ledger.absent("emotions", "no evidence, said again");
        assert_eq!(ledger.measured, ["shots", "speech", "tags"]);
        assert_eq!(ledger.models["speech"], "silero-vad 6.2.3");
        assert_eq!(ledger.reasons["emotions"], "no evidence, said again");
    }
}
