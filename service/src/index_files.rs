//! Vector index files in the object store (`--object-store`), so that a replica that starts with
//! an empty index directory (a new machine, a scaled-out pod) maps the segments another process
//! built instead of building every graph again from the database.
//!
//! Each process publishes its own copy of an organisation's index, every `--index-refresh`
//! seconds when it changed: under `indexes/org-<n>/<collection>/<owner>/` its segment files
//! (immutable once written, so each is uploaded once) and then its `manifest.json`, and last
//! `indexes/org-<n>/<collection>/latest`, which names the owner whose copy is the newest. A
//! process opening an index it has no files for downloads that copy (segments first, the manifest
//! last, so a partial download is never opened) and then checks it against the database like any
//! index it opens: items changed or deleted since are dropped, newer ones loaded. Each publisher
//! deletes the files of its own that its new manifest no longer lists. A download that fails
//! (the files were replaced meanwhile, the store is unreachable) is logged and the index is built
//! from the database, as without a store.

use std::collections::HashSet;
use std::path::Path;

use crate::bucket::Bucket;
use crate::indexes::Collection;
use crate::store::OrgId;

const MANIFEST: &str = "manifest.json";
const LATEST: &str = "latest";

/// What one process last published of one index.
#[derive(Debug, Default, Clone)]
pub struct Published {
    /// The manifest's bytes.
    manifest: Vec<u8>,
    /// The segment files uploaded.
    files: HashSet<String>,
}

fn prefix(org: OrgId, c: Collection) -> String {
    format!("indexes/org-{}/{}", org.0, c.name())
}

/// The segment files a manifest lists; an error for a manifest that is not one, or that names a
/// file outside its directory.
fn segment_files(manifest: &[u8]) -> Result<Vec<String>, String> {
    let value: serde_json::Value = serde_json::from_slice(manifest).map_err(|e| format!("manifest: {e}"))?;
    let segments = value["segments"].as_array().ok_or("manifest: no segments list")?;
    segments
        .iter()
        .map(|s| {
            let file = s["file"].as_str().ok_or("manifest: a segment without a file")?;
            let plain = file.starts_with("seg-") && !file.contains(['/', '\\']) && !file.contains("..");
            if plain { Ok(file.to_string()) } else { Err(format!("manifest: segment file {file:?} refused")) }
        })
        .collect()
}

/// Downloads the newest published copy of an index into `dir`, which holds none; returns how
/// many segment files it fetched (0: nothing published). On failure `dir` is left without a
/// manifest, so the index is built from the database.
pub fn seed(bucket: &Bucket, org: OrgId, c: Collection, dir: &Path) -> Result<usize, String> {
    let base = prefix(org, c);
    let Some(owner) = bucket.get_bytes(&format!("{base}/{LATEST}")).map_err(|e| e.to_string())? else {
        return Ok(0);
    };
    let owner = String::from_utf8(owner).map_err(|_| "latest: not text".to_string())?;
    let owner = owner.trim();
    if owner.is_empty() || owner.contains(['/', '\\']) || owner.contains("..") {
        return Err(format!("latest: owner {owner:?} refused"));
    }
    let Some(manifest) = bucket.get_bytes(&format!("{base}/{owner}/{MANIFEST}")).map_err(|e| e.to_string())? else {
        return Err(format!("{owner}'s manifest is gone (replaced meanwhile)"));
    };
    let files = segment_files(&manifest)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let fetched = (|| {
        for file in &files {
            let bytes = bucket
                .get_bytes(&format!("{base}/{owner}/{file}"))
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("segment {file} of {owner} is gone (replaced meanwhile)"))?;
            std::fs::write(dir.join(file), bytes).map_err(|e| format!("{file}: {e}"))?;
        }
        let tmp = dir.join(format!("{MANIFEST}.tmp"));
        std::fs::write(&tmp, &manifest).map_err(|e| format!("{MANIFEST}: {e}"))?;
        std::fs::rename(&tmp, dir.join(MANIFEST)).map_err(|e| format!("{MANIFEST}: {e}"))
    })();
    match fetched {
        Ok(()) => Ok(files.len()),
        Err(e) => {
            for file in &files {
                let _ = std::fs::remove_file(dir.join(file));
            }
            Err(e)
        }
    }
}

/// Publishes this process's copy of an index (files in `dir`) under `owner`, when its manifest
/// changed since `last`; returns whether it did. `last` is updated as files go up, so a failed
/// publication resumes where it stopped.
pub fn publish(
    bucket: &Bucket,
    owner: &str,
    org: OrgId,
    c: Collection,
    dir: &Path,
    last: &mut Published,
) -> Result<bool, String> {
    let manifest = match std::fs::read(dir.join(MANIFEST)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("{MANIFEST}: {e}")),
    };
    if manifest == last.manifest {
        return Ok(false);
    }
    let files = segment_files(&manifest)?;
    let base = format!("{}/{owner}", prefix(org, c));
    for file in &files {
        if last.files.contains(file) {
            continue;
        }
        // A merge may have replaced the file since the manifest was read: the next round
        // publishes the newer manifest.
        let bytes = std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
        bucket.put_bytes(&format!("{base}/{file}"), bytes).map_err(|e| e.to_string())?;
        last.files.insert(file.clone());
    }
    bucket.put_bytes(&format!("{base}/{MANIFEST}"), manifest.clone()).map_err(|e| e.to_string())?;
    bucket.put_bytes(&format!("{}/{LATEST}", prefix(org, c)), owner.as_bytes().to_vec()).map_err(|e| e.to_string())?;
    // This copy's files that the new manifest no longer lists.
    let keep: HashSet<&str> = files.iter().map(String::as_str).chain([MANIFEST]).collect();
    for name in bucket.list(&base).map_err(|e| e.to_string())? {
        if !keep.contains(name.as_str()) {
            bucket.delete(&format!("{base}/{name}")).map_err(|e| e.to_string())?;
            last.files.remove(&name);
        }
    }
    last.manifest = manifest;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_name_only_segment_files_of_their_directory() {
        let ok = br#"{"format": 1, "next_file": 2, "segments": [{"file": "seg-00000001.kvx", "stamps": {}}]}"#;
        assert_eq!(segment_files(ok).unwrap(), vec!["seg-00000001.kvx".to_string()]);
        for bad in [
            &br#"{"segments": [{"file": "../../etc/passwd"}]}"#[..],
            br#"{"segments": [{"file": "seg-1/../../x"}]}"#,
            br#"{"segments": [{"file": "manifest.json"}]}"#,
            br#"{"segments": [{}]}"#,
            br#"{}"#,
            b"not json",
        ] {
            assert!(segment_files(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
