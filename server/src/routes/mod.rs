//! HTTP handlers, one module per interface group, and the envelopes they share.

pub mod adbreaks;
pub mod admin;
pub mod analysis;
pub mod caller;
pub mod catalog;
pub mod characters;
pub mod envelope;
pub mod fingerprints;
pub mod markers;
pub mod media;
pub mod oauth;
pub mod portal;
pub mod portal_error;
pub mod previews;
pub mod results;
pub mod search;
pub mod service;
pub mod tasks;
pub mod thumbnails;
pub mod tokens;

pub use envelope::{ResultEnvelope, ResultList, StatusEnvelope};

pub use caller::{ApiCaller, ApiCredential};

use crate::error::AppError;
use crate::state::AppState;
use crate::store::{ItemRow, OrgId};

pub use crate::blocking::blocking;

impl From<crate::signals::SignalsError> for AppError {
    fn from(e: crate::signals::SignalsError) -> Self {
        match e {
            crate::signals::SignalsError::Store(e) => e.into(),
            crate::signals::SignalsError::Invalid(e) => e.into(),
            crate::signals::SignalsError::Consequence(e) => e.into(),
            unreadable @ crate::signals::SignalsError::Unreadable { .. } => AppError::Internal(unreadable.to_string()),
        }
    }
}

/// A live (not deleted) item of the organisation, or 404.
pub fn live_item(state: &AppState, org: OrgId, id: &str) -> Result<ItemRow, AppError> {
    match state.store.item(org, id)? {
        Some(item) if !item.deleted => Ok(item),
        _ => Err(AppError::item_not_found(id)),
    }
}
