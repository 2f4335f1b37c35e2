//! The processing workers: claim a job from the durable queue, compute its product from the
//! item's signals on a blocking thread, store the result and dequeue it in one transaction.
//!
//! A job left running by a crash is claimed again when its lease expires (and at start-up); a job
//! whose item has no signals yet is parked until signals arrive.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kino::Signals;
use tokio::sync::watch;

use crate::products::{NOT_AVAILABLE, PROCESSED, compute};
use crate::state::{AppState, Collection};
use crate::store::{Job, StoreError};

/// Runs `count` workers until `shutdown` turns true; a job in flight is finished first.
pub async fn run(state: AppState, count: usize, mut shutdown: watch::Receiver<bool>) {
    let mut handles = Vec::new();
    for _ in 0..count.max(1) {
        let state = state.clone();
        let mut shutdown = shutdown.clone();
        handles.push(tokio::spawn(async move {
            loop {
                if *shutdown.borrow() {
                    break;
                }
                let s = state.clone();
                let worked = tokio::task::spawn_blocking(move || run_one(&s)).await.unwrap_or(false);
                if !worked {
                    tokio::select! {
                        _ = state.wake.notified() => {}
                        _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                        _ = shutdown.changed() => {}
                    }
                }
            }
        }));
    }
    let _ = shutdown.changed().await;
    for h in handles {
        let _ = h.await;
    }
}

/// Claims and processes one job; whether there was one.
pub fn run_one(state: &AppState) -> bool {
    match state.store.claim_job() {
        Ok(Some(job)) => {
            if let Err(e) = process(state, &job) {
                tracing::error!(item = %job.item_id, product = %job.product, error = %e, "job failed to store; it will be retried");
            }
            true
        }
        Ok(None) => false,
        Err(e) => {
            tracing::error!(error = %e, "cannot claim a job");
            false
        }
    }
}

fn process(state: &AppState, job: &Job) -> Result<(), StoreError> {
    let store = &state.store;
    if !PROCESSED.contains(&job.product.as_str()) {
        return store.finish_job(job, "failed", NOT_AVAILABLE, None);
    }
    let Some(item) = store.item(job.org, &job.item_id)? else {
        return store.finish_job(job, "failed", "the item does not exist", None);
    };
    let mut signals = match state.prepared(job.org, &job.item_id) {
        Ok(p) => p.map(|p| p.signals().clone()),
        Err(e) => return store.finish_job(job, "failed", &format!("stored signals are unreadable: {e}"), None),
    };
    let video = crate::render::media_path(&state.config.media_root, &item.body).filter(|v| v.is_file());
    if let (None, Some(video)) = (&signals, video) {
        // A real video under the media root: analyse it (learned channels from its sidecar). One
        // analysis per item: another job of the item waits for its signals meanwhile.
        let key = (job.org, job.item_id.clone());
        {
            let mut analysing = state.analysing.write().unwrap_or_else(|e| e.into_inner());
            if analysing.contains_key(&key) {
                return store.park_job(job);
            }
            analysing.insert(key.clone(), 0.0);
        }
        let options = kino_media::AnalyzeOptions { inventory_id: Some(item.id.clone()), ..Default::default() };
        let (mut next_report, mut last_lease) = (0.0, std::time::Instant::now());
        let analysed = kino_media::analyze(&video, &options, |done, total| {
            if total <= 0.0 {
                return;
            }
            state.analysing.write().unwrap_or_else(|e| e.into_inner()).insert(key.clone(), (done / total).min(1.0));
            if done / total >= next_report {
                tracing::info!(item = %item.id, percent = (100.0 * done / total).round(), "analysing media");
                next_report += 0.1;
            }
            if last_lease.elapsed() > std::time::Duration::from_secs(60) {
                last_lease = std::time::Instant::now();
                if let Err(e) = store.extend_lease(job) {
                    tracing::warn!(error = %e, "cannot extend the lease of a long analysis");
                }
            }
        });
        {
            let mut analysing = state.analysing.write().unwrap_or_else(|e| e.into_inner());
            analysing.remove(&key);
            if analysed.is_err() {
                store.release_waiting(job.org, &job.item_id)?;
            }
        }
        match analysed {
            Ok(s) => {
                if let Err(e) = state.put_signals(job.org, &job.item_id, s.clone()) {
                    tracing::error!(error = %e, "cannot store analysed signals");
                }
                signals = Some(s);
            }
            Err(e) => {
                return store.finish_job(
                    job,
                    "failed",
                    &format!("media analysis of {} failed: {e}", video.display()),
                    None,
                );
            }
        }
    }
    if signals.is_none() {
        if let Some(sidecar) = sidecar_path(&state.config.media_root, &item.body) {
            match std::fs::read_to_string(&sidecar)
                .map_err(|e| e.to_string())
                .and_then(|t| Signals::from_json(&t).map_err(|e| e.to_string()))
            {
                Ok(s) => {
                    if let Err(e) = state.put_signals(job.org, &job.item_id, s.clone()) {
                        tracing::error!(error = %e, "cannot store sidecar signals");
                    }
                    signals = Some(s);
                }
                Err(e) if sidecar.exists() => {
                    return store.finish_job(
                        job,
                        "failed",
                        &format!("sidecar {} is invalid: {e}", sidecar.display()),
                        None,
                    );
                }
                Err(_) => {}
            }
        }
    }
    let Some(signals) = signals else { return store.park_job(job) };
    let started = std::time::Instant::now();
    let outcome = compute(&job.product, &signals);
    tracing::info!(item = %job.item_id, product = %job.product, ok = outcome.is_ok(), elapsed_ms = started.elapsed().as_millis() as u64, "processed");
    match outcome {
        Ok(data) => {
            store.finish_job(job, "success", "", Some(&data))?;
            if let Some(c) = Collection::ALL.into_iter().find(|c| c.product() == job.product) {
                if let Err(e) = state.rebuild_index(job.org, c) {
                    tracing::error!(error = %e, collection = ?c, "cannot rebuild an index");
                }
            }
            Ok(())
        }
        Err(e) => store.finish_job(job, "failed", &e, None),
    }
}

/// `<video>.signals.json` beside the item's `asset_info.file_uri`, when that is a local path or
/// `file://` URI under the media root.
pub fn sidecar_path(media_root: &Path, body: &serde_json::Value) -> Option<PathBuf> {
    let video = crate::render::media_path(media_root, body)?;
    let name = video.file_name()?.to_str()?;
    Some(video.with_file_name(format!("{name}.signals.json")))
}
