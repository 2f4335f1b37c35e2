//! What a change sets off, in one place. A domain function stores its change and says what it
//! was ([`Change`]); [`Effects::apply`] brings everything that depends on it up to date: the vector
//! indexes, the markers of a season's episodes, the smartlists, and the wake-ups of the workers,
//! the renderers and the webhook dispatcher. Nothing else wires one change to another.
//!
//! | change | consequences |
//! |---|---|
//! | [`Change::Item`] | the item's index entries; the markers of the seasons it left or joined |
//! | [`Change::Signals`] (whole) | the markers of its season's other episodes; the workers; the smartlists |
//! | [`Change::Signals`] (partial) | the workers; the smartlists |
//! | [`Change::Result`] | the item's index entries, when the product feeds an index |
//! | [`Change::Catalog`] | the smartlists (recomputed in the background); the workers (jobs waiting for an item) |
//! | [`Queued::Tasks`] | the workers |
//! | [`Queued::Generation`] | the renderers |
//! | [`Queued::Deliveries`] | the webhook dispatcher |

use std::sync::Arc;

use crate::indexes::{Indexes, SearchError};
use crate::portal::refresh::Refresher;
use crate::state::Wakes;
use crate::store::{OrgId, Store, StoreError};

/// What a change reaches besides the store: the vector indexes, the smartlist refresher and the
/// wake-ups of the background loops. Cheap to clone; domain functions that change something
/// take it beside the store.
#[derive(Debug, Clone)]
pub struct Effects {
    /// The organisations' vector indexes (segments kept current item by item).
    pub indexes: Arc<Indexes>,
    /// Smartlist membership refreshes.
    pub refresher: Arc<Refresher>,
    /// Wakes the workers, the renderers and the webhook dispatcher.
    pub wake: Arc<Wakes>,
}

/// Something that changed.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    /// An item was stored, replaced or marked deleted; `seasons` are the seasons it left or
    /// joined (or, deleted, the one it was in).
    Item { org: OrgId, item_id: &'a str, seasons: &'a [String] },
    /// An item's signals were stored: `partial` for the fast pass of an analysis (speech still
    /// to come), else whole.
    Signals { org: OrgId, item_id: &'a str, partial: bool },
    /// A product's result was stored.
    Result { org: OrgId, item_id: &'a str, product: crate::vocabulary::Product },
    /// An organisation's catalog changed (the end of an upsert or a deletion).
    Catalog { org: OrgId },
}

/// Work that was queued: the loop that does it is woken ([`Effects::queued`]; it cannot fail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Jobs (tasks, reprocessing).
    Tasks,
    /// A clip generation.
    Generation,
    /// Webhook deliveries.
    Deliveries,
}

impl Effects {
    /// Wakes the loop that does `work`.
    pub fn queued(&self, work: Queued) {
        match work {
            Queued::Tasks => self.wake.workers.notify_waiters(),
            Queued::Generation => self.wake.renderers.notify_one(),
            Queued::Deliveries => self.wake.webhooks.notify_one(),
        }
    }

    /// Applies every consequence of `change`, stored in `store`.
    pub fn apply(&self, store: &Store, change: Change<'_>) -> Result<(), SearchError> {
        match change {
            Change::Item { org, item_id, seasons } => {
                self.indexes.sync_item(store, org, item_id)?;
                let mut requeued = 0;
                for season in seasons {
                    requeued += requeue_markers(store, org, season, item_id)?;
                }
                if requeued > 0 {
                    self.queued(Queued::Tasks);
                }
            }
            Change::Signals { org, item_id, partial } => {
                // An episode's new sound changes its season's markers (the workers are woken below).
                if !partial
                    && let Some(item) = store.item(org, item_id)?
                    && let Some(season) = crate::catalog::season::season_id(&item)
                {
                    requeue_markers(store, org, &season, item_id)?;
                }
                self.queued(Queued::Tasks);
                self.refresher.catalog_changed(org);
            }
            Change::Result { org, item_id, product } => {
                if crate::indexes::Collection::of_product(product).is_some() {
                    self.indexes.sync_item(store, org, item_id)?;
                }
            }
            Change::Catalog { org } => {
                self.refresher.catalog_changed(org);
                self.queued(Queued::Tasks);
            }
        }
        Ok(())
    }
}

/// An episode of `season` joined it, left it or got new signals: the markers of the season's
/// other live episodes are queued again (their results stay until the new ones replace them);
/// how many were queued.
fn requeue_markers(store: &Store, org: OrgId, season: &str, except: &str) -> Result<usize, StoreError> {
    let mut queued = 0;
    for e in store.children(org, season)? {
        if e.item_type == crate::vocabulary::ItemType::Episode && !e.deleted && e.id != except {
            queued += store.requeue_product(org, &e.id, crate::vocabulary::Product::Markers)?;
        }
    }
    Ok(queued)
}
