//! Identity hardening: HTTP Basic client authentication at the token endpoint, listing and
//! revocation of API keys and OAuth clients (admin API and `kino-server admin` in another
//! process), persisted rate limits, the previews scope, webhook address ranges, and the admin
//! token's sources.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode};
use base64::Engine;
use http_body_util::BodyExt;
use kino_server::auth::hash_key;
use kino_server::store::OrgId;
use kino_server::{AppState, Config, Services, app};
use serde_json::{Value, json};

use crate::support;

const ADMIN: &str = "identity-admin-token";

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
    text: String,
}

impl Answer {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", |v| v.to_str().unwrap_or(""))
    }
}

fn open(dir: &std::path::Path, rate_limit_per_hour: u32) -> AppState {
    let config = Config { rate_limit_per_hour, admin_token: Some(ADMIN.into()), ..Config::in_dir(dir) };
    Services::open(crate::support::store(dir), config).unwrap()
}

/// Sends `req` through `support::send`, which checks the answer against the OpenAPI document.
async fn send(state: &AppState, req: Request<Body>) -> Answer {
    let res = support::send(app(state.clone()), req).await;
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).to_string();
    Answer { status, headers, body: serde_json::from_slice(&bytes).unwrap_or(Value::Null), text }
}

/// A request with optional `Authorization` header and JSON body.
async fn call(state: &AppState, method: &str, uri: &str, auth: Option<&str>, body: Option<Value>) -> Answer {
    let mut req = Request::builder().method(method).uri(uri).header("content-type", "application/json");
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    send(state, req.body(body.map_or_else(Body::empty, |b| Body::from(b.to_string()))).unwrap()).await
}

async fn admin(state: &AppState, method: &str, path: &str) -> Answer {
    call(state, method, &format!("/admin/v1/orgs{path}"), Some(&format!("Bearer {ADMIN}")), None).await
}

/// A form-encoded token request with extra headers.
async fn token_request(state: &AppState, form: &str, headers: &[(&str, HeaderValue)]) -> Answer {
    let mut req = Request::builder()
        .method("POST")
        .uri("/oauth/token")
        .header("content-type", "application/x-www-form-urlencoded");
    for (name, value) in headers {
        req = req.header(*name, value.clone());
    }
    send(state, req.body(Body::from(form.to_string())).unwrap()).await
}

/// `Basic base64(urlencode(id):urlencode(secret))`, as RFC 6749 2.3.1 builds it.
fn basic(id: &str, secret: &str) -> HeaderValue {
    let enc = |s: &str| serde_urlencoded::to_string([("", s)]).unwrap()[1..].to_string();
    let raw = format!("{}:{}", enc(id), enc(secret));
    HeaderValue::from_str(&format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(raw))).unwrap()
}

/// Organisation `name` with its catalog; through the admin API.
async fn org(state: &AppState, name: &str) -> OrgId {
    let res =
        call(state, "POST", "/admin/v1/orgs", Some(&format!("Bearer {ADMIN}")), Some(json!({"name": name}))).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.text);
    OrgId(res.body["id"].as_i64().unwrap())
}

async fn new_client(state: &AppState, org: &str) -> (String, String) {
    let res = admin(state, "POST", &format!("/{org}/clients")).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.text);
    (res.body["client_id"].as_str().unwrap().into(), res.body["client_secret"].as_str().unwrap().into())
}

async fn new_key(state: &AppState, org: &str) -> (String, String) {
    let res = admin(state, "POST", &format!("/{org}/api-keys")).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.text);
    (res.body["key"].as_str().unwrap().into(), res.body["prefix"].as_str().unwrap().into())
}

async fn access_token(state: &AppState, id: &str, secret: &str, scope: &str) -> String {
    let form = format!("grant_type=client_credentials&scope={}", scope.replace(' ', "+"));
    let res = token_request(state, &form, &[("authorization", basic(id, secret))]).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.text);
    res.body["access_token"].as_str().unwrap().into()
}

async fn bearer_get(state: &AppState, uri: &str, token: &str) -> Answer {
    call(state, "GET", uri, Some(&format!("Bearer {token}")), None).await
}

