//! An item's signals, as a domain: stored in the database in their binary form, prepared for
//! clip selection once and kept in a cache, replaced by a new upload or analysis (which queues the
//! work that depends on them: the season's markers, the jobs waiting for signals, the smartlists).
//! Every store bumps the signals' version in the database, and a cached entry is used only while
//! its version is the stored one: a replica sees signals another process stored at its next read.
//! Errors are the domain's own ([`SignalsError`]); the routes turn them into HTTP answers.

use std::sync::Arc;

use kino::{Prepared, Signals};

use crate::changes::{Change, Effects};
use crate::store::{OrgId, Store, StoreError};

pub mod cache;
pub use cache::SignalsCache;

/// The largest signals document read, uploaded or as a sidecar file (the default request limit
/// of 2 MiB is below a two-hour title with scene embeddings; 64 MiB holds several hours).
pub const MAX_SIGNALS_BYTES: usize = 64 * 1024 * 1024;

/// Why signals could not be read or stored.
#[derive(Debug, thiserror::Error)]
pub enum SignalsError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored signals of an item cannot be read back (a damaged row).
    #[error("stored signals of {id:?} are unreadable: {reason}")]
    Unreadable {
        /// The item.
        id: String,
        /// What was wrong.
        reason: String,
    },
    /// The signals break the rules of a signals document.
    #[error(transparent)]
    Invalid(#[from] kino::Error),
    /// What follows the store (the vector indexes) failed; the signals are stored.
    #[error(transparent)]
    Consequence(#[from] crate::indexes::SearchError),
}

/// The prepared signals of an item, when it has any.
pub fn prepared(
    store: &Store,
    cache: &SignalsCache,
    org: OrgId,
    item_id: &str,
) -> Result<Option<Arc<Prepared>>, SignalsError> {
    let version = store.signals_version(org, item_id)?;
    prepared_at(store, cache, org, item_id, version)
}

/// The prepared signals of an item whose stored signals' version was just read (`None`: it has
/// none): from the cache while that version is cached, else read and prepared.
pub fn prepared_at(
    store: &Store,
    cache: &SignalsCache,
    org: OrgId,
    item_id: &str,
    version: Option<i64>,
) -> Result<Option<Arc<Prepared>>, SignalsError> {
    let Some(version) = version else { return Ok(None) };
    if let Some(p) = cache.get(org, item_id, version) {
        return Ok(Some(p));
    }
    let Some((bytes, version)) = store.signals(org, item_id)? else { return Ok(None) };
    let unreadable = |reason: String| SignalsError::Unreadable { id: item_id.to_string(), reason };
    let signals = Signals::from_binary(&bytes).map_err(|e| unreadable(e.to_string()))?;
    let prepared = Arc::new(Prepared::new(signals).map_err(|e| unreadable(e.to_string()))?);
    cache.insert(org, item_id, version, prepared.clone());
    Ok(Some(prepared))
}

/// `read` applied to an item's stored signals, when it has any: to the cached document while its
/// stored version is cached, else to the stored one decoded for this call alone (neither prepared
/// nor cached, and dropped on return). A season's markers read every episode this way, keeping
/// only what `read` returns of each.
pub fn read_with<T>(
    store: &Store,
    cache: &SignalsCache,
    org: OrgId,
    item_id: &str,
    read: impl FnOnce(&Signals) -> T,
) -> Result<Option<T>, SignalsError> {
    let Some(version) = store.signals_version(org, item_id)? else { return Ok(None) };
    if let Some(p) = cache.get(org, item_id, version) {
        return Ok(Some(read(p.signals())));
    }
    let Some((bytes, _)) = store.signals(org, item_id)? else { return Ok(None) };
    let signals = Signals::from_binary(&bytes)
        .map_err(|e| SignalsError::Unreadable { id: item_id.to_string(), reason: e.to_string() })?;
    drop(bytes);
    Ok(Some(read(&signals)))
}

/// Stores an item's signals (an upload, or a finished analysis) and refreshes the cache, then
/// applies what follows ([`crate::changes::Change::Signals`]).
pub fn put(
    store: &Store,
    cache: &SignalsCache,
    fx: &Effects,
    org: OrgId,
    item_id: &str,
    signals: Signals,
) -> Result<(), SignalsError> {
    put_as(store, cache, fx, org, item_id, signals, false)
}

/// Stores the fast pass of an item's media analysis (speech recognition still to come): the
/// products that do not read the speech stage's channels can be computed from it meanwhile.
pub fn put_fast(
    store: &Store,
    cache: &SignalsCache,
    fx: &Effects,
    org: OrgId,
    item_id: &str,
    signals: Signals,
) -> Result<(), SignalsError> {
    put_as(store, cache, fx, org, item_id, signals, true)
}

/// [`put`] (`partial` false) or [`put_fast`] (true): the signals stored and cached prepared,
/// then what follows applied.
fn put_as(
    store: &Store,
    cache: &SignalsCache,
    fx: &Effects,
    org: OrgId,
    item_id: &str,
    signals: Signals,
    partial: bool,
) -> Result<(), SignalsError> {
    // Prepared first: signals that cannot be prepared are refused before anything is stored.
    let binary = signals.to_binary();
    let prepared = Arc::new(Prepared::new(signals)?);
    let version = store.put_signals(org, item_id, &binary, partial)?;
    cache.insert(org, item_id, version, prepared);
    fx.apply(store, Change::Signals { org, item_id, partial })?;
    Ok(())
}

/// The names of the keyword and mood tags of an item's signals (empty without signals).
pub fn tags(store: &Store, cache: &SignalsCache, org: OrgId, item_id: &str) -> (Vec<String>, Vec<String>) {
    let Ok(Some(p)) = prepared(store, cache, org, item_id) else { return (Vec::new(), Vec::new()) };
    let of = |kind: kino::signals::TagKind| {
        let mut names: Vec<String> =
            p.signals().tags.iter().filter(|t| t.kind == kind).map(|t| t.name.clone()).collect();
        names.sort();
        names.dedup();
        names
    };
    (of(kino::signals::TagKind::Keyword), of(kino::signals::TagKind::Mood))
}

/// The story shape of the emotional arc of an item's signals ([`kino::emotional_arc`]; `None`
/// without signals or an arc).
pub fn arc_shape(store: &Store, cache: &SignalsCache, org: OrgId, item_id: &str) -> Option<kino::ArcShape> {
    let Ok(Some(p)) = prepared(store, cache, org, item_id) else { return None };
    kino::emotional_arc(p.signals()).map(|a| a.shape)
}
