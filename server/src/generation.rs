//! Media generation, as a domain: a clip or thumbnail search with `trigger_generation` queues the
//! rendering of what it chose, durably, for catalogs where generation is on; the renderers
//! ([`crate::render`]) claim it; its status is readable once it has finished. An identical
//! request still queued or rendering is the same generation. Errors are the domain's own
//! ([`GenerationError`]); the routes turn them into HTTP answers.

use serde_json::Value;

use crate::render::GenerationRequest;
use crate::state::AppState;
use crate::store::{NewGeneration, OrgId, Queued, RenderState, StoreError};

/// Why a generation could not be queued or read.
#[derive(Debug, thiserror::Error)]
pub enum GenerationError {
    /// Media generation is off for the catalog (the default).
    #[error("media asset generation is not enabled for catalog {0:?}")]
    NotEnabled(String),
    /// The organisation has as many unfinished generations as it may.
    #[error("too many clip generations queued for this organisation (at most {0}); try again when some have finished")]
    QueueFull(usize),
    /// No finished generation of that id (it may still be queued or rendering).
    #[error("generation {0:?} is not finished or does not exist")]
    NotFinished(String),
    /// The request could not be stored.
    #[error("the generation request cannot be stored: {0}")]
    Unstorable(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How a generation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
    /// Every file was rendered; the files, as stored.
    Success(Option<Value>),
    /// Rendering failed; why.
    Failed(String),
}

/// Refuses generation for a catalog where it is not on.
pub fn require_enabled(state: &AppState, org: OrgId, catalog: &str) -> Result<(), GenerationError> {
    if state.store.catalog_generation(org, catalog)? {
        Ok(())
    } else {
        Err(GenerationError::NotEnabled(catalog.to_string()))
    }
}

/// Queues the rendering of `request` for `item_id`, or finds an identical generation still queued
/// or rendering; its id.
pub fn queue(
    state: &AppState,
    org: OrgId,
    item_id: &str,
    request: GenerationRequest,
) -> Result<String, GenerationError> {
    let fingerprint = request.fingerprint(item_id);
    let gen_id = crate::auth::random_hex(16);
    let request = serde_json::to_value(&request).map_err(|e| GenerationError::Unstorable(e.to_string()))?;
    let new = NewGeneration { id: &gen_id, item_id, request: &request, fingerprint: &fingerprint };
    match state.store.queue_generation(org, &new, state.config.max_queued_generations)? {
        Queued::New => {
            crate::changes::queued(state, crate::changes::Queued::Generation);
            Ok(gen_id)
        }
        Queued::Existing(id) => Ok(id),
        Queued::Full => Err(GenerationError::QueueFull(state.config.max_queued_generations)),
    }
}

/// How the generation `gen_id` ended; [`GenerationError::NotFinished`] until it has.
pub fn finished(state: &AppState, org: OrgId, gen_id: &str) -> Result<Finished, GenerationError> {
    match state.store.generation(org, gen_id)? {
        Some(g) if g.state == RenderState::Success => Ok(Finished::Success(g.data)),
        Some(g) if g.state == RenderState::Failed => Ok(Finished::Failed(g.error)),
        _ => Err(GenerationError::NotFinished(gen_id.to_string())),
    }
}