#[tokio::test]
async fn token_endpoint_takes_http_basic_client_authentication() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), 1000);
    let acme = org(&state, "acme").await;
    let (id, secret) = new_client(&state, "acme").await;

    // Basic with a form body, as OAuth libraries send it (authlib's client_secret_basic)
    let res = token_request(&state, "grant_type=client_credentials", &[("authorization", basic(&id, &secret))]).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.text);
    assert_eq!((res.body["token_type"].as_str(), res.header("cache-control")), (Some("bearer"), "no-store"));
    assert!(res.body["scope"].as_str().unwrap().split(' ').any(|s| s == "read:previews"), "default: every scope");
    let tok = res.body["access_token"].as_str().unwrap();
    assert_eq!(bearer_get(&state, "/catalogs/", tok).await.status, StatusCode::OK);

    // Basic with a JSON body; the scheme's case does not matter; a charset on the form type
    let body = json!({"grant_type": "client_credentials", "scope": "read:recipe:published"});
    let lower = HeaderValue::from_str(&basic(&id, &secret).to_str().unwrap().replacen("Basic", "basic", 1)).unwrap();
    let req = Request::builder()
        .method("POST")
        .uri("/oauth/token")
        .header("authorization", lower)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let res = send(&state, req).await;
    assert_eq!(
        (res.status, res.body["scope"].as_str()),
        (StatusCode::OK, Some("read:recipe:published")),
        "{}",
        res.text
    );
    let ct = HeaderValue::from_static("Application/X-WWW-Form-Urlencoded; charset=UTF-8");
    let res = token_request(
        &state,
        &format!("grant_type=client_credentials&client_id={id}"),
        &[("authorization", basic(&id, &secret)), ("content-type", ct)],
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "the same client_id in the body is allowed: {}", res.text);

    // ids and secrets are form-urlencoded inside the Basic credential (RFC 6749 2.3.1)
    let (odd_id, odd_secret) = ("odd:id +x", "s:e%cr+et é");
    state.store.add_client(acme, odd_id, &hash_key(odd_secret)).unwrap();
    access_token(&state, odd_id, odd_secret, "read:smartlist:published").await;

    // both methods at once, or a body client_id that contradicts the header: invalid_request
    for form in [
        format!("grant_type=client_credentials&client_id={id}&client_secret={secret}"),
        format!("grant_type=client_credentials&client_secret={secret}"),
        "grant_type=client_credentials&client_id=kc_someone_else".to_string(),
    ] {
        let res = token_request(&state, &form, &[("authorization", basic(&id, &secret))]).await;
        assert_eq!(
            (res.status, res.body["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_request")),
            "{form}"
        );
        assert!(res.body["error_description"].as_str().unwrap().contains("client_"), "names the field: {}", res.text);
    }

    // a bad Basic credential: 401 invalid_client with a Basic challenge
    let garbage = |raw: &[u8]| HeaderValue::from_bytes(raw).unwrap();
    for value in [
        basic(&id, "kcs_wrong"),
        basic("kc_nobody", &secret),
        garbage(b"Basic !!!not-base64"),
        garbage(b"Basic"),
        garbage(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("no-colon")).as_bytes()),
        garbage(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(":secret")).as_bytes()),
        garbage(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode([0xff, b':', 0xfe])).as_bytes()),
        garbage(b"Basic \xff\xfe"),
    ] {
        let res = token_request(&state, "grant_type=client_credentials", &[("authorization", value.clone())]).await;
        assert_eq!(
            (res.status, res.body["error"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("invalid_client")),
            "{value:?}: {}",
            res.text
        );
        assert!(res.header("www-authenticate").starts_with("Basic"), "{value:?}");
    }
    // another scheme at the token endpoint
    let res =
        token_request(&state, "grant_type=client_credentials", &[("authorization", garbage(b"Bearer x.y.z"))]).await;
    assert_eq!((res.status, res.body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")));
    // body-only authentication still works, and missing pieces are named
    let res =
        token_request(&state, &format!("grant_type=client_credentials&client_id={id}&client_secret={secret}"), &[])
            .await;
    assert_eq!(res.status, StatusCode::OK);
    for (form, field) in [
        (format!("grant_type=client_credentials&client_id={id}"), "client_secret"),
        ("grant_type=client_credentials".to_string(), "client_id"),
        (format!("client_id={id}&client_secret={secret}"), "grant_type"),
    ] {
        let res = token_request(&state, &form, &[]).await;
        assert_eq!((res.status, res.body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")));
        assert!(res.body["error_description"].as_str().unwrap().contains(field), "{}", res.text);
    }
}

#[tokio::test]
async fn odd_token_requests_are_answered_never_crash() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), 1000);
    org(&state, "acme").await;
    let bodies: [&[u8]; 8] = [
        b"",
        b"\xff\xfe\x00",
        b"grant_type=client_credentials&grant_type=client_credentials",
        b"%zz=%",
        b"[1,2,3]",
        b"{\"client_id\": 7, \"client_secret\": null}",
        b"{\"scope\": \"\xe9\"}",
        b"grant_type=client_credentials&scope=%00",
    ];
    let auths: [Option<&[u8]>; 5] =
        [None, Some(b"Basic"), Some(b"Basic ===="), Some(b"Basic Og=="), Some(b"Digest \x80 \xff")];
    for body in bodies {
        for content_type in ["application/json", "application/x-www-form-urlencoded", "text/plain"] {
            for auth in auths {
                let mut req =
                    Request::builder().method("POST").uri("/oauth/token").header("content-type", content_type);
                if let Some(a) = auth {
                    req = req.header("authorization", HeaderValue::from_bytes(a).unwrap());
                }
                let res = send(&state, req.body(Body::from(body.to_vec())).unwrap()).await;
                assert!(
                    matches!(res.status, StatusCode::BAD_REQUEST | StatusCode::UNAUTHORIZED),
                    "{body:?} {content_type} {auth:?}: {} {}",
                    res.status,
                    res.text
                );
                assert!(res.body["error"].is_string() && res.body["error_description"].is_string(), "{}", res.text);
            }
        }
    }
}

#[tokio::test]
async fn keys_and_clients_are_listed_without_secrets_and_revoked_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), 1000);
    let acme = org(&state, "acme").await;
    org(&state, "rival").await;
    let (key, prefix) = new_key(&state, "acme").await;
    let (other_key, _) = new_key(&state, "acme").await;
    let (id, secret) = new_client(&state, "acme").await;
    let (rival_id, _) = new_client(&state, "rival").await;

    let keys = admin(&state, "GET", "/acme/api-keys").await;
    assert_eq!(keys.status, StatusCode::OK);
    assert_eq!(keys.body.as_array().unwrap().len(), 2);
    assert_eq!(keys.body[0]["prefix"], json!(prefix));
    assert!(keys.body[0]["created_at"].is_string() && keys.body[0]["revoked_at"].is_null());
    assert!(!keys.text.contains(&key) && !keys.text.contains(&other_key) && !keys.text.contains(&hash_key(&key)));
    let clients = admin(&state, "GET", "/acme/clients").await;
    assert_eq!(clients.status, StatusCode::OK);
    assert_eq!(
        clients.body,
        json!([{"client_id": id, "created_at": clients.body[0]["created_at"], "revoked_at": null}])
    );
    assert!(!clients.text.contains(&secret) && !clients.text.contains(&hash_key(&secret)));
    assert!(!clients.text.contains(&rival_id), "one organisation's clients only");
    assert_eq!(call(&state, "GET", "/admin/v1/orgs/acme/clients", None, None).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(admin(&state, "GET", "/nobody/api-keys").await.status, StatusCode::NOT_FOUND);

    // an API key stops working at the next request; the organisation's other key keeps working
    let items = |k: &str| format!("/catalog/v1/item?key={k}");
    assert_eq!(call(&state, "GET", &items(&key), None, None).await.status, StatusCode::OK);
    let res = admin(&state, "DELETE", &format!("/acme/api-keys/{prefix}")).await;
    assert_eq!((res.status, res.body.clone()), (StatusCode::OK, json!({"revoked": prefix})), "{}", res.text);
    assert_eq!(call(&state, "GET", &items(&key), None, None).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(call(&state, "GET", &items(&other_key), None, None).await.status, StatusCode::OK);
    let keys = admin(&state, "GET", "/acme/api-keys").await;
    let revoked: Vec<&Value> = keys.body.as_array().unwrap().iter().filter(|k| k["revoked_at"].is_string()).collect();
    assert_eq!(revoked.len(), 1);
    assert_eq!(revoked[0]["prefix"], json!(prefix));
    let res = admin(&state, "DELETE", &format!("/acme/api-keys/{prefix}")).await;
    assert_eq!(res.status, StatusCode::NOT_FOUND, "already revoked: {}", res.text);
    assert!(res.body["message"].as_str().unwrap().starts_with("key:"), "names the field: {}", res.text);
    assert_eq!(res.body["statusCode"], 404);
    // an ambiguous prefix revokes nothing
    state.store.add_key(acme, "hash-a", "kino_deadbeef").unwrap();
    state.store.add_key(acme, "hash-b", "kino_deadbeef").unwrap();
    let res = admin(&state, "DELETE", "/acme/api-keys/kino_deadbeef").await;
    assert_eq!(res.status, StatusCode::CONFLICT, "{}", res.text);
    assert!(res.body["message"].as_str().unwrap().contains("2 live keys"), "{}", res.text);
    assert_eq!(state.store.org_of_key("hash-a").unwrap(), Some(acme));

    // a client: no new token, and the token it holds is refused at once, on the portal and previews
    let tok = access_token(&state, &id, &secret, "read:smartlist:published read:previews").await;
    assert_eq!(bearer_get(&state, "/catalogs/", &tok).await.status, StatusCode::OK);
    assert_eq!(admin(&state, "DELETE", &format!("/acme/clients/{rival_id}")).await.status, StatusCode::NOT_FOUND);
    let res = admin(&state, "DELETE", &format!("/acme/clients/{id}")).await;
    assert_eq!((res.status, res.body.clone()), (StatusCode::OK, json!({"revoked": id})), "{}", res.text);
    let res = bearer_get(&state, "/catalogs/", &tok).await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert!(res.header("www-authenticate").contains("invalid_token"), "{}", res.header("www-authenticate"));
    assert!(res.body["message"].as_str().unwrap().contains("revoked"), "{}", res.text);
    let res = bearer_get(&state, "/results/jitpreviews/v2/info/clip_types?catalog=acme", &tok).await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED, "{}", res.text);
    assert!(res.header("www-authenticate").contains("invalid_token"));
    let res = token_request(&state, "grant_type=client_credentials", &[("authorization", basic(&id, &secret))]).await;
    assert_eq!((res.status, res.body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_client")));
    let clients = admin(&state, "GET", "/acme/clients").await;
    assert!(clients.body[0]["revoked_at"].is_string(), "{}", clients.text);
    assert_eq!(admin(&state, "DELETE", &format!("/acme/clients/{id}")).await.status, StatusCode::NOT_FOUND);
    // the rival's client was untouched
    assert!(admin(&state, "GET", "/rival/clients").await.body[0]["revoked_at"].is_null());
}

fn cli(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .envs(crate::support::database_env(dir))
        .env_remove("KINO_ADMIN_TOKEN")
        .env_remove("KINO_ADMIN_TOKEN_FILE")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[tokio::test]
async fn revocations_by_the_command_line_in_another_process_take_effect_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), 1000);
    org(&state, "acme").await;
    let (id, secret) = new_client(&state, "acme").await;
    let (key, prefix) = new_key(&state, "acme").await;
    let tok = access_token(&state, &id, &secret, "").await;
    assert_eq!(bearer_get(&state, "/catalogs/", &tok).await.status, StatusCode::OK);

    let (ok, out, err) = cli(dir.path(), &["admin", "list-clients", "acme"]);
    assert!(ok && out.contains(&id) && !out.contains("revoked"), "{out}{err}");
    assert!(!out.contains(&secret));
    let (ok, out, err) = cli(dir.path(), &["admin", "revoke-client", "acme", &id]);
    assert!(ok && out.contains(&id), "{out}{err}");
    // the service (this process) sees it at the very next request
    let res = bearer_get(&state, "/catalogs/", &tok).await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED, "{}", res.text);
    let (ok, out, _) = cli(dir.path(), &["admin", "list-clients", "acme"]);
    assert!(ok && out.contains("revoked"), "{out}");
    let (ok, _, err) = cli(dir.path(), &["admin", "revoke-client", "acme", &id]);
    assert!(!ok && err.contains("client_id:") && err.contains("no live OAuth client"), "{err}");

    let (ok, out, _) = cli(dir.path(), &["admin", "list-keys", "acme"]);
    assert!(ok && out.contains(&prefix) && !out.contains(&key), "{out}");
    let (ok, out, err) = cli(dir.path(), &["admin", "revoke-key", "acme", &prefix]);
    assert!(ok && out.contains(&prefix), "{out}{err}");
    let res = call(&state, "GET", &format!("/catalog/v1/item?key={key}"), None, None).await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    let (ok, _, err) = cli(dir.path(), &["admin", "revoke-key", "acme", &key]);
    assert!(!ok && err.contains("no live API key"), "{err}");
}

