//! This process among those sharing the database: it renews a lease (`process:<owner>`) while it
//! runs, and what it claims (jobs, renders, recipe runs) records it as owner. Every process, at
//! start and then every third of the lease, recovers what processes whose lease lapsed left
//! claimed: their jobs and renders go back to the queue, their recipe runs fail (and say so). A
//! live process's work is never taken from it, and a dead one's is picked up by the survivors
//! within one lease.

use std::time::Duration;

use tokio::sync::watch;

use crate::changes::Effects;
use crate::store::{Store, millis, now_ms};

pub use crate::config::DEFAULT_PROCESS_LEASE;

/// Renews this process's lease, of length `lease`.
pub fn heartbeat(store: &Store, lease: Duration) -> Result<(), crate::store::StoreError> {
    store.heartbeat(now_ms(), millis(lease).max(1))
}

/// Recovers what processes that are no longer alive left claimed; logs what it did.
pub fn recover(store: &Store, fx: &Effects) -> Result<(), String> {
    let requeued = store.requeue_running().map_err(|e| e.to_string())?;
    if requeued > 0 {
        tracing::info!(requeued, "jobs left by a stopped process are queued again");
    }
    let (resumed, interrupted) = store.recover_generations().map_err(|e| e.to_string())?;
    if resumed > 0 {
        tracing::info!(resumed, "clip generations interrupted by a stopped process are rendered again");
    }
    if interrupted > 0 {
        tracing::warn!(interrupted, "clip generations queued by an older version are marked FAILED");
    }
    crate::portal::recipes::recover(store, fx).map_err(|e| format!("cannot recover interrupted recipe runs: {e}"))
}

/// Renews the lease (of length `lease`) and recovers every third of it until `shutdown`. The lease is not
/// given up here: the caller does that once its workers have stopped ([`release`]).
pub async fn run(
    store: std::sync::Arc<Store>,
    fx: std::sync::Arc<Effects>,
    lease: Duration,
    mut shutdown: watch::Receiver<bool>,
) {
    let period = lease / 3;
    loop {
        let (store, fx) = (store.clone(), fx.clone());
        crate::blocking::in_background("the lease's heartbeat", move || {
            if let Err(e) = heartbeat(&store, lease) {
                tracing::error!(error = %e, "cannot renew this process's lease");
            }
            if let Err(e) = recover(&store, &fx) {
                tracing::error!(error = %e, "cannot recover the work of stopped processes");
            }
        })
        .await;
        tokio::select! {
            _ = tokio::time::sleep(period) => {}
            _ = shutdown.changed() => break,
        }
    }
}

/// Gives this process's lease up, once its workers have stopped: survivors recover at once what
/// it could not finish, instead of one lease later.
pub async fn release(store: std::sync::Arc<Store>) {
    if let Some(Err(e)) = crate::blocking::in_background("giving the lease up", move || store.release_heartbeat()).await
    {
        tracing::error!(error = %e, "cannot give this process's lease up");
    }
}
