//! The domain's errors: a validation problem in pydantic's shape ([`Detail`], which the server
//! answers as a 422), and the failures of domain work ([`ServiceError`]), each of which the server
//! maps to one answer.

use serde_json::Value;

use crate::store::StoreError;

/// One validation problem, in pydantic's shape.
#[derive(Debug, Clone)]
pub struct Detail {
    /// pydantic error type (`missing`, `int_parsing`, ...).
    pub kind: String,
    /// Location, e.g. `["query", "page_size"]`.
    pub loc: Vec<String>,
    /// The message.
    pub msg: String,
    /// The offending input.
    pub input: Value,
    /// Rule parameters.
    pub ctx: Value,
}

impl Detail {
    /// A problem with a query parameter.
    pub fn query(name: &str, kind: &str, msg: impl Into<String>, input: Value, ctx: Value) -> Detail {
        Detail { kind: kind.into(), loc: vec!["query".into(), name.into()], msg: msg.into(), input, ctx }
    }
}

/// Why domain work failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// What was asked for does not exist (or belongs to another organisation: indistinguishable
    /// on purpose); the server answers 404.
    #[error("{0}")]
    NotFound(String),
    /// The database failed (500).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The core refused or failed (a query's problems, a text encoder's failure).
    #[error(transparent)]
    Kino(#[from] kino::Error),
    /// Stored signals could not be read or used.
    #[error(transparent)]
    Signals(#[from] crate::signals::SignalsError),
    /// A vector index could not be read or searched.
    #[error(transparent)]
    Search(#[from] crate::indexes::SearchError),
}

impl ServiceError {
    /// The not-found of an item.
    pub fn item_not_found(id: &str) -> ServiceError {
        ServiceError::NotFound(format!("item {id:?} not found"))
    }
}