#[tokio::test]
async fn previews_with_an_access_token_need_the_scope_and_count_against_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), 3);
    org(&state, "acme").await;
    let (key, _) = new_key(&state, "acme").await;
    let (id, secret) = new_client(&state, "acme").await;
    let smartlists_only = access_token(&state, &id, &secret, "read:smartlist:published").await;
    let previews = access_token(&state, &id, &secret, "read:previews").await;
    let clip_types = "/results/jitpreviews/v2/info/clip_types?catalog=acme";

    let res = bearer_get(&state, clip_types, &smartlists_only).await;
    assert_eq!(res.status, StatusCode::FORBIDDEN, "{}", res.text);
    assert!(res.body["detail"].as_str().unwrap().contains("read:previews"), "{}", res.text);
    let challenge = res.header("www-authenticate");
    assert!(challenge.contains("error=\"insufficient_scope\"") && challenge.contains("scope=\"read:previews\""));
    assert_eq!((res.header("ratelimit-limit"), res.header("ratelimit-remaining")), ("3", "2"), "a refusal counts");

    let res = bearer_get(&state, clip_types, &previews).await;
    assert_eq!((res.status, res.header("x-ratelimit-remaining")), (StatusCode::OK, "1"), "{}", res.text);
    // API keys are the processing interface's credential: not counted, no rate-limit headers
    let res = call(&state, "GET", &format!("{clip_types}&key={key}"), None, None).await;
    assert_eq!((res.status, res.headers.contains_key("ratelimit-remaining")), (StatusCode::OK, false));
    let res = call(&state, "GET", clip_types, Some(&format!("Bearer {key}")), None).await;
    assert_eq!((res.status, res.headers.contains_key("ratelimit-remaining")), (StatusCode::OK, false));
    // the portal and previews share the organisation's quota
    let res = bearer_get(&state, "/catalogs/", &smartlists_only).await;
    assert_eq!((res.status, res.header("ratelimit-remaining")), (StatusCode::OK, "0"));
    for uri in [clip_types, "/results/jitpreviews/v2/?catalog=acme", "/results/jitpreviews/v2/m1?catalog=acme"] {
        let res = bearer_get(&state, uri, &previews).await;
        assert_eq!(res.status, StatusCode::TOO_MANY_REQUESTS, "{uri}: {}", res.text);
        assert!(res.body["detail"].as_str().unwrap().contains("rate limit"), "{}", res.text);
        assert!(res.header("retry-after").parse::<u64>().unwrap() <= 3600);
        assert_eq!(res.header("ratelimit-remaining"), "0");
    }
    assert_eq!(bearer_get(&state, "/catalogs/", &previews).await.status, StatusCode::TOO_MANY_REQUESTS);
    // an invalid token is refused before counting
    let res = bearer_get(&state, clip_types, "a.b.c").await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert!(res.header("www-authenticate").contains("invalid_token") && !res.headers.contains_key("ratelimit-limit"));
}

