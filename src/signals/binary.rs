//! The compact binary form of a signals document: a fixed header (magic, format version, payload
//! length, CRC-32 of the payload) followed by the bincode encoding of [`Signals`].
//!
//! bincode's own derive is used rather than its serde adapter: the JSON form omits absent optional
//! fields (`skip_serializing_if`), which a non-self-describing format cannot express through serde.

use super::model::Signals;
use crate::error::{Error, Result};

/// First eight bytes of every binary signals file.
pub const BINARY_MAGIC: &[u8; 8] = b"KINOSIG\0";

/// Version of the binary layout; bumped whenever [`Signals`] changes shape. Version 2 appended
/// `analysis`, version 3 appended `analysis.models` and `analysis.reasons`, version 4 appended
/// `text`, version 5 appended `transcript`, version 6 appended `audio_fingerprint`, version 7
/// appended `character_descriptors`, version 8 appended `visual`, version 9 appended
/// `picture_fingerprint`, version 10 appended `objects` and `speakers`, version 11 appended
/// `scene_channels`; versions 1 to 10 are still read (see [`Signals::from_binary`]).
pub const BINARY_FORMAT_VERSION: u32 = 11;

/// The oldest binary layout this build reads.
pub const OLDEST_BINARY_FORMAT_VERSION: u32 = 1;

const HEADER_LEN: usize = 8 + 4 + 4 + 8;

/// Refuse to allocate more than this while decoding, whatever a (crafted) file claims.
const DECODE_LIMIT: usize = 1 << 31;

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

fn binary_error(reason: impl Into<String>) -> Error {
    Error::SignalsBinary { reason: reason.into() }
}

impl Signals {
    /// Encodes the document in the binary form.
    pub fn to_binary(&self) -> Vec<u8> {
        let payload = bincode::encode_to_vec(self, config()).expect("encoding to a Vec cannot fail");
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(BINARY_MAGIC);
        out.extend_from_slice(&BINARY_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Decodes and validates a binary document. A truncated, corrupted or foreign file is an
    /// error, never a panic.
    ///
    /// Older layouts differ from the current one only at the end of the payload (fields are
    /// only ever appended), so they are decoded by completing that end with the encoding of the
    /// missing fields' empty values, and the completion that decodes to exactly the end is the
    /// one: version 1 lacks `analysis` and the nine fields after it (ten one-byte `None`s);
    /// version 2 lacks the two maps that end `analysis` (two empty maps, one byte each, only when
    /// its `analysis` is present) and the nine fields after it; version 3 lacks the last nine
    /// (nine `None`s), version 4 the last eight, version 5 the last seven, version 6 the last six,
    /// version 7 the last five (`visual` to `scene_channels`), version 8 the last four, version 9
    /// the last three (`objects`, `speakers`, `scene_channels`), version 10 the last one.
    pub fn from_binary(bytes: &[u8]) -> Result<Signals> {
        if bytes.len() < HEADER_LEN {
            return Err(binary_error(format!("truncated: {} bytes, the header alone is {HEADER_LEN}", bytes.len())));
        }
        let (header, payload) = bytes.split_at(HEADER_LEN);
        if &header[..8] != BINARY_MAGIC {
            return Err(binary_error("not a kino signals file (bad magic)"));
        }
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
        let version = word(8);
        if !(OLDEST_BINARY_FORMAT_VERSION..=BINARY_FORMAT_VERSION).contains(&version) {
            return Err(binary_error(format!(
                "format version {version} is not supported (this build reads versions \
                 {OLDEST_BINARY_FORMAT_VERSION} to {BINARY_FORMAT_VERSION})"
            )));
        }
        let crc = word(12);
        let len = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
        if len != payload.len() as u64 {
            return Err(binary_error(format!(
                "truncated or padded: header says {len} payload bytes, file has {}",
                payload.len()
            )));
        }
        if crc32fast::hash(payload) != crc {
            return Err(binary_error("checksum mismatch: the file is corrupted"));
        }
        let completions: &[&[u8]] = match version {
            1 => &[&[0; 10]],
            2 => &[&[0; 11], &[0; 9]],
            3 => &[&[0; 9]],
            4 => &[&[0; 8]],
            5 => &[&[0; 7]],
            6 => &[&[0; 6]],
            7 => &[&[0; 5]],
            8 => &[&[0; 4]],
            9 => &[&[0; 3]],
            10 => &[&[0; 1]],
            _ => &[&[]],
        };
        let mut outcome = Err(binary_error("no layout matched"));
        for completion in completions {
            let completed = [payload, completion].concat();
            outcome = match bincode::decode_from_slice::<Signals, _>(&completed, config()) {
                Ok((signals, used)) if used == completed.len() => Ok(signals),
                Ok((_, used)) => {
                    Err(binary_error(format!("{} trailing bytes after the document", completed.len() - used)))
                }
                Err(e) => Err(binary_error(format!("undecodable payload: {e}"))),
            };
            if outcome.is_ok() {
                break;
            }
        }
        let signals = outcome?;
        signals.validate()?;
        Ok(signals)
    }
}
