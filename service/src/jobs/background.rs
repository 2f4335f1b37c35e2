//! Everything a serving process runs beside its requests, started in one place once the process
//! holds its lease: the processing workers, the renderers, the daily smartlist refresh, the
//! webhook dispatcher, the periodic index refresh and the lease's heartbeat; and, once, the
//! follow-up recipe runs a stopped process left and the opening of the indexes.
//!
//! [`Background::stop`] finishes them in the order that loses nothing: the work in flight first,
//! the heartbeat last, then the lease is given up so no other process waits for it to expire.

use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveTime;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::state::AppState;
use crate::store::{Store, StoreError};

/// How much background work a process runs.
#[derive(Debug, Clone)]
pub struct BackgroundOptions {
    /// Processing workers.
    pub workers: usize,
    /// The time of day (UTC) of the smartlists' daily refresh.
    pub smartlist_refresh_at: NaiveTime,
    /// How often the indexes are refreshed from the store; `None`: only as results change.
    pub index_refresh: Option<Duration>,
}

/// The running background work of a process.
#[derive(Debug)]
pub struct Background {
    stop: watch::Sender<bool>,
    /// Finished in this order when the process stops.
    tasks: Vec<JoinHandle<()>>,
    heartbeat: JoinHandle<()>,
    store: Arc<Store>,
}

/// Starts the background work of `state`'s process. Call it once the process holds its lease
/// ([`super::liveness::heartbeat`]) and has recovered what stopped processes left
/// ([`super::liveness::recover`]).
pub fn start(state: &AppState, options: &BackgroundOptions) -> Result<Background, StoreError> {
    let (stop, stopped) = watch::channel(false);
    let mut tasks = vec![
        tokio::spawn(super::worker::run(state.worker(), options.workers, stopped.clone())),
        tokio::spawn(super::render::run_renderers(
            state.renderer(),
            state.effects.wake.renderers.clone(),
            state.config.render_workers,
            stopped.clone(),
        )),
    ];
    for (org, _) in state.store.orgs()? {
        // License windows may have opened or closed while the service was down.
        state.effects.refresher.catalog_changed(org);
    }
    let resumed = state.portal();
    crate::blocking::detach("resuming follow-up recipe runs", move || {
        if let Err(e) = crate::portal::recipes::resume_followups(&resumed) {
            tracing::error!(error = %e, "cannot resume follow-up recipe runs");
        }
    });
    let (indexes, store) = (state.effects.indexes.clone(), state.store.clone());
    crate::blocking::detach("opening the indexes", move || indexes.open_all(&store));
    tasks.push(tokio::spawn(crate::portal::smartlists::run_refresher(
        state.portal(),
        options.smartlist_refresh_at,
        stopped.clone(),
    )));
    tasks.push(tokio::spawn(crate::webhooks::run_dispatcher(state.dispatcher(), stopped.clone())));
    if let Some(every) = options.index_refresh {
        tasks.push(tokio::spawn(crate::indexes::run_refresher(
            state.effects.indexes.clone(),
            state.store.clone(),
            every,
            stopped.clone(),
        )));
    }
    let heartbeat = tokio::spawn(super::liveness::run(
        state.store.clone(),
        state.effects.clone(),
        state.config.process_lease,
        stopped,
    ));
    Ok(Background { stop, tasks, heartbeat, store: state.store.clone() })
}

impl Background {
    /// Stops the background work: the jobs, renders and deliveries in flight finish, then the
    /// heartbeat stops and the lease is given up.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for task in self.tasks {
            let _ = task.await;
        }
        let _ = self.heartbeat.await;
        super::liveness::release(self.store).await;
    }
}
