//! Shared state: the store, a cache of prepared signals, the text encoder, configuration.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use kino::TextEncoder;
use tokio::sync::Notify;

use crate::store::{OrgId, Store};

/// Settings the handlers and workers need.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where `asset_info.file_uri` paths are resolved (sidecar `<video>.signals.json` files).
    pub media_root: PathBuf,
    /// Where per-organisation vector index files live.
    pub index_dir: PathBuf,
    /// The HS256 key file of access tokens (created when absent).
    pub token_key: PathBuf,
    /// The key file that seals webhook signing secrets at rest (created when absent; see
    /// [`crate::secrets`]).
    pub secrets_key: PathBuf,
    /// Portal requests per organisation per hour.
    pub rate_limit_per_hour: u32,
    /// Where rendered files (clips, thumbnails) are written; paths in results are relative to it.
    pub bucket_root: PathBuf,
    /// The object store rendered files are published to and `/media` reads from
    /// (`s3://bucket/prefix` or `file:///dir`); `None`: the bucket root is the bucket.
    pub object_store: Option<String>,
    /// The admin API's bearer credential; `None` turns the admin HTTP API off.
    pub admin_token: Option<String>,
    /// Public base URL of the bucket, joined with a file's path to give the `*_url` fields.
    pub media_base_url: String,
    /// Whether webhooks may point to loopback addresses (and plain `http://` to them): tests and
    /// local development only.
    pub webhook_allow_loopback: bool,
    /// PEM certificates of CAs trusted for webhook receivers besides the public roots.
    pub webhook_ca_pem: Option<Vec<u8>>,
    /// Days a finished webhook delivery stays in the delivery log.
    pub webhook_log_days: u32,
    /// Webhook delivery timeout ([`crate::webhooks::DEFAULT_TIMEOUT`], 30 s, in service).
    pub webhook_timeout: std::time::Duration,
    /// How long the webhook dispatcher's lease lasts without renewal: among processes sharing
    /// the database one dispatches, and another takes over this long after it dies.
    pub webhook_lease: std::time::Duration,
    /// How long this process's lease lasts without renewal: what it claimed (jobs, renders,
    /// recipe runs) is recovered by the others this long after it dies
    /// ([`crate::liveness`]).
    pub process_lease: std::time::Duration,
    /// Clip generations rendered at once (each one ffmpeg process).
    pub render_workers: usize,
    /// Unfinished clip generations an organisation may have queued; more are refused (429).
    pub max_queued_generations: usize,
    /// Signals uploads read at once; more are refused (503).
    pub max_uploads: usize,
    /// The service's own files and directories (database, keys, indexes, the data directory when
    /// it lies under the media root): never read as media, whatever `file_uri` says.
    pub private_paths: Vec<PathBuf>,
    /// The pretrained models' directory (`kino models fetch`); `None` runs without models (the
    /// spectral speech detector, the lexical text encoder, no embeddings from media).
    pub models_dir: Option<PathBuf>,
}

impl Config {
    /// Everything under one directory with the service's defaults (1000 portal requests per hour,
    /// 30 s webhook timeout, no admin API, webhooks to public HTTPS hosts only); for tests and
    /// embedding. Change fields with struct update syntax.
    pub fn in_dir(dir: &std::path::Path) -> Config {
        Config {
            media_root: dir.to_path_buf(),
            index_dir: dir.join("indexes"),
            token_key: dir.join("token.key"),
            secrets_key: dir.join("secrets.key"),
            rate_limit_per_hour: 1000,
            bucket_root: dir.join("bucket"),
            object_store: None,
            admin_token: None,
            media_base_url: "/media".into(),
            webhook_allow_loopback: false,
            webhook_timeout: crate::webhooks::DEFAULT_TIMEOUT,
            webhook_lease: crate::webhooks::DEFAULT_LEASE,
            process_lease: crate::liveness::DEFAULT_PROCESS_LEASE,
            webhook_log_days: 30,
            webhook_ca_pem: None,
            render_workers: crate::render::default_render_workers(),
            max_queued_generations: DEFAULT_MAX_QUEUED_GENERATIONS,
            max_uploads: DEFAULT_MAX_UPLOADS,
            private_paths: [
                "kino.sqlite3",
                "kino.sqlite3-wal",
                "kino.sqlite3-shm",
                "token.key",
                "secrets.key",
                "indexes",
            ]
            .iter()
            .map(|name| dir.join(name))
            .collect(),
            models_dir: None,
        }
    }
}

