//! Storage: the only module that speaks SQL. An embedded SQLite database (WAL mode, the default)
//! or a PostgreSQL server shared by several processes, behind one narrow interface of domain
//! operations ([`Store`]); the SQL is written once for both (see [`db`]).

/// A state stored as text: its name in the database (`as_str`), and the column conversions, which
/// refuse a name the enum does not know rather than guess.
macro_rules! text_enum {
    ($t:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $t {
            /// Its name in the database and the interface.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($t::$variant => $name),+
                }
            }
        }

        impl $crate::store::db::ToValue for $t {
            fn to_value(&self) -> $crate::store::db::Value {
                $crate::store::db::Value::Text(self.as_str().to_string())
            }
        }

        impl $crate::store::db::FromValue for $t {
            fn from_value(value: &$crate::store::db::Value) -> Result<Self, String> {
                match value {
                    $($crate::store::db::Value::Text(s) if s == $name => Ok($t::$variant),)+
                    other => Err(format!("unknown {} {other:?}", stringify!($t))),
                }
            }
        }
    };
}

mod backend;
pub mod db;
mod leases;
pub mod migrations;
mod portal;
mod records;
mod users;
mod vectors;
mod webhooks;

pub use backend::{POSTGRES_POOL, READERS, Store, StoreError, StoreResult, is_postgres_url};
pub use leases::Lease;
pub use portal::{CreativeAssetRow, CreativeAssetStatus, RecipeRow, RecipeStatus, SmartlistRow};
pub use users::{SessionRow, UserRow};
pub use vectors::ResultStamp;
pub use webhooks::{ClaimedDelivery, DeliveryOutcome, DeliveryRow, DeliveryState, Outgoing, WebhookRow};

/// An organisation's identity, resolved from a credential.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct OrgId(pub i64);

/// A stored catalog item.
#[derive(Debug, Clone)]
pub struct ItemRow {
    /// Customer id.
    pub id: String,
    /// The service's own id.
    pub service_id: String,
    /// `standalone`, `series`, `season` or `episode`.
    pub item_type: String,
    /// The item as last upserted (JSON).
    pub body: serde_json::Value,
    /// Whether the item is deleted.
    pub deleted: bool,
}

impl ItemRow {
    /// A field of the item's `episodic_info` (else `extended_episodic_info`), e.g. `season_id`;
    /// `None` when neither has it (or it is `null`).
    pub fn episodic(&self, key: &str) -> Option<&serde_json::Value> {
        ["episodic_info", "extended_episodic_info"].iter().find_map(|k| self.body[*k].get(key).filter(|v| !v.is_null()))
    }

    /// An integer field of its episodic information (`season_number`, `episode_number`).
    pub fn episodic_number(&self, key: &str) -> Option<i64> {
        self.episodic(key).and_then(serde_json::Value::as_i64)
    }
}

/// A stored task.
#[derive(Debug, Clone)]
pub struct TaskRow {
    /// Product name.
    pub product: String,
    /// Product version.
    pub version: String,
    /// Whether the task is active.
    pub active: bool,
}

/// A stored result of (item, product, version).
#[derive(Debug, Clone)]
pub struct ResultRow {
    /// Customer item id.
    pub item_id: String,
    /// Product version.
    pub version: String,
    /// Whether the product was computed.
    pub status: ResultStatus,
    /// Error text (empty on success).
    pub error: String,
    /// The product payload.
    pub data: Option<serde_json::Value>,
    /// RFC 3339 time of the result.
    pub updated_at: String,
    /// The pretrained models whose channels the result was computed from, `id@version` joined by
    /// `+` (empty: none, e.g. signals from a sidecar or the model-free analysis).
    pub models: String,
}

impl ResultRow {
    /// The `version_id` the interface reports: the product version, then `+` and the models that
    /// produced the result when there are any, e.g. `1.0.1+silero-vad@6.2.3+all-minilm-l6-v2@1.0.0`.
    pub fn version_id(&self) -> String {
        if self.models.is_empty() { self.version.clone() } else { format!("{}+{}", self.version, self.models) }
    }
}

/// Whether a write creates a row or changes one that must still exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    Insert,
    Update,
}

/// The state of a job in the processing queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Ready to run.
    Pending,
    /// Claimed by a worker until its lease expires (stored as `rerun` when reprocessing was
    /// requested meanwhile: the job runs again after this run).
    Running,
    /// Waiting for the item's signals.
    Waiting,
}

impl JobState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            JobState::Pending => "pending",
            JobState::Running => "running",
            JobState::Waiting => "waiting",
        }
    }
    pub(crate) fn parse(s: &str) -> JobState {
        match s {
            "running" | "rerun" => JobState::Running,
            "waiting" => JobState::Waiting,
            _ => JobState::Pending,
        }
    }
}

/// How a job ended: the status of its stored result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResultStatus {
    /// Computed; the result holds the product's payload.
    Success,
    /// Not computed; the result's error says why.
    Failed,
}

text_enum! {
    ResultStatus {
        Success => "success",
        Failed => "failed",
    }
}

/// A claimed job.
#[derive(Debug, Clone)]
pub struct Job {
    /// Owner.
    pub org: OrgId,
    /// Customer item id.
    pub item_id: String,
    /// Product.
    pub product: String,
    /// Product version.
    pub version: String,
}

/// A generation request to queue.
#[derive(Debug, Clone)]
pub struct NewGeneration<'a> {
    /// The generation id (`gen_id`).
    pub id: &'a str,
    /// The item whose video is rendered.
    pub item_id: &'a str,
    /// What to render (the clips' spans, orientation, version), kept to render after a restart.
    pub request: &'a serde_json::Value,
    /// Identifies identical requests (item and request), which share one generation.
    pub fingerprint: &'a str,
}

/// The outcome of [`Store::queue_generation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Queued {
    /// Queued under the new id.
    New,
    /// An identical request is queued or rendering under this id.
    Existing(String),
    /// The organisation has too many unfinished generations.
    Full,
}

/// A generation claimed for rendering.
#[derive(Debug, Clone)]
pub struct ClaimedGeneration {
    /// The generation id.
    pub id: String,
    /// Its organisation.
    pub org: OrgId,
    /// The item.
    pub item_id: String,
    /// The stored request.
    pub request: serde_json::Value,
}

/// Where a media generation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderState {
    /// Queued.
    Pending,
    /// Claimed by a renderer.
    Rendering,
    /// Every file was rendered.
    Success,
    /// Rendering failed.
    Failed,
}

text_enum! {
    RenderState {
        Pending => "pending",
        Rendering => "rendering",
        Success => "SUCCESS",
        Failed => "FAILED",
    }
}

/// A media generation request.
#[derive(Debug, Clone)]
pub struct GenerationRow {
    /// Where it stands.
    pub state: RenderState,
    /// Why it failed.
    pub error: String,
    /// The generation status data.
    pub data: Option<serde_json::Value>,
}

/// Now in milliseconds since the epoch, as leases count.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A duration in milliseconds, as leases count (saturating).
pub fn millis(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Now, as stored: RFC 3339 UTC with milliseconds.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