#[tokio::test]
async fn rate_limit_counters_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (id, secret, first) = {
        let state = open(dir.path(), 5);
        org(&state, "acme").await;
        let (id, secret) = new_client(&state, "acme").await;
        let tok = access_token(&state, &id, &secret, "").await;
        bearer_get(&state, "/catalogs/", &tok).await;
        let res = bearer_get(&state, "/catalogs/", &tok).await;
        assert_eq!(res.header("ratelimit-remaining"), "3");
        (id, secret, res.header("ratelimit-reset").parse::<u64>().unwrap())
    };
    let state = open(dir.path(), 5);
    let tok = access_token(&state, &id, &secret, "").await;
    let res = bearer_get(&state, "/catalogs/", &tok).await;
    assert_eq!(res.status, StatusCode::OK);
    let reset: u64 = res.header("ratelimit-reset").parse().unwrap();
    // Within one window the reset only decreases; a larger one means the hour turned meanwhile.
    let expected = if reset > first { "4" } else { "2" };
    assert_eq!(res.header("ratelimit-remaining"), expected, "reset {first} then {reset}");
}

#[tokio::test]
async fn webhooks_to_translated_and_relay_addresses_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), 1000);
    org(&state, "acme").await;
    for (url, range) in [
        ("https://[64:ff9b:1::808:808]/hook", "64:ff9b:1::/48"),
        ("https://[::ffff:0:808:808]/hook", "::ffff:0:0:0/96"),
        ("https://192.88.99.1/hook", "192.88.99.0/24"),
        ("https://[2002:c058:6301::1]/hook", "192.88.99.0/24"),
    ] {
        let res = call(
            &state,
            "POST",
            "/admin/v1/orgs/acme/webhooks",
            Some(&format!("Bearer {ADMIN}")),
            Some(json!({"url": url})),
        )
        .await;
        assert_eq!(res.status, StatusCode::BAD_REQUEST, "{url}: {}", res.text);
        let message = res.body["message"].as_str().unwrap();
        assert!(message.starts_with("url:") && message.contains(range), "{url}: {message}");
    }
}

