//! Portal webhook deliveries end to end: a loopback receiver records the raw bytes and headers of
//! what the dispatcher sends; signatures are checked with an independent HMAC-SHA256. Webhooks are
//! managed through the admin API (`support::send`, so every answer is checked against the OpenAPI
//! document); events are emitted and address rules checked at the domain layer.

use std::time::Duration;

use crate::support::{Hit, Receiver, header, hmac_hex, until};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::store::{DeliveryState, OrgId, RecipeStatus};
use kino_server::webhooks::{self, DeliveryView, WebhookError, events};
use kino_server::{AppState, Config, Services, app};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::support;

const ADMIN: &str = "webhooks-admin-token";

struct Service {
    state: AppState,
    org: OrgId,
    stop: watch::Sender<bool>,
    dispatcher: tokio::task::JoinHandle<()>,
    dir: tempfile::TempDir,
}

fn open(dir: &std::path::Path, allow_loopback: bool, timeout: Duration) -> AppState {
    Services::open(
        crate::support::store(dir),
        Config {
            webhook_allow_loopback: allow_loopback,
            webhook_timeout: timeout,
            admin_token: Some(ADMIN.into()),
            ..Config::in_dir(dir)
        },
    )
    .unwrap()
}

/// A service with organisation `acme` and a running dispatcher.
fn start_with_timeout(timeout: Duration) -> Service {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), true, timeout);
    let (org, _) = state.store.ensure_org("acme").unwrap();
    let (stop, stopped) = watch::channel(false);
    let dispatcher = tokio::spawn(webhooks::run_dispatcher(state.dispatcher(), stopped));
    Service { state, org, stop, dispatcher, dir }
}

fn start() -> Service {
    start_with_timeout(webhooks::DEFAULT_TIMEOUT)
}

