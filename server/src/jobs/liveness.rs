//! This process among those sharing the database: it renews a lease (`process:<owner>`) while it
//! runs, and what it claims (jobs, renders, recipe runs) records it as owner. Every process, at
//! start and then every third of the lease, recovers what processes whose lease lapsed left
//! claimed: their jobs and renders go back to the queue, their recipe runs fail (and say so). A
//! live process's work is never taken from it, and a dead one's is picked up by the survivors
//! within one lease.

use tokio::sync::watch;

use crate::state::AppState;
use crate::store::{millis, now_ms};

pub use crate::config::DEFAULT_PROCESS_LEASE;

fn ttl_ms(state: &AppState) -> i64 {
    millis(state.config.process_lease).max(1)
}

/// Renews this process's lease.
pub fn heartbeat(state: &AppState) -> Result<(), crate::store::StoreError> {
    state.store.heartbeat(now_ms(), ttl_ms(state))
}

/// Recovers what processes that are no longer alive left claimed; logs what it did.
pub fn recover(state: &AppState) -> Result<(), String> {
    let requeued = state.store.requeue_running().map_err(|e| e.to_string())?;
    if requeued > 0 {
        tracing::info!(requeued, "jobs left by a stopped process are queued again");
    }
    let (resumed, interrupted) = state.store.recover_generations().map_err(|e| e.to_string())?;
    if resumed > 0 {
        tracing::info!(resumed, "clip generations interrupted by a stopped process are rendered again");
    }
    if interrupted > 0 {
        tracing::warn!(interrupted, "clip generations queued by an older version are marked FAILED");
    }
    crate::portal::recipes::recover(state).map_err(|e| format!("cannot recover interrupted recipe runs: {e}"))
}

/// Renews the lease and recovers every third of the lease until `shutdown`. The lease is not
/// given up here: the caller does that once its workers have stopped ([`release`]).
pub async fn run(state: AppState, mut shutdown: watch::Receiver<bool>) {
    let period = state.config.process_lease / 3;
    loop {
        let s = state.clone();
        let done = tokio::task::spawn_blocking(move || {
            if let Err(e) = heartbeat(&s) {
                tracing::error!(error = %e, "cannot renew this process's lease");
            }
            if let Err(e) = recover(&s) {
                tracing::error!(error = %e, "cannot recover the work of stopped processes");
            }
        });
        let _ = done.await;
        tokio::select! {
            _ = tokio::time::sleep(period) => {}
            _ = shutdown.changed() => break,
        }
    }
}

/// Gives this process's lease up, once its workers have stopped: survivors recover at once what
/// it could not finish, instead of one lease later.
pub async fn release(state: &AppState) {
    let s = state.clone();
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || s.store.release_heartbeat()).await {
        tracing::error!(error = %e, "cannot give this process's lease up");
    }
}