#[test]
fn an_admin_token_on_the_command_line_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let warned = |err: &str| err.contains("--admin-token") && err.contains("process list");
    for args in [
        &["--admin-token", "t0ken", "admin", "list-orgs"][..],
        &["admin", "list-orgs", "--admin-token", "t0ken"][..],
        &["admin", "list-orgs", "--admin-token=t0ken"][..],
    ] {
        let (ok, _, err) = cli(dir.path(), args);
        assert!(ok && warned(&err), "{args:?}: {err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["admin", "list-orgs"])
        .envs(crate::support::database_env(dir.path()))
        .env("KINO_ADMIN_TOKEN", "t0ken")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !warned(&err), "the environment is not warned about: {err}");
    // a file and a value at once is refused (by the commands that use the token)
    let file = dir.path().join("admin-token.txt");
    std::fs::write(&file, "from-file\n").unwrap();
    let (ok, _, err) = cli(
        dir.path(),
        &["--admin-token", "x", "--admin-token-file", file.to_str().unwrap(), "admin", "list-webhooks", "demo"],
    );
    assert!(!ok && err.contains("not both"), "{err}");
    let (ok, _, err) = cli(dir.path(), &["--admin-token-file", "/nonexistent/token", "admin", "list-webhooks", "demo"]);
    assert!(!ok && err.contains("--admin-token-file /nonexistent/token"), "{err}");
}