impl Service {
    /// `method /admin/v1/orgs{path}` with an optional JSON body, through `support::send`.
    async fn admin(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let req = Request::builder()
            .method(method)
            .uri(format!("/admin/v1/orgs{path}"))
            .header("authorization", format!("Bearer {ADMIN}"))
            .header("content-type", "application/json")
            .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .unwrap();
        let res = support::send(app(self.state.clone()), req).await;
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    /// A webhook of organisation `org` to `url`, created disabled; returns (id, secret).
    async fn create(&self, org: &str, url: &str, events: &[&str]) -> (String, String) {
        let (status, created) =
            self.admin("POST", &format!("/{org}/webhooks"), Some(json!({"url": url, "events": events}))).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        assert_eq!(created["enabled"], false, "webhooks are created disabled");
        (created["id"].as_str().unwrap().to_string(), created["signing_secret"].as_str().unwrap().to_string())
    }

    /// An enabled webhook of organisation `org` to `url`; returns (id, secret).
    async fn hook(&self, org: &str, url: &str, events: &[&str]) -> (String, String) {
        let (id, secret) = self.create(org, url, events).await;
        let (status, enabled) = self.admin("POST", &format!("/{org}/webhooks/{id}/enable"), None).await;
        assert_eq!((status, &enabled["enabled"]), (StatusCode::OK, &json!(true)));
        (id, secret)
    }

    fn log(&self, webhook_id: &str) -> Vec<DeliveryView> {
        webhooks::deliveries(&self.state.store, self.org, webhook_id, 100).unwrap()
    }

    /// Waits until every delivery of the webhook is finished and there are `n` of them.
    async fn finished(&self, webhook_id: &str, n: usize) -> Vec<DeliveryView> {
        let mut log = Vec::new();
        let done = until(|| {
            log = self.log(webhook_id);
            log.len() == n && log.iter().all(|d| matches!(d.state, DeliveryState::Succeeded | DeliveryState::Failed))
        })
        .await;
        assert!(done, "{n} finished deliveries expected, log: {log:#?}");
        let (status, listed) = self.admin("GET", &format!("/acme/webhooks/{webhook_id}/deliveries"), None).await;
        assert_eq!((status, listed.as_array().map(Vec::len)), (StatusCode::OK, Some(n)), "{listed}");
        log
    }

    /// Stops the dispatcher (waiting for sends in flight); the data directory lives on.
    async fn shutdown(self) -> tempfile::TempDir {
        let _ = self.stop.send(true);
        tokio::time::timeout(Duration::from_secs(40), self.dispatcher).await.unwrap().unwrap();
        self.dir
    }
}

/// The checks every delivery passes: content type, signature over the raw bytes, timestamps.
fn check_delivery(hit: &Hit, secret: &str) -> Value {
    assert_eq!(header(hit, "content-type"), Some("application/json"));
    let signature = header(hit, "x-service-signature").expect("a signature header");
    assert_eq!(signature.len(), 64);
    assert!(signature.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(signature, hmac_hex(secret, &hit.body), "the signature is the HMAC of the raw bytes");
    let sent = header(hit, "x-service-timestamp").expect("a timestamp header");
    chrono::DateTime::parse_from_rfc3339(sent).expect("the timestamp header is ISO 8601");
    let envelope: Value = serde_json::from_slice(&hit.body).unwrap();
    let keys: Vec<&str> = envelope.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 3, "{envelope}");
    let ts = envelope["timestamp"].as_str().unwrap();
    assert_eq!(ts.len(), 24, "YYYY-MM-DDTHH:MM:SS.mmmZ: {ts}");
    chrono::NaiveDateTime::parse_from_str(ts, "%Y-%m-%dT%H:%M:%S%.3fZ").expect("UTC with milliseconds");
    assert!(envelope["data"].is_object());
    envelope
}

/// A field of an event's data and the test its value passes.
type Field = (&'static str, fn(&Value) -> bool);

fn check_shape(event: &str, data: &Value) {
    let fields: &[Field] = match event {
        "smart_list.updated" => &[
            ("smartListId", Value::is_string),
            ("smartListTitle", Value::is_string),
            ("addedAssetIds", |v| v.as_array().is_some_and(|a| a.iter().all(Value::is_string))),
            ("removedAssetIds", |v| v.as_array().is_some_and(|a| a.iter().all(Value::is_string))),
        ],
        "recipe.completed" => &[
            ("recipeId", Value::is_string),
            ("recipeTitle", Value::is_string),
            ("status", |v| v == "completed"),
            ("dataOnly", Value::is_boolean),
            ("creativeAssetCount", Value::is_u64),
            ("creativeAssetIds", |v| v.as_array().is_some_and(|a| a.iter().all(Value::is_string))),
        ],
        "recipe.failed" => &[
            ("recipeId", Value::is_string),
            ("recipeTitle", Value::is_string),
            ("status", |v| v == "failed"),
            ("dataOnly", Value::is_boolean),
            ("errorMessage", Value::is_string),
        ],
        _ => &[
            ("creativeAssetId", Value::is_string),
            ("assetId", Value::is_string),
            ("recipeId", Value::is_string),
            ("recipeTitle", Value::is_string),
            ("type", Value::is_string),
            ("url", |v| v.is_string() || v.is_null()),
        ],
    };
    let object = data.as_object().unwrap();
    assert_eq!(object.len(), fields.len(), "{event}: {data}");
    for (name, ok) in fields {
        assert!(object.get(*name).is_some_and(ok), "{event}: field {name} in {data}");
    }
}

/// Sample data of each event, built with the typed shapes.
fn sample(event: &str) -> Value {
    let recipe = "0b6f1c2e-8a47-4d1e-9c55-3f1f0d7a9b21".to_string();
    let value = match event {
        "smart_list.updated" => serde_json::to_value(events::SmartListUpdated {
            smart_list_id: "5d0c7e5e-1c1b-4f7e-a3c1-1b2c3d4e5f60".into(),
            smart_list_title: "Summer thrillers".into(),
            added_asset_ids: vec!["svc-1".into(), "svc-2".into()],
            removed_asset_ids: vec![],
        }),
        "recipe.completed" => serde_json::to_value(events::RecipeCompleted {
            recipe_id: recipe,
            recipe_title: "Posters".into(),
            status: RecipeStatus::Completed,
            data_only: false,
            creative_asset_count: 1,
            creative_asset_ids: vec!["7e1d9a40-2f6b-4c3a-8d5e-9a0b1c2d3e4f".into()],
        }),
        "recipe.failed" => serde_json::to_value(events::RecipeFailed {
            recipe_id: recipe,
            recipe_title: "Posters".into(),
            status: RecipeStatus::Failed,
            data_only: true,
            error_message: "no frames".into(),
        }),
        _ => serde_json::to_value(events::CreativeAssetEvent {
            creative_asset_id: "7e1d9a40-2f6b-4c3a-8d5e-9a0b1c2d3e4f".into(),
            asset_id: "svc-1".into(),
            recipe_id: recipe,
            recipe_title: "Posters".into(),
            asset_type: kino_server::portal::kinds::CreativeAssetType::Thumbnail,
            url: (event == "creative_asset.completed").then(|| "acme/thumbs/1.jpg".to_string()),
        }),
    };
    value.unwrap()
}

#[tokio::test]
async fn every_event_is_delivered_signed_with_its_envelope_and_data_shape() {
    let receiver = Receiver::start().await;
    let s = start();
    let (id, secret) = s.hook("acme", &receiver.url("/ok"), &webhooks::EVENTS).await;
    assert_eq!(secret.len(), 64);
    for event in webhooks::EVENTS {
        assert_eq!(webhooks::emit(&s.state.store, &s.state.effects, s.org, event, sample(event)).unwrap(), 1);
    }
    let log = s.finished(&id, 6).await;
    for d in &log {
        assert_eq!(d.state, DeliveryState::Succeeded, "{d:?}");
        assert_eq!(d.status_code, Some(200));
        assert!(d.duration_ms.is_some() && d.attempted_at.is_some() && d.error.is_none());
    }
    let hits = receiver.hits();
    assert_eq!(hits.len(), 6);
    let mut seen: Vec<String> = Vec::new();
    for hit in &hits {
        let envelope = check_delivery(hit, &secret);
        let event = envelope["event"].as_str().unwrap();
        assert_eq!(header(hit, "x-service-event"), Some(event));
        check_shape(event, &envelope["data"]);
        assert_eq!(envelope["data"], sample(event));
        seen.push(event.to_string());
    }
    seen.sort();
    let mut all = webhooks::EVENTS.map(String::from).to_vec();
    all.sort();
    assert_eq!(seen, all);
    s.shutdown().await;
    receiver.stop().await;
}

#[tokio::test]
async fn test_deliveries_reach_disabled_webhooks_without_an_event_header() {
    let receiver = Receiver::start().await;
    let s = start();
    let (id, secret) = s.create("acme", &receiver.url("/ok"), &["recipe.failed"]).await;
    let (status, queued) = s.admin("POST", &format!("/acme/webhooks/{id}/test"), None).await;
    assert_eq!((status, &queued["event"], &queued["state"]), (StatusCode::ACCEPTED, &json!("test"), &json!("pending")));
    let log = s.finished(&id, 1).await;
    assert_eq!(log[0].state, DeliveryState::Succeeded);
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1);
    let envelope = check_delivery(&hits[0], &secret);
    assert_eq!(header(&hits[0], "x-service-event"), None, "no event header on Test deliveries");
    assert_eq!(envelope["event"], "test");
    assert_eq!(envelope["data"], json!({ "message": webhooks::TEST_MESSAGE }));
    assert!(kino::webhook::verify(&hits[0].body, header(&hits[0], "x-service-signature").unwrap(), &secret));
    s.shutdown().await;
    receiver.stop().await;
}

#[tokio::test]
async fn non_2xx_answers_and_redirects_are_failures_with_their_status() {
    let receiver = Receiver::start().await;
    let s = start();
    let (fail, _) = s.hook("acme", &receiver.url("/fail"), &["recipe.failed"]).await;
    let (redirect, _) = s.hook("acme", &receiver.url("/redirect"), &["recipe.failed"]).await;
    let (accepted, _) = s.hook("acme", &receiver.url("/accepted"), &["recipe.failed"]).await;
    assert_eq!(
        webhooks::emit(&s.state.store, &s.state.effects, s.org, "recipe.failed", sample("recipe.failed")).unwrap(),
        3
    );
    let failed = &s.finished(&fail, 1).await[0];
    assert_eq!((failed.state.as_str(), failed.status_code), ("failed", Some(500)));
    assert!(failed.error.as_deref().unwrap().contains("500"), "{failed:?}");
    let redirected = &s.finished(&redirect, 1).await[0];
    assert_eq!((redirected.state.as_str(), redirected.status_code), ("failed", Some(302)));
    let ok = &s.finished(&accepted, 1).await[0];
    assert_eq!((ok.state.as_str(), ok.status_code), ("succeeded", Some(202)));
    assert!(receiver.hits_on("/ok").is_empty(), "redirects are not followed");
    s.shutdown().await;
    receiver.stop().await;
}

#[tokio::test]
async fn a_receiver_slower_than_the_timeout_is_a_failure() {
    let receiver = Receiver::start().await;
    let s = start_with_timeout(Duration::from_millis(300));
    let (id, _) = s.hook("acme", &receiver.url("/slow"), &["smart_list.updated"]).await;
    webhooks::emit(&s.state.store, &s.state.effects, s.org, "smart_list.updated", sample("smart_list.updated"))
        .unwrap();
    let d = &s.finished(&id, 1).await[0];
    assert_eq!((d.state.as_str(), d.status_code), ("failed", None));
    assert!(d.error.as_deref().unwrap().contains("timed out"), "{d:?}");
    assert!(d.duration_ms.unwrap() < 2000, "{d:?}");
    s.shutdown().await;
    receiver.stop().await;
}

#[tokio::test]
async fn redelivery_sends_the_identical_bytes() {
    let receiver = Receiver::start().await;
    let s = start();
    let (id, secret) = s.hook("acme", &receiver.url("/fail"), &["creative_asset.failed"]).await;
    webhooks::emit(&s.state.store, &s.state.effects, s.org, "creative_asset.failed", sample("creative_asset.failed"))
        .unwrap();
    let first = s.finished(&id, 1).await.remove(0);
    let (status, again) = s.admin("POST", &format!("/acme/webhook-deliveries/{}/redeliver", first.id), None).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{again}");
    assert_eq!(again["redelivery_of"], first.id.as_str());
    assert_eq!(again["event"], "creative_asset.failed");
    let log = s.finished(&id, 2).await;
    assert_eq!(log[0].id, again["id"].as_str().unwrap(), "newest first");
    let hits = receiver.hits();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].body, hits[1].body);
    for hit in &hits {
        check_delivery(hit, &secret);
        assert_eq!(header(hit, "x-service-event"), Some("creative_asset.failed"));
    }
    let missing = "00000000-0000-4000-8000-000000000000";
    let (status, refused) = s.admin("POST", &format!("/acme/webhook-deliveries/{missing}/redeliver"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(refused["message"].as_str().unwrap().contains("delivery"), "{refused}");
    // retention: finished deliveries older than the cut-off leave the log, newer ones stay
    assert_eq!(s.state.store.prune_deliveries("2000-01-01T00:00:00.000Z").unwrap(), 0);
    assert_eq!(s.state.store.prune_deliveries("2999-01-01T00:00:00.000Z").unwrap(), 2);
    assert!(s.log(&id).is_empty());
    s.shutdown().await;
    receiver.stop().await;
}

#[tokio::test]
async fn disabled_unsubscribed_and_other_organisations_webhooks_get_nothing() {
    let receiver = Receiver::start().await;
    let s = start();
    s.state.store.ensure_org("globex").unwrap();
    let (subscribed, _) = s.hook("acme", &receiver.url("/subscribed"), &["recipe.failed"]).await;
    let (disabled, _) = s.hook("acme", &receiver.url("/disabled"), &webhooks::EVENTS).await;
    let (status, _) = s.admin("POST", &format!("/acme/webhooks/{disabled}/disable"), None).await;
    assert_eq!(status, StatusCode::OK);
    let (foreign, _) = s.hook("globex", &receiver.url("/foreign"), &webhooks::EVENTS).await;
    assert_eq!(
        webhooks::emit(&s.state.store, &s.state.effects, s.org, "recipe.completed", sample("recipe.completed"))
            .unwrap(),
        0
    );
    assert_eq!(
        webhooks::emit(&s.state.store, &s.state.effects, s.org, "recipe.failed", sample("recipe.failed")).unwrap(),
        1
    );
    s.finished(&subscribed, 1).await;
    assert!(s.log(&disabled).is_empty());
    let (status, foreign_log) = s.admin("GET", &format!("/globex/webhooks/{foreign}/deliveries"), None).await;
    assert_eq!((status, foreign_log), (StatusCode::OK, json!([])));
    assert_eq!(receiver.hits().len(), 1);
    assert_eq!(receiver.hits_on("/subscribed").len(), 1);
    // Another organisation's webhook is not found, whatever the operation.
    for (method, path) in [
        ("GET", format!("/acme/webhooks/{foreign}/deliveries")),
        ("POST", format!("/acme/webhooks/{foreign}/disable")),
        ("POST", format!("/acme/webhooks/{foreign}/test")),
        ("DELETE", format!("/acme/webhooks/{foreign}")),
    ] {
        assert_eq!(s.admin(method, &path, None).await.0, StatusCode::NOT_FOUND, "{method} {path}");
    }
    let (_, listed) = s.admin("GET", "/globex/webhooks", None).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    s.shutdown().await;
    receiver.stop().await;
}

#[tokio::test]
async fn list_enable_and_delete() {
    let s = start();
    let url = "http://127.0.0.1:9/hook";
    let events = ["smart_list.updated", "recipe.failed", "recipe.failed"];
    let (status, view) = s.admin("POST", "/acme/webhooks", Some(json!({"url": url, "events": events}))).await;
    assert_eq!(status, StatusCode::CREATED);
    let id = view["id"].as_str().unwrap();
    assert_eq!(id.len(), 36);
    assert_eq!(view["events"], json!(["smart_list.updated", "recipe.failed"]));
    let (_, listed) = s.admin("GET", "/acme/webhooks", None).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_eq!((&listed[0]["url"], &listed[0]["enabled"]), (&json!(url), &json!(false)));
    let (_, enabled) = s.admin("POST", &format!("/acme/webhooks/{id}/enable"), None).await;
    assert_eq!(enabled["enabled"], true);
    assert_eq!(
        s.admin("DELETE", &format!("/acme/webhooks/{id}"), None).await,
        (StatusCode::OK, json!({"deleted": id}))
    );
    assert_eq!(s.admin("GET", "/acme/webhooks", None).await, (StatusCode::OK, json!([])));
    let (status, refused) = s.admin("DELETE", &format!("/acme/webhooks/{id}"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(refused["message"].as_str().unwrap().contains("no webhook"), "{refused}");
    s.shutdown().await;
}

fn url_error(state: &AppState, org: OrgId, url: &str) -> String {
    match webhooks::create(
        &state.store,
        &state.keys.secrets,
        state.config.webhook_allow_loopback,
        org,
        url,
        &["recipe.failed".to_string()],
        false,
    ) {
        Err(e @ WebhookError::Invalid { field: "url", .. }) => e.to_string(),
        other => panic!("{url}: expected a url error, got {other:?}"),
    }
}

#[test]
fn urls_must_be_https_to_public_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let strict = open(dir.path(), false, webhooks::DEFAULT_TIMEOUT);
    let (org, _) = strict.store.ensure_org("acme").unwrap();
    assert!(url_error(&strict, org, "http://hooks.example.com/kino").contains("https"));
    assert!(url_error(&strict, org, "https://user:secret@hooks.example.com/").contains("user name or password"));
    for internal in [
        "https://10.0.0.1/",
        "https://192.168.1.1/",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/",
        "https://127.0.0.1/",
        "https://100.64.0.1/",
        "https://[fd00::1]/",
        "https://[fe80::1]/",
        "https://[::ffff:10.0.0.1]/",
        "https://0.0.0.0/",
        "https://224.0.0.1/",
        "https://localhost/",
    ] {
        let e = url_error(&strict, org, internal);
        assert!(e.starts_with("url: "), "{e}");
    }
    for malformed in ["not a url", "ftp://hooks.example.com/", "https:///path", "http://127.0.0.1:8080/"] {
        url_error(&strict, org, malformed);
    }
    // Allowing loopback allows exactly loopback.
    let dir = tempfile::tempdir().unwrap();
    let relaxed = open(dir.path(), true, webhooks::DEFAULT_TIMEOUT);
    let (org, _) = relaxed.store.ensure_org("acme").unwrap();
    for ok in ["http://127.0.0.1:8080/", "https://127.0.0.1/", "http://[::1]:8080/", "http://localhost:8080/"] {
        webhooks::create(
            &relaxed.store,
            &relaxed.keys.secrets,
            relaxed.config.webhook_allow_loopback,
            org,
            ok,
            &["recipe.failed".to_string()],
            false,
        )
        .unwrap();
    }
    for refused in ["http://10.0.0.1/", "https://192.168.1.1/", "https://169.254.169.254/", "http://hooks.example.com/"]
    {
        url_error(&relaxed, org, refused);
    }
}

#[test]
fn events_and_data_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), true, webhooks::DEFAULT_TIMEOUT);
    let (org, _) = state.store.ensure_org("acme").unwrap();
    let url = "http://127.0.0.1:9/";
    let e =
        webhooks::create(&state.store, &state.keys.secrets, state.config.webhook_allow_loopback, org, url, &[], false)
            .unwrap_err();
    assert!(matches!(e, WebhookError::Invalid { field: "events", .. }), "{e}");
    let e = webhooks::create(
        &state.store,
        &state.keys.secrets,
        state.config.webhook_allow_loopback,
        org,
        url,
        &["test".to_string()],
        false,
    )
    .unwrap_err();
    assert!(e.to_string().contains("unknown event \"test\""), "{e}");
    let e = webhooks::emit(&state.store, &state.effects, org, "recipe.started", json!({})).unwrap_err();
    assert!(matches!(e, WebhookError::Invalid { field: "event", .. }), "{e}");
    let e = webhooks::emit(&state.store, &state.effects, org, "recipe.failed", json!([1])).unwrap_err();
    assert!(matches!(e, WebhookError::Invalid { field: "data", .. }), "{e}");
}

