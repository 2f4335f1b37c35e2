//! What one document or one tenant can take (issue "Hardening III", items 4 to 6): sizes a signals
//! document declares bounded by what real media has, render failures shown without the service's
//! internals, sidecars read within the upload limit, and per-organisation limits on the shared
//! queues answered with 429.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::{AppState, Config, Services, app, render, worker};
use serde_json::{Value, json};

use crate::support;

const ADMIN: &str = "admin-token-for-the-bounds-tests";

struct T {
    state: AppState,
    key: String,
    dir: tempfile::TempDir,
}

fn start() -> T {
    let dir = tempfile::tempdir().unwrap();
    let config = Config { admin_token: Some(ADMIN.into()), webhook_allow_loopback: true, ..Config::in_dir(dir.path()) };
    let state = Services::open(support::store(dir.path()), config).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    let key = kino_server::auth::generate_key();
    state.store.add_key(org, &kino_server::auth::hash_key(&key), &kino_server::auth::key_prefix(&key)).unwrap();
    T { state, key, dir }
}

impl T {
    async fn send(&self, req: Request<Body>) -> (StatusCode, Value) {
        let res = support::send(app(self.state.clone()), req).await;
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    /// `method uri` with the API key and an optional body.
    async fn call(&self, method: &str, uri: &str, body: Option<String>) -> (StatusCode, Value) {
        let sep = if uri.contains('?') { '&' } else { '?' };
        let req = Request::builder()
            .method(method)
            .uri(format!("{uri}{sep}key={}", self.key))
            .header("content-type", "application/json")
            .body(body.map_or_else(Body::empty, Body::from))
            .unwrap();
        self.send(req).await
    }

    /// `method /admin/v1/orgs/acme{path}` with the admin token.
    async fn admin(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let req = Request::builder()
            .method(method)
            .uri(format!("/admin/v1/orgs/acme{path}"))
            .header("authorization", format!("Bearer {ADMIN}"))
            .header("content-type", "application/json")
            .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .unwrap();
        self.send(req).await
    }

    async fn movie(&self, id: &str, file_uri: &str) {
        let item = json!({"id": id, "type": "standalone", "title": id, "asset_info": {"file_uri": file_uri}});
        let (s, v) = self.call("PUT", "/catalog/v1/item", Some(item.to_string())).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }

    async fn put_signals(&self, id: &str, signals: &kino::Signals) -> (StatusCode, Value) {
        self.call("PUT", &format!("/analysis/v1/item/standalone/{id}"), Some(signals.to_json())).await
    }
}

/// A document of `duration` seconds with timelines of `step`: a short demo document stretched,
/// its timelines padded with zeros, its scenes left out.
fn spanning(id: &str, duration: f64, step: f64) -> kino::Signals {
    let mut s = kino::synth::demo_signals(id, 60.0, 1.0, 5);
    (s.duration, s.step) = (duration, step);
    let n = kino::signals::sample_count(duration, step);
    let t = &mut s.timelines;
    for values in [&mut t.relevance, &mut t.nudity, &mut t.blood_gore, &mut t.profanity, &mut t.brightness] {
        values.resize(n, 0.0);
    }
    t.clip_types.values_mut().for_each(|values| values.resize(n, 0.0));
    s.scenes.clear();
    s.scene_embeddings = None;
    s
}

/// A duration of 1e15 s (with only 1000 timeline samples) is refused with a 422 naming `duration`
/// and the rule: nothing downstream (the web application's time axis, the fingerprint workers)
/// ever sees it.
#[tokio::test]
async fn a_signals_document_longer_than_any_title_is_refused_naming_duration() {
    let t = start();
    t.movie("m1", "m1.mp4").await;
    let (s, body) = t.put_signals("m1", &spanning("m1", 1e15, 1e12)).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body", "duration"]), "{body}");
    assert!(body["detail"][0]["msg"].as_str().unwrap().contains("at most 172800"), "{body}");
    let (s, body) = t.put_signals("m1", &spanning("m1", kino::signals::MAX_DURATION, 60.0)).await;
    assert_eq!(s, StatusCode::OK, "48 hours are accepted: {body}");
}

/// A render that ffmpeg fails (the media file is no video) answers `FAILED` with a plain sentence
/// and a request id: no ffmpeg output, no server path, no process id.
#[tokio::test]
async fn a_failing_render_shows_a_request_id_not_ffmpegs_text_paths_or_the_pid() {
    let t = start();
    std::fs::write(t.dir.path().join("m1.mp4"), b"this is no video, whatever its name says").unwrap();
    t.movie("m1", "m1.mp4").await;
    let (s, body) = t.put_signals("m1", &kino::synth::demo_signals("m1", 600.0, 1.0, 7)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let org = t.state.store.orgs().unwrap()[0].0;
    t.state.store.set_catalog_generation(org, "acme", true).unwrap();
    let (s, res) = t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&trigger_generation=true", None).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let gen_id = res["data"]["gen_id"].as_str().unwrap().to_string();
    assert!(render::render_one(&t.state.renderer()), "the generation was queued");
    let (s, g) = t.call("GET", &format!("/results/jitpreviews/v2/gen/{gen_id}/status?catalog=acme"), None).await;
    assert_eq!((s, &g["status"]), (StatusCode::OK, &json!("FAILED")), "{g}");
    let error = g["error"].as_str().unwrap();
    let request_id = error.split("request id ").nth(1).and_then(|r| r.split_whitespace().next()).unwrap_or_default();
    assert!(request_id.len() >= 8, "a request id: {error}");
    let rest = error.replace(request_id, "");
    let pid = std::process::id().to_string();
    for leak in ["ffmpeg", "Invalid data", "/proc/", "fd/", "gen/", t.dir.path().to_str().unwrap(), pid.as_str()] {
        assert!(!rest.contains(leak), "{leak:?} shown: {error}");
    }
}

/// A sidecar larger than a signals upload may be is refused without being read whole, with an
/// error that says so (a sparse file: it takes no disk).
#[tokio::test]
async fn an_oversized_sidecar_is_refused_with_a_clear_error() {
    let t = start();
    let limit = kino_server::signals::MAX_SIGNALS_BYTES as u64;
    let sidecar = std::fs::File::create(t.dir.path().join("big.mp4.signals.json")).unwrap();
    sidecar.set_len(limit + 1).unwrap();
    t.movie("big", "big.mp4").await;
    let (s, v) = t.call("POST", "/tasks/catalog-item/big/product/emotions/version/1", None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    while worker::run_one(&t.state.worker()) {}
    let (_, st) = t.call("GET", "/tasks/catalog-item/big/product/emotions/version/1", None).await;
    assert_eq!(st["status"], "failed", "{st}");
    let error = st["error"].as_str().unwrap();
    assert!(error.contains(&format!("larger than {limit} bytes")), "{error}");
    assert!(!error.contains(t.dir.path().to_str().unwrap()), "no server path: {error}");
}

/// Test deliveries and redeliveries waiting to be sent are bounded per organisation: past
/// `MAX_PENDING_BY_HAND` both answer 429 in the portal error shape, naming the limit.
#[tokio::test]
async fn test_deliveries_past_the_organisations_limit_answer_429() {
    let t = start();
    let limit = kino_server::webhooks::MAX_PENDING_BY_HAND;
    // No dispatcher runs: what is queued stays pending.
    let hook = json!({"url": "http://127.0.0.1:9/hook", "events": ["recipe.failed"]});
    let (s, created) = t.admin("POST", "/webhooks", Some(hook)).await;
    assert_eq!(s, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let mut first = String::new();
    for n in 0..limit {
        let (s, queued) = t.admin("POST", &format!("/webhooks/{id}/test"), None).await;
        assert_eq!(s, StatusCode::ACCEPTED, "test {n}: {queued}");
        if n == 0 {
            first = queued["id"].as_str().unwrap().to_string();
        }
    }
    let (s, refused) = t.admin("POST", &format!("/webhooks/{id}/test"), None).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{refused}");
    assert_eq!((refused["statusCode"].clone(), refused["error"].clone()), (json!(429), json!("Too Many Requests")));
    assert!(refused["message"].as_str().unwrap().contains(&format!("at most {limit}")), "{refused}");
    let (s, refused) = t.admin("POST", &format!("/webhook-deliveries/{first}/redeliver"), None).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "redeliveries share the limit: {refused}");
    let (s, _) = t.admin("POST", "/webhooks/00000000-0000-4000-8000-000000000000/test", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "an unknown webhook is still unknown");
}

/// Versions of a product active for one item are bounded: past `MAX_ACTIVE_VERSIONS` a new version
/// answers 429 naming the limit; an existing one is still updated, and deactivating one frees a
/// place.
#[tokio::test]
async fn task_versions_past_the_limit_answer_429() {
    let t = start();
    t.movie("m1", "m1.mp4").await;
    let limit = kino_server::tasks::MAX_ACTIVE_VERSIONS;
    let task = |v: usize| format!("/tasks/catalog-item/m1/product/emotions/version/{v}.0");
    for v in 0..limit {
        let (s, body) = t.call("POST", &task(v), None).await;
        assert_eq!(s, StatusCode::OK, "version {v}: {body}");
    }
    let (s, refused) = t.call("POST", &task(limit), None).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{refused}");
    assert!(refused["detail"].as_str().unwrap().contains(&format!("at most {limit} versions")), "{refused}");
    let (s, _) = t.call("POST", &task(0), Some(json!({"priority": "low"}).to_string())).await;
    assert_eq!(s, StatusCode::OK, "an active version is still updated");
    let (s, _) = t.call("POST", "/tasks/catalog-item/m1/product/profanity/version/1.0", None).await;
    assert_eq!(s, StatusCode::OK, "another product has its own versions");
    assert_eq!(t.call("DELETE", &task(0), None).await.0, StatusCode::OK);
    let (s, body) = t.call("POST", &task(limit), None).await;
    assert_eq!(s, StatusCode::OK, "a deactivated version frees its place: {body}");
}
