//! kino-store: the service's storage, the only crate that speaks SQL. An embedded SQLite database
//! (WAL mode, the default) or a PostgreSQL server shared by several processes, behind one narrow
//! interface of domain operations ([`Store`]); the SQL is written once for both (see [`db`]).
//!
//! It knows nothing of HTTP or of the domain above it (kino-service) and the server above that
//! (kino-server): the compiler keeps that direction. What it stores in its own words comes with
//! it: the interface's enums stored as text ([`vocabulary`], [`portal::kinds`]), random
//! identifiers ([`ids`]), what a `Debug` shows for a secret ([`redacted`]), and the private file
//! modes of the database's files ([`private`]).

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

        impl $crate::db::ToValue for $t {
            fn to_value(&self) -> $crate::db::Value {
                $crate::db::Value::Text(self.as_str().to_string())
            }
        }

        impl $crate::db::FromValue for $t {
            fn from_value(value: &$crate::db::Value) -> Result<Self, String> {
                match value {
                    $($crate::db::Value::Text(s) if s == $name => Ok($t::$variant),)+
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
pub mod portal;
mod tasks;
mod types;
mod users;
mod vectors;
mod webhooks;

pub mod ids;
pub mod private;
pub mod redacted;
pub mod vocabulary;

pub use backend::{POSTGRES_POOL, READERS, Store, StoreError, StoreResult, check_postgres_url, is_postgres_url};
pub use generations::{ClaimedGeneration, GenerationRow, NewGeneration, Queued, RenderState};
pub use items::ItemRow;
pub use jobs::{Job, JobState};
pub use leases::Lease;
pub use portal::{CreativeAssetRow, CreativeAssetStatus, RecipeRow, RecipeStatus, SmartlistRow};
pub use tasks::{ResultRow, ResultStatus, TaskRow};
pub use types::{OrgId, Write, millis, now, now_ms};
pub use users::{SessionRow, UserRow};
pub use vectors::ResultStamp;
pub use webhooks::{ByHand, ClaimedDelivery, DeliveryOutcome, DeliveryRow, DeliveryState, Outgoing, WebhookRow};