/// The default of [`Config::max_uploads`].
pub const DEFAULT_MAX_UPLOADS: usize = 4;

/// The default of [`Config::max_queued_generations`].
pub const DEFAULT_MAX_QUEUED_GENERATIONS: usize = 20;

/// Cheap to clone: everything behind `Arc`s.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The database.
    pub store: Arc<Store>,
    /// Prepared signals by (organisation, item), built on first use ([`crate::signals`]).
    pub signals: Arc<crate::signals::SignalsCache>,
    /// The organisations' vector indexes (segments kept current item by item).
    pub indexes: Arc<crate::indexes::Indexes>,
    /// The pretrained models, the query encoder and the analyses in progress.
    pub analysis: Arc<Analysis>,
    /// Settings.
    pub config: Arc<Config>,
    /// Wakes the workers, the renderers and the webhook dispatcher.
    pub wake: Arc<Wakes>,
    /// Keys of the access tokens and of the secrets stored in the database.
    pub keys: Arc<Keys>,
    /// What bounds clients: portal request counters, upload slots, sign-in throttling.
    pub guards: Arc<Guards>,
    /// Smartlist membership refreshes.
    pub refresher: Arc<crate::portal::smartlists::Refresher>,
    /// Where rendered files are published and read ([`crate::bucket`]).
    pub bucket: Arc<crate::bucket::Bucket>,
}

/// The pretrained models, the query encoder and the media analyses in progress.
#[derive(Debug)]
pub struct Analysis {
    /// The pretrained models media analysis uses (each may be missing), loaded once per process.
    pub models: Arc<kino_media::AnalysisModels>,
    /// The text encoder of search queries: the sentence model in the scene space when it is
    /// loaded, else the lexical encoder.
    pub encoder: Arc<dyn TextEncoder>,
    /// Media analyses in progress: fraction done by (organisation, item).
    pub progress: RwLock<HashMap<(OrgId, String), f64>>,
}

impl Analysis {
    /// The analysis context of `models`: their query encoder, nothing in progress.
    pub fn new(models: Arc<kino_media::AnalysisModels>) -> Analysis {
        Analysis { encoder: models.scene_text_encoder(), models, progress: RwLock::default() }
    }

    /// How far the media analysis of an item has come (0 to 1), while one runs.
    pub fn progress(&self, org: OrgId, item_id: &str) -> Option<f64> {
        self.progress.read().unwrap_or_else(|e| e.into_inner()).get(&(org, item_id.to_string())).copied()
    }
}

/// What wakes the background loops when work is queued.
#[derive(Debug, Default)]
pub struct Wakes {
    /// The processing workers (tasks queued).
    pub workers: Arc<Notify>,
    /// The renderers (a clip generation queued).
    pub renderers: Arc<Notify>,
    /// The webhook dispatcher (deliveries queued).
    pub webhooks: Arc<Notify>,
}

/// Keys the service holds.
#[derive(Debug)]
pub struct Keys {
    /// Keys of the access tokens.
    pub tokens: crate::identity::TokenKeys,
    /// Seals and opens secrets stored in the database.
    pub secrets: crate::secrets::SecretBox,
}

/// What bounds what clients may do at once or per hour.
#[derive(Debug)]
pub struct Guards {
    /// Portal request counters.
    pub limiter: crate::ratelimit::RateLimiter,
    /// Slots for signals uploads being read ([`Config::max_uploads`]).
    pub uploads: Arc<tokio::sync::Semaphore>,
    /// Failed sign-ins to the web application by address ([`crate::web::account`]).
    pub sign_ins: crate::web::account::Throttle,
}