#[tokio::test]
async fn a_restart_marks_deliveries_left_sending_as_failed() {
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), true, webhooks::DEFAULT_TIMEOUT);
    let (org, _) = state.store.ensure_org("acme").unwrap();
    let (view, _) = webhooks::create(
        &state.store,
        &state.keys.secrets,
        state.config.webhook_allow_loopback,
        org,
        &receiver.url("/ok"),
        &["recipe.failed".to_string()],
        false,
    )
    .unwrap();
    webhooks::set_enabled(&state.store, org, &view.id, true).unwrap();
    webhooks::emit(&state.store, &state.effects, org, "recipe.failed", sample("recipe.failed")).unwrap();
    // The process claimed the delivery, then died before recording an outcome.
    assert_eq!(state.store.claim_deliveries(16).unwrap().len(), 1);
    drop(state);

    let state = open(dir.path(), true, webhooks::DEFAULT_TIMEOUT);
    let (stop, stopped) = watch::channel(false);
    let dispatcher = tokio::spawn(webhooks::run_dispatcher(state.dispatcher(), stopped));
    let mut log = Vec::new();
    assert!(
        until(|| {
            log = webhooks::deliveries(&state.store, org, &view.id, 10).unwrap();
            log[0].state == DeliveryState::Failed
        })
        .await,
        "{log:?}"
    );
    assert_eq!(log[0].error.as_deref(), Some(webhooks::INTERRUPTED));
    assert!(receiver.hits().is_empty(), "one attempt: an interrupted delivery is not sent again");
    let _ = stop.send(true);
    dispatcher.await.unwrap();
    receiver.stop().await;
}

