//! The portal end to end: the admin API sets up smartlists, recipes and webhooks; a client takes a
//! token and reads the portal; events reach a loopback receiver, checked with an independent HMAC.

use std::time::Duration;

use crate::support::{Hit, Receiver, header, hmac_hex, until};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::store::OrgId;
use kino_server::{AppState, Config, Services, app, webhooks};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::support;

const ADMIN: &str = "portal-admin-token";

struct Portal {
    state: AppState,
    org: OrgId,
    key: String,
    receiver: Receiver,
    secret: String,
    hook: String,
    stop: watch::Sender<bool>,
    _dir: tempfile::TempDir,
}

async fn call(
    state: &AppState,
    method: &str,
    uri: &str,
    auth: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri).header("content-type", "application/json");
    if let Some(a) = auth {
        req = req.header("authorization", format!("Bearer {a}"));
    }
    let req = req.body(body.map(|b| Body::from(b.to_string())).unwrap_or_else(Body::empty)).unwrap();
    let res = support::send(app(state.clone()), req).await;
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

impl Portal {
    /// A service with organisation `acme` (catalog `acme`), an API key, a running webhook
    /// dispatcher and smartlist refresher, and an enabled webhook for every event.
    async fn start() -> Portal {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            admin_token: Some(ADMIN.into()),
            webhook_allow_loopback: true,
            webhook_timeout: Duration::from_secs(30),
            ..Config::in_dir(dir.path())
        };
        let state = Services::open(crate::support::store(dir.path()), config).unwrap();
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(webhooks::run_dispatcher(state.dispatcher(), stopped.clone()));
        let at = chrono::NaiveTime::from_hms_opt(4, 0, 0).unwrap();
        tokio::spawn(kino_server::portal::smartlists::run_refresher(state.portal(), at, stopped));
        let (s, _) = call(&state, "POST", "/admin/v1/orgs", Some(ADMIN), Some(json!({"name": "acme"}))).await;
        assert_eq!(s, StatusCode::CREATED);
        let (s, key) = call(&state, "POST", "/admin/v1/orgs/acme/api-keys", Some(ADMIN), None).await;
        assert_eq!(s, StatusCode::CREATED);
        let receiver = Receiver::start().await;
        let (s, hook) = call(
            &state,
            "POST",
            "/admin/v1/orgs/acme/webhooks",
            Some(ADMIN),
            Some(json!({"url": receiver.url("/hook"), "enabled": true})),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{hook}");
        let org = state.store.orgs().unwrap().into_iter().find(|(_, n)| n == "acme").unwrap().0;
        Portal {
            state,
            org,
            key: key["key"].as_str().unwrap().into(),
            receiver,
            secret: hook["signing_secret"].as_str().unwrap().into(),
            hook: hook["id"].as_str().unwrap().into(),
            stop,
            _dir: dir,
        }
    }

    async fn admin(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        call(&self.state, method, &format!("/admin/v1/orgs/acme{path}"), Some(ADMIN), body).await
    }

    async fn get(&self, uri: &str, token: &str) -> (StatusCode, Value) {
        call(&self.state, "GET", uri, Some(token), None).await
    }

    async fn upsert(&self, item: Value) {
        let uri = format!("/catalog/v1/item?key={}", self.key);
        let (s, body) = call(&self.state, "PUT", &uri, None, Some(item)).await;
        assert_eq!(s, StatusCode::OK, "{body}");
    }

    async fn token(&self, scope: &str) -> String {
        let (s, c) = call(&self.state, "POST", "/admin/v1/orgs/acme/clients", Some(ADMIN), None).await;
        assert_eq!(s, StatusCode::CREATED);
        let body = json!({"client_id": c["client_id"], "client_secret": c["client_secret"], "grant_type": "client_credentials", "scope": scope});
        let (s, t) = call(&self.state, "POST", "/oauth/token", None, Some(body)).await;
        assert_eq!(s, StatusCode::OK, "{t}");
        t["access_token"].as_str().unwrap().into()
    }

    fn service_id(&self, id: &str) -> String {
        self.state.store.item(self.org, id).unwrap().unwrap().service_id
    }

    /// The envelopes of the deliveries of `event` received so far, each checked: headers, an
    /// independent HMAC over the raw bytes, the envelope's timestamp.
    fn events(&self, event: &str) -> Vec<Value> {
        self.receiver
            .hits()
            .iter()
            .filter(|h| header(h, "x-service-event") == Some(event))
            .map(|h| self.checked(h))
            .collect()
    }

