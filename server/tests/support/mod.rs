//! Shared by the integration tests that need a webhook receiver: a loopback HTTP server that
//! records the raw bytes and headers of every request, polling, and an independent HMAC.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Hit {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// A receiver on 127.0.0.1: `/fail` answers 500, `/redirect` 302 to `/ok`, `/slow` answers after
/// two seconds; any other path 200.
pub struct Receiver {
    pub base: String,
    hits: Arc<Mutex<Vec<Hit>>>,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

async fn record(
    State(hits): State<Arc<Mutex<Vec<Hit>>>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, HeaderMap) {
    let path = uri.path().to_string();
    hits.lock().unwrap().push(Hit { path: path.clone(), headers, body: body.to_vec() });
    let mut answer = HeaderMap::new();
    let status = match path.as_str() {
        "/fail" => StatusCode::INTERNAL_SERVER_ERROR,
        "/redirect" => {
            answer.insert("location", "/ok".parse().unwrap());
            StatusCode::FOUND
        }
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(2)).await;
            StatusCode::OK
        }
        "/accepted" => StatusCode::ACCEPTED,
        _ => StatusCode::OK,
    };
    (status, answer)
}

impl Receiver {
    pub async fn start() -> Receiver {
        let hits = Arc::new(Mutex::new(Vec::new()));
        let router = axum::Router::new().fallback(record).with_state(hits.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
        Receiver { base, hits, stop, task }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    pub fn hits_on(&self, path: &str) -> Vec<Hit> {
        self.hits().into_iter().filter(|h| h.path == path).collect()
    }

    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
    }
}

/// How long a test waits for background work (the dispatcher, the refresher, renders) to reach
/// the state it asserts: generous, because a busy 2-core machine can be many times slower than a
/// quiet one. Tests wait on the asserted condition itself, never on a sleep or a proxy event.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// Polls `check` every 20 ms until it holds or [`DEADLINE`] passes.
pub async fn until(mut check: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while tokio::time::Instant::now() < deadline {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    check()
}

pub fn hmac_hex(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

pub fn header<'a>(hit: &'a Hit, name: &str) -> Option<&'a str> {
    hit.headers.get(name).map(|v| v.to_str().unwrap())
}