impl AppState {
    /// State over an opened store; creates the token and secrets key files when absent, and
    /// seals webhook secrets stored in plain text by an older version.
    pub fn new(store: Store, config: Config) -> std::io::Result<AppState> {
        let tokens = crate::identity::TokenKeys::load_or_create(&config.token_key)?;
        let secrets = crate::secrets::SecretBox::load_or_create(&config.secrets_key)?;
        seal_plain_secrets(&store, &secrets).map_err(std::io::Error::other)?;
        let models = Arc::new(match &config.models_dir {
            Some(dir) => kino_media::AnalysisModels::load(&kino_models::ModelsDir::at(dir), text_threads()),
            None => kino_media::AnalysisModels::none(),
        });
        for state in models.states() {
            match &state.reason {
                None => tracing::info!(model = %state.label(), "model loaded"),
                Some(reason) if config.models_dir.is_some() => {
                    tracing::warn!(model = %state.label(), %reason, "model missing")
                }
                Some(_) => {}
            }
        }
        let bucket = Arc::new(
            crate::bucket::Bucket::open(&config.bucket_root, config.object_store.as_deref())
                .map_err(std::io::Error::other)?,
        );
        Ok(AppState {
            analysis: Arc::new(Analysis::new(models)),
            keys: Arc::new(Keys { tokens, secrets }),
            guards: Arc::new(Guards {
                limiter: crate::ratelimit::RateLimiter::new(config.rate_limit_per_hour, 3600),
                uploads: Arc::new(tokio::sync::Semaphore::new(config.max_uploads.max(1))),
                sign_ins: Default::default(),
            }),
            store: Arc::new(store),
            signals: Arc::default(),
            indexes: Arc::new(crate::indexes::Indexes::new(config.index_dir.clone()).shared_through(bucket.clone())),
            wake: Arc::default(),
            refresher: Arc::default(),
            bucket,
            config: Arc::new(config),
        })
    }
}

/// Seals the webhook secrets an older version stored in plain text.
fn seal_plain_secrets(store: &Store, secrets: &crate::secrets::SecretBox) -> Result<(), crate::store::StoreError> {
    let plain: Vec<(String, String)> = store
        .webhook_secrets()?
        .into_iter()
        .filter(|(_, s)| !crate::secrets::SecretBox::is_sealed(s))
        .map(|(id, s)| (id, secrets.seal(&s)))
        .collect();
    if !plain.is_empty() {
        store.set_webhook_secrets(&plain)?;
        tracing::info!(count = plain.len(), "webhook signing secrets sealed at rest");
    }
    Ok(())
}

/// Re-seals every stored secret under a new key and drops the old one (`kino-server admin
/// rotate-secrets-key`); safe to run again after a crash (the old key stays until every secret
/// is re-sealed). Returns how many secrets were re-sealed.
pub fn rotate_secrets_key(store: &Store, key_file: &std::path::Path) -> Result<usize, String> {
    crate::secrets::SecretBox::load_or_create(key_file).map_err(|e| e.to_string())?;
    let rotating = crate::secrets::SecretBox::begin_rotation(key_file).map_err(|e| e.to_string())?;
    let mut resealed = Vec::new();
    for (id, stored) in store.webhook_secrets().map_err(|e| e.to_string())? {
        let plain = rotating.open(&stored).map_err(|e| format!("webhook {id}: {e}"))?;
        resealed.push((id, rotating.seal(&plain)));
    }
    store.set_webhook_secrets(&resealed).map_err(|e| e.to_string())?;
    rotating.finish_rotation(key_file).map_err(|e| e.to_string())?;
    Ok(resealed.len())
}

pub use crate::indexes::Collection;

/// Cores of the sentence model: every core, one session each, so that as many queries are
/// encoded at once (`kino_media::embed::SceneSpace`).
fn text_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
