//! The dispatcher: claims queued deliveries (pending -> sending), sends up to [`MAX_IN_FLIGHT`]
//! at once, and records each outcome. One attempt per delivery, never a retry: a delivery left
//! `sending` by a crash is marked failed when a dispatcher next takes over, for a person to
//! redeliver. Among processes sharing the database one dispatches at a time: it holds the lease
//! [`DISPATCHER_LEASE`] and renews it as it polls; the others wait, and the first to find it
//! expired (its holder died) takes over, cleaning up what the dead one left `sending`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kino::webhook::{EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, sign};
use reqwest::Client;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use super::TEST_EVENT;
use super::address::{PublicResolver, check_url};
use crate::config::Config;
use crate::secrets::SecretBox;
use crate::state::Keys;
use crate::store::Store;
use crate::store::{ClaimedDelivery, DeliveryOutcome, Lease, now};

/// Deliveries sent at once.
pub const MAX_IN_FLIGHT: usize = 16;

/// The error recorded on deliveries a crash (or an overlong shutdown) left `sending`.
pub const INTERRUPTED: &str = "interrupted by a restart; redeliver by hand";

/// The lease of the dispatching process ([`crate::store::Store::take_lease`]).
pub const DISPATCHER_LEASE: &str = "webhook-dispatcher";

/// How often the queue is polled when nothing wakes the dispatcher.
const POLL: Duration = Duration::from_secs(2);

/// The HTTP clients of deliveries: redirects are not followed, proxies are not used, and the
/// resolver drops forbidden addresses.
#[derive(Debug)]
struct Clients {
    https: Client,
    /// `http://` URLs, which only `webhook_allow_loopback` admits: loopback addresses only.
    loopback_http: Client,
}

impl Clients {
    /// `extra_roots`: PEM certificates trusted besides the public roots (a private CA).
    fn new(timeout: Duration, allow_loopback: bool, extra_roots: Option<&[u8]>) -> reqwest::Result<Clients> {
        let roots = extra_roots.map(reqwest::Certificate::from_pem_bundle).transpose()?.unwrap_or_default();
        let build = |loopback_only: bool| {
            let mut builder = Client::builder()
                .timeout(timeout)
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .user_agent(concat!("kino-webhooks/", env!("CARGO_PKG_VERSION")))
                .dns_resolver(Arc::new(PublicResolver { allow_loopback, loopback_only }));
            for root in &roots {
                builder = builder.add_root_certificate(root.clone());
            }
            builder.build()
        };
        Ok(Clients { https: build(false)?, loopback_http: build(true)? })
    }
}

/// What the dispatcher uses: the store (deliveries, its lease), the signing keys, the settings
/// (timeouts, retention, loopback, CA) and its wake-up. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    /// The database.
    pub store: Arc<Store>,
    /// Opens the webhooks' sealed signing secrets.
    pub keys: Arc<Keys>,
    /// Settings.
    pub config: Arc<Config>,
    /// Notified when deliveries are queued.
    pub wake: Arc<tokio::sync::Notify>,
}

