//! End-to-end tests of the HTTP interface, in process (`app(state).oneshot(request)` through
//! `support::send`, which checks every answer against the OpenAPI document), plus one over a real
//! socket, with a temporary data directory each.

use crate::support;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::auth::{generate_key, hash_key, key_prefix};
use kino_server::store::{JobState, ResultStatus};
use kino_server::{AppState, Config, Services, app, worker};
use serde_json::{Value, json};

struct TestApp {
    state: AppState,
    key: String,
    _dir: tempfile::TempDir,
}

fn org_with_key(state: &AppState, name: &str) -> String {
    let (org, _) = state.store.ensure_org(name).unwrap();
    state.store.ensure_catalog(org, name).unwrap();
    let key = generate_key();
    state.store.add_key(org, &hash_key(&key), &key_prefix(&key)).unwrap();
    key
}

const ADMIN_TOKEN: &str = "admin-secret-for-tests";

fn open(dir: &std::path::Path) -> AppState {
    open_with_limit(dir, 1000)
}

fn open_with_limit(dir: &std::path::Path, rate_limit_per_hour: u32) -> AppState {
    Services::open(
        crate::support::store(dir),
        Config { rate_limit_per_hour, admin_token: Some(ADMIN_TOKEN.into()), ..Config::in_dir(dir) },
    )
    .unwrap()
}

fn test_app() -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path());
    let key = org_with_key(&state, "acme");
    TestApp { state, key, _dir: dir }
}

impl TestApp {
    async fn call(&self, method: &str, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
        let sep = if uri.contains('?') { '&' } else { '?' };
        self.raw(method, &format!("{uri}{sep}key={}", self.key), body.map(|b| b.to_string()), &[]).await
    }

    async fn raw(
        &self,
        method: &str,
        uri: &str,
        body: Option<String>,
        headers: &[(&str, &str)],
    ) -> (StatusCode, Value) {
        let mut req = Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let req = req
            .header("content-type", "application/json")
            .body(body.map(Body::from).unwrap_or_else(Body::empty))
            .unwrap();
        let res = support::send(app(self.state.clone()), req).await;
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        let value =
            serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, value)
    }

    /// A request whose body has its own media type (`content_type`; none when empty), with the key.
    async fn typed(&self, method: &str, uri: &str, content_type: &str, body: Vec<u8>) -> (StatusCode, Value) {
        let sep = if uri.contains('?') { '&' } else { '?' };
        let mut req = Request::builder().method(method).uri(format!("{uri}{sep}key={}", self.key));
        if !content_type.is_empty() {
            req = req.header("content-type", content_type);
        }
        let res = support::send(app(self.state.clone()), req.body(Body::from(body)).unwrap()).await;
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    fn process(&self) {
        while worker::run_one(&self.state.worker()) {}
    }

    async fn movie(&self, id: &str) {
        let (s, body) =
            self.call("PUT", "/catalog/v1/item", Some(json!({"id": id, "type": "standalone", "title": id}))).await;
        assert_eq!((s, body), (StatusCode::OK, Value::Null));
    }

    async fn signals(&self, id: &str, seed: u64) {
        let mut o = kino::synth::SynthOptions::new(id, 1800.0, 1.0, seed);
        o.scene_embeddings = true;
        let mut s = kino::synth::generate(&o);
        s.item_embedding = Some((0..256).map(|i| ((i as u64 * (seed + 3)) % 17) as f32 / 17.0 + 0.01).collect());
        let (st, body) = self
            .raw("PUT", &format!("/analysis/v1/item/standalone/{id}?key={}", self.key), Some(s.to_json()), &[])
            .await;
        assert_eq!(st, StatusCode::OK, "{body}");
    }
}

/// `n` pseudo-random non-zero audio fingerprint hashes from `seed` (xorshift): unrelated sound.
fn task(id: &str, product: &str) -> String {
    format!("/tasks/catalog-item/{id}/product/{product}/version/1.0.0")
}

#[tokio::test]
async fn catalog_upsert_get_list_delete_and_validation() {
    let t = test_app();
    t.movie("m1").await;
    let (s, item) = t.call("GET", "/catalog/v1/item/standalone/m1", None).await;
    assert_eq!((s, item["title"].clone()), (StatusCode::OK, json!("m1")));
    let (s, _) = t.call("GET", "/catalog/v1/item/episode/m1", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "wrong type is not found");
    let (s, list) = t.call("GET", "/catalog/v1/item", None).await;
    assert_eq!(s, StatusCode::OK);
    let sid = list[0]["service_id"].clone();
    t.call("PUT", "/catalog/v1/item", Some(json!({"id": "m1", "type": "standalone", "title": "renamed"}))).await;
    let (_, list) = t.call("GET", "/catalog/v1/item", None).await;
    assert_eq!(list[0]["service_id"], sid, "service_id is stable across upserts");
    for (body, loc, kind) in [
        (
            json!({"id": "x", "type": "standalone", "release_year": 1900}),
            json!(["body", "release_year"]),
            "greater_than",
        ),
        (json!({"id": "x", "type": "standalone", "release_year": 2050}), json!(["body", "release_year"]), "less_than"),
        (json!({"id": "", "type": "standalone"}), json!(["body", "id"]), "string_too_short"),
        (json!({"id": "x", "type": "movie"}), json!(["body", "type"]), "enum"),
        (json!({"type": "standalone"}), json!(["body", "id"]), "missing"),
        (json!({"id": "x", "type": "standalone", "virtual": true}), json!(["body", "external_ids"]), "value_error"),
        (json!({"id": "x", "type": "episode"}), json!(["body", "episodic_info", "series_id"]), "value_error"),
        (
            json!({"id": "x", "type": "series", "asset_info": {"file_uri": "a.mp4"}}),
            json!(["body", "asset_info"]),
            "value_error",
        ),
    ] {
        let (s, err) = t.call("PUT", "/catalog/v1/item", Some(body.clone())).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(err["detail"][0]["loc"], loc, "{body}: {err}");
        assert_eq!(err["detail"][0]["type"], kind, "{body}: {err}");
    }
    let (s, err) = t.raw("PUT", &format!("/catalog/v1/item?key={}", t.key), Some("{not json".into()), &[]).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    let (s, _) = t.call("PUT", "/catalog/v1/item", Some(json!({"id": "v", "type": "standalone", "virtual": true, "external_ids": [{"provider": "IMDB", "id": "tt1"}]}))).await;
    assert_eq!(s, StatusCode::OK);
    // delete keeps data
    let (s, body) = t.call("PUT", "/catalog/v1/delete/standalone/m1", None).await;
    assert_eq!((s, body), (StatusCode::OK, Value::Null));
    let (s, _) = t.call("GET", "/catalog/v1/item/standalone/m1", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, item) = t.call("GET", "/catalog/v1/item/standalone/m1?allow_deleted=true", None).await;
    assert_eq!(
        (s, item["title"].clone(), item["operations"]["deleted"].clone()),
        (StatusCode::OK, json!("renamed"), json!(true))
    );
    let (_, list) = t.call("GET", "/catalog/v1/item", None).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    let (_, list) = t.call("GET", "/catalog/v1/item?allow_deleted=true&page_size=1&page_num=1", None).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    let (s, err) = t.call("GET", "/catalog/v1/item?page_size=0", None).await;
    assert_eq!((s, err["detail"][0]["type"].clone()), (StatusCode::UNPROCESSABLE_ENTITY, json!("greater_than_equal")));
}

