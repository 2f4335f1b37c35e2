//! The manifest (`manifest.json`, replaced by rename): the segments of a collection and the stamp
//! of every item each one holds. Files in the directory that it does not list are left by a crash
//! and removed at open.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::types::{Inner, SegmentedIndex, Stamp};
use crate::error::{Error, Result};

/// The manifest file's content.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Manifest {
    format: u32,
    pub(super) next_file: u64,
    pub(super) segments: Vec<ManifestSegment>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ManifestSegment {
    pub(super) file: String,
    pub(super) stamps: BTreeMap<String, Stamp>,
}

const MANIFEST: &str = "manifest.json";
const MANIFEST_FORMAT: u32 = 1;

impl Manifest {
    /// Reads the manifest of `dir`: an empty one when there is none, or when it cannot be parsed.
    pub(super) fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_else(|_| Manifest::default())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest::default()),
            Err(e) => Err(Error::io(&path, e)),
        }
    }
}

/// Removes the segment and temporary files of `dir` that `listed` does not name, and names them
/// in `removed`.
pub(super) fn remove_unlisted(dir: &Path, listed: &HashSet<&str>, removed: &mut Vec<String>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with("seg-") || name.ends_with(".tmp");
        if ours && !listed.contains(name.as_str()) {
            let _ = std::fs::remove_file(entry.path());
            removed.push(name);
        }
    }
    Ok(())
}

impl Inner {
    pub(super) fn manifest(&self) -> Manifest {
        Manifest {
            format: MANIFEST_FORMAT,
            next_file: self.next_file,
            segments: self
                .segments
                .iter()
                .map(|s| ManifestSegment {
                    file: s.file.clone(),
                    stamps: s.stamps.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                })
                .collect(),
        }
    }
}

impl SegmentedIndex {
    pub(super) fn write_manifest(&self, manifest: &Manifest) -> Result<()> {
        let path = self.dir.join(MANIFEST);
        let tmp = self.dir.join("manifest.json.tmp");
        let bytes = serde_json::to_vec(manifest).map_err(|e| Error::io(&path, std::io::Error::other(e)))?;
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        };
        write().map_err(|e| Error::io(&path, e))
    }
}
