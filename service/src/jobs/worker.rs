//! The processing workers: claim a job from the durable queue, compute its product from the
//! item's signals on a blocking thread, store the result and dequeue it in one transaction.
//!
//! A job left running by a crash is claimed again when its lease expires (and at start-up); a job
//! whose item has no signals yet is parked until signals arrive.

use std::sync::Arc;
use std::time::Duration;

use kino::Signals;
use tokio::sync::watch;

use crate::changes::{Change, Effects};
use crate::config::Config;
use crate::files::{LocalMedia, MediaFile};
use crate::files::{local_media, local_sidecar, unusable_media};
use crate::products::{Product, compute};
use crate::signals::MAX_SIGNALS_BYTES;
use crate::signals::SignalsCache;
use crate::state::Analysis;
use crate::store::{ItemRow, Job, ResultStatus, Store, StoreError};

/// What processing reads and writes: the store (jobs, items, results), the items' signals,
/// what a stored result or new signals set off, the models and the analyses in progress, and
/// the settings (the media root). Cheap to clone.
#[derive(Debug, Clone)]
pub struct Worker {
    /// The database.
    pub store: Arc<Store>,
    /// Prepared signals.
    pub signals: Arc<SignalsCache>,
    /// What a change sets off.
    pub effects: std::sync::Arc<Effects>,
    /// The models and the analyses in progress.
    pub analysis: Arc<Analysis>,
    /// Settings: the media root and the service's private files.
    pub config: Arc<Config>,
}

/// Runs `count` workers until `shutdown` turns true; a job in flight is finished first.
pub async fn run(worker: Worker, count: usize, shutdown: watch::Receiver<bool>) {
    let wake = worker.effects.wake.workers.clone();
    super::pool::run_pool(worker, count, shutdown, wake, run_one).await;
}