#[tokio::test]
async fn shutdown_waits_for_deliveries_in_flight() {
    let receiver = Receiver::start().await;
    let s = start();
    let (id, _) = s.hook("acme", &receiver.url("/slow"), &["recipe.completed"]).await;
    webhooks::emit(&s.state.store, &s.state.effects, s.org, "recipe.completed", sample("recipe.completed")).unwrap();
    assert!(until(|| receiver.hits().len() == 1).await);
    let (state, org) = (s.state.clone(), s.org);
    let _dir = s.shutdown().await;
    let log = webhooks::deliveries(&state.store, org, &id, 10).unwrap();
    assert_eq!((log[0].state.as_str(), log[0].status_code), ("succeeded", Some(200)));
    receiver.stop().await;
}

#[tokio::test]
async fn deliveries_recheck_the_address_when_sending() {
    // Webhooks stored before a rule applied (or whose host now resolves elsewhere, as in DNS
    // rebinding) are refused at delivery time, without a connection to the internal address.
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), false, webhooks::DEFAULT_TIMEOUT);
    let (org, _) = state.store.ensure_org("acme").unwrap();
    let port = receiver.base.rsplit(':').next().unwrap();
    let events = ["recipe.failed".to_string()];
    let rebound = format!("https://localhost:{port}/ok");
    for (id, url) in [("rebound", rebound.as_str()), ("literal", "https://10.0.0.1/"), ("plain", "http://127.0.0.1:9/")]
    {
        state.store.add_webhook(org, id, url, &events, "secret", true).unwrap();
    }
    assert_eq!(webhooks::emit(&state.store, &state.effects, org, "recipe.failed", sample("recipe.failed")).unwrap(), 3);
    let (stop, stopped) = watch::channel(false);
    let dispatcher = tokio::spawn(webhooks::run_dispatcher(state.dispatcher(), stopped));
    for id in ["rebound", "literal", "plain"] {
        let mut log = Vec::new();
        let done = until(|| {
            log = webhooks::deliveries(&state.store, org, id, 10).unwrap();
            log[0].state == DeliveryState::Failed
        })
        .await;
        assert!(done, "{id}: {log:?}");
        let error = log[0].error.as_deref().unwrap();
        assert!(error.contains("refused") || error.contains("must"), "{id}: {error}");
        assert_eq!(log[0].status_code, None);
    }
    assert!(receiver.hits().is_empty());
    let _ = stop.send(true);
    dispatcher.await.unwrap();
    receiver.stop().await;
}

