//! Output files written whole or not at all: the work goes to a temporary file beside the final
//! path, renamed into place only when complete. A failed or interrupted run never leaves a
//! partial file at the path, and a path that cannot be written is refused before any work.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// A file being written: [`OutputFile::path`] names the temporary file to write, [`persist`]
/// renames it to the final path, and dropping it without persisting removes it.
///
/// [`persist`]: OutputFile::persist
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let out = dir.path().join("clip.json");
/// let pending = kino_media::OutputFile::create(&out)?;
/// std::fs::write(pending.path(), b"{}")?;
/// assert!(!out.exists(), "nothing at the final path until it is complete");
/// pending.persist()?;
/// assert_eq!(std::fs::read(&out)?, b"{}");
/// assert!(kino_media::OutputFile::create(dir.path().join("no/such/dir/x.mp4")).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct OutputFile {
    temp: PathBuf,
    target: PathBuf,
    persisted: bool,
}

impl OutputFile {
    /// Checks that `target` can be written (its directory exists, it is not a directory) by
    /// creating the temporary file beside it: `.<stem>.kino-partial-<pid>-<n>.<extension>`, which
    /// keeps the extension so that tools choosing a format by it choose the same one.
    pub fn create(target: impl AsRef<Path>) -> Result<OutputFile> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let target = target.as_ref();
        let refuse = |rule: String| Error::OutputPath { path: target.to_path_buf(), rule };
        let name = target.file_name().ok_or_else(|| refuse("must name a file".into()))?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(refuse(format!("the directory {} does not exist", dir.display())));
        }
        if target.is_dir() {
            return Err(refuse("is a directory".into()));
        }
        let stem = Path::new(name).file_stem().unwrap_or(name).to_string_lossy();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut temp_name = format!(".{stem}.kino-partial-{}-{n}", std::process::id());
        if let Some(ext) = target.extension() {
            temp_name = format!("{temp_name}.{}", ext.to_string_lossy());
        }
        let temp = dir.join(temp_name);
        OpenOptions::new().write(true).create_new(true).open(&temp).map_err(|e| refuse(e.to_string()))?;
        Ok(OutputFile { temp, target: target.to_path_buf(), persisted: false })
    }

    /// The temporary file to write (it exists, empty, until written).
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Moves the complete file to the final path (replacing any file there).
    pub fn persist(mut self) -> Result<()> {
        std::fs::rename(&self.temp, &self.target).map_err(|e| Error::io(&self.target, e))?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritable_targets_are_refused_with_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing/out.mp4");
        let err = OutputFile::create(&missing).unwrap_err().to_string();
        assert!(err.contains(&missing.display().to_string()) && err.contains("does not exist"), "{err}");
        let err = OutputFile::create(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
    }

    #[test]
    fn dropped_without_persisting_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("thumb.jpg");
        let pending = OutputFile::create(&target).unwrap();
        assert_eq!(pending.path().extension().unwrap(), "jpg");
        std::fs::write(pending.path(), b"half a frame").unwrap();
        drop(pending);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
