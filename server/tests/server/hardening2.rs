//! What the second attack and a new user found (hardening II): identifiers and text bounded,
//! the docs pages under the same headers as the web application, `/media` paths with empty
//! segments refused, catalog links whose ids hold spaces. (Media paths opened once, silent
//! connections and the peer share are in `hardening.rs`; file modes and addresses are unit
//! tests of `files.rs` and `webhooks/address.rs`.)

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::{AppState, Config, Services, app};
use serde_json::{Value, json};

use crate::support;

struct T {
    state: AppState,
    key: String,
    _dir: tempfile::TempDir,
}

fn start() -> T {
    let dir = tempfile::tempdir().unwrap();
    let state = Services::open(support::store(dir.path()), Config::in_dir(dir.path())).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    let key = kino_server::auth::generate_key();
    state.store.add_key(org, &kino_server::auth::hash_key(&key), &kino_server::auth::key_prefix(&key)).unwrap();
    T { state, key, _dir: dir }
}

impl T {
    async fn send(&self, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        let res = support::send(app(self.state.clone()), req).await;
        let (parts, body) = res.into_parts();
        (parts.status, parts.headers, body.collect().await.unwrap().to_bytes().to_vec())
    }

    async fn put_item(&self, item: &Value) -> (StatusCode, Value) {
        let req = Request::put(format!("/catalog/v1/item?key={}", self.key))
            .header("content-type", "application/json")
            .body(Body::from(item.to_string()))
            .unwrap();
        let (s, _, body) = self.send(req).await;
        (s, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }
}

#[tokio::test]
async fn identifiers_and_text_are_bounded_with_a_422_naming_the_field() {
    let t = start();
    let long = "x".repeat(1_500_000);
    let cases = [
        (json!({"id": long, "type": "standalone", "title": "t"}), "id", "string_too_long"),
        (json!({"id": "a\u{0}b", "type": "standalone", "title": "t"}), "id", "string_pattern_mismatch"),
        (json!({"id": "ok", "type": "standalone", "title": "t\u{1b}[2J"}), "title", "string_pattern_mismatch"),
        (
            json!({"id": "ep", "type": "episode", "title": "t", "episodic_info": {"series_id": "s".repeat(300)}}),
            "episodic_info.series_id",
            "string_too_long",
        ),
        (
            json!({"id": "ok", "type": "standalone", "metadata": {"genres": ["g".repeat(1001)]}}),
            "metadata.genres.0",
            "string_too_long",
        ),
    ];
    for (item, loc, kind) in cases {
        let (s, v) = t.put_item(&item).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{loc}: {v}");
        let found = v["detail"].as_array().unwrap().iter().any(|d| {
            d["type"] == kind
                && d["loc"].as_array().unwrap().iter().map(|p| p.as_str().unwrap_or("")).collect::<Vec<_>>().join(".")
                    == format!("body.{loc}")
        });
        assert!(found, "{loc} {kind}: {v}");
        assert!(v.to_string().len() < 10_000, "the answer does not echo the whole input");
    }
    // Nothing of them was stored; an id at the limit, with spaces and non-ASCII, is.
    let id = format!("{} é", "i".repeat(254));
    let (s, v) = t.put_item(&json!({"id": id, "type": "standalone", "title": "t"})).await;
    assert!(s.is_success(), "{v}");
    let org = t.state.store.orgs().unwrap()[0].0;
    let stored = t.state.store.items(org, true, 0, 100).unwrap();
    assert_eq!(stored.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
}

#[tokio::test]
async fn the_docs_pages_have_the_security_headers() {
    let t = start();
    for path in ["/docs", "/portal/docs", "/smartlists/docs", "/portal/docs/index.html", "/smartlists/docs/x"] {
        let (s, h, _) = t.send(Request::get(path).body(Body::empty()).unwrap()).await;
        assert_eq!(s, StatusCode::OK, "{path}");
        let csp = h.get("content-security-policy").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        assert!(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"), "{path}: {csp:?}");
        assert_eq!(h.get("x-frame-options").map(|v| v.to_str().unwrap()), Some("DENY"), "{path}");
        assert_eq!(h.get("x-content-type-options").map(|v| v.to_str().unwrap()), Some("nosniff"), "{path}");
    }
}

#[tokio::test]
async fn media_paths_with_empty_segments_are_not_found() {
    let t = start();
    let dir = t.state.config.bucket_root.join("gen/g1");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("clip-0.mp4"), b"clip").unwrap();
    let get = |path: &str| Request::get(path).body(Body::empty()).unwrap();
    let (s, _, body) = t.send(get("/media/gen/g1/clip-0.mp4")).await;
    assert_eq!((s, body.as_slice()), (StatusCode::OK, b"clip".as_slice()));
    for path in [
        "/media/gen//g1/clip-0.mp4",
        "/media//gen/g1/clip-0.mp4",
        "/media/gen/g1//clip-0.mp4",
        "/media/gen/g1/",
        "/media/gen/./g1/clip-0.mp4",
    ] {
        let (s, _, _) = t.send(get(path)).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
    }
}

/// A new user's first hour: the demo asks only for what its data can give, so that none of its
/// tasks fails on first contact (the fingerprints need an audio fingerprint the generated signals
/// do not have; the content summary, without a transcript, still has the title's emotional arc).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_catalog_has_no_failed_task() {
    let dir = tempfile::tempdir().unwrap();
    let state = Services::open(support::store(dir.path()), Config::in_dir(dir.path())).unwrap();
    let demo = crate::support::manifest_dir().join("../data/demo");
    let key =
        kino_server::demo::bootstrap(&state.store, &state.signals, &state.effects, &demo).unwrap().expect("a new demo");
    while kino_server::worker::run_one(&state.worker()) {}
    let req = Request::get(format!("/tasks/catalog-item/tt-demo-001?key={key}")).body(Body::empty()).unwrap();
    let res = support::send(app(state.clone()), req).await;
    let body: Value = serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap();
    let tasks = body.as_array().or_else(|| body["tasks"].as_array()).unwrap_or_else(|| panic!("{body}"));
    assert!(!tasks.is_empty(), "{body}");
    for t in tasks {
        assert_ne!(t["status"], "failed", "{t}");
    }
    assert!(body.to_string().contains("content_summary"), "asked: generated signals have an emotional arc: {body}");
}