#[tokio::test]
async fn one_process_dispatches_and_another_takes_over_when_it_dies() {
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    // Two processes on one database, with a short lease so that the takeover comes soon.
    let replica = || {
        Services::open(
            crate::support::store(dir.path()),
            Config {
                webhook_allow_loopback: true,
                webhook_lease: Duration::from_secs(2),
                ..Config::in_dir(dir.path())
            },
        )
        .unwrap()
    };
    let (a, b) = (replica(), replica());
    let (org, _) = a.store.ensure_org("acme").unwrap();
    let (view, _) = webhooks::create(
        &a.store,
        &a.keys.secrets,
        a.config.webhook_allow_loopback,
        org,
        &receiver.url("/ok"),
        &["recipe.failed".to_string()],
        false,
    )
    .unwrap();
    webhooks::set_enabled(&a.store, org, &view.id, true).unwrap();
    let holder = || a.store.lease(webhooks::DISPATCHER_LEASE).unwrap().map(|(h, _)| h);

    let (_stop_a, stopped_a) = watch::channel(false);
    let dispatcher_a = tokio::spawn(webhooks::run_dispatcher(a.dispatcher(), stopped_a));
    assert!(until(|| holder().is_some()).await, "a takes the lease");
    let first = holder().unwrap();
    let (stop_b, stopped_b) = watch::channel(false);
    let dispatcher_b = tokio::spawn(webhooks::run_dispatcher(b.dispatcher(), stopped_b));
    webhooks::emit(&a.store, &a.effects, org, "recipe.failed", sample("recipe.failed")).unwrap();
    assert!(until(|| receiver.hits().len() == 1).await);
    assert_eq!(holder(), Some(first.clone()), "b waits while a renews its lease");

    // a dies: its dispatcher stops without giving the lease up.
    dispatcher_a.abort();
    let _ = dispatcher_a.await;
    webhooks::emit(&b.store, &b.effects, org, "recipe.failed", sample("recipe.failed")).unwrap();
    assert!(until(|| receiver.hits().len() == 2).await, "b takes over once a's lease has expired");
    assert_ne!(holder(), Some(first), "b holds the lease now");
    let mut log = Vec::new();
    assert!(
        until(|| {
            log = webhooks::deliveries(&b.store, org, &view.id, 10).unwrap();
            log.len() == 2 && log.iter().all(|d| d.state == DeliveryState::Succeeded)
        })
        .await,
        "{log:?}"
    );
    assert_eq!(receiver.hits().len(), 2, "each delivery sent once");
    let _ = stop_b.send(true);
    dispatcher_b.await.unwrap();
    assert_eq!(holder(), None, "a dispatcher that stops gives its lease up");
    receiver.stop().await;
}