#[tokio::test]
async fn episodic_rules() {
    let t = test_app();
    let ep = json!({"id": "s1e1", "type": "episode", "title": "Pilot",
        "episodic_info": {"series_id": "show", "season_id": "show-s1", "season_number": 1, "episode_number": 1}});
    assert_eq!(t.call("PUT", "/catalog/v1/item", Some(ep)).await.0, StatusCode::OK);
    let (s, series) = t.call("GET", "/catalog/v1/item/series/show", None).await;
    assert_eq!((s, series["virtual"].clone()), (StatusCode::OK, json!(true)), "a missing series is created virtual");
    let (s, season) = t.call("GET", "/catalog/v1/item/season/show-s1", None).await;
    assert_eq!((s, season["episodic_info"]["series_id"].clone()), (StatusCode::OK, json!("show")));
    t.call("PUT", "/catalog/v1/item", Some(json!({"id": "show", "type": "series", "title": "The Show"}))).await;
    let (_, asset) = t.call("GET", "/catalog/v1/item/episode/s1e1?asset_model=true", None).await;
    assert_eq!(asset["extended_episodic_info"]["series_title"], "The Show");
    assert!(asset.get("episodic_info").is_none());
    // references must be consistent with the item and with the stored hierarchy
    t.movie("film").await;
    let rejected = [
        (
            json!({"id": "x", "type": "episode", "episodic_info": {"series_id": "x", "season_id": "x-s1"}}),
            json!(["body", "episodic_info", "series_id"]),
            "own series",
        ),
        (
            json!({"id": "x", "type": "episode", "episodic_info": {"series_id": "show", "season_id": "x"}}),
            json!(["body", "episodic_info", "season_id"]),
            "own season",
        ),
        (
            json!({"id": "x", "type": "episode", "extended_episodic_info": {"series_id": "show", "season_id": "show"}}),
            json!(["body", "extended_episodic_info", "season_id"]),
            "season and series differ",
        ),
        (
            json!({"id": "x", "type": "episode", "episodic_info": {"series_id": "show"},
                "extended_episodic_info": {"series_id": "zzz"}}),
            json!(["body", "extended_episodic_info", "series_id"]),
            "forms agree",
        ),
        (
            json!({"id": "x", "type": "episode", "episodic_info": {"series_id": "film"}}),
            json!(["body", "episodic_info", "series_id"]),
            "series is a series",
        ),
        (
            json!({"id": "x", "type": "season", "episodic_info": {"series_id": "s1e1"}}),
            json!(["body", "episodic_info", "series_id"]),
            "a season's series is a series",
        ),
        (
            json!({"id": "x", "type": "episode", "episodic_info": {"series_id": "other", "season_id": "show-s1"}}),
            json!(["body", "episodic_info", "season_id"]),
            "season of the same series",
        ),
        (
            json!({"id": "x", "type": "episode", "episodic_info": {"series_id": "show", "season_id": "film"}}),
            json!(["body", "episodic_info", "season_id"]),
            "season is a season",
        ),
        (json!({"id": "show", "type": "standalone"}), json!(["body", "type"]), "a live item keeps its type"),
    ];
    for (body, loc, rule) in rejected {
        let (s, err) = t.call("PUT", "/catalog/v1/item", Some(body)).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{rule}: {err}");
        assert_eq!(
            (err["detail"][0]["loc"].clone(), err["detail"][0]["type"].clone()),
            (loc, json!("value_error")),
            "{rule}"
        );
    }
    for (kind, id) in [("episode", "x"), ("season", "x"), ("series", "other"), ("series", "zzz")] {
        let (s, _) = t.call("GET", &format!("/catalog/v1/item/{kind}/{id}"), None).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "a rejected upsert writes nothing ({id})");
    }
    let (s, film) = t.call("GET", "/catalog/v1/item/standalone/film", None).await;
    assert_eq!((s, film["type"].clone()), (StatusCode::OK, json!("standalone")));
    // deleting the series deletes its season and episode
    assert_eq!(t.call("PUT", "/catalog/v1/delete/series/show", None).await.0, StatusCode::OK);
    for (kind, id) in [("season", "show-s1"), ("episode", "s1e1")] {
        assert_eq!(
            t.call("GET", &format!("/catalog/v1/item/{kind}/{id}"), None).await.0,
            StatusCode::NOT_FOUND,
            "{id}"
        );
    }
    // a deleted id may be re-created with another type
    let (s, _) = t.call("PUT", "/catalog/v1/item", Some(json!({"id": "show", "type": "standalone"}))).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn task_state_table() {
    let t = test_app();
    t.movie("m1").await;
    // (no task, no result): GET, DELETE and reset are 404
    for method in ["GET", "DELETE"] {
        assert_eq!(t.call(method, &task("m1", "profanity"), None).await.0, StatusCode::NOT_FOUND);
    }
    assert_eq!(t.call("PUT", &format!("{}/reset", task("m1", "profanity")), None).await.0, StatusCode::NOT_FOUND);
    // POST without signals: pending, and the error says why
    let (s, st) = t.call("POST", &task("m1", "profanity"), Some(json!({"priority": "low"}))).await;
    assert_eq!((s, st["status"].clone()), (StatusCode::OK, json!("pending")));
    t.process();
    let (_, st) = t.call("GET", &task("m1", "profanity"), None).await;
    assert_eq!(st["status"], "pending");
    assert!(st["error"].as_str().unwrap().contains("waiting for the item's signals"), "{st}");
    assert_eq!(st["_links"]["reset"]["method"], "PUT");
    // signals arrive: processed, ready
    t.signals("m1", 1).await;
    t.process();
    let (_, st) = t.call("GET", &task("m1", "profanity"), None).await;
    assert_eq!((st["status"].clone(), st["error"].clone()), (json!("ready"), json!("")));
    // reset from ready: 400, unchanged
    assert_eq!(t.call("PUT", &format!("{}/reset", task("m1", "profanity")), None).await.0, StatusCode::BAD_REQUEST);
    // DELETE deactivates and answers the status; POST again reactivates without reprocessing
    let (s, st) = t.call("DELETE", &task("m1", "profanity"), None).await;
    assert_eq!((s, st["status"].clone()), (StatusCode::OK, json!("ready")));
    let (_, st) = t.call("POST", &task("m1", "profanity"), None).await;
    assert_eq!(st["status"], "ready");
    // a result that exists is reused by a new task of the same tuple (another version is new work)
    let (_, st) = t.call("POST", "/tasks/catalog-item/m1/product/profanity/version/2.0.0", None).await;
    assert_eq!(st["status"], "pending");
    // a product whose input the signals lack fails honestly, saying what is missing; reset works
    // from failed
    t.call("POST", &task("m1", "fingerprint"), None).await;
    t.process();
    let (_, st) = t.call("GET", &task("m1", "fingerprint"), None).await;
    assert_eq!(st["status"], "failed");
    assert!(st["error"].as_str().unwrap().contains("no audio_fingerprint"), "{st}");
    let (s, body) = t.call("PUT", &format!("{}/reset", task("m1", "fingerprint")), None).await;
    assert_eq!((s, body), (StatusCode::OK, json!({})));
    let (_, st) = t.call("GET", &task("m1", "fingerprint"), None).await;
    assert_eq!(st["status"], "pending", "reset queues the job again");
    t.process();
    // list per item
    let (s, list) = t.call("GET", "/tasks/catalog-item/m1", None).await;
    assert_eq!(s, StatusCode::OK);
    let products: Vec<&str> = list.as_array().unwrap().iter().map(|t| t["product"].as_str().unwrap()).collect();
    assert_eq!(products, ["fingerprint", "profanity", "profanity"]);
    // every product name is accepted; others are a 422
    for product in kino_server::products::Product::ALL.iter().map(|p| p.as_str()) {
        assert_eq!(t.call("POST", &task("m1", product), None).await.0, StatusCode::OK, "{product}");
    }
    let (s, err) = t.call("POST", &task("m1", "coffee"), None).await;
    assert_eq!((s, err["detail"][0]["loc"].clone()), (StatusCode::UNPROCESSABLE_ENTITY, json!(["path", "product"])));
    // tasks for unknown items are 404
    assert_eq!(t.call("POST", &task("nope", "profanity"), None).await.0, StatusCode::NOT_FOUND);
    // force_asset_reprocess resets every active task of the item
    t.call(
        "PUT",
        "/catalog/v1/item",
        Some(json!({"id": "m1", "type": "standalone", "operations": {"force_asset_reprocess": true}})),
    )
    .await;
    let (_, st) = t.call("GET", &task("m1", "profanity"), None).await;
    assert_eq!(st["status"], "pending");
    t.process();
    let (_, st) = t.call("GET", &task("m1", "profanity"), None).await;
    assert_eq!(st["status"], "ready");
}

