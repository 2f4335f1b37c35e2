//! Shared state: the store, a cache of prepared signals, the text encoder, configuration.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use kino::TextEncoder;
use tokio::sync::Notify;

use crate::store::{OrgId, Store};

pub use crate::config::{Config, DEFAULT_MAX_QUEUED_GENERATIONS, DEFAULT_MAX_UPLOADS};

/// The service's shared state as the routes hold it: one `Arc`, so that handing it to a request's
/// extractors and handlers costs one reference count.
pub type AppState = Arc<Services>;

/// What the service shares among requests and background loops. Each part is behind its own
/// `Arc` too, so that the long-lived parts ([`crate::contexts`]) take only what they use.
#[derive(Debug, Clone)]
pub struct Services {
    /// The database.
    pub store: Arc<Store>,
    /// Prepared signals by (organisation, item), built on first use ([`crate::signals`]).
    pub signals: Arc<crate::signals::cache::SignalsCache>,
    /// The pretrained models, the query encoder and the analyses in progress.
    pub analysis: Arc<Analysis>,
    /// Settings.
    pub config: Arc<Config>,
    /// What a change sets off: the vector indexes, smartlist refreshes, the wake-ups of the
    /// background loops ([`crate::changes`]).
    pub effects: Arc<crate::changes::Effects>,
    /// Keys of the access tokens and of the secrets stored in the database.
    pub keys: Arc<Keys>,
    /// What bounds clients: portal request counters, upload slots, sign-in throttling.
    pub guards: Arc<Guards>,
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
    /// Admission of picture searches (each runs the image classifier): twice the cores at once,
    /// so their models and bodies stay bounded whatever the callers send.
    pub pictures: Arc<tokio::sync::Semaphore>,
}

impl Analysis {
    /// The analysis context of `models`: their query encoder, nothing in progress.
    pub fn new(models: Arc<kino_media::AnalysisModels>) -> Analysis {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        Analysis {
            encoder: models.scene_text_encoder(),
            models,
            progress: RwLock::default(),
            pictures: Arc::new(tokio::sync::Semaphore::new(2 * cores)),
        }
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
    pub tokens: crate::identity::keys::TokenKeys,
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
    /// Failed sign-ins to the web application by address and by source ([`crate::throttle`]).
    pub sign_ins: crate::throttle::Throttle,
    /// Slots for password hashes and checks ([`Config::password_slots`],
    /// the web application's `with_password_slot`).
    pub passwords: Arc<tokio::sync::Semaphore>,
}

impl Services {
    /// State over an opened store; creates the token and secrets key files when absent, and
    /// seals webhook secrets stored in plain text by an older version.
    pub fn open(store: Store, config: Config) -> std::io::Result<AppState> {
        let tokens = crate::identity::keys::TokenKeys::load_or_create(&config.token_key)?;
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
        Ok(Arc::new(Services {
            analysis: Arc::new(Analysis::new(models)),
            keys: Arc::new(Keys { tokens, secrets }),
            guards: Arc::new(Guards {
                limiter: crate::ratelimit::RateLimiter::new(config.rate_limit_per_hour, 3600),
                uploads: Arc::new(tokio::sync::Semaphore::new(config.max_uploads.max(1))),
                sign_ins: crate::throttle::Throttle::new(config.sign_in_failures_per_source),
                passwords: Arc::new(tokio::sync::Semaphore::new(config.password_slots.max(1))),
            }),
            store: Arc::new(store),
            signals: Arc::new(crate::signals::cache::SignalsCache::with_budget(config.signals_cache_bytes)),
            effects: Arc::new(crate::changes::Effects {
                indexes: Arc::new(
                    crate::indexes::Indexes::new(config.index_dir.clone()).shared_through(bucket.clone()),
                ),
                refresher: Arc::default(),
                wake: Arc::default(),
            }),
            bucket,
            config: Arc::new(config),
        }))
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
