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

// ---- the contract: every answer matches the OpenAPI document ----

/// Sends `req` to `router` and checks the answer against the service's OpenAPI document (see
/// [`check_contract`]); the answer is returned with its body intact.
pub async fn send(router: axum::Router, req: axum::http::Request<axum::body::Body>) -> axum::response::Response {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let (method, uri) = (req.method().to_string(), req.uri().to_string());
    let res = router.oneshot(req).await.unwrap();
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    let content_type = parts.headers.get("content-type").and_then(|v| v.to_str().ok());
    check_contract(&method, &uri, parts.status.as_u16(), content_type, &bytes);
    axum::response::Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// Panics unless the answer `(status, content_type, body)` to `method uri` is one the OpenAPI
/// document publishes: the operation exists, the status is among its responses, the content type
/// is declared for that status, and a JSON body validates against its schema (JSON Schema 2020-12,
/// formats checked). A path or method the document does not have may only answer 404 or 405
/// with the service's error body.
pub fn check_contract(method: &str, uri: &str, status: u16, content_type: Option<&str>, body: &[u8]) {
    if let Err(problem) = contract().check(method, uri, status, content_type, body) {
        panic!(
            "{method} {uri} answered {status} against the OpenAPI document: {problem}\nbody: {}",
            String::from_utf8_lossy(&body[..body.len().min(2000)])
        );
    }
}

/// The document, its path templates, and the validators compiled so far.
pub struct Contract {
    doc: serde_json::Value,
    templates: Vec<(String, Vec<Option<String>>)>,
    validators: Mutex<std::collections::HashMap<String, Arc<jsonschema::Validator>>>,
}

/// The service's document, read once per test binary.
pub fn contract() -> &'static Contract {
    static CONTRACT: std::sync::OnceLock<Contract> = std::sync::OnceLock::new();
    CONTRACT.get_or_init(|| {
        let doc = kino_server::openapi::api::document();
        let templates = doc["paths"]
            .as_object()
            .unwrap()
            .keys()
            .map(|t| {
                let segments = t
                    .split('/')
                    .map(|s| if s.starts_with('{') && s.ends_with('}') { None } else { Some(s.to_string()) })
                    .collect();
                (t.clone(), segments)
            })
            .collect();
        Contract { doc, templates, validators: Mutex::new(Default::default()) }
    })
}

impl Contract {
    /// The template of `path` with the most literal segments.
    fn template(&self, path: &str) -> Option<&str> {
        let parts: Vec<&str> = path.split('/').collect();
        self.templates
            .iter()
            .filter(|(_, segments)| {
                segments.len() == parts.len()
                    && segments.iter().zip(&parts).all(|(s, p)| match s {
                        Some(literal) => literal == p,
                        None => !p.is_empty(),
                    })
            })
            .max_by_key(|(_, segments)| segments.iter().filter(|s| s.is_some()).count())
            .map(|(t, _)| t.as_str())
    }