#[tokio::test]
async fn previews_clip_search_generation_and_errors() {
    let t = test_app();
    t.movie("m1").await;
    t.signals("m1", 2).await;
    let (s, res) =
        t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&number_of_top_candidates=3&clip_length=20", None).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let clips = res["data"]["jitpreview"].as_array().unwrap();
    assert!(!clips.is_empty() && clips.len() <= 3);
    assert_eq!(clips[0]["service_id"], res["data"]["service_id"]);
    assert_eq!(res["data"]["type"], "movie");
    assert_eq!(res["version_id"], "27");
    let (s, res) = t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&search_query=car%20chase", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(res["data"]["jitpreview"][0]["search_query"], "car chase");
    // validation: every problem in the FastAPI shape
    let (s, err) = t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&min_nudity=2&clip_length=abc", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(err["detail"][0]["loc"], json!(["query", "min_nudity"]));
    assert_eq!(err["detail"][0]["type"], "less_than_equal");
    assert_eq!(err["detail"][1]["type"], "float_parsing");
    let (s, err) = t.call("GET", "/results/jitpreviews/v2/m1", None).await;
    assert_eq!(
        (s, err["detail"][0]["type"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!("missing")),
        "catalog is required"
    );
    let (s, _) =
        t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&generate=true&trigger_generation=true", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(t.call("GET", "/results/jitpreviews/v2/m1?catalog=other", None).await.0, StatusCode::NOT_FOUND);
    assert_eq!(t.call("GET", "/results/jitpreviews/v2/ghost?catalog=acme", None).await.0, StatusCode::NOT_FOUND);
    // generation: gen_id and the paths it will write, 404 while running, then FAILED with data
    // null (the item has no media file); unknown ids are 404
    let (s, off) = t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&trigger_generation=true", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "generation is off by default: {off}");
    assert_eq!(off["detail"][0]["loc"], json!(["query", "trigger_generation"]));
    let org = t.state.store.orgs().unwrap()[0].0;
    assert!(t.state.store.set_catalog_generation(org, "acme", true).unwrap());
    let (_, res) = t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&trigger_generation=true", None).await;
    let gen_id = res["data"]["gen_id"].as_str().unwrap().to_string();
    assert!(res["data"]["jitpreview"][0]["gen"]["clip_path"].as_str().unwrap().starts_with(&format!("gen/{gen_id}/")));
    let status = format!("/results/jitpreviews/v2/gen/{gen_id}/status?catalog=acme");
    // queued durably: nothing renders until a renderer claims it
    assert_eq!(t.call("GET", &status, None).await.0, StatusCode::NOT_FOUND);
    assert!(kino_server::render::render_one(&t.state.renderer()), "the generation was queued");
    let (s, g) = t.call("GET", &status, None).await;
    assert_eq!((s, g["status"].clone(), g["data"].clone()), (StatusCode::OK, json!("FAILED"), Value::Null));
    assert!(g["error"].as_str().unwrap().contains("no local media file"), "{g}");
    assert_eq!(
        t.call("GET", "/results/jitpreviews/v2/gen/unknown/status?catalog=acme", None).await.0,
        StatusCode::NOT_FOUND
    );
    let (s, info) =
        t.call("GET", "/results/jitpreviews/v2/info/clip_types?catalog=acme&version=19-vertical", None).await;
    assert_eq!(
        (s, info["version"].clone(), info["clip_types"].as_array().unwrap().len()),
        (StatusCode::OK, json!("19-vertical"), 13)
    );
    // bearer credential for previews
    let (s, _) = t
        .raw("GET", "/results/jitpreviews/v2/m1?catalog=acme", None, &[("authorization", &format!("Bearer {}", t.key))])
        .await;
    assert_eq!(s, StatusCode::OK);
    // status and list follow the jitpreviews task
    assert_eq!(t.call("GET", "/results/jitpreviews/v2/status/m1?catalog=acme", None).await.0, StatusCode::NOT_FOUND);
    t.call("POST", &task("m1", "jitpreviews"), None).await;
    t.process();
    let (s, st) = t.call("GET", "/results/jitpreviews/v2/status/m1?catalog=acme", None).await;
    assert_eq!((s, st["status"].clone()), (StatusCode::OK, json!("success")));
    let (_, list) = t.call("GET", "/results/jitpreviews/v2/?catalog=acme", None).await;
    assert_eq!((list["total_count"].clone(), list["page_size"].clone()), (json!(1), json!(1000)));
    let (s, _) = t.call("GET", "/results/jitpreviews/v2/?catalog=acme&from_utcdatetime=yesterday", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
}

/// What a previews request costs the database on a warm cache (the item's signals prepared):
/// printed, and bounded so that a change that adds calls is seen. Measured: 2 calls (the API key
/// with the catalog, the item with its signals' version; 4 before they were joined);
/// `cargo test -p kino-server --test server a_warm_previews_request -- --nocapture` prints it.
#[tokio::test]
async fn a_warm_previews_request_costs_few_database_calls() {
    let t = test_app();
    t.movie("m1").await;
    t.signals("m1", 2).await;
    let uri = "/results/jitpreviews/v2/m1?catalog=acme&number_of_top_candidates=3&clip_length=20";
    let (s, res) = t.call("GET", uri, None).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let before = t.state.store.calls();
    let (s, res) = t.call("GET", uri, None).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let calls = t.state.store.calls() - before;
    println!("a warm previews request: {calls} database calls");
    assert!((1..=2).contains(&calls), "{calls} database calls for one previews request");
}

#[tokio::test]
async fn results_interfaces() {
    let t = test_app();
    for (i, id) in ["m1", "m2", "m3"].iter().enumerate() {
        t.movie(id).await;
        t.signals(id, i as u64 + 5).await;
        for product in [
            "profanity",
            "emotions",
            "semantic",
            "semantic_scenes",
            "similar",
            "nudity",
            "scene_tags",
            "adbreaks",
            "contextual_adbreak",
        ] {
            t.call("POST", &task(id, product), None).await;
        }
    }
    t.process();
    // Ad breaks from the signals, per request: by window in milliseconds and frames, and in context.
    let (s, ads) = t.call("GET", "/results/adbreaks/v2/filter/millisec/m1?window=10&separation=2", None).await;
    assert_eq!(s, StatusCode::OK, "{ads}");
    assert_eq!(ads["unit"], "millisec");
    let breaks = ads["adbreak"].as_array().unwrap();
    assert!(!breaks.is_empty(), "{ads}");
    let chosen: Vec<i64> = breaks.iter().map(|b| b["candidates"][0].as_i64().unwrap()).collect();
    assert!(chosen.windows(2).all(|w| w[1] - w[0] >= 120_000), "separation of 2 minutes: {chosen:?}");
    assert!(chosen.iter().all(|&ms| ms >= 60_000), "skip_first of 1 minute: {chosen:?}");
    assert!(breaks.iter().all(|b| b["candidates"].as_array().unwrap().len() == b["scores"].as_array().unwrap().len()));
    let (_, frames) = t.call("GET", "/results/adbreaks/v2/filter/frame/m1?window=10&separation=2", None).await;
    assert_eq!(frames["unit"], "frame");
    assert_eq!(frames["adbreak"].as_array().unwrap().len(), breaks.len());
    let (s, bad) = t.call("GET", "/results/adbreaks/v2/filter/millisec/m1?window=0", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    assert!(bad.to_string().contains("window"), "{bad}");
    let (s, ctx) =
        t.call("GET", "/results/contextual_adbreak/v2/m1?minimum_separation=2&maximum_separation=8", None).await;
    assert_eq!((s, ctx["status"].clone()), (StatusCode::OK, json!("success")), "{ctx}");
    let ctx_breaks = ctx["data"]["context_adbreak"].as_array().unwrap();
    assert!(!ctx_breaks.is_empty(), "{ctx}");
    assert!(
        ctx_breaks.iter().all(|b| b["keyword"].is_object() && b["mood_tag"].is_object() && b["frame_number"].is_i64())
    );
    let (s, bad) =
        t.call("GET", "/results/contextual_adbreak/v2/m1?minimum_separation=5&maximum_separation=2", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    assert!(bad.to_string().contains("maximum_separation"), "{bad}");
    let (s, _) = t.call("GET", "/results/adbreaks/v2/filter/millisec/nobody", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // Nudity and scene tags from the signals.
    let (s, n) = t.call("GET", "/results/nudity/v1/m1", None).await;
    assert_eq!((s, n["status"].clone()), (StatusCode::OK, json!("success")), "{n}");
    let nudity = &n["data"]["nudity"];
    assert!(nudity["timeline"].as_array().is_some_and(|t| !t.is_empty()) && nudity["segments"].is_array(), "{n}");
    assert!(nudity["max"].as_f64().unwrap() >= nudity["mean"].as_f64().unwrap());
    let (_, st) = t.call("GET", "/results/nudity/v1/status/m1", None).await;
    assert_eq!(st["status"], "success");
    let (_, list) = t.call("GET", "/results/nudity/v1/", None).await;
    assert_eq!(list["total_count"], 3);
    let (_, tags) = t.call("GET", "/results/scene_tags/v1/m2", None).await;
    let scenes = tags["data"]["scene_tags"].as_array().unwrap();
    assert!(
        !scenes.is_empty() && scenes.iter().all(|sc| sc["keywords"].is_array() && sc["moods"].is_array()),
        "{tags}"
    );
    let (_, list) = t.call("GET", "/results/scene_tags/v1/", None).await;
    assert_eq!(list["total_count"], 3);
    let (s, p) = t.call("GET", "/results/profanity/v2/m1", None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(p["data"]["profanity"]["label"].is_string() && p["data"]["profanity"].get("segments").is_none());
    let (_, seg) = t.call("GET", "/results/profanity/v2/segments/m1", None).await;
    assert!(seg["data"]["profanity"]["segments"].is_array());
    let (_, st) = t.call("GET", "/results/profanity/v2/status/m1", None).await;
    assert!(st.get("data").is_none() && st["status"] == "success");
    let (_, list) = t.call("GET", "/results/profanity/v2/?page_size=2", None).await;
    assert_eq!((list["total_count"].clone(), list["data"].as_array().unwrap().len()), (json!(3), 2));
    let (_, e) = t.call("GET", "/results/emotions/v2/m2", None).await;
    let windows = e["data"]["emotion"].as_array().unwrap();
    assert_eq!(windows.len(), 180);
    assert_eq!(windows[1]["start_time"], 10.0);
    let (_, list) = t.call("GET", "/results/emotions/v2/?type=episode", None).await;
    assert_eq!(list["total_count"], 0);
    let (_, v) = t.call("GET", "/results/semantic/v2/video-embedding/m1", None).await;
    assert_eq!(v["data"]["embedding"].as_array().unwrap().len(), 256);
    let (_, v) = t.call("GET", "/results/semantic_scenes/v1/video-embedding/m1", None).await;
    let scenes = v["data"]["scene_embeddings"].as_array().unwrap();
    assert!(
        !scenes.is_empty() && scenes[0]["embedding"].as_array().unwrap().len() == 1024 && scenes[0]["start_ts"] == 0.0
    );
    let (_, q) = t.call("GET", "/results/semantic_scenes/v1/text-embedding?q=car%20chase", None).await;
    assert_eq!(q["embedding"].as_array().unwrap().len(), 1024);
    assert_eq!(
        t.call("GET", "/results/semantic_scenes/v1/text-embedding", None).await.0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let (s, sim) = t.call("GET", "/results/similar/similar/v2/movies/m1?count=5", None).await;
    assert_eq!(s, StatusCode::OK, "{sim}");
    let others: Vec<&str> =
        sim["similar"].as_array().unwrap().iter().map(|x| x["inventory_id"].as_str().unwrap()).collect();
    assert_eq!(others.len(), 2);
    assert!(!others.contains(&"m1"));
    for x in sim["similar"].as_array().unwrap() {
        let score = x["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
    }
    let (_, sim) = t.call("GET", "/results/similar/similar/v2/m1?skip=1&count=5", None).await;
    assert_eq!(sim["similar"].as_array().unwrap().len(), 1);
    // huge skip/count (found by schemathesis: it once aborted the process) are just empty
    let (s, sim) = t.call("GET", "/results/similar/similar/v2/movies/m1?skip=13218830318852&count=4523", None).await;
    assert_eq!((s, sim["similar"].as_array().unwrap().len()), (StatusCode::OK, 0));
    let (s, sim) = t.call("GET", "/results/similar/similar/v2/m1?count=9223372036854775807", None).await;
    assert_eq!((s, sim["similar"].as_array().unwrap().len()), (StatusCode::OK, 2));
    let (_, sim) = t.call("GET", "/results/similar/similar/v2/series/m1", None).await;
    assert!(sim["similar"].as_array().unwrap().is_empty());
    assert_eq!(
        t.call("GET", "/results/similar/similar/v2/m1?max_score=2", None).await.0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    // a result stored after the index was built (the worker's rebuild not yet swapped in) is found
    t.movie("m4").await;
    t.signals("m4", 11).await;
    t.call("POST", &task("m4", "similar"), None).await;
    let job = t.state.store.claim_job().unwrap().unwrap();
    t.state.store.finish_job(&job, ResultStatus::Success, "", Some(&json!({"embedding": vec![0.5f32; 256]}))).unwrap();
    let (s, sim) = t.call("GET", "/results/similar/similar/v2/m4", None).await;
    assert_eq!((s, sim["similar"].as_array().map(Vec::len)), (StatusCode::OK, Some(3)), "{sim}");
}

#[tokio::test]
async fn organisations_are_isolated_and_credentials_checked() {
    let t = test_app();
    t.movie("secret").await;
    t.signals("secret", 9).await;
    t.call("POST", &task("secret", "profanity"), None).await;
    t.process();
    let other = org_with_key(&t.state, "rival");
    for uri in [
        "/catalog/v1/item/standalone/secret",
        "/tasks/catalog-item/secret",
        &task("secret", "profanity"),
        "/results/profanity/v2/secret",
        "/results/jitpreviews/v2/secret?catalog=rival",
    ] {
        let sep = if uri.contains('?') { '&' } else { '?' };
        let (s, _) = t.raw("GET", &format!("{uri}{sep}key={other}"), None, &[]).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{uri}");
    }
    let (_, list) = t.raw("GET", &format!("/catalog/v1/item?key={other}"), None, &[]).await;
    assert_eq!(list, json!([]));
    let (_, list) = t.raw("GET", &format!("/results/profanity/v2/?key={other}"), None, &[]).await;
    assert_eq!(list["total_count"], 0);
    // the rival cannot change the item either
    let (s, _) = t.raw("PUT", &format!("/catalog/v1/delete/standalone/secret?key={other}"), None, &[]).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // credentials
    assert_eq!(t.raw("GET", "/catalog/v1/item", None, &[]).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(t.raw("GET", "/catalog/v1/item?key=kino_bogus", None, &[]).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(t.raw("GET", "/catalog/v1/item", None, &[("x-api-key", &t.key)]).await.0, StatusCode::OK);
    let bearer = format!("Bearer {}", t.key);
    assert_eq!(t.raw("GET", "/catalog/v1/item", None, &[("authorization", &bearer)]).await.0, StatusCode::UNAUTHORIZED);
    // revocation is scoped to one organisation and never revokes several keys at once
    let store = &t.state.store;
    let (acme, rival) = (store.ensure_org("acme").unwrap().0, store.ensure_org("rival").unwrap().0);
    let twin = format!("{}{}", key_prefix(&other), "0".repeat(other.len() - key_prefix(&other).len()));
    store.add_key(acme, &hash_key(&twin), &key_prefix(&twin)).unwrap();
    assert_eq!(store.revoke_key(acme, &key_prefix(&t.key), Some(&hash_key(&other))).unwrap(), 0);
    let extra = generate_key();
    store.add_key(rival, &hash_key(&extra), &key_prefix(&other)).unwrap();
    assert_eq!(store.revoke_key(rival, &key_prefix(&other), None).unwrap(), 2, "ambiguous: nothing revoked");
    assert_eq!(t.raw("GET", &format!("/catalog/v1/item?key={other}"), None, &[]).await.0, StatusCode::OK);
    assert_eq!(store.revoke_key(rival, &key_prefix(&other), Some(&hash_key(&other))).unwrap(), 1);
    assert_eq!(t.raw("GET", &format!("/catalog/v1/item?key={other}"), None, &[]).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(t.raw("GET", &format!("/catalog/v1/item?key={extra}"), None, &[]).await.0, StatusCode::OK);
    assert_eq!(t.raw("GET", &format!("/catalog/v1/item?key={twin}"), None, &[]).await.0, StatusCode::OK, "other org");
    assert_eq!(store.revoke_key(rival, &key_prefix(&other), None).unwrap(), 1, "now unambiguous");
    assert_eq!(t.raw("GET", &format!("/catalog/v1/item?key={extra}"), None, &[]).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(t.raw("GET", &format!("/catalog/v1/item?key={twin}"), None, &[]).await.0, StatusCode::OK);
}

#[tokio::test]
async fn the_frameworks_own_rejections_are_json_too() {
    let t = test_app();
    let cases = [
        ("POST", "/catalog/v1/item".to_string(), None, StatusCode::METHOD_NOT_ALLOWED),
        ("GET", "/catalog/v1/item/standalone/%FF%FE".to_string(), None, StatusCode::BAD_REQUEST),
        ("PUT", "/catalog/v1/item".to_string(), Some(" ".repeat(3 << 20)), StatusCode::PAYLOAD_TOO_LARGE),
    ];
    for (method, uri, body, want) in cases {
        let (s, v) = t.raw(method, &format!("{uri}?key={}", t.key), body, &[]).await;
        assert_eq!(s, want, "{method} {uri}: {v}");
        assert!(v["detail"].as_str().is_some_and(|d| !d.is_empty()), "{method} {uri}: {v}");
    }
}

#[tokio::test]
async fn malformed_input_never_gives_a_server_error() {
    let t = test_app();
    t.movie("m1").await;
    let cases: Vec<(&str, String, Option<String>)> = vec![
        ("PUT", "/catalog/v1/item".into(), Some("[]".into())),
        ("PUT", "/catalog/v1/item".into(), Some("\u{0}\u{1}".into())),
        ("PUT", "/catalog/v1/item".into(), Some(r#"{"id": 5, "type": []}"#.into())),
        ("PUT", "/analysis/v1/item/standalone/m1".into(), Some(r#"{"format": "x"}"#.into())),
        ("PUT", "/analysis/v1/item/standalone/m1".into(), Some("not json".into())),
        ("POST", task("m1", "profanity"), Some("[1,2]".into())),
        ("POST", task("m1", "profanity"), Some("{bad".into())),
        ("GET", "/catalog/v1/item?page_num=-1&page_size=abc&allow_deleted=maybe".into(), None),
        ("GET", "/catalog/v1/item/widget/m1".into(), None),
        ("GET", "/results/jitpreviews/v2/m1?catalog=acme&character_preference=any_of".into(), None),
        ("GET", "/results/emotions/v2/?type=cartoon".into(), None),
        ("GET", "/results/jitpreviews/v2/m1?catalog=acme&custom_start_timestamp=5".into(), None),
        ("GET", "/no/such/path".into(), None),
    ];
    for (method, uri, body) in cases {
        let sep = if uri.contains('?') { '&' } else { '?' };
        let (s, b) = t.raw(method, &format!("{uri}{sep}key={}", t.key), body, &[]).await;
        assert!(s.is_client_error(), "{method} {uri}: {s} {b}");
    }
    // a signals document for another item id is refused
    let other = kino::synth::demo_signals("someone-else", 60.0, 1.0, 1).to_json();
    let (s, err) = t.raw("PUT", &format!("/analysis/v1/item/standalone/m1?key={}", t.key), Some(other), &[]).await;
    assert_eq!(
        (s, err["detail"][0]["loc"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!(["body", "inventory_id"]))
    );
}

#[tokio::test]
async fn restart_keeps_everything_and_resumes_pending_work() {
    let dir = tempfile::tempdir().unwrap();
    let key;
    {
        let state = open(dir.path());
        key = org_with_key(&state, "acme");
        let t = TestApp { state, key: key.clone(), _dir: tempfile::tempdir().unwrap() };
        t.movie("m1").await;
        t.signals("m1", 4).await;
        t.call("POST", &task("m1", "emotions"), None).await;
        // simulate a crash mid-task: the job is claimed but never finished
        assert!(t.state.store.claim_job().unwrap().is_some());
    }
    let state = open(dir.path());
    assert_eq!(state.store.requeue_running().unwrap(), 1, "the interrupted job is queued again at start-up");
    let t = TestApp { state, key, _dir: dir };
    let (s, item) = t.call("GET", "/catalog/v1/item/standalone/m1", None).await;
    assert_eq!((s, item["id"].clone()), (StatusCode::OK, json!("m1")));
    let (_, st) = t.call("GET", &task("m1", "emotions"), None).await;
    assert_eq!(st["status"], "pending");
    t.process();
    let (_, st) = t.call("GET", &task("m1", "emotions"), None).await;
    assert_eq!(st["status"], "ready");
    assert_eq!(t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme", None).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_two_hour_signals_document_is_accepted_by_the_analysis_endpoint() {
    let t = test_app();
    t.movie("tt-demo-001").await;
    let path = crate::support::manifest_dir().join("../data/demo/signals/tt-demo-001.json");
    let doc = std::fs::read_to_string(path).unwrap();
    assert!(doc.len() > 2 * 1024 * 1024, "the document is larger than the default body limit");
    let uri = format!("/analysis/v1/item/standalone/tt-demo-001?key={}", t.key);
    let (s, body) = t.raw("PUT", &uri, Some(doc), &[]).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "accepted");
    let (s, clips) = t.call("GET", "/results/jitpreviews/v2/tt-demo-001?catalog=acme", None).await;
    assert_eq!(s, StatusCode::OK, "{clips}");
    assert!(!clips["data"]["jitpreview"].as_array().unwrap().is_empty());
    let (s, _) = t.raw("PUT", &uri, Some(" ".repeat(kino_server::routes::analysis::MAX_SIGNALS_BYTES + 1)), &[]).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn requests_that_race_a_running_job_are_not_lost() {
    let t = test_app();
    // signals arriving while a worker, having found none, is about to park the job
    t.movie("m1").await;
    t.call("POST", &task("m1", "profanity"), None).await;
    let job = t.state.store.claim_job().unwrap().unwrap();
    t.signals("m1", 3).await;
    t.state.store.park_job(&job, false).unwrap();
    assert_eq!(
        t.state.store.job_state(job.org, "m1", kino_server::vocabulary::Product::Profanity, "1.0.0").unwrap(),
        Some(JobState::Pending)
    );
    t.process();
    assert_eq!(t.call("GET", &task("m1", "profanity"), None).await.1["status"], "ready");

    // reprocessing requested while a job runs: the run's result is discarded and the job runs again
    t.call("POST", &task("m1", "emotions"), None).await;
    let job = t.state.store.claim_job().unwrap().unwrap();
    let body = json!({"id": "m1", "type": "standalone", "title": "m1", "operations": {"force_asset_reprocess": true}});
    assert_eq!(t.call("PUT", "/catalog/v1/item", Some(body)).await.0, StatusCode::OK);
    t.state.store.finish_job(&job, ResultStatus::Success, "", Some(&json!({"emotion": "stale"}))).unwrap();
    assert_eq!(t.call("GET", &task("m1", "emotions"), None).await.1["status"], "pending");
    t.process();
    assert_eq!(t.call("GET", &task("m1", "emotions"), None).await.1["status"], "ready");
    let (_, e) = t.call("GET", "/results/emotions/v2/m1", None).await;
    assert!(e["data"]["emotion"].is_array(), "{e}");
}

#[tokio::test]
async fn sidecar_signals_beside_the_media_file_are_picked_up() {
    let t = test_app();
    let media = t.state.config.media_root.join("movies");
    std::fs::create_dir_all(&media).unwrap();
    std::fs::write(media.join("film.mp4.signals.json"), kino::synth::demo_signals("film", 600.0, 1.0, 3).to_json())
        .unwrap();
    t.call(
        "PUT",
        "/catalog/v1/item",
        Some(json!({"id": "film", "type": "standalone", "asset_info": {"file_uri": "file://movies/film.mp4"}})),
    )
    .await;
    t.call("POST", &task("film", "profanity"), None).await;
    t.process();
    let (_, st) = t.call("GET", &task("film", "profanity"), None).await;
    assert_eq!(st["status"], "ready", "{st}");
    // a path escaping the media root is not read
    t.call(
        "PUT",
        "/catalog/v1/item",
        Some(json!({"id": "esc", "type": "standalone", "asset_info": {"file_uri": "../../etc/passwd"}})),
    )
    .await;
    t.call("POST", &task("esc", "profanity"), None).await;
    t.process();
    let (_, st) = t.call("GET", &task("esc", "profanity"), None).await;
    assert_eq!(st["status"], "failed", "{st}");
    assert_eq!(
        st["error"], "file_uri \"../../etc/passwd\" is not a readable media file under the service's media root",
        "the same words whether the file is missing, unreadable or outside the root, and no server path"
    );
}

#[tokio::test]
async fn serves_over_a_real_socket() {
    let t = test_app();
    t.movie("m1").await;
    t.signals("m1", 1).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        axum::serve(listener, app(t.state.clone()))
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .into_future(),
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let req = format!(
        "GET /results/jitpreviews/v2/m1?catalog=acme&key={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        t.key
    );
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).await.unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{}", &out[..out.len().min(200)]);
    assert!(out.contains("\"jitpreview\""));
    tx.send(()).unwrap();
    server.await.unwrap().unwrap();
}

// ---- identity and portal ----

fn client(state: &AppState, org_name: &str) -> (String, String) {
    let (org, _) = state.store.ensure_org(org_name).unwrap();
    let (id, secret) = kino_server::identity::new_client();
    state.store.add_client(org, &id, &hash_key(&secret)).unwrap();
    (id, secret)
}

async fn token(t: &TestApp, id: &str, secret: &str, scope: &str) -> String {
    let body = json!({"client_id": id, "client_secret": secret, "grant_type": "client_credentials", "scope": scope});
    let (s, res) = t.raw("POST", "/oauth/token", Some(body.to_string()), &[]).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    res["access_token"].as_str().unwrap().to_string()
}

async fn portal_get(t: &TestApp, uri: &str, token: &str) -> axum::response::Response {
    let req =
        Request::builder().uri(uri).header("authorization", format!("Bearer {token}")).body(Body::empty()).unwrap();
    support::send(app(t.state.clone()), req).await
}

async fn json_of(res: axum::response::Response) -> Value {
    serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap()
}

#[tokio::test]
async fn token_endpoint_follows_rfc_6749() {
    let t = test_app();
    let (id, secret) = client(&t.state, "acme");
    // JSON and form bodies
    let tok = token(&t, &id, &secret, "read:smartlist:published read:recipe:published").await;
    assert_eq!(tok.matches('.').count(), 2);
    let form =
        format!("client_id={id}&client_secret={secret}&grant_type=client_credentials&scope=read%3Arecipe%3Apublished");
    let (s, res) =
        t.raw("POST", "/oauth/token", Some(form), &[("content-type", "application/x-www-form-urlencoded")]).await;
    assert_eq!(
        (s, res["token_type"].clone(), res["expires_in"].clone()),
        (StatusCode::OK, json!("bearer"), json!(3600))
    );
    let req = Request::builder()
        .method("POST")
        .uri("/oauth/token")
        .header("content-type", "application/json")
        .body(Body::from(
            json!({"client_id": id, "client_secret": secret, "grant_type": "client_credentials"}).to_string(),
        ))
        .unwrap();
    let res = support::send(app(t.state.clone()), req).await;
    assert_eq!(res.headers()["cache-control"], "no-store");
    for (body, status, error) in [
        (json!({"client_id": id, "grant_type": "client_credentials"}), StatusCode::BAD_REQUEST, "invalid_request"),
        (
            json!({"client_id": id, "client_secret": secret, "grant_type": "password"}),
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
        ),
        (
            json!({"client_id": id, "client_secret": "wrong", "grant_type": "client_credentials"}),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            json!({"client_id": "nobody", "client_secret": secret, "grant_type": "client_credentials"}),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            json!({"client_id": id, "client_secret": secret, "grant_type": "client_credentials", "scope": "write:everything"}),
            StatusCode::BAD_REQUEST,
            "invalid_scope",
        ),
    ] {
        let (s, res) = t.raw("POST", "/oauth/token", Some(body.to_string()), &[]).await;
        assert_eq!((s, res["error"].clone()), (status, json!(error)), "{body}");
    }
    let (s, res) = t.raw("POST", "/oauth/token", Some("{oops".into()), &[]).await;
    assert_eq!((s, res["error"].clone()), (StatusCode::BAD_REQUEST, json!("invalid_request")));
}

#[tokio::test]
async fn portal_catalogs_with_tokens_scopes_and_errors() {
    let t = test_app();
    let (id, secret) = client(&t.state, "acme");
    let tok = token(&t, &id, &secret, "read:smartlist:published").await;
    let res = portal_get(&t, "/catalogs/", &tok).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["ratelimit-limit"], "1000");
    assert_eq!(res.headers()["x-ratelimit-remaining"], "999");
    let body = json_of(res).await;
    assert_eq!(body["pagination"], json!({"page": 1, "limit": 20, "total": 1, "total_pages": 1}));
    let cat = &body["data"][0];
    assert_eq!(
        (cat["name"].clone(), cat["status"].clone(), cat["account"].clone()),
        (json!("acme"), json!("active"), json!("acme"))
    );
    let cid = cat["id"].as_i64().unwrap();
    assert_eq!(cat["_links"]["self"], format!("/catalogs/{cid}"));
    let res = portal_get(&t, &format!("/catalogs/{cid}"), &tok).await;
    assert_eq!(res.status(), StatusCode::OK);
    for (uri, status) in [
        ("/catalogs/?page=0".to_string(), StatusCode::BAD_REQUEST),
        ("/catalogs/?limit=101".to_string(), StatusCode::BAD_REQUEST),
        ("/catalogs/?page=9007199254740992".to_string(), StatusCode::BAD_REQUEST),
        ("/catalogs/abc".to_string(), StatusCode::BAD_REQUEST),
        ("/catalogs/9007199254740992".to_string(), StatusCode::BAD_REQUEST),
        ("/catalogs/424242".to_string(), StatusCode::NOT_FOUND),
    ] {
        let res = portal_get(&t, &uri, &tok).await;
        assert_eq!(res.status(), status, "{uri}");
        assert!(res.headers().contains_key("ratelimit-remaining"));
        let body = json_of(res).await;
        assert_eq!(body["statusCode"], status.as_u16(), "{uri}: {body}");
        assert!(body["error"].is_string() && body["message"].is_string());
    }
    // another organisation's catalog is not found
    let (rid, rsecret) = client(&t.state, "rival");
    let rival = token(&t, &rid, &rsecret, "read:smartlist:published").await;
    assert_eq!(portal_get(&t, &format!("/catalogs/{cid}"), &rival).await.status(), StatusCode::NOT_FOUND);
    // scope
    let recipes_only = token(&t, &id, &secret, "read:recipe:published").await;
    let res = portal_get(&t, "/catalogs/", &recipes_only).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(res.headers()["www-authenticate"].to_str().unwrap().contains("insufficient_scope"));
    assert!(res.headers().contains_key("ratelimit-remaining"), "a valid token's answers all carry the rate limit");
    // missing, tampered, alg none, wrong key, expired
    let req = Request::builder().uri("/catalogs/").body(Body::empty()).unwrap();
    let res = support::send(app(t.state.clone()), req).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(res.headers()["www-authenticate"].to_str().unwrap().starts_with("Bearer"));
    let parts: Vec<&str> = tok.split('.').collect();
    let mut claims: Value = serde_json::from_slice(&b64(parts[1])).unwrap();
    claims["org"] = json!(claims["org"].as_i64().unwrap() + 1);
    let tampered = format!("{}.{}.{}", parts[0], b64e(&claims.to_string()), parts[2]);
    let none = format!("{}.{}.", b64e(r#"{"alg":"none","typ":"at+jwt"}"#), parts[1]);
    let other_key = kino_server::identity::issue(
        &kino_server::identity::TokenKeys::from_secret(b"0123456789abcdef0123456789abcdef"),
        &id,
        kino_server::store::OrgId(1),
        &["read:smartlist:published"],
    );
    let mut expired_claims: Value = serde_json::from_slice(&b64(parts[1])).unwrap();
    expired_claims["exp"] = json!(1_000_000);
    let expired = jsonwebtoken::encode(
        &{
            let mut h = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
            h.typ = Some("at+jwt".into());
            h
        },
        &expired_claims,
        &jsonwebtoken::EncodingKey::from_secret(&std::fs::read(&t.state.config.token_key).unwrap()),
    )
    .unwrap();
    for bad in [tampered, none, other_key, expired, "garbage".to_string()] {
        let res = portal_get(&t, "/catalogs/", &bad).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{bad}");
        assert!(res.headers()["www-authenticate"].to_str().unwrap().contains("invalid_token"));
    }
    // an access token with the read:previews scope also serves the previews interface
    t.movie("m1").await;
    t.signals("m1", 1).await;
    let tok = token(&t, &id, &secret, "read:previews").await;
    let (s, _) = t
        .raw("GET", "/results/jitpreviews/v2/m1?catalog=acme", None, &[("authorization", &format!("Bearer {tok}"))])
        .await;
    assert_eq!(s, StatusCode::OK);
}

fn b64(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(s).unwrap()
}

fn b64e(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s)
}

#[tokio::test]
async fn rate_limit_is_exact_under_concurrency() {
    let dir = tempfile::tempdir().unwrap();
    let state = open_with_limit(dir.path(), 7);
    let t = TestApp { state, key: String::new(), _dir: dir };
    let (id, secret) = client(&t.state, "acme");
    let tok = token(&t, &id, &secret, "").await;
    let mut handles = Vec::new();
    for _ in 0..40 {
        let state = t.state.clone();
        let tok = tok.clone();
        handles.push(tokio::spawn(async move {
            let req = Request::builder()
                .uri("/catalogs/")
                .header("authorization", format!("Bearer {tok}"))
                .body(Body::empty())
                .unwrap();
            let res = support::send(app(state), req).await;
            (res.status(), res.headers().get("retry-after").is_some())
        }));
    }
    let mut ok = 0;
    let mut limited = 0;
    for h in handles {
        match h.await.unwrap() {
            (StatusCode::OK, _) => ok += 1,
            (StatusCode::TOO_MANY_REQUESTS, true) => limited += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ok, limited), (7, 33));
}

#[tokio::test]
async fn a_fast_pass_serves_the_fast_products_while_speech_is_transcribed() {
    let t = test_app();
    let (org, _) = t.state.store.ensure_org("acme").unwrap();
    t.movie("m1").await;
    for product in ["emotions", "profanity", "content_summary"] {
        assert_eq!(t.call("POST", &task("m1", product), None).await.0, StatusCode::OK);
    }
    // The fast pass of an analysis in flight: everything but what speech recognition produces.
    let mut o = kino::synth::SynthOptions::new("m1", 600.0, 1.0, 5);
    o.scene_embeddings = true;
    let full = kino::synth::generate(&o);
    let mut fast = full.clone();
    fast.transcript = None;
    fast.profanity = None;
    fast.timelines.profanity = vec![0.0; fast.timelines.profanity.len()];
    let stage = ["transcript", "profanity", "timelines.profanity"];
    fast.analysis = Some(kino::signals::Analysis {
        analyzer: "test".into(),
        measured: kino::signals::ANALYSIS_CHANNELS
            .iter()
            .filter(|c| !stage.contains(c))
            .map(|c| c.to_string())
            .collect(),
        absent: stage.iter().map(|c| c.to_string()).collect(),
        models: Default::default(),
        reasons: stage.iter().map(|c| (c.to_string(), kino_media::PENDING_TRANSCRIPTION.to_string())).collect(),
    });
    t.state.analysis.progress.write().unwrap().insert((org, "m1".into()), 0.6);
    kino_server::signals::put_fast(&t.state.store, &t.state.signals, &t.state.effects, org, "m1", fast).unwrap();
    // A queued product that does not read the speech stage's channels is not said to wait for it.
    let (_, st) = t.call("GET", &task("m1", "emotions"), None).await;
    assert_eq!(st["error"], "analysing the media file: 60% done", "{st}");
    t.process();
    assert_eq!(t.call("GET", &task("m1", "emotions"), None).await.1["status"], "ready");
    for product in ["profanity", "content_summary"] {
        let (_, st) = t.call("GET", &task("m1", product), None).await;
        assert_eq!(st["status"], "pending", "{product} waits for the transcript: {st}");
        assert!(st["error"].as_str().unwrap().starts_with("transcribing speech"), "{st}");
        assert_eq!(
            t.state
                .store
                .job_state(org, "m1", kino_server::vocabulary::Product::parse(product).unwrap(), "1.0.0")
                .unwrap(),
            Some(JobState::Waiting)
        );
    }
    // Previews answer on the fast channels; a profanity filter is refused until it is measured.
    assert_eq!(t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme", None).await.0, StatusCode::OK);
    let (s, err) = t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&max_profanity=0.5", None).await;
    assert_eq!(
        (s, err["detail"][0]["loc"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!(["query", "max_profanity"]))
    );
    assert!(err["detail"][0]["msg"].as_str().unwrap().contains("pending"), "{err}");

    // The final signals release the waiting jobs (stored before the analysis is marked finished).
    kino_server::signals::put(&t.state.store, &t.state.signals, &t.state.effects, org, "m1", full).unwrap();
    t.state.analysis.progress.write().unwrap().remove(&(org, "m1".into()));
    t.process();
    assert_eq!(t.call("GET", &task("m1", "profanity"), None).await.1["status"], "ready");
    let (s, _) = t.call("GET", "/results/jitpreviews/v2/m1?catalog=acme&max_profanity=0.5", None).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn a_fast_pass_left_by_a_crash_is_not_served_as_final() {
    let dir = tempfile::tempdir().unwrap();
    let (key, org);
    {
        let state = open(dir.path());
        key = org_with_key(&state, "acme");
        org = state.store.ensure_org("acme").unwrap().0;
        let t = TestApp { state, key: key.clone(), _dir: tempfile::tempdir().unwrap() };
        t.movie("m1").await;
        t.call("POST", &task("m1", "profanity"), None).await;
        // The analysing job stored its fast pass and the process died during transcription.
        let job = t.state.store.claim_job().unwrap().unwrap();
        let mut fast = kino::synth::demo_signals("m1", 300.0, 1.0, 2);
        fast.analysis = Some(kino::signals::Analysis {
            analyzer: "test".into(),
            measured: Vec::new(),
            absent: vec!["profanity".into(), "timelines.profanity".into()],
            models: Default::default(),
            reasons: Default::default(),
        });
        kino_server::signals::put_fast(&t.state.store, &t.state.signals, &t.state.effects, org, "m1", fast).unwrap();
        assert_eq!(job.product, kino_server::vocabulary::Product::Profanity);
    }
    let state = open(dir.path());
    state.store.requeue_running().unwrap();
    let t = TestApp { state, key, _dir: dir };
    // No analysis runs here and the item's media is not local: the job does not compute from the
    // fast pass; it waits for final signals.
    t.process();
    assert_eq!(
        t.state.store.job_state(org, "m1", kino_server::vocabulary::Product::Profanity, "1.0.0").unwrap(),
        Some(JobState::Waiting)
    );
    assert_eq!(t.call("GET", &task("m1", "profanity"), None).await.1["status"], "pending");
    t.signals("m1", 9).await;
    t.process();
    assert_eq!(t.call("GET", &task("m1", "profanity"), None).await.1["status"], "ready");
}

#[tokio::test]
async fn thumbnails_are_chosen_per_request_and_their_task_is_computed() {
    let t = test_app();
    t.movie("m1").await;
    t.signals("m1", 4).await;
    assert_eq!(t.call("POST", &task("m1", "jitthumbnails"), None).await.0, StatusCode::OK);
    t.process();
    let (_, st) = t.call("GET", &task("m1", "jitthumbnails"), None).await;
    assert_eq!(st["status"], "ready", "{st}");
    let (s, status) = t.call("GET", "/results/jitthumbnails/v2/status/m1?catalog=acme", None).await;
    assert_eq!((s, status["status"].clone()), (StatusCode::OK, json!("success")), "{status}");
    let (s, listed) = t.call("GET", "/results/jitthumbnails/v2/?catalog=acme", None).await;
    assert_eq!((s, listed["total_count"].clone()), (StatusCode::OK, json!(1)), "{listed}");

    let uri = "/results/jitthumbnails/v2/m1?catalog=acme&number_of_top_candidates=3&clip_length=20";
    let (s, res) = t.call("GET", uri, None).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let (_, clips) = t.call("GET", &uri.replace("jitthumbnails", "jitpreviews"), None).await;
    let (thumbs, clips) =
        (res["data"]["jitthumbnail"].as_array().unwrap(), clips["data"]["jitpreview"].as_array().unwrap());
    assert_eq!(thumbs.len(), clips.len());
    for (th, c) in thumbs.iter().zip(clips) {
        assert_eq!((&th["clip_start_time"], &th["clip_stop_time"]), (&c["start_time"], &c["stop_time"]));
        let time = th["time"].as_f64().unwrap();
        assert!(c["start_time"].as_f64().unwrap() <= time && time < c["stop_time"].as_f64().unwrap(), "{th}");
        assert!(th.get("gen").is_none(), "no files without trigger_generation");
    }
    // Every parameter is validated by name; generation is off for this catalog.
    let (s, err) =
        t.call("GET", "/results/jitthumbnails/v2/m1?catalog=acme&shot_margin=-1&main_character=maybe", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    let locs: Vec<Value> = err["detail"].as_array().unwrap().iter().map(|d| d["loc"].clone()).collect();
    assert_eq!(locs, [json!(["query", "shot_margin"]), json!(["query", "main_character"])]);
    let (s, err) = t.call("GET", "/results/jitthumbnails/v2/m1?catalog=acme&trigger_generation=true", None).await;
    assert_eq!(
        (s, err["detail"][0]["loc"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!(["query", "trigger_generation"]))
    );
    let (s, _) = t.call("GET", "/results/jitthumbnails/v2/m1", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "catalog is required, as for previews");
}

#[tokio::test]
async fn fingerprints_answer_and_the_duplicate_search_finds_the_same_film() {
    let t = test_app();
    // Three titles: a film, its copy with a few bits changed and 20 s trimmed, another film.
    let hashes = |seed: u64, n: usize| kino::synth::fingerprint_hashes(n, seed);
    let film = hashes(1, 5000);
    let copy: Vec<u32> = film[200..].iter().enumerate().map(|(i, h)| if i % 3 == 0 { h ^ 0b101 } else { *h }).collect();
    for (id, prints) in [("film", film), ("copy", copy), ("other", hashes(2, 5000))] {
        t.movie(id).await;
        let mut s = kino::synth::demo_signals(id, 600.0, 1.0, 3);
        s.audio_fingerprint = Some(kino::signals::AudioFingerprint { hop: 0.1, hashes: prints });
        let (st, body) =
            t.raw("PUT", &format!("/analysis/v1/item/standalone/{id}?key={}", t.key), Some(s.to_json()), &[]).await;
        assert_eq!(st, StatusCode::OK, "{body}");
        for product in ["fingerprint", "fingerprintplus"] {
            assert_eq!(t.call("POST", &task(id, product), None).await.0, StatusCode::OK);
        }
    }
    t.process();
    let (s, fp) = t.call("GET", "/results/fingerprintplus/v3/film", None).await;
    assert_eq!((s, fp["status"].clone()), (StatusCode::OK, json!("success")), "{fp}");
    assert_eq!(fp["data"]["fingerprint"].as_array().map(Vec::len), Some(5000));
    assert_eq!(fp["data"]["fingerprint_hop"], 0.1);
    assert!(
        fp["data"]["mood"].is_object() && fp["data"]["keyword"].is_object() && fp["data"]["language"].is_object(),
        "{fp}"
    );
    let (s, plain) = t.call("GET", "/results/fingerprint/v1/copy", None).await;
    assert_eq!((s, plain["data"]["fingerprint"].as_array().map(Vec::len)), (StatusCode::OK, Some(4800)), "{plain}");
    let (_, listed) = t.call("GET", "/results/fingerprintplus/v3/", None).await;
    assert_eq!(listed["total_count"], 3, "{listed}");

    let (s, dup) = t.call("GET", "/results/fingerprintplus/v3/duplicates/copy", None).await;
    assert_eq!(s, StatusCode::OK, "{dup}");
    assert_eq!(dup["compared"], 3);
    let found = dup["duplicates"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{dup}");
    assert_eq!((found[0]["id"].clone(), found[0]["offset"].clone()), (json!("film"), json!(20.0)), "{dup}");
    assert!(found[0]["same_title"].as_bool().unwrap());
    let (_, groups) = t.call("GET", "/results/fingerprintplus/v3/duplicates", None).await;
    assert_eq!(groups["groups"], json!([["copy", "film"]]), "{groups}");
    // A title without a fingerprint is a 404 that says why.
    t.movie("bare").await;
    t.signals("bare", 1).await;
    let (s, err) = t.call("GET", "/results/fingerprintplus/v3/duplicates/bare", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{err}");
}

#[tokio::test]
async fn markers_find_the_season_intro_and_follow_episodes_joining() {
    let t = test_app();
    let noise = |seed: u64, n: usize| kino::synth::fingerprint_hashes(n, seed);
    let intro = noise(99, 300); // 30 s shared by the season
    let episode = |n: u64, at: usize| -> Vec<u32> {
        let mut h = noise(n, 12_000);
        h.splice(at..at, intro.iter().copied());
        h.truncate(12_000);
        h
    };
    let put_episode = |id: &'static str, n: u64, at: usize| {
        let t = &t;
        let prints = episode(n, at);
        async move {
            let body = json!({"id": id, "type": "episode", "title": id,
                "episodic_info": {"series_id": "show", "season_id": "show-s1", "season_number": 1, "episode_number": n}});
            assert_eq!(t.call("PUT", "/catalog/v1/item", Some(body)).await.0, StatusCode::OK);
            let mut s = kino::synth::demo_signals(id, 1200.0, 1.0, n);
            s.audio_fingerprint = Some(kino::signals::AudioFingerprint { hop: 0.1, hashes: prints });
            let uri = format!("/analysis/v1/item/episode/{id}?key={}", t.key);
            let (st, b) = t.raw("PUT", &uri, Some(s.to_json()), &[]).await;
            assert_eq!(st, StatusCode::OK, "{b}");
            assert_eq!(t.call("POST", &task(id, "markers"), None).await.0, StatusCode::OK);
        }
    };
    put_episode("e1", 1, 120).await;
    let (_, before) = t.call("GET", "/results/markers/v1/asset/e1", None).await;
    assert_eq!(before["not_yet_available"], true, "{before}");
    t.process();
    let (_, alone) = t.call("GET", "/results/markers/v1/asset/e1", None).await;
    assert_eq!(
        (alone["not_yet_available"].clone(), alone["intro_start"].clone()),
        (json!(false), Value::Null),
        "{alone}"
    );
    for field in [
        "credit_start",
        "credit_end",
        "post_credits_start",
        "post_credits_end",
        "mid_credits_start",
        "mid_credits_end",
        "credits_cue",
    ] {
        assert_eq!(alone.get(field), Some(&Value::Null), "{field} is answered (null: no credits text): {alone}");
    }
    // A second episode joins: the first one's markers are computed again and find the intro.
    put_episode("e2", 2, 455).await;
    let (org, _) = t.state.store.ensure_org("acme").unwrap();
    assert_eq!(
        t.state.store.job_state(org, "e1", kino_server::vocabulary::Product::Markers, "1.0.0").unwrap(),
        Some(JobState::Pending)
    );
    t.process();
    for (id, start) in [("e1", 12.0), ("e2", 45.5)] {
        let (s, m) = t.call("GET", &format!("/results/markers/v1/asset/{id}"), None).await;
        assert_eq!(s, StatusCode::OK, "{m}");
        let (a, b) = (m["intro_start"].as_f64().unwrap(), m["intro_end"].as_f64().unwrap());
        assert!((a - start).abs() <= 1.0 && (b - start - 30.0).abs() <= 1.0, "{id}: {m}");
        assert_eq!((m["ident"].clone(), m["episodes_compared"].clone()), (json!(id), json!(1)));
    }
    let (_, listed) = t.call("GET", "/results/markers/v1/?page_size=1", None).await;
    assert_eq!(
        (listed["total_count"].clone(), listed["data"].as_array().map(Vec::len)),
        (json!(2), Some(1)),
        "{listed}"
    );
    let (s, _) = t.call("GET", "/results/markers/v1/?page_size=0", None).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    // The second leaves: the first one's markers lose their intro.
    let gone = json!({"id": "e2", "type": "episode", "title": "e2", "operations": {"deleted": true},
        "episodic_info": {"series_id": "show", "season_id": "show-s1", "season_number": 1, "episode_number": 2}});
    assert_eq!(t.call("PUT", "/catalog/v1/item", Some(gone)).await.0, StatusCode::OK);
    t.process();
    let (_, alone) = t.call("GET", "/results/markers/v1/asset/e1", None).await;
    assert_eq!((alone["intro_start"].clone(), alone["episodes_compared"].clone()), (Value::Null, json!(0)), "{alone}");
}

#[tokio::test]
async fn characters_keep_one_identity_across_a_series() {
    let t = test_app();
    let unit = |axis: usize, tilt: f32| -> Vec<f32> {
        let mut v = vec![0.0f32; 8];
        v[axis] = tilt.cos();
        v[axis + 1] = tilt.sin();
        v
    };
    // Episode 1: A then B; episode 2: B then A (a little different); a film without descriptors.
    for (id, n, people) in [("ep1", 1, [(0usize, 0.0f32), (2, 0.0)]), ("ep2", 2, [(2, 0.1), (0, 0.08)])] {
        let body = json!({"id": id, "type": "episode", "title": id,
            "episodic_info": {"series_id": "show", "season_id": "show-s1", "season_number": 1, "episode_number": n}});
        assert_eq!(t.call("PUT", "/catalog/v1/item", Some(body)).await.0, StatusCode::OK);
        let mut s = kino::synth::demo_signals(id, 600.0, 1.0, 4);
        s.characters = (0..2)
            .map(|r| kino::signals::Character { rank: r, spans: vec![[0.0, if r == 0 { 300.0 } else { 100.0 }]] })
            .collect();
        s.character_descriptors = Some(people.iter().map(|&(a, tilt)| unit(a, tilt)).collect());
        // The same two voices speak in both episodes, the second one most.
        let turn = |start: f64, end: f64, speaker: u32| kino::signals::SpeakerTurn {
            start,
            end,
            speaker,
            embedding: Vec::new(),
        };
        s.speakers = Some(kino::signals::Speakers {
            turns: vec![turn(10.0, 20.0, 0), turn(30.0, 90.0, 1)],
            voices: people.iter().rev().map(|&(a, tilt)| unit(a, tilt / 2.0)).collect(),
            characters: vec![Some(0), None],
        });
        let (st, b) =
            t.raw("PUT", &format!("/analysis/v1/item/episode/{id}?key={}", t.key), Some(s.to_json()), &[]).await;
        assert_eq!(st, StatusCode::OK, "{b}");
    }
    let (s, c1) = t.call("GET", "/results/characters/v1/ep1", None).await;
    assert_eq!(s, StatusCode::OK, "{c1}");
    let (_, c2) = t.call("GET", "/results/characters/v1/ep2", None).await;
    assert_eq!((c1["series_id"].clone(), c1["titles_linked"].clone()), (json!("show"), json!(2)), "{c1}");
    let ids = |c: &Value| -> Vec<Value> {
        c["characters"].as_array().unwrap().iter().map(|x| x["series_identity"].clone()).collect()
    };
    // A is on screen 300 + 100 s, B 100 + 300 s: equal, so A (first seen) is 0.
    assert_eq!(ids(&c1), [json!(0), json!(1)], "{c1}");
    assert_eq!(ids(&c2), [json!(1), json!(0)], "{c2}");
    // Voices: ep1 speaks with (axis 2, axis 0), ep2 with (axis 0, axis 2), the second the longer.
    let voices = |c: &Value| -> Vec<(Value, Value)> {
        c["speakers"].as_array().unwrap().iter().map(|x| (x["speaker"].clone(), x["series_voice"].clone())).collect()
    };
    assert_eq!(voices(&c1), [(json!(1), json!(0)), (json!(0), json!(1))], "{c1}");
    assert_eq!(voices(&c2), [(json!(1), json!(1)), (json!(0), json!(0))], "{c2}");
    assert_eq!(c1["speakers"][1]["character"], json!(0), "{c1}");
    t.movie("film").await;
    t.signals("film", 2).await;
    let (s, film) = t.call("GET", "/results/characters/v1/film", None).await;
    assert_eq!((s, film["series_id"].clone(), film["titles_linked"].clone()), (StatusCode::OK, Value::Null, json!(1)));
    assert!(film["characters"].as_array().unwrap().iter().all(|c| c["series_identity"].is_null()), "{film}");
    t.movie("bare").await;
    assert_eq!(t.call("GET", "/results/characters/v1/bare", None).await.0, StatusCode::NOT_FOUND);
}

/// The ids and start times of a scene search's answer.
fn scene_hits(answer: &Value) -> Vec<(String, f64)> {
    answer["scenes"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|s| (s["inventory_id"].as_str().unwrap().to_string(), s["start_ts"].as_f64().unwrap()))
        .collect()
}

/// A text search reads the scenes' channels from the stored signals: a scene whose `said`
/// vector holds the query's words comes first, by a margin over every scene known by its
/// description alone.
#[tokio::test]
async fn a_text_search_fuses_the_scene_channels_of_the_stored_signals() {
    let t = test_app();
    let encoder = t.state.analysis.encoder.clone();
    let query = "the night train to the harbour";
    let q = encoder.encode(query).unwrap();
    let mut words: Vec<f32> = q[..384].to_vec();
    let norm = words.iter().map(|x| x * x).sum::<f32>().sqrt();
    words.iter_mut().for_each(|x| *x /= norm);
    let mut talk_start = 0.0;
    for (id, seed) in [("plain", 61u64), ("talk", 62)] {
        t.movie(id).await;
        let mut o = kino::synth::SynthOptions::new(id, 1800.0, 1.0, seed);
        o.scene_embeddings = true;
        let mut s = kino::synth::generate(&o);
        if id == "talk" {
            let n = s.scenes.len();
            let said = (0..n).map(|i| (i == 3).then(|| words.clone())).collect();
            talk_start = s.scenes[3].start;
            s.scene_channels = Some(kino::signals::SceneChannels { said, ..Default::default() });
        }
        let (st, body) =
            t.raw("PUT", &format!("/analysis/v1/item/standalone/{id}?key={}", t.key), Some(s.to_json()), &[]).await;
        assert_eq!(st, StatusCode::OK, "{body}");
        t.call("POST", &task(id, "semantic_scenes"), None).await;
    }
    t.process();
    let uri = format!("/search/v1/scenes?text={}&count=5", query.replace(' ', "%20"));
    let (s, a) = t.call("GET", &uri, None).await;
    assert_eq!(s, StatusCode::OK, "{a}");
    let hits = scene_hits(&a);
    assert_eq!(hits[0], ("talk".to_string(), talk_start), "{a}");
    let scores: Vec<f64> = a["scenes"].as_array().unwrap().iter().map(|s| s["score"].as_f64().unwrap()).collect();
    assert!(scores[0] - scores[1] > 0.05, "the said channel lifts its scene by a margin: {scores:?}");
}

#[tokio::test]
async fn the_catalog_wide_scene_search_follows_the_catalog() {
    use kino_server::indexes::{Collection, Indexes};
    let mut t = test_app();
    // Tiny segments, so that a few titles already flush and merge; scanned rather than walked as
    // graphs, so that answers before and after the flushes must be equal (the HNSW segments'
    // recall is measured in the core's tests and the benchmark).
    let dir = t.state.config.index_dir.clone();
    std::sync::Arc::make_mut(&mut std::sync::Arc::make_mut(&mut t.state).effects).indexes =
        std::sync::Arc::new(Indexes::tuned(dir, |c| kino::vectors::SegmentConfig {
            flush_vectors: 40,
            merge_segments: 2,
            graph_from: usize::MAX,
            ..c
        }));
    for (i, (id, year)) in [("m1", 1999), ("m2", 2010), ("m3", 2020)].iter().enumerate() {
        let body = json!({"id": id, "type": "standalone", "title": format!("Film {id}"), "release_year": year});
        assert_eq!(t.call("PUT", "/catalog/v1/item", Some(body)).await.0, StatusCode::OK);
        t.signals(id, i as u64 + 21).await;
    }
    for (n, id) in ["e1", "e2"].iter().enumerate() {
        let body = json!({"id": id, "type": "episode", "title": id, "episodic_info":
            {"series_id": "s1", "season_id": "s1-1", "season_number": 1, "episode_number": n + 1}});
        assert_eq!(t.call("PUT", "/catalog/v1/item", Some(body)).await.0, StatusCode::OK);
        let mut o = kino::synth::SynthOptions::new(id, 1800.0, 1.0, 40 + n as u64);
        o.scene_embeddings = true;
        let s = kino::synth::generate(&o);
        let (st, b) =
            t.raw("PUT", &format!("/analysis/v1/item/episode/{id}?key={}", t.key), Some(s.to_json()), &[]).await;
        assert_eq!(st, StatusCode::OK, "{b}");
    }
    let ids = ["m1", "m2", "m3", "e1", "e2"];
    for id in ids {
        t.call("POST", &task(id, "semantic_scenes"), None).await;
    }
    t.process();

    // A text query: the best scenes across the catalog, best first.
    let (s, a) = t.call("GET", "/search/v1/scenes?text=car%20chase&count=20", None).await;
    assert_eq!(s, StatusCode::OK, "{a}");
    let hits = scene_hits(&a);
    assert_eq!(hits.len(), 20, "{a}");
    let scores: Vec<f64> = a["scenes"].as_array().unwrap().iter().map(|s| s["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]) && scores.iter().all(|s| (0.0..=1.0).contains(s)), "{scores:?}");
    assert!(a["encoder"].is_string());
    let found: std::collections::HashSet<&str> = hits.iter().map(|h| h.0.as_str()).collect();
    assert!(found.len() >= 2, "scenes of several titles: {found:?}");
    // Paging: skip 2 of the same list.
    let (_, page) = t.call("GET", "/search/v1/scenes?text=car%20chase&skip=2&count=3", None).await;
    assert_eq!(scene_hits(&page), hits[2..5].to_vec());
    // One scene as the query: other titles only, and its own best match is a close one.
    let (top_id, top_start) = hits[0].clone();
    let (s, like) =
        t.call("GET", &format!("/search/v1/scenes?item_id={top_id}&start_ts={top_start}&count=5"), None).await;
    assert_eq!(s, StatusCode::OK, "{like}");
    assert!(scene_hits(&like).iter().all(|h| h.0 != top_id) && !scene_hits(&like).is_empty(), "{like}");
    let (s, like) = t.call("GET", "/search/v1/scenes?item_id=m2&count=5", None).await;
    assert_eq!(s, StatusCode::OK, "{like}");
    assert!(scene_hits(&like).iter().all(|h| h.0 != "m2"));

    // Filters.
    let q = "/search/v1/scenes?text=car%20chase&count=50";
    let only = |a: &Value, allowed: &[&str]| scene_hits(a).iter().all(|h| allowed.contains(&h.0.as_str()));
    let (_, a) = t.call("GET", &format!("{q}&type=episode"), None).await;
    assert!(!scene_hits(&a).is_empty() && only(&a, &["e1", "e2"]), "{a}");
    let (_, a) = t.call("GET", &format!("{q}&series_id=s1"), None).await;
    assert!(!scene_hits(&a).is_empty() && only(&a, &["e1", "e2"]), "{a}");
    let (_, a) = t.call("GET", &format!("{q}&release_year_gte=2005&release_year_lte=2015"), None).await;
    assert!(!scene_hits(&a).is_empty() && only(&a, &["m2"]), "{a}");
    let (_, a) = t.call("GET", &format!("{q}&from_ts=100&to_ts=400"), None).await;
    let scenes = a["scenes"].as_array().unwrap();
    assert!(!scenes.is_empty(), "{a}");
    assert!(scenes.iter().all(|s| s["start_ts"].as_f64().unwrap() >= 100.0 && s["end_ts"].as_f64().unwrap() <= 400.0));
    let org = t.state.store.ensure_org("acme").unwrap().0;
    let catalog = t.state.store.catalogs(org).unwrap()[0].0;
    let (_, a) = t.call("GET", &format!("{q}&catalog_id={catalog}"), None).await;
    assert!(scene_hits(&a).is_empty(), "no smartlist lists anything yet: {a}");
    kino_server::portal::smartlists::create(
        &t.state.portal(),
        org,
        &json!({"title": "Films", "catalog": "acme", "creator": "ed@example.com", "filter": {"type": ["standalone"]}}),
    )
    .unwrap();
    let (_, a) = t.call("GET", &format!("{q}&catalog_id={catalog}"), None).await;
    assert!(!scene_hits(&a).is_empty() && only(&a, &["m1", "m2", "m3"]), "{a}");

    // Every rule broken is named.
    for (query, field) in [
        ("", "text"),
        ("text=a&item_id=m1", "text"),
        ("start_ts=3", "start_ts"),
        ("text=a&count=101", "count"),
        ("text=a&count=0", "count"),
        ("text=a&skip=995&count=10", "skip"),
        ("text=a&type=film", "type"),
        ("text=a&from_ts=50&to_ts=10", "to_ts"),
        ("text=a&release_year_gte=1800", "release_year_gte"),
        ("text=a&catalog_id=x", "catalog_id"),
        ("text=%20", "text"),
    ] {
        let (s, e) = t.call("GET", &format!("/search/v1/scenes?{query}"), None).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {e}");
        assert!(e.to_string().contains(field), "{query} names {field}: {e}");
    }
    for query in ["item_id=nobody", "item_id=m1&start_ts=9999", "text=a&catalog_id=424242", "item_id=s1"] {
        let (s, e) = t.call("GET", &format!("/search/v1/scenes?{query}"), None).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{query}: {e}");
    }

    // Search by example: one scene in a JSON body answers as the same query string does.
    let example = json!({"item_id": top_id, "start_ts": top_start}).to_string().into_bytes();
    let (s, posted) = t.typed("POST", "/search/v1/scenes?count=5", "application/json", example.clone()).await;
    assert_eq!(s, StatusCode::OK, "{posted}");
    let (_, got) =
        t.call("GET", &format!("/search/v1/scenes?item_id={top_id}&start_ts={top_start}&count=5"), None).await;
    assert_eq!(scene_hits(&posted), scene_hits(&got));
    let (_, episodes) = t.typed("POST", "/search/v1/scenes?type=episode", "application/json", example.clone()).await;
    assert!(!scene_hits(&episodes).is_empty() && only(&episodes, &["e1", "e2"]), "{episodes}");
    // Each wrong body or parameter is named; a picture without the image classifier is a 503.
    let png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (query, content_type, body, status, names) in [
        ("text=a", "application/json", example.clone(), StatusCode::UNPROCESSABLE_ENTITY, "text"),
        ("count=0", "application/json", example.clone(), StatusCode::UNPROCESSABLE_ENTITY, "count"),
        ("", "application/json", b"{\"item_id\": 3}".to_vec(), StatusCode::UNPROCESSABLE_ENTITY, "body"),
        (
            "",
            "application/json",
            b"{\"item_id\": \"m1\", \"start_ts\": -1}".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "start_ts",
        ),
        ("", "text/plain", b"car chase".to_vec(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "image/jpeg"),
        ("", "", png.clone(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "Content-Type"),
        ("type=film", "image/png", png.clone(), StatusCode::UNPROCESSABLE_ENTITY, "type"),
        ("", "image/png", png.clone(), StatusCode::UNPROCESSABLE_ENTITY, "body"),
    ] {
        let (s, e) = t.typed("POST", &format!("/search/v1/scenes?{query}"), content_type, body).await;
        assert_eq!(s, status, "{query} {content_type}: {e}");
        assert!(e.to_string().contains(names), "{query} {content_type} names {names}: {e}");
    }
    let frame = {
        let mut out = std::io::Cursor::new(Vec::new());
        image::RgbImage::from_pixel(32, 24, image::Rgb([200, 40, 40]))
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap();
        out.into_inner()
    };
    let (s, e) = t.typed("POST", "/search/v1/scenes", "image/png", frame).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{e}");
    assert!(e["detail"].as_str().unwrap().contains("efficientnet-lite0"), "{e}");
    let big = vec![0u8; (16 << 20) + 1];
    assert_eq!(t.typed("POST", "/search/v1/scenes", "image/jpeg", big).await.0, StatusCode::PAYLOAD_TOO_LARGE);

    // A deleted title is never found; upserted again, it is back.
    t.call("PUT", "/catalog/v1/delete/standalone/m1", None).await;
    let (_, a) = t.call("GET", &format!("{q}&count=100"), None).await;
    assert!(scene_hits(&a).iter().all(|h| h.0 != "m1"), "{a}");
    let body = json!({"id": "m1", "type": "standalone", "title": "Film m1", "release_year": 1999});
    t.call("PUT", "/catalog/v1/item", Some(body)).await;
    let (_, a) = t.call("GET", &format!("{q}&count=100"), None).await;
    assert!(scene_hits(&a).iter().any(|h| h.0 == "m1"), "{a}");

    // The scenes went to segments in the background, and the answers did not change.
    let index = t.state.effects.indexes.loaded(org, Collection::Scenes).unwrap();
    assert!(support::until(|| !index.needs_maintenance()).await);
    let stats = index.stats();
    assert!(stats.segments >= 1 && stats.items == 5, "{stats:?}");
    let (_, again) = t.call("GET", "/search/v1/scenes?text=car%20chase&count=20", None).await;
    let answer = scene_hits(&again);
    assert_eq!(answer, hits, "the segments find what the delta found");

    // A restart reads the segments and checks them against the database.
    let key = t.key.clone();
    let TestApp { state, _dir, .. } = t;
    drop(state);
    let state = open(_dir.path());
    let t = TestApp { state, key, _dir };
    let (_, after) = t.call("GET", "/search/v1/scenes?text=car%20chase&count=20", None).await;
    assert_eq!(scene_hits(&after), answer);
}

/// The emotional arc (issue 45): in the content summary of a title without a transcript, and as
/// the order of similar titles the item embedding cannot tell apart.
#[tokio::test]
async fn the_emotional_arc_in_summaries_and_similar_titles() {
    let t = test_app();
    use kino::ArcShape::{Icarus, ManInAHole};
    let rows = [
        ("a", ManInAHole, [1.0, 0.0]),
        ("opposite", Icarus, [0.6, 0.8]),
        ("same", ManInAHole, [0.6, 0.8]),
        ("far", ManInAHole, [0.0, 1.0]),
    ];
    for (id, shape, embedding) in rows {
        t.movie(id).await;
        let mut s = kino::synth::generate(&kino::synth::SynthOptions::new(id, 1200.0, 1.0, 9));
        s.transcript = None;
        let e = s.emotions.as_mut().expect("generated signals carry emotions");
        let n = e.valence.len() as f64;
        e.valence = (0..e.valence.len()).map(|i| (0.8 * shape.template((i as f64 + 0.5) / n)) as f32).collect();
        let mut v = vec![0.0_f32; 256];
        v[..2].copy_from_slice(&embedding);
        s.item_embedding = Some(v);
        let (st, body) =
            t.raw("PUT", &format!("/analysis/v1/item/standalone/{id}?key={}", t.key), Some(s.to_json()), &[]).await;
        assert_eq!(st, StatusCode::OK, "{body}");
        for product in ["similar", "content_summary"] {
            assert_eq!(t.call("POST", &task(id, product), None).await.0, StatusCode::OK);
        }
    }
    t.process();
    let (s, summary) = t.call("GET", "/results/content_summary/v1/a", None).await;
    assert_eq!(s, StatusCode::OK, "{summary}");
    let cs = &summary["data"]["content_summary"];
    assert_eq!(cs["sentences"], json!([]), "no transcript: {cs}");
    assert_eq!(cs["emotional_arc"]["shape"], "man_in_a_hole", "{cs}");
    assert_eq!(cs["emotional_arc"]["name"], "man in a hole", "{cs}");
    assert_eq!(cs["emotional_arc"]["valence"].as_array().unwrap().len(), kino::arc::POINTS);
    assert!(cs["emotional_arc"]["distance"].as_f64().unwrap() < 0.1, "{cs}");
    let (s, icarus_summary) = t.call("GET", "/results/content_summary/v1/opposite", None).await;
    assert_eq!(
        (s, icarus_summary["data"]["content_summary"]["emotional_arc"]["shape"].clone()),
        (StatusCode::OK, json!("icarus"))
    );

    let (s, sim) = t.call("GET", "/results/similar/similar/v2/a", None).await;
    assert_eq!(s, StatusCode::OK, "{sim}");
    let similar = sim["similar"].as_array().unwrap();
    let ids: Vec<&str> = similar.iter().map(|x| x["inventory_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["same", "opposite", "far"], "{sim}");
    assert_eq!(similar[0]["score"], similar[1]["score"], "equal embeddings, equal scores: {sim}");
    let (_, page) = t.call("GET", "/results/similar/similar/v2/a?count=1", None).await;
    assert_eq!(page["similar"][0]["inventory_id"], "same", "{page}");
}
