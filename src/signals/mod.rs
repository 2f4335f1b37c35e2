//! The signals document: its types, JSON and binary forms, validation, and the prepared
//! (indexed) form that clip selection reads.
//!
//! ```
//! let json = kino::synth::demo_signals("doc-example", 600.0, 1.0, 7).to_json();
//! let signals = kino::Signals::from_json(&json)?;
//! let prepared = kino::Prepared::new(signals)?;
//! assert_eq!(prepared.samples(), 600);
//! # Ok::<(), kino::Error>(())
//! ```

mod binary;
mod model;
mod prepared;
mod range_max;
mod size;
mod validate;
mod validate_seen;

use std::path::Path;

pub use binary::{BINARY_FORMAT_VERSION, BINARY_MAGIC, OLDEST_BINARY_FORMAT_VERSION};
pub use model::*;
pub use prepared::{FIXED_ONE, Prepared, REPORT_SCALE, fixed_mean, fixed_value, to_fixed};
pub(crate) use prepared::{INDEX_SLACK, kind_slot, unit_vector};
pub use range_max::RangeMax;
pub use validate::{
    MAX_DURATION, MAX_FPS, MAX_FRAME_SIZE, MAX_SAMPLES, MIN_HOP, SHOT_KINDS, VISUAL_GROUPS, sample_count,
};

use crate::error::{Error, Result};

impl Signals {
    /// Parses and validates a JSON document. Errors name the JSON path or the field and its rule.
    pub fn from_json(text: &str) -> Result<Signals> {
        let mut de = serde_json::Deserializer::from_str(text);
        let signals: Signals = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            Error::SignalsJson { path, message: e.into_inner().to_string() }
        })?;
        de.end().map_err(|e| Error::SignalsJson { path: ".".into(), message: e.to_string() })?;
        signals.validate()?;
        Ok(signals)
    }

    /// Parses and validates a JSON document as it is read (no copy of the whole text in memory):
    /// the same errors as [`Signals::from_json`]; a read failure is reported as invalid JSON at
    /// the path reached.
    pub fn from_reader(reader: impl std::io::Read) -> Result<Signals> {
        let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(64 * 1024, reader));
        let signals: Signals = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            Error::SignalsJson { path, message: e.into_inner().to_string() }
        })?;
        de.end().map_err(|e| Error::SignalsJson { path: ".".into(), message: e.to_string() })?;
        signals.validate()?;
        Ok(signals)
    }

    /// Writes the document as compact JSON; [`Signals::from_json`] reads it back unchanged.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("signals serialize to JSON: all keys are strings")
    }

    /// Writes the document as indented JSON.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("signals serialize to JSON: all keys are strings")
    }

    /// Reads a document from a file: binary when it starts with [`BINARY_MAGIC`], JSON otherwise.
    pub fn load(path: impl AsRef<Path>) -> Result<Signals> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if bytes.starts_with(BINARY_MAGIC) {
            Signals::from_binary(&bytes)
        } else {
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| Error::SignalsJson { path: ".".into(), message: format!("not UTF-8 text: {e}") })?;
            Signals::from_json(text)
        }
    }

    /// Writes the document to a file as JSON (extension `.json`) or binary (anything else).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let bytes =
            if path.extension().is_some_and(|e| e == "json") { self.to_json().into_bytes() } else { self.to_binary() };
        std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
    }
}