/// Runs until `shutdown` turns true. At start, deliveries left `sending` are marked failed
/// ([`INTERRUPTED`]). On shutdown, sends in flight are awaited for up to the timeout plus a
/// second; any still running then are dropped and marked failed the same way.
pub async fn run_dispatcher(ctx: Dispatcher, mut shutdown: watch::Receiver<bool>) {
    let timeout = ctx.config.webhook_timeout;
    let clients = match Clients::new(timeout, ctx.config.webhook_allow_loopback, ctx.config.webhook_ca_pem.as_deref()) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            tracing::error!(error = %e, "cannot build the webhook HTTP client; webhooks are not delivered");
            return;
        }
    };
    // The process's own name among those sharing the database holds the role.
    let holder: Arc<str> = ctx.store.owner().into();
    let ttl_ms = crate::store::millis(ctx.config.webhook_lease).max(1);
    let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut in_flight = JoinSet::new();
    let mut next_prune = Instant::now();
    let mut holding = false;
    loop {
        if *shutdown.borrow() {
            break;
        }
        let h = holder.clone();
        let lease =
            off_thread(&ctx, move |s| s.store.take_lease(DISPATCHER_LEASE, &h, crate::store::now_ms(), ttl_ms)).await;
        holding = match lease {
            Some(Ok(Lease::Taken)) => {
                // Nobody dispatched, or the one that did died: what it left `sending` is lost.
                off_thread(&ctx, |s| match s.store.fail_sending_deliveries(INTERRUPTED) {
                    Ok(0) => {}
                    Ok(n) => {
                        tracing::warn!(deliveries = n, "webhook deliveries interrupted by a restart marked failed")
                    }
                    Err(e) => tracing::error!(error = %e, "cannot mark interrupted webhook deliveries"),
                })
                .await;
                tracing::info!(holder = %holder, "this process dispatches webhooks");
                true
            }
            Some(Ok(Lease::Renewed)) => true,
            Some(Ok(Lease::Busy)) => false,
            Some(Err(e)) => {
                tracing::error!(error = %e, "cannot take the webhook dispatcher's lease");
                false
            }
            None => false,
        };
        while in_flight.try_join_next().is_some() {}
        let mut more = false;
        if holding {
            if Instant::now() >= next_prune {
                next_prune = Instant::now() + PRUNE_EVERY;
                off_thread(&ctx, prune).await;
            }
            let free = permits.available_permits();
            let claimed = if free == 0 {
                Vec::new()
            } else {
                off_thread(&ctx, move |s| {
                    s.store.claim_deliveries(free).unwrap_or_else(|e| {
                        tracing::error!(error = %e, "cannot claim webhook deliveries");
                        Vec::new()
                    })
                })
                .await
                .unwrap_or_default()
            };
            more = free > 0 && claimed.len() == free;
            for delivery in claimed {
                let Ok(permit) = permits.clone().acquire_owned().await else { break };
                let (ctx, clients) = (ctx.clone(), clients.clone());
                in_flight.spawn(async move {
                    let outcome =
                        send(&clients, &delivery, &ctx.keys.secrets, ctx.config.webhook_allow_loopback, timeout).await;
                    off_thread(&ctx, move |s| {
                        if let Err(e) = s.store.finish_delivery(&delivery.id, &outcome) {
                            tracing::error!(error = %e, delivery = %delivery.id, "cannot record a webhook delivery");
                        }
                    })
                    .await;
                    drop(permit);
                });
            }
        }
        if more {
            continue;
        }
        tokio::select! {
            _ = ctx.wake.notified() => {}
            _ = tokio::time::sleep(POLL) => {}
            _ = shutdown.changed() => {}
            Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
        }
    }
    let grace = timeout + Duration::from_secs(1);
    let drained = tokio::time::timeout(grace, async { while in_flight.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        in_flight.shutdown().await;
        off_thread(&ctx, |s| {
            if let Err(e) = s.store.fail_sending_deliveries(INTERRUPTED) {
                tracing::error!(error = %e, "cannot mark interrupted webhook deliveries");
            }
        })
        .await;
    }
    if holding {
        // Another process may take over at once.
        off_thread(&ctx, move |s| {
            if let Err(e) = s.store.release_lease(DISPATCHER_LEASE, &holder) {
                tracing::error!(error = %e, "cannot release the webhook dispatcher's lease");
            }
        })
        .await;
    }
}

/// Runs database work on tokio's blocking pool, off the async threads; `None` when that work
/// panicked (it logs its own errors).
async fn off_thread<T: Send + 'static>(
    ctx: &Dispatcher,
    work: impl FnOnce(&Dispatcher) -> T + Send + 'static,
) -> Option<T> {
    let s = ctx.clone();
    crate::blocking::in_background("webhook deliveries", move || work(&s)).await
}

/// How often the delivery log is pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

/// Deletes finished deliveries older than the configured retention.
fn prune(ctx: &Dispatcher) {
    let days = i64::from(ctx.config.webhook_log_days);
    let before =
        (chrono::Utc::now() - chrono::Duration::days(days)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    match ctx.store.prune_deliveries(&before) {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, days, "pruned the webhook delivery log"),
        Err(e) => tracing::error!(error = %e, "cannot prune the webhook delivery log"),
    }
}

/// One attempt: POST the stored bytes, signed; any 2xx succeeds.
async fn send(
    clients: &Clients,
    d: &ClaimedDelivery,
    secrets: &SecretBox,
    allow_loopback: bool,
    timeout: Duration,
) -> DeliveryOutcome {
    let attempted_at = now();
    let started = Instant::now();
    let failed = |status_code: Option<u16>, error: String| DeliveryOutcome {
        succeeded: false,
        status_code,
        duration_ms: started.elapsed().as_millis() as u64,
        error: Some(error),
        attempted_at: attempted_at.clone(),
    };
    // The URL was checked at creation; check it again in case the rules changed since.
    let url = match check_url(&d.url, allow_loopback) {
        Ok(url) => url,
        Err(rule) => return failed(None, format!("refused: the URL {rule}")),
    };
    let secret = match secrets.open(&d.secret) {
        Ok(secret) => secret,
        Err(e) => return failed(None, format!("cannot sign: the webhook's signing secret {e}")),
    };
    let client = if url.scheme() == "http" { &clients.loopback_http } else { &clients.https };
    let mut request = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(SIGNATURE_HEADER, sign(&d.body, &secret))
        .header(TIMESTAMP_HEADER, now());
    if d.event != TEST_EVENT {
        request = request.header(EVENT_HEADER, &d.event);
    }
    match request.body(d.body.clone()).send().await {
        Ok(response) => {
            let status = response.status();
            let duration_ms = started.elapsed().as_millis() as u64;
            let succeeded = status.is_success();
            DeliveryOutcome {
                succeeded,
                status_code: Some(status.as_u16()),
                duration_ms,
                error: (!succeeded).then(|| format!("the receiver answered {status}, not 2xx")),
                attempted_at,
            }
        }
        Err(e) if e.is_timeout() => failed(None, format!("timed out after {} ms", timeout.as_millis())),
        Err(e) => failed(None, error_chain(&e)),
    }
}

/// An error with its sources: `a: b: c`.
fn error_chain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
