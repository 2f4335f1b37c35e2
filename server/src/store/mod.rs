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
mod credentials;
pub mod db;
mod generations;
mod items;
mod jobs;
mod leases;
pub mod migrations;
mod orgs;
mod portal;
mod tasks;
mod users;
mod vectors;
mod webhooks;

pub use backend::{POSTGRES_POOL, READERS, Store, StoreError, StoreResult, is_postgres_url};
pub use generations::{ClaimedGeneration, GenerationRow, NewGeneration, Queued, RenderState};
pub use items::ItemRow;
pub use jobs::{Job, JobState};
pub use leases::Lease;
pub use portal::{CreativeAssetRow, CreativeAssetStatus, RecipeRow, RecipeStatus, SmartlistRow};
pub use tasks::{ResultRow, ResultStatus, TaskRow};
pub use users::{SessionRow, UserRow};
pub use vectors::ResultStamp;
pub use webhooks::{ClaimedDelivery, DeliveryOutcome, DeliveryRow, DeliveryState, Outgoing, WebhookRow};

/// An organisation's identity, resolved from a credential.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct OrgId(pub i64);

/// Whether a write creates a row or changes one that must still exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    Insert,
    Update,
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