    fn checked(&self, hit: &Hit) -> Value {
        assert_eq!(header(hit, "content-type"), Some("application/json"));
        assert_eq!(header(hit, "x-service-signature"), Some(hmac_hex(&self.secret, &hit.body).as_str()));
        assert!(chrono::DateTime::parse_from_rfc3339(header(hit, "x-service-timestamp").unwrap()).is_ok());
        let v: Value = serde_json::from_slice(&hit.body).unwrap();
        let ts = v["timestamp"].as_str().unwrap();
        chrono::NaiveDateTime::parse_from_str(ts, "%Y-%m-%dT%H:%M:%S%.3fZ").expect("UTC with milliseconds");
        assert_eq!(v["event"], json!(header(hit, "x-service-event").unwrap()));
        v["data"].clone()
    }

    async fn wait_events(&self, event: &str, n: usize) -> Vec<Value> {
        assert!(until(|| self.events(event).len() >= n).await, "{n} {event} events; got {:?}", self.events(event));
        self.events(event)
    }

    async fn stop(self) {
        let _ = self.stop.send(true);
        self.receiver.stop().await;
    }
}

fn movie(id: &str, title: &str, genres: &[&str], year: i64) -> Value {
    json!({"id": id, "type": "standalone", "title": title, "release_year": year, "metadata": {"genres": genres}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smartlists_membership_events_and_portal_reads() {
    let p = Portal::start().await;
    p.upsert(movie("m1", "Zebra Days", &["Drama"], 2005)).await;
    p.upsert(movie("m2", "apple orchard", &["drama", "Romance"], 2012)).await;
    p.upsert(movie("m3", "Comet", &["Comedy"], 2012)).await;
    p.upsert(movie("m4", "Old Drama", &["Drama"], 1990)).await;
    let filter = json!({"genres": ["drama"], "release_year": {"gte": 2000}});
    let (s, sl) = p
        .admin(
            "POST",
            "/smartlists",
            Some(json!({"title": "Modern Drama", "description": "d", "catalog": "acme", "purpose": ["editorial"],
                        "creator": "ed@example.com", "filter": filter, "published": true})),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{sl}");
    assert_eq!(sl["item_count"], 2);
    let id = sl["id"].as_str().unwrap().to_string();
    let first = &p.wait_events("smart_list.updated", 1).await[0];
    assert_eq!(first["smartListId"], json!(id));
    assert_eq!(first["smartListTitle"], "Modern Drama");
    let mut added: Vec<String> = serde_json::from_value(first["addedAssetIds"].clone()).unwrap();
    added.sort();
    let mut expected = vec![p.service_id("m1"), p.service_id("m2")];
    expected.sort();
    assert_eq!(added, expected, "service asset ids, not customer ids");
    assert_eq!(first["removedAssetIds"], json!([]));

    // a draft is kept current but neither listed nor announced
    let (s, draft) = p
        .admin("POST", "/smartlists", Some(json!({"title": "Draft comedy", "catalog": "acme", "creator": "ed@example.com", "filter": {"genres": ["comedy"]}, "purpose": ["creative-lab"], "is_ai_generated": true})))
        .await;
    assert_eq!((s, draft["item_count"].clone()), (StatusCode::CREATED, json!(1)));

    let tok = p.token("read:smartlist:published").await;
    let (s, list) = p.get("/smartlists/", &tok).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert_eq!(list["pagination"], json!({"page": 1, "limit": 20, "total": 1, "total_pages": 1}));
    assert_eq!(list["_links"]["catalogs"], "/catalogs/");
    let entry = &list["data"][0];
    assert_eq!((entry["id"].as_str(), entry["publishing_state"].as_str()), (Some(id.as_str()), Some("published")));
    assert!(entry.get("filter").is_none() && entry.get("catalog").is_none(), "list entries have no detail fields");
    let (s, detail) = p.get(&format!("/smartlists/{id}"), &tok).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!((detail["catalog"].clone(), detail["filter"].clone()), (json!("acme"), filter));
    let (s, assets) = p.get(&format!("/smartlists/{id}/assets"), &tok).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        assets["data"],
        json!([{"inventory_id": "m2", "title": "apple orchard", "position": 1}, {"inventory_id": "m1", "title": "Zebra Days", "position": 2}]),
        "ordered by title, case-insensitive"
    );
    assert_eq!(assets["_links"]["smartlist"], json!(format!("/smartlists/{id}")));
    let (_, page2) = p.get(&format!("/smartlists/{id}/assets?limit=1&page=2"), &tok).await;
    assert_eq!(page2["data"][0]["position"], 2);
    assert_eq!(page2["pagination"], json!({"page": 2, "limit": 1, "total": 2, "total_pages": 2}));
    let (_, beyond) = p.get(&format!("/smartlists/{id}/assets?limit=100&page=9007199254740991"), &tok).await;
    assert_eq!((beyond["data"].clone(), beyond["pagination"]["total"].clone()), (json!([]), json!(2)));

    // list filters
    let cid = p.state.store.catalogs(p.org).unwrap()[0].0;
    for (q, n) in [
        (format!("catalogId={cid}"), 1),
        ("catalogId=999".into(), 0),
        ("catalogName=acme".into(), 1),
        ("catalogName=ACME".into(), 0),
        ("creator=ed@example.com".into(), 1),
        ("creator=other@example.com".into(), 0),
        ("purpose=editorial".into(), 1),
        ("purpose=review-filter".into(), 0),
        ("is_ai_generated=false".into(), 1),
        ("is_ai_generated=true".into(), 0),
        ("search=MODERN".into(), 1),
        ("search=zzz".into(), 0),
    ] {
        let (s, r) = p.get(&format!("/smartlists/?{q}"), &tok).await;
        assert_eq!((s, r["pagination"]["total"].as_i64()), (StatusCode::OK, Some(n)), "{q}");
    }
    for q in [
        "page=0",
        "page=9007199254740992",
        "limit=0",
        "limit=101",
        "limit=x",
        "catalogId=9007199254740992",
        "catalogId=abc",
        "creator=not-an-email",
        "purpose=fun",
        "is_ai_generated=yes",
    ] {
        let (s, r) = p.get(&format!("/smartlists/?{q}"), &tok).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{q}");
        assert_eq!(r["statusCode"], 400);
        assert!(r["error"].is_string() && r["message"].is_string(), "{r}");
    }
    // path ids: malformed 400, unknown or draft 404
    let draft_id = draft["id"].as_str().unwrap();
    for (path, status) in [
        ("/smartlists/not-a-uuid".to_string(), StatusCode::BAD_REQUEST),
        ("/smartlists/123e4567-e89b-12d3-a456-426614174000".into(), StatusCode::NOT_FOUND),
        (format!("/smartlists/{draft_id}"), StatusCode::NOT_FOUND),
        (format!("/smartlists/{draft_id}/assets"), StatusCode::NOT_FOUND),
        ("/smartlists/123e4567-e89b-12d3-c456-426614174000/assets".into(), StatusCode::BAD_REQUEST),
    ] {
        let (s, r) = p.get(&path, &tok).await;
        assert_eq!((s, r["statusCode"].as_u64()), (status, Some(status.as_u16() as u64)), "{path}");
    }
    // the collections are read with their trailing slash, a query or not
    for path in ["/smartlists/?limit=20", "/catalogs/", "/catalogs/?page=1"] {
        assert_eq!(p.get(path, &tok).await.0, StatusCode::OK, "{path}");
    }
    // unknown paths and methods under the portal's, OAuth's and the admin API's prefixes answer
    // with the portal's error body (their own nested fallbacks), with or without a trailing slash
    for (method, path, status) in [
        ("GET", "/smartlists/a/b/c", StatusCode::NOT_FOUND),
        ("GET", "/smartlists", StatusCode::NOT_FOUND),
        ("GET", "/smartlists?limit=20", StatusCode::NOT_FOUND),
        ("GET", "/catalogs", StatusCode::NOT_FOUND),
        ("GET", "/recipes/a/", StatusCode::NOT_FOUND),
        ("GET", "/creative-assets/x/y/", StatusCode::NOT_FOUND),
        ("POST", "/smartlists/", StatusCode::METHOD_NOT_ALLOWED),
        ("POST", "/smartlists/?limit=20", StatusCode::METHOD_NOT_ALLOWED),
        ("DELETE", "/creative-assets/", StatusCode::METHOD_NOT_ALLOWED),
        ("PUT", "/catalogs/1", StatusCode::METHOD_NOT_ALLOWED),
        ("POST", "/smartlists/docs", StatusCode::METHOD_NOT_ALLOWED),
        ("GET", "/portal/elsewhere", StatusCode::NOT_FOUND),
        ("POST", "/portal/docs", StatusCode::METHOD_NOT_ALLOWED),
        ("GET", "/oauth/token", StatusCode::METHOD_NOT_ALLOWED),
        ("GET", "/oauth/", StatusCode::NOT_FOUND),
        ("GET", "/admin/v2/orgs", StatusCode::NOT_FOUND),
        ("GET", "/admin/v1/orgs/", StatusCode::NOT_FOUND),
        ("PUT", "/admin/v1/orgs", StatusCode::METHOD_NOT_ALLOWED),
    ] {
        let (s, r) = call(&p.state, method, path, Some(&tok), None).await;
        assert_eq!((s, r["statusCode"].as_u64()), (status, Some(status.as_u16() as u64)), "{method} {path}: {r}");
        assert!(r["error"].is_string() && r["message"].is_string(), "{method} {path}: {r}");
    }
    // a path that only begins like a portal collection is the service's own
    for (method, path, status) in [
        ("GET", "/smartlistsx", StatusCode::NOT_FOUND),
        ("GET", "/catalogsx/", StatusCode::NOT_FOUND),
        ("GET", "/no/such/path", StatusCode::NOT_FOUND),
        ("DELETE", "/catalog/v1/item", StatusCode::METHOD_NOT_ALLOWED),
    ] {
        let (s, r) = call(&p.state, method, path, Some(&tok), None).await;
        assert_eq!(s, status, "{method} {path}: {r}");
        assert!(r["detail"].is_string() && r.get("statusCode").is_none(), "{method} {path}: {r}");
    }
    // scopes
    let recipes_only = p.token("read:recipe:published").await;
    assert_eq!(p.get("/smartlists/", &recipes_only).await.0, StatusCode::FORBIDDEN);
    assert_eq!(p.get("/recipes/", &tok).await.0, StatusCode::FORBIDDEN);

    // catalog edits: a new member, a deletion
    p.upsert(movie("m5", "Bright Lights", &["DRAMA"], 2020)).await;
    let second = &p.wait_events("smart_list.updated", 2).await[1];
    assert_eq!(
        (second["addedAssetIds"].clone(), second["removedAssetIds"].clone()),
        (json!([p.service_id("m5")]), json!([]))
    );
    let (s, _) = call(&p.state, "PUT", &format!("/catalog/v1/delete/standalone/m1?key={}", p.key), None, None).await;
    assert_eq!(s, StatusCode::OK);
    let third = &p.wait_events("smart_list.updated", 3).await[2];
    assert_eq!(
        (third["addedAssetIds"].clone(), third["removedAssetIds"].clone()),
        (json!([]), json!([p.service_id("m1")]))
    );
    // an edit that changes nothing emits nothing
    p.upsert(movie("m3", "Comet", &["Comedy"], 2013)).await;
    let (s, r) = p.admin("POST", "/smartlists/refresh", None).await;
    assert_eq!((s, r["changed"].clone()), (StatusCode::OK, json!([])));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(p.events("smart_list.updated").len(), 3, "one event per membership change");
    let (_, detail) = p.get(&format!("/smartlists/{id}"), &tok).await;
    assert_eq!(detail["item_count"], 2);

    // the license window passing: the daily refresh (here run as of next year) removes the item
    p.upsert(json!({"id": "m6", "type": "standalone", "title": "Leaving Soon", "release_year": 2021,
                     "metadata": {"genres": ["drama"]},
                     "window_info": {"start": "2020-01-01T00:00:00Z", "end": (chrono::Utc::now() + chrono::Duration::days(30)).to_rfc3339()}}))
        .await;
    let joined = &p.wait_events("smart_list.updated", 4).await[3];
    assert_eq!(joined["addedAssetIds"], json!([p.service_id("m6")]));
    let later = chrono::Utc::now() + chrono::Duration::days(365);
    let changes = kino_server::portal::smartlists::refresh(&p.state.portal(), p.org, None, later).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].removed, vec!["m6".to_string()]);
    let left = &p.wait_events("smart_list.updated", 5).await[4];
    assert_eq!(
        (left["addedAssetIds"].clone(), left["removedAssetIds"].clone()),
        (json!([]), json!([p.service_id("m6")]))
    );

    // unpublishing hides it
    let (s, _) = p.admin("POST", &format!("/smartlists/{id}/unpublish"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(p.get(&format!("/smartlists/{id}"), &tok).await.0, StatusCode::NOT_FOUND);
    p.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn organisations_are_isolated_on_the_portal() {
    let p = Portal::start().await;
    p.upsert(movie("m1", "A", &["drama"], 2005)).await;
    let (_, sl) = p
        .admin(
            "POST",
            "/smartlists",
            Some(json!({"title": "T", "catalog": "acme", "creator": "e@x.io", "published": true})),
        )
        .await;
    let (s, _) = call(&p.state, "POST", "/admin/v1/orgs", Some(ADMIN), Some(json!({"name": "rival"}))).await;
    assert_eq!(s, StatusCode::CREATED);
    let (_, c) = call(&p.state, "POST", "/admin/v1/orgs/rival/clients", Some(ADMIN), None).await;
    let body =
        json!({"client_id": c["client_id"], "client_secret": c["client_secret"], "grant_type": "client_credentials"});
    let (_, t) = call(&p.state, "POST", "/oauth/token", None, Some(body)).await;
    let rival = t["access_token"].as_str().unwrap();
    let (s, list) = p.get("/smartlists/", rival).await;
    assert_eq!((s, list["pagination"]["total"].clone()), (StatusCode::OK, json!(0)));
    let id = sl["id"].as_str().unwrap();
    assert_eq!(p.get(&format!("/smartlists/{id}"), rival).await.0, StatusCode::NOT_FOUND);
    assert_eq!(p.get(&format!("/smartlists/{id}/assets"), rival).await.0, StatusCode::NOT_FOUND);
    // the admin API needs its own credential
    for auth in [None, Some("wrong"), Some(rival)] {
        let (s, r) = call(&p.state, "GET", "/admin/v1/orgs", auth, None).await;
        assert_eq!((s, r["statusCode"].clone()), (StatusCode::UNAUTHORIZED, json!(401)));
    }
    p.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_validation_names_the_field_and_the_rule() {
    let p = Portal::start().await;
    for (body, needle) in [
        (json!({"catalog": "acme", "creator": "e@x.io"}), "title: is required"),
        (json!({"title": "t", "creator": "e@x.io"}), "catalog: is required"),
        (json!({"title": "t", "catalog": "nope", "creator": "e@x.io"}), "catalog \"nope\" not found"),
        (json!({"title": "t", "catalog": "acme", "creator": "nobody"}), "creator: must be an email"),
        (
            json!({"title": "t", "catalog": "acme", "creator": "e@x.io", "purpose": ["fun"]}),
            "purpose: values must be one of",
        ),
        (
            json!({"title": "t", "catalog": "acme", "creator": "e@x.io", "filter": {"colour": ["red"]}}),
            "filter: filter.colour",
        ),
        (
            json!({"title": "t", "catalog": "acme", "creator": "e@x.io", "colour": 1}),
            "colour: is not a smartlist field",
        ),
        (
            json!({"title": "t", "catalog": "acme", "creator": "e@x.io", "published": "yes"}),
            "published: must be true or false",
        ),
    ] {
        let (s, r) = p.admin("POST", "/smartlists", Some(body.clone())).await;
        assert_eq!(
            s,
            if needle.contains("not found") { StatusCode::NOT_FOUND } else { StatusCode::BAD_REQUEST },
            "{body}: {r}"
        );
        assert!(r["message"].as_str().unwrap().contains(needle), "{body}: {r}");
    }
    for (config, needle) in [
        (json!({}), "config: needs exactly one of smartlist_id and inventory_ids"),
        (json!({"inventory_ids": []}), "config.inventory_ids"),
        (json!({"smartlist_id": "x"}), "config.smartlist_id: must be a smartlist UUID"),
        (json!({"smartlist_id": "123e4567-e89b-12d3-a456-426614174000"}), "config.smartlist_id: no smartlist"),
        (json!({"inventory_ids": ["a"], "per_item": 11}), "config.per_item"),
        (json!({"inventory_ids": ["a"], "previews": {"clip_length": -1}}), "config.previews.clip_length"),
        (
            json!({"inventory_ids": ["a"], "previews": {"trigger_generation": true}}),
            "config.previews.trigger_generation",
        ),
        (json!({"inventory_ids": ["a"], "thumbnail": {"min_brightness": 2}}), "config.thumbnail.min_brightness"),
        (json!({"inventory_ids": ["a"], "speed": 1}), "config.speed: is not a config key"),
    ] {
        let body =
            json!({"title": "r", "type": "thumbnails", "catalog": "acme", "creator": "e@x.io", "config": config});
        let (s, r) = p.admin("POST", "/recipes", Some(body)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{config}: {r}");
        assert!(r["message"].as_str().unwrap().contains(needle), "{config}: {r}");
    }
    let (s, r) = p.admin("POST", "/recipes", Some(json!({"title": "r", "type": "gifs", "catalog": "acme", "creator": "e@x.io", "config": {"inventory_ids": ["a"]}}))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(r["message"].as_str().unwrap().contains("type: must be one of thumbnails, preview-clips"));
    let (s, r) = p.admin("POST", "/webhooks", Some(json!({"url": "http://example.com/hook"}))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{r}");
    assert!(r["message"].as_str().unwrap().starts_with("url:"), "{r}");
    let (s, _) = call(&p.state, "POST", "/admin/v1/orgs/acme/smartlists", Some(ADMIN), None).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "an empty body lacks the title");
    p.stop().await;
}

/// Signals for an item (synthetic, deterministic), through the analysis endpoint.
async fn signals(p: &Portal, id: &str, seed: u64) {
    let s = kino::synth::demo_signals(id, 1800.0, 1.0, seed);
    let uri = format!("/analysis/v1/item/standalone/{id}?key={}", p.key);
    let req = Request::builder()
        .method("PUT")
        .uri(uri)
        .header("content-type", "application/json")
        .body(Body::from(s.to_json()))
        .unwrap();
    assert_eq!(support::send(app(p.state.clone()), req).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipes_make_creative_assets_and_announce_them() {
    let p = Portal::start().await;
    let mut m1 = movie("m1", "First", &["drama"], 2005);
    m1["logo_urls"] =
        json!({"dark": "https://cdn.example.com/logo-dark.png", "bright": "https://cdn.example.com/logo-bright.png"});
    p.upsert(m1).await;
    p.upsert(movie("m2", "Second", &["drama"], 2006)).await;
    p.upsert(movie("m3", "No signals", &["drama"], 2007)).await;
    signals(&p, "m1", 1).await;
    signals(&p, "m2", 2).await;
    let (_, sl) = p
        .admin("POST", "/smartlists", Some(json!({"title": "Dramas", "catalog": "acme", "creator": "e@x.io", "filter": {"genres": ["drama"]}, "published": true})))
        .await;
    let config = json!({"smartlist_id": sl["id"], "per_item": 2, "vertical": true, "data_only": true,
                        "previews": {"clip_length": 20, "max_nudity": 0.9}});
    let (s, recipe) = p
        .admin("POST", "/recipes", Some(json!({"title": "Trailers", "description": "2 per title", "type": "preview-clips", "catalog": "acme", "creator": "ed@example.com", "config": config, "published": true})))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{recipe}");
    let rid = recipe["id"].as_str().unwrap().to_string();
    let done = &p.wait_events("recipe.completed", 1).await[0];
    assert_eq!(
        (done["recipeId"].as_str(), done["status"].as_str(), done["dataOnly"].as_bool()),
        (Some(rid.as_str()), Some("completed"), Some(true))
    );
    // two items with signals x 2 clips x (preview, preview-vertical) completed; the item without
    // signals gets one failed asset per type
    assert_eq!(done["creativeAssetCount"], 8, "{done}");
    // the asset events are sent by the dispatcher concurrently with `recipe.completed`: wait for
    // the counts themselves, not for the recipe's event
    let counts = || {
        let n = |event| p.events(event).len();
        (n("creative_asset.created"), n("creative_asset.completed"), n("creative_asset.failed"))
    };
    assert!(until(|| counts() == (10, 8, 2)).await, "asset events: {:?}", counts());
    let completed = p.events("creative_asset.completed");
    let failed = p.events("creative_asset.failed");
    assert!(failed.iter().all(|f| f["assetId"] == json!(p.service_id("m3")) && f["url"].is_null()));
    let ids: Vec<&str> = done["creativeAssetIds"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(
        completed
            .iter()
            .all(|c| ids.contains(&c["creativeAssetId"].as_str().unwrap()) && c["recipeTitle"] == "Trailers")
    );

    let tok = p.token("read:recipe:published read:creative-asset:published").await;
    let (s, list) = p.get("/recipes/", &tok).await;
    assert_eq!((s, list["pagination"]["total"].clone()), (StatusCode::OK, json!(1)));
    assert!(list["data"][0].get("config").is_none());
    let (_, detail) = p.get(&format!("/recipes/{rid}"), &tok).await;
    assert_eq!(
        (detail["version"].clone(), detail["config"].clone(), detail["status"].clone()),
        (json!(1), config, json!("completed"))
    );
    for (q, n) in [
        ("type=preview-clips", 1),
        ("type=thumbnails", 0),
        ("creator=ed@example.com", 1),
        ("search=trail", 1),
        ("search=x", 0),
    ] {
        assert_eq!(p.get(&format!("/recipes/?{q}"), &tok).await.1["pagination"]["total"], n, "{q}");
    }
    assert_eq!(p.get("/recipes/?type=gifs", &tok).await.0, StatusCode::BAD_REQUEST);

    let (_, assets) = p.get("/creative-assets/?limit=100", &tok).await;
    assert_eq!(assets["pagination"]["total"], 10);
    let (_, previews) = p.get(&format!("/creative-assets/?recipeId={rid}&type=preview&inventoryId=m1"), &tok).await;
    assert_eq!(previews["pagination"]["total"], 2);
    let a = &previews["data"][0];
    assert_eq!(
        (a["recipe_id"].as_str(), a["inventory_id"].as_str(), a["asset_title"].as_str()),
        (Some(rid.as_str()), Some("m1"), Some("First"))
    );
    assert!(a["stop_time"].as_f64().unwrap() > a["start_time"].as_f64().unwrap());
    assert!(a["metadata"]["clip"]["relevance"].is_number());
    assert_eq!(a["logo_data"]["has_logo"], true);
    assert!(a["video_url"].is_null() && a.get("run_number").is_none());
    let (s, one) = p.get(&format!("/creative-assets/{}", a["id"].as_str().unwrap()), &tok).await;
    assert_eq!((s, one["run_number"].clone()), (StatusCode::OK, json!(1)));
    assert!(one["asset_index"].is_number());
    let (_, vertical) = p.get("/creative-assets/?type=preview-vertical&inventoryId=m2", &tok).await;
    assert!(vertical["data"][0]["metadata"]["vertical"]["x_center"].is_number());
    for q in ["recipeId=nope", "type=gif"] {
        assert_eq!(p.get(&format!("/creative-assets/?{q}"), &tok).await.0, StatusCode::BAD_REQUEST, "{q}");
    }
    assert_eq!(p.get("/creative-assets/123e4567-e89b-12d3-a456-426614174000", &tok).await.0, StatusCode::NOT_FOUND);

    // a thumbnails recipe over items with no media file: the frames are chosen, the files cannot
    // be rendered, the assets fail and so does the recipe
    let (s, thumbs) = p
        .admin("POST", "/recipes", Some(json!({"title": "Stills", "type": "thumbnails", "catalog": "acme", "creator": "ed@example.com", "config": {"inventory_ids": ["m1"]}})))
        .await;
    assert_eq!((s, thumbs["status"].clone()), (StatusCode::CREATED, json!("draft")));
    let tid = thumbs["id"].as_str().unwrap();
    let (s, run) = p.admin("POST", &format!("/recipes/{tid}/run"), None).await;
    assert_eq!((s, run["run_number"].clone()), (StatusCode::ACCEPTED, json!(1)));
    let mut finished = Value::Null;
    assert!(
        until(|| {
            let view = kino_server::portal::views::recipe_detail(&p.state.store.recipe(p.org, tid).unwrap().unwrap());
            finished = serde_json::to_value(view).unwrap();
            finished["status"] != "running"
        })
        .await
    );
    assert_eq!(finished["test_runs_count"], 1, "a draft's run is a test run");
    let (_, test_assets) = p.admin("GET", &format!("/recipes/{tid}/creative-assets"), None).await;
    let still = &test_assets[0];
    assert_eq!(still["type"], "thumbnail");
    assert_eq!(still["start_time"], still["stop_time"], "a thumbnail is one frame");
    assert!(still["metadata"]["frame"]["brightness"].is_number(), "{still}");
    assert_eq!(p.events("recipe.failed").len(), 0, "test runs of drafts send no events");
    let (s, _) = p.admin("POST", &format!("/recipes/{tid}/publish"), None).await;
    assert_eq!(s, StatusCode::OK);
    let failed = &p.wait_events("recipe.failed", 1).await[0];
    assert_eq!((failed["recipeId"].as_str(), failed["status"].as_str()), (Some(tid), Some("failed")));
    assert!(!failed["errorMessage"].as_str().unwrap().is_empty());

    // a published recipe follows its smartlist: a title that joins gets its assets in a new run
    p.upsert(movie("m4", "Fourth", &["comedy"], 2008)).await;
    signals(&p, "m4", 4).await;
    p.upsert(movie("m4", "Fourth", &["drama"], 2008)).await;
    let followed = &p.wait_events("recipe.completed", 2).await[1];
    assert_eq!(
        (followed["recipeId"].as_str(), followed["creativeAssetCount"].as_u64()),
        (Some(rid.as_str()), Some(4)),
        "{followed}"
    );
    for id in followed["creativeAssetIds"].as_array().unwrap() {
        let a = p.state.store.creative_asset(p.org, id.as_str().unwrap()).unwrap().unwrap();
        assert_eq!((a.item_id.as_str(), a.run_number), ("m4", 2));
    }
    p.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_actions_of_the_admin_api() {
    let p = Portal::start().await;
    let (s, listed) = p.admin("GET", "/webhooks", None).await;
    assert_eq!(
        (s, listed[0]["id"].as_str(), listed[0]["enabled"].as_bool()),
        (StatusCode::OK, Some(p.hook.as_str()), Some(true))
    );
    assert!(listed[0].get("signing_secret").is_none() && listed[0].get("secret").is_none(), "the secret is shown once");
    // the Test action: signed, no event header, the fixed message
    let (s, queued) = p.admin("POST", &format!("/webhooks/{}/test", p.hook), None).await;
    assert_eq!((s, queued["event"].as_str()), (StatusCode::ACCEPTED, Some("test")));
    assert!(until(|| !p.receiver.hits().is_empty()).await);
    let hit = p.receiver.hits().remove(0);
    assert_eq!(header(&hit, "x-service-event"), None);
    assert_eq!(header(&hit, "x-service-signature"), Some(hmac_hex(&p.secret, &hit.body).as_str()));
    let body: Value = serde_json::from_slice(&hit.body).unwrap();
    assert_eq!(body["event"], "test");
    assert!(body["data"]["message"].is_string());
    // the delivery log, and redelivery of the same bytes
    let mut log = Value::Null;
    assert!(
        until(|| {
            log = serde_json::to_value(webhooks::deliveries(&p.state.store, p.org, &p.hook, 10).unwrap()).unwrap();
            log[0]["state"] == "succeeded"
        })
        .await
    );
    let (s, via_api) = p.admin("GET", &format!("/webhooks/{}/deliveries", p.hook), None).await;
    assert_eq!((s, via_api[0]["status_code"].as_u64()), (StatusCode::OK, Some(200)));
    let (s, again) =
        p.admin("POST", &format!("/webhook-deliveries/{}/redeliver", log[0]["id"].as_str().unwrap()), None).await;
    assert_eq!((s, again["redelivery_of"].clone()), (StatusCode::ACCEPTED, log[0]["id"].clone()));
    assert!(until(|| p.receiver.hits().len() == 2).await);
    assert_eq!(p.receiver.hits()[1].body, hit.body, "identical bytes");
    // disabled: events are not delivered; unknown ids are 404
    let (s, off) = p.admin("POST", &format!("/webhooks/{}/disable", p.hook), None).await;
    assert_eq!((s, off["enabled"].as_bool()), (StatusCode::OK, Some(false)));
    p.upsert(movie("m1", "A", &["drama"], 2005)).await;
    p.admin(
        "POST",
        "/smartlists",
        Some(json!({"title": "T", "catalog": "acme", "creator": "e@x.io", "published": true})),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(p.receiver.hits().len(), 2, "a disabled webhook gets nothing");
    let (s, _) = p.admin("POST", "/webhooks/123e4567-e89b-12d3-a456-426614174000/enable", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = p.admin("DELETE", &format!("/webhooks/{}", p.hook), None).await;
    assert_eq!(s, StatusCode::OK);
    let (_, listed) = p.admin("GET", "/webhooks", None).await;
    assert_eq!(listed, json!([]));
    p.stop().await;
}