    fn check(
        &self,
        method: &str,
        uri: &str,
        status: u16,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<(), String> {
        let path = uri.split('?').next().unwrap_or(uri);
        let op = self
            .template(path)
            .map(|t| (t, &self.doc["paths"][t][method.to_ascii_lowercase()]))
            .filter(|(_, op)| op.is_object());
        let Some((template, op)) = op else {
            // Not an operation of the document: only the service's "no such endpoint" answers.
            if !matches!(status, 404 | 405) {
                return Err(format!("{method} {path} is not in the document"));
            }
            // the interfaces that answer with the portal's body: the portal's collections (with
            // the collection's own path) and everything under the admin API, OAuth and the docs
            let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
            let error_body = if ["catalogs", "smartlists", "recipes", "creative-assets"].contains(&first)
                || ["/admin/", "/oauth/", "/portal/"].iter().any(|p| path.starts_with(p))
            {
                "PortalError"
            } else {
                "ErrorDetail"
            };
            let schema = serde_json::json!({"$ref": format!("#/components/schemas/{error_body}")});
            return self.validate(&format!("fallback {error_body}"), &schema, body);
        };
        let responses = &op["responses"];
        let response = if responses[status.to_string()].is_object() {
            &responses[status.to_string()]
        } else if responses["default"].is_object() {
            &responses["default"]
        } else {
            let listed: Vec<&String> = responses.as_object().map(|r| r.keys().collect()).unwrap_or_default();
            return Err(format!("status {status} is not documented for {method} {template} (documented: {listed:?})"));
        };
        let Some(content) = response["content"].as_object() else {
            return if body.is_empty() { Ok(()) } else { Err("a body where the document declares none".into()) };
        };
        let kind = content_type.unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        let Some(media) = content.get(&kind) else {
            let declared: Vec<&String> = content.keys().collect();
            return Err(format!("content type {kind:?} is not declared (declared: {declared:?})"));
        };
        if kind != "application/json" {
            return Ok(());
        }
        self.validate(&format!("{method} {template} {status}"), &media["schema"], body)
    }

    fn validate(&self, key: &str, schema: &serde_json::Value, body: &[u8]) -> Result<(), String> {
        let instance: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
        let validator = {
            let mut cache = self.validators.lock().unwrap();
            match cache.get(key) {
                Some(v) => v.clone(),
                None => {
                    let mut root = schema.clone();
                    root["components"] = self.doc["components"].clone();
                    let v = jsonschema::options()
                        .with_draft(jsonschema::Draft::Draft202012)
                        .should_validate_formats(true)
                        .build(&root)
                        .map_err(|e| format!("the document's schema does not compile: {e}"))?;
                    let v = Arc::new(v);
                    cache.insert(key.to_string(), v.clone());
                    v
                }
            }
        };
        let problems: Vec<String> =
            validator.iter_errors(&instance).take(5).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
    }
}

/// The environment variable that runs the suite on PostgreSQL: the server's URL without a
/// database name (`postgres://kino@127.0.0.1:5433`); `scripts/test-postgres.sh` sets it when it
/// runs the suite the second time, on a throwaway cluster.
pub const POSTGRES_ENV: &str = "KINO_TEST_POSTGRES";

/// The PostgreSQL server the suite runs on, when it does.
pub fn postgres() -> Option<String> {
    std::env::var(POSTGRES_ENV).ok().filter(|v| !v.trim().is_empty())
}

/// The database of a test whose files are in `dir`: `dir/kino.sqlite3`, or on PostgreSQL a
/// database of its own named after `dir` (created when absent), so that two states opened on one
/// directory share one database, as two processes on one file do.
pub fn database(dir: &std::path::Path) -> String {
    match postgres() {
        None => dir.join("kino.sqlite3").display().to_string(),
        Some(server) => {
            use sha2::Digest;
            let name = format!("kino_{}", &hex::encode(Sha256::digest(dir.display().to_string()))[..20]);
            let admin = server.clone();
            let create = name.clone();
            // Its own thread and runtime: callers may be on an async thread.
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                runtime.block_on(async move {
                    let (client, connection) =
                        tokio_postgres::connect(&format!("{admin}/postgres"), tokio_postgres::NoTls)
                            .await
                            .expect("the test PostgreSQL server answers");
                    tokio::spawn(connection);
                    if let Err(e) = client.batch_execute(&format!("CREATE DATABASE {create}")).await {
                        let exists = e.code() == Some(&tokio_postgres::error::SqlState::DUPLICATE_DATABASE);
                        assert!(exists, "CREATE DATABASE {create}: {e:?}");
                    }
                });
            })
            .join()
            .unwrap();
            format!("{server}/{name}")
        }
    }
}

/// The store of a test whose files are in `dir` (see [`database`]).
pub fn store(dir: &std::path::Path) -> kino_server::store::Store {
    match postgres() {
        None => kino_server::store::Store::open(&dir.join("kino.sqlite3")).unwrap(),
        Some(_) => kino_server::store::Store::connect(&database(dir)).unwrap(),
    }
}

/// The environment that points a `kino-server` process of a test whose files are in `dir` at the
/// test's database: `KINO_DATABASE_URL` on PostgreSQL, nothing on SQLite (the data directory has
/// the file).
pub fn database_env(dir: &std::path::Path) -> Option<(&'static str, String)> {
    postgres().map(|_| ("KINO_DATABASE_URL", database(dir)))
}

/// The package's directory, read when the test runs (`cargo test` sets it): a path baked in at
/// build time (`env!`) would be stale when a shared build directory serves another clone.
pub fn manifest_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo test, which sets CARGO_MANIFEST_DIR"),
    )
}