/// `GET path` over a socket to a started server; the raw answer, checked against the document.
fn http_get(addr: &str, path: &str, auth: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nConnection: close\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let content_type = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(name, _)| name.eq_ignore_ascii_case("content-type")))
        .map(|(_, v)| v.trim());
    support::check_contract("GET", path, status, content_type, body.as_bytes());
    out
}

/// A child process killed when dropped, so a failing test leaves no server behind.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_admin_token_can_come_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("admin-token.txt");
    std::fs::write(&file, "  kadm_from_a_file \n").unwrap();
    let data = dir.path().join("data");
    let mut server = Running(
        Command::new(env!("CARGO_BIN_EXE_kino-server"))
            .args(["--bind", "127.0.0.1:0", "--demo", "false", "--admin-token-file"])
            .arg(&file)
            .arg("--data-dir")
            .arg(&data)
            .envs(crate::support::database_env(&data))
            .env_remove("KINO_ADMIN_TOKEN")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = server.0.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let addr = loop {
        let line = rx.recv_timeout(Duration::from_secs(120)).expect("the server prints its address");
        if let Some(a) = line.strip_prefix("listening on http://") {
            break a.to_string();
        }
    };
    let good = http_get(&addr, "/admin/v1/orgs", "Bearer kadm_from_a_file");
    let bad = http_get(&addr, "/admin/v1/orgs", "Bearer kadm_something_else");
    drop(server);
    assert!(good.starts_with("HTTP/1.1 200"), "{good}");
    assert!(bad.starts_with("HTTP/1.1 401"), "{bad}");
    assert!(!data.join("admin.token").exists(), "no token is generated when one is given");
}
