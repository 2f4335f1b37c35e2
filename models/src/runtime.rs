//! The ONNX runtime, loaded once per process from the `libonnxruntime.so` that `fetch` extracted
//! from the pinned onnxruntime wheel (never from the system's library path). `ort` types stay
//! inside this crate.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use ort::environment::Environment;
use ort::logging::LogLevel;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::{Model, ONNXRUNTIME};

/// A loaded ONNX runtime. Cheap to clone; every clone shares the one process-wide environment.
#[derive(Clone)]
pub struct Runtime {
    environment: Environment,
    library: PathBuf,
    version: String,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("library", &self.library).field("version", &self.version).finish()
    }
}

/// ONNX Runtime allows one environment per process, and a process loads one library.
static LOADED: Mutex<Option<Runtime>> = Mutex::new(None);

impl Runtime {
    /// Loads the runtime library of `dir` (the first call; later calls return the same runtime, and
    /// fail if they name another library). A missing library is [`Error::ModelMissing`].
    pub fn load(dir: &ModelsDir) -> Result<Runtime> {
        let name = ONNXRUNTIME.files[0].name;
        let library = dir.file(&ONNXRUNTIME, name)?;
        Runtime::load_library(&library)
    }

    /// Loads the runtime from the shared library at `library`.
    pub fn load_library(library: &Path) -> Result<Runtime> {
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            return Err(Error::Runtime {
                path: library.to_path_buf(),
                reason: "the pinned onnxruntime wheel is for Linux x86_64 only".to_string(),
            });
        }
        let library = std::path::absolute(library).map_err(|e| Error::io(library, e))?;
        let mut loaded = LOADED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(runtime) = loaded.as_ref() {
            if runtime.library != library {
                return Err(Error::Runtime {
                    path: library,
                    reason: format!(
                        "this process already loaded the runtime from {}; one library per process",
                        runtime.library.display()
                    ),
                });
            }
            return Ok(runtime.clone());
        }
        let runtime_error = |reason: String| Error::Runtime { path: library.clone(), reason };
        let environment = ort::init_from(&library)
            .map_err(|e| runtime_error(e.to_string()))?
            .with_name("kino")
            .with_telemetry(false)
            .build()
            .map_err(|e| runtime_error(e.to_string()))?;
        environment.set_log_level(LogLevel::Error);
        // The build info string does not carry the release (its branch reads `HEAD`); the file
        // name does: `libonnxruntime.so.1.31.1`.
        let version = library
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.split_once(".so."))
            .map_or_else(|| "unknown".to_string(), |(_, version)| version.to_string());
        let runtime = Runtime { environment, library, version };
        *loaded = Some(runtime.clone());
        Ok(runtime)
    }

    /// The runtime's version, e.g. `1.31.1`, read from the library's file name (`unknown` when the
    /// name has none).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The library it was loaded from.
    pub fn library(&self) -> &Path {
        &self.library
    }

    /// A session over the ONNX file `path` of `model`, running on `threads` intra-op threads, with
    /// all of ONNX Runtime's graph optimisations.
    pub(crate) fn session(&self, model: &Model, path: &Path, threads: usize) -> Result<LoadedSession> {
        self.session_from(model, path, threads, None, Optimisations::All)
    }

    /// A session over `bytes`, the ONNX file `path` of `model` as rewritten in memory (e.g. by
    /// [`crate::onnx::int8::quantise_matmuls`]); `path` names it in errors.
    pub(crate) fn session_from_memory(
        &self,
        model: &Model,
        path: &Path,
        bytes: &[u8],
        threads: usize,
        optimisations: Optimisations,
    ) -> Result<LoadedSession> {
        self.session_from(model, path, threads, Some(bytes), optimisations)
    }

    fn session_from(
        &self,
        model: &Model,
        path: &Path,
        threads: usize,
        bytes: Option<&[u8]>,
        optimisations: Optimisations,
    ) -> Result<LoadedSession> {
        let started = Instant::now();
        let fail = |e: ort::Error| Error::load(model.id, format!("{}: {e}", path.display()));
        let level = match optimisations {
            Optimisations::All => GraphOptimizationLevel::Level3,
            Optimisations::Basic => GraphOptimizationLevel::Level1,
        };
        let mut builder = Session::builder(&self.environment)
            .map_err(fail)?
            .with_optimization_level(level)
            .map_err(|e| fail(e.into()))?
            .with_intra_threads(threads.max(1))
            .map_err(|e| fail(e.into()))?
            .with_inter_threads(1)
            .map_err(|e| fail(e.into()))?;
        let session = match bytes {
            Some(bytes) => builder.commit_from_memory(bytes),
            None => builder.commit_from_file(path),
        }
        .map_err(fail)?;
        Ok(LoadedSession { session, load_seconds: started.elapsed().as_secs_f64() })
    }
}

/// Which of ONNX Runtime's graph optimisations a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Optimisations {
    /// Every level, the layout ones included (ONNX Runtime's `ORT_ENABLE_ALL`).
    All,
    /// The basic ones only (constant folding, redundant nodes removed, no operator fusions:
    /// `ORT_ENABLE_BASIC`), for a graph kino has already fused: ONNX Runtime 1.31's
    /// `SkipLayerNormFusion` would turn each residual `Add` + `LayerNormalization` into a
    /// `SkipLayerNormalization` whose CPU kernel computes the mean and variance one element at a
    /// time (a division per element), about a fifth of the sentence model's time on a short query.
    Basic,
}

/// A session and how long it took to load.
pub(crate) struct LoadedSession {
    pub session: Session,
    pub load_seconds: f64,
}

/// Checks that `session` has exactly the named inputs and outputs `model` is used with, so a
/// changed model file fails at load time with a clear message instead of at the first call.
pub(crate) fn expect_signature(model: &Model, session: &Session, inputs: &[&str], outputs: &[&str]) -> Result<()> {
    let names = |outlets: &[ort::value::Outlet]| outlets.iter().map(|o| o.name().to_string()).collect::<Vec<_>>();
    let (have_in, have_out) = (names(session.inputs()), names(session.outputs()));
    let mut want_in: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
    let mut want_out: Vec<String> = outputs.iter().map(|s| s.to_string()).collect();
    let (mut sorted_in, mut sorted_out) = (have_in.clone(), have_out.clone());
    sorted_in.sort();
    sorted_out.sort();
    want_in.sort();
    want_out.sort();
    if sorted_in != want_in || sorted_out != want_out {
        return Err(Error::load(
            model.id,
            format!("expected inputs {want_in:?} and outputs {want_out:?}, the file has {have_in:?} and {have_out:?}"),
        ));
    }
    Ok(())
}
