//! The service's settings and their defaults (a leaf module).

use std::path::PathBuf;
use std::time::Duration;

/// The default of [`Config::signals_cache_bytes`]: 512 MiB, a few thousand feature-length titles
/// ([`crate::signals::cache`]).
pub const DEFAULT_SIGNALS_CACHE_BYTES: usize = 512 << 20;

/// The default of [`Config::sign_in_failures_per_source`]: failed sign-ins from one source (an
/// IPv4 address, an IPv6 /64) within [`crate::throttle::FAILURE_WINDOW`] after which it is
/// refused until the window has passed.
pub const DEFAULT_MAX_SOURCE_FAILURES: u32 = 50;

/// The default of [`Config::password_slots`]: how many password hashes and checks run at once
/// (the number of cores). Each argon2id run holds 19 MiB and a core for some tens of milliseconds.
pub fn default_password_slots() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Settings the handlers and workers need. Its `Debug` shows every field but the admin token.
#[derive(Clone)]
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
    /// Webhook delivery timeout ([`DEFAULT_WEBHOOK_TIMEOUT`], 30 s, in service).
    pub webhook_timeout: std::time::Duration,
    /// How long the webhook dispatcher's lease lasts without renewal: among processes sharing
    /// the database one dispatches, and another takes over this long after it dies.
    pub webhook_lease: std::time::Duration,
    /// How long this process's lease lasts without renewal: what it claimed (jobs, renders,
    /// recipe runs) is recovered by the others this long after it dies
    /// ([`crate::jobs::liveness`]).
    pub process_lease: std::time::Duration,
    /// Clip generations rendered at once (each one ffmpeg process).
    pub render_workers: usize,
    /// Unfinished clip generations an organisation may have queued; more are refused (429).
    pub max_queued_generations: usize,
    /// Signals uploads read at once; more are refused (503).
    pub max_uploads: usize,
    /// Bytes of prepared signals kept in memory; past them the least recently used are evicted
    /// ([`crate::signals::cache`]).
    pub signals_cache_bytes: usize,
    /// Password hashes and checks (argon2id, 19 MiB each) run at once; more wait for a slot.
    pub password_slots: usize,
    /// Failed sign-ins from one source (an IPv4 address, an IPv6 /64) within the 15-minute
    /// window after which it is refused until the window has passed; 0: no per-source limit.
    pub sign_in_failures_per_source: u32,
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
            webhook_timeout: DEFAULT_WEBHOOK_TIMEOUT,
            webhook_lease: DEFAULT_WEBHOOK_LEASE,
            process_lease: DEFAULT_PROCESS_LEASE,
            webhook_log_days: 30,
            webhook_ca_pem: None,
            render_workers: default_render_workers(),
            max_queued_generations: DEFAULT_MAX_QUEUED_GENERATIONS,
            max_uploads: DEFAULT_MAX_UPLOADS,
            signals_cache_bytes: DEFAULT_SIGNALS_CACHE_BYTES,
            password_slots: default_password_slots(),
            sign_in_failures_per_source: DEFAULT_MAX_SOURCE_FAILURES,
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

impl std::fmt::Debug for Config {
    /// Every field, the admin token redacted. The pattern names every field, so that a new one
    /// is a compile error here until it is shown or redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Config {
            media_root,
            index_dir,
            token_key,
            secrets_key,
            rate_limit_per_hour,
            bucket_root,
            object_store,
            admin_token,
            media_base_url,
            webhook_allow_loopback,
            webhook_ca_pem,
            webhook_log_days,
            webhook_timeout,
            webhook_lease,
            process_lease,
            render_workers,
            max_queued_generations,
            max_uploads,
            signals_cache_bytes,
            password_slots,
            sign_in_failures_per_source,
            private_paths,
            models_dir,
        } = self;
        f.debug_struct("Config")
            .field("media_root", media_root)
            .field("index_dir", index_dir)
            .field("token_key", token_key)
            .field("secrets_key", secrets_key)
            .field("rate_limit_per_hour", rate_limit_per_hour)
            .field("bucket_root", bucket_root)
            .field("object_store", object_store)
            .field("admin_token", &admin_token.as_ref().map(|_| crate::redacted::Redacted))
            .field("media_base_url", media_base_url)
            .field("webhook_allow_loopback", webhook_allow_loopback)
            .field("webhook_ca_pem", &webhook_ca_pem.as_ref().map(Vec::len))
            .field("webhook_log_days", webhook_log_days)
            .field("webhook_timeout", webhook_timeout)
            .field("webhook_lease", webhook_lease)
            .field("process_lease", process_lease)
            .field("render_workers", render_workers)
            .field("max_queued_generations", max_queued_generations)
            .field("max_uploads", max_uploads)
            .field("signals_cache_bytes", signals_cache_bytes)
            .field("password_slots", password_slots)
            .field("sign_in_failures_per_source", sign_in_failures_per_source)
            .field("private_paths", private_paths)
            .field("models_dir", models_dir)
            .finish()
    }
}

/// The default of [`Config::max_uploads`].
pub const DEFAULT_MAX_UPLOADS: usize = 4;

/// The default of [`Config::max_queued_generations`].
pub const DEFAULT_MAX_QUEUED_GENERATIONS: usize = 20;

/// The default webhook delivery timeout: 30 s.
pub const DEFAULT_WEBHOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// The default of [`Config::webhook_lease`]: 30 s.
pub const DEFAULT_WEBHOOK_LEASE: Duration = Duration::from_secs(30);

/// The default of [`Config::process_lease`]: 30 s.
pub const DEFAULT_PROCESS_LEASE: Duration = Duration::from_secs(30);

/// The default number of concurrent renders: half the cores (ffmpeg itself is multi-threaded),
/// at least one.
pub fn default_render_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}