/// Claims and processes one job; whether there was one.
pub fn run_one(w: &Worker) -> bool {
    match w.store.claim_job() {
        Ok(Some(job)) => {
            if let Err(e) = process(w, &job) {
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

fn process(w: &Worker, job: &Job) -> Result<(), StoreError> {
    let store = &w.store;
    let product = job.product;
    let Some(item) = store.item(job.org, &job.item_id)? else {
        return store.finish_job(job, ResultStatus::Failed, "the item does not exist", None);
    };
    let mut signals = match crate::signals::prepared(&w.store, &w.signals, job.org, &job.item_id) {
        Ok(p) => p.map(|p| p.signals().clone()),
        Err(e) => {
            return store.finish_job(job, ResultStatus::Failed, &format!("stored signals are unreadable: {e}"), None);
        }
    };
    // A fast pass of the media analysis serves the products that do not read what speech
    // recognition produces; the others wait for the final signals. When no analysis of the item
    // is running here (it stopped after its fast pass: a crash or a restart), this job analyses
    // the media again.
    let needs_final = crate::products::needs_speech_stage(product);
    if signals.is_some() && needs_final && store.signals_partial(job.org, &job.item_id)? {
        if w.analysis.progress(job.org, &job.item_id).is_some() {
            return store.park_job(job, true);
        }
        signals = None;
    }
    if signals.is_none() {
        match media_signals(w, job, &item) {
            Ok(Some(s)) => signals = Some(s),
            Ok(None) => {}
            Err(Outcome::Parked) => return store.park_job(job, needs_final),
            Err(Outcome::Failed(error)) => return store.finish_job(job, ResultStatus::Failed, &error, None),
            Err(Outcome::Store(e)) => return Err(e),
        }
    }
    let Some(signals) = signals else { return store.park_job(job, needs_final) };
    let started = std::time::Instant::now();
    let sentences: std::sync::Arc<dyn kino::TextEncoder> = match w.analysis.models.sentence_encoder() {
        Some(encoder) => encoder.clone(),
        None => std::sync::Arc::new(kino::LexicalEncoder::default()),
    };
    let outcome = if product == Product::Markers {
        crate::products::markers_of(&w.store, &w.signals, job.org, &item, &signals)
    } else {
        compute(product, &signals, sentences.as_ref())
    };
    // Per job at debug level: a catalog of thousands of items would otherwise flood the log (and
    // a demo item lacking a product's input is not worth a line each).
    tracing::debug!(item = %job.item_id, product = %job.product, ok = outcome.is_ok(), elapsed_ms = started.elapsed().as_millis() as u64, "processed");
    match outcome {
        Ok(data) => {
            store.finish_job_by(
                job,
                ResultStatus::Success,
                "",
                Some(&data),
                &crate::products::models_of(product, &signals),
            )?;
            let stored = Change::Result { org: job.org, item_id: &job.item_id, product };
            if let Err(e) = w.effects.apply(&w.store, stored) {
                tracing::error!(error = %e, item = %job.item_id, "cannot update the vector index");
            }
            Ok(())
        }
        Err(e) => store.finish_job(job, ResultStatus::Failed, &e, None),
    }
}

/// Why [`media_signals`] produced no signals.
enum Outcome {
    /// Another job of the item is analysing its media: wait for its signals.
    Parked,
    /// The job fails with this message (shown to the caller: no server paths).
    Failed(String),
    /// The store failed.
    Store(StoreError),
}

/// Signals from the item's media: its video analysed (its sidecar's learned channels merged), or
/// the sidecar alone when there is no video; `None` when `file_uri` is not local (signals are
/// expected through the analysis endpoint).
fn media_signals(w: &Worker, job: &Job, item: &ItemRow) -> Result<Option<Signals>, Outcome> {
    let config = &w.config;
    // Both files are opened once, here, beneath the media root; what reads them later (this
    // process, ffprobe, ffmpeg) reads these open files, never the names again.
    let sidecar = match local_sidecar(config, item) {
        LocalMedia::File(file) => Some(sidecar_document(item, &file)?),
        LocalMedia::NotLocal | LocalMedia::Unusable { missing: true, .. } => None,
        // A sidecar that exists but cannot be used (a link, a special file) is refused rather
        // than skipped.
        LocalMedia::Unusable { reason, missing: false } => {
            return Err(Outcome::Failed(unusable_media(item, &reason)));
        }
    };
    match local_media(config, item) {
        LocalMedia::NotLocal => Ok(None),
        LocalMedia::File(video) => analyse(w, job, item, &video, sidecar).map(Some),
        LocalMedia::Unusable { reason, .. } => match sidecar {
            Some(kino_media::Sidecar::Document { signals, .. }) => store_sidecar(w, job, *signals).map(Some),
            _ => Err(Outcome::Failed(unusable_media(item, &reason))),
        },
    }
}

/// The item's sidecar signals, read from the file opened beneath the media root: at most
/// [`MAX_SIGNALS_BYTES`], as an uploaded document.
fn sidecar_document(item: &ItemRow, file: &MediaFile) -> Result<kino_media::Sidecar, Outcome> {
    let uri = item.file_uri().unwrap_or_default();
    let text = file
        .read_to_string_within(MAX_SIGNALS_BYTES as u64)
        .map_err(|e| Outcome::Failed(format!("sidecar {uri}.signals.json is invalid: {e}")))?
        .ok_or_else(|| {
            Outcome::Failed(format!(
                "sidecar {uri}.signals.json is larger than {MAX_SIGNALS_BYTES} bytes, the most a signals document \
                 may have"
            ))
        })?;
    let signals = Signals::from_json(&text)
        .map_err(|e| Outcome::Failed(format!("sidecar {uri}.signals.json is invalid: {e}")))?;
    drop(text);
    Ok(kino_media::Sidecar::Document { signals: Box::new(signals), name: format!("{uri}.signals.json").into() })
}

/// Analyses the item's video (one analysis per item: another job of the item waits for its
/// signals meanwhile), showing progress in the task status and extending the job's lease.
fn analyse(
    w: &Worker,
    job: &Job,
    item: &ItemRow,
    video: &MediaFile,
    sidecar: Option<kino_media::Sidecar>,
) -> Result<Signals, Outcome> {
    let store = &w.store;
    let key = (job.org, job.item_id.clone());
    {
        let mut analysing = w.analysis.progress.write().unwrap_or_else(|e| e.into_inner());
        if analysing.contains_key(&key) {
            return Err(Outcome::Parked);
        }
        analysing.insert(key.clone(), 0.0);
    }
    let options = kino_media::AnalyzeOptions {
        inventory_id: Some(item.id.clone()),
        sidecar: sidecar.unwrap_or(kino_media::Sidecar::None),
        item_text: kino_media::embed::item_text_from_catalog(&item.body),
        ..Default::default()
    };
    let (mut next_report, mut last_lease) = (0.0, std::time::Instant::now());
    let fast = |early: &Signals| {
        // The fast channels are served while speech is transcribed.
        if let Err(e) = crate::signals::put_fast(&w.store, &w.signals, &w.effects, job.org, &job.item_id, early.clone())
        {
            tracing::error!(error = %e, "cannot store the fast pass of an analysis");
        } else {
            tracing::info!(item = %item.id, "fast channels stored; transcribing speech");
        }
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let progress = |done: f64, total: f64| {
        if total <= 0.0 {
            return;
        }
        w.analysis.progress.write().unwrap_or_else(|e| e.into_inner()).insert(key.clone(), (done / total).min(1.0));
        if done / total >= next_report {
            tracing::info!(item = %item.id, percent = (100.0 * done / total).round(), "analysing media");
            next_report += 0.1;
        }
        if last_lease.elapsed() > Duration::from_secs(60) {
            last_lease = std::time::Instant::now();
            if let Err(e) = store.extend_lease(job) {
                tracing::warn!(error = %e, "cannot extend the lease of a long analysis");
            }
        }
    };
    let analysed = kino_media::analyze_staged(video.tool_path(), &options, &w.analysis.models, progress, &never, fast);
    // The final signals are stored before the analysis is marked finished, so a job that waits
    // for them never finds a fast pass with no analysis running (and analyses again).
    if let Ok(s) = &analysed
        && let Err(e) = crate::signals::put(&w.store, &w.signals, &w.effects, job.org, &job.item_id, s.clone())
    {
        tracing::error!(error = %e, "cannot store analysed signals");
    }
    {
        let mut analysing = w.analysis.progress.write().unwrap_or_else(|e| e.into_inner());
        analysing.remove(&key);
        if analysed.is_err() {
            store.release_waiting(job.org, &job.item_id).map_err(Outcome::Store)?;
        }
    }
    match analysed {
        Ok(s) => Ok(s),
        Err(e) => {
            let uri = item.file_uri().unwrap_or_default();
            tracing::warn!(item = %item.id, video = %video.shown().display(), error = %e, "media analysis failed");
            Err(Outcome::Failed(format!(
                "file_uri {uri:?} could not be analysed: it is not a video that ffmpeg can decode, or its sidecar signals are invalid"
            )))
        }
    }
}

/// Signals from a sidecar file alone.
fn store_sidecar(w: &Worker, job: &Job, signals: Signals) -> Result<Signals, Outcome> {
    if let Err(e) = crate::signals::put(&w.store, &w.signals, &w.effects, job.org, &job.item_id, signals.clone()) {
        tracing::error!(error = %e, "cannot store sidecar signals");
    }
    Ok(signals)
}
