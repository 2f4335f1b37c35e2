//! What an attacker and a new user found (issue 11): bodies read only after the credential,
//! bounded uploads, connection limits and timeouts, a bounded durable generation queue, media
//! paths that cannot escape, private files, sealed webhook secrets, damaged index files.

use std::io::{Read, Write};
use std::time::Duration;

use crate::support::{DEADLINE, until};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::files::LocalMedia;
use kino_server::serve::HttpLimits;
use kino_server::{AppState, Config, Services, app, worker};
use serde_json::{Value, json};

use crate::support;

struct T {
    state: AppState,
    key: String,
    dir: tempfile::TempDir,
}

fn start(config: impl FnOnce(Config) -> Config) -> T {
    let dir = tempfile::tempdir().unwrap();
    let state = Services::open(crate::support::store(dir.path()), config(Config::in_dir(dir.path()))).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    let key = kino_server::auth::generate_key();
    state.store.add_key(org, &kino_server::auth::hash_key(&key), &kino_server::auth::key_prefix(&key)).unwrap();
    T { state, key, dir }
}

async fn send(state: &AppState, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Value) {
    let res = support::send(app(state.clone()), req).await;
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (parts.status, parts.headers, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

impl T {
    async fn call(&self, method: &str, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
        let sep = if uri.contains('?') { '&' } else { '?' };
        let req = Request::builder()
            .method(method)
            .uri(format!("{uri}{sep}key={}", self.key))
            .header("content-type", "application/json")
            .body(body.map(|b| Body::from(b.to_string())).unwrap_or_else(Body::empty))
            .unwrap();
        let (s, _, v) = send(&self.state, req).await;
        (s, v)
    }

    async fn movie(&self, id: &str, file_uri: Option<&str>) {
        let mut item = json!({"id": id, "type": "standalone", "title": id});
        if let Some(uri) = file_uri {
            item["asset_info"] = json!({"file_uri": uri});
        }
        let (s, v) = self.call("PUT", "/catalog/v1/item", Some(item)).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }

    async fn signals(&self, id: &str) {
        let mut signals = kino::synth::demo_signals(id, 600.0, 1.0, 7);
        let seed = id.bytes().map(f32::from).sum::<f32>();
        let embedding: Vec<f32> =
            (0..kino::signals::ITEM_EMBEDDING_DIM).map(|i| (i as f32 * 0.37 + seed).sin()).collect();
        signals.item_embedding = Some(embedding);
        let body = signals.to_json();
        let req = Request::builder()
            .method("PUT")
            .uri(format!("/analysis/v1/item/standalone/{id}?key={}", self.key))
            .body(Body::from(body))
            .unwrap();
        let (s, _, v) = send(&self.state, req).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
}

/// A body that never yields: a handler that waits for it never answers.
fn endless_body() -> Body {
    Body::from_stream(futures_util::stream::pending::<Result<axum::body::Bytes, std::io::Error>>())
}

#[tokio::test]
async fn bodies_are_not_read_before_the_credential_is_checked() {
    let t = start(|c| c);
    t.movie("m1", None).await;
    for (method, uri) in [
        ("PUT", "/analysis/v1/item/standalone/m1"),
        ("PUT", "/catalog/v1/item"),
        ("POST", "/tasks/catalog-item/m1/product/emotions/version/1"),
    ] {
        for key in ["", "?key=kino_wrong"] {
            let req = Request::builder()
                .method(method)
                .uri(format!("{uri}{key}"))
                .header("content-length", "60000000")
                .body(endless_body())
                .unwrap();
            let answer = tokio::time::timeout(DEADLINE, send(&t.state, req)).await;
            let (s, _, v) = answer.expect("answered without reading the body");
            assert_eq!(s, StatusCode::UNAUTHORIZED, "{method} {uri}{key}: {v}");
        }
    }
    // a declared size over the limit is refused before reading, with the credential valid
    let req = Request::builder()
        .method("PUT")
        .uri(format!("/analysis/v1/item/standalone/m1?key={}", t.key))
        .header("content-length", (64 * 1024 * 1024 + 1).to_string())
        .body(endless_body())
        .unwrap();
    let (s, _, _) = tokio::time::timeout(DEADLINE, send(&t.state, req)).await.unwrap();
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signals_uploads_stream_and_are_capped() {
    let t = start(|c| Config { max_uploads: 1, ..c });
    t.movie("m1", None).await;
    // a streamed upload in small chunks is parsed as it arrives
    let json = kino::synth::demo_signals("m1", 600.0, 1.0, 3).to_json();
    let chunks: Vec<Result<axum::body::Bytes, std::io::Error>> =
        json.as_bytes().chunks(1000).map(|c| Ok(axum::body::Bytes::copy_from_slice(c))).collect();
    let req = Request::builder()
        .method("PUT")
        .uri(format!("/analysis/v1/item/standalone/m1?key={}", t.key))
        .body(Body::from_stream(futures_util::stream::iter(chunks)))
        .unwrap();
    let (s, _, v) = send(&t.state, req).await;
    assert_eq!((s, v["samples"].clone()), (StatusCode::OK, json!(600)), "{v}");
    // invalid JSON part-way: the error names the path reached
    let req = Request::builder()
        .method("PUT")
        .uri(format!("/analysis/v1/item/standalone/m1?key={}", t.key))
        .body(Body::from(json[..json.len() / 2].to_string()))
        .unwrap();
    let (s, _, v) = send(&t.state, req).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    // one upload slot: while an upload is being read, the next one is told to come back
    let state = t.state.clone();
    let uri = format!("/analysis/v1/item/standalone/m1?key={}", t.key);
    let first = tokio::spawn({
        let uri = uri.clone();
        async move {
            let req = Request::builder().method("PUT").uri(uri).body(endless_body()).unwrap();
            send(&state, req).await
        }
    });
    assert!(until(|| t.state.guards.uploads.available_permits() == 0).await, "the first upload holds the slot");
    let req = Request::builder().method("PUT").uri(&uri).body(Body::from("{}")).unwrap();
    let (s, headers, v) = send(&t.state, req).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert!(headers.get("retry-after").is_some());
    first.abort();
    assert!(until(|| t.state.guards.uploads.available_permits() == 1).await, "the slot is given back");
}

/// Reads from a connection until the server closes it (or errors); whether it did before the
/// deadline.
fn closed_by_server(mut s: std::net::TcpStream) -> bool {
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {
                return false;
            }
            Err(_) => return true,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_and_half_sent_connections_are_closed_and_capped() {
    let t = start(|c| c);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = HttpLimits {
        max_connections: 2,
        max_connections_per_peer: 2,
        header_read_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(2),
        request_timeout: Duration::from_secs(1),
        shutdown_grace: Duration::from_secs(5),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(kino_server::serve::serve(listener, app(t.state.clone()), limits, async {
        let _ = stopped.await;
    }));
    let key = t.key.clone();
    let checks = tokio::task::spawn_blocking(move || {
        // two connections take both slots: one silent, one with half its headers
        let silent = std::net::TcpStream::connect(addr).unwrap();
        let mut half = std::net::TcpStream::connect(addr).unwrap();
        half.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").unwrap();
        // a third waits for a slot, and is answered once the server has cut the other two
        let mut third = std::net::TcpStream::connect(addr).unwrap();
        third.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        third.set_read_timeout(Some(DEADLINE)).unwrap();
        let mut answer = String::new();
        let _ = third.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
        assert!(closed_by_server(silent), "a silent connection is closed");
        assert!(closed_by_server(half), "half-sent headers time out");
        // a body that stalls: the request times out with 408
        let mut slow = std::net::TcpStream::connect(addr).unwrap();
        write!(
            slow,
            "PUT /catalog/v1/item?key={key} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"id\""
        )
        .unwrap();
        slow.set_read_timeout(Some(DEADLINE)).unwrap();
        let mut answer = String::new();
        let _ = slow.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    });
    checks.await.unwrap();
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

/// Hardening II, item 2: a connection that never sends a byte is closed after the header
/// timeout, not the (much longer) idle timeout; and one peer address cannot hold more than its
/// share of the connection cap, so another peer (127.0.0.2, also loopback) is still answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_wait_only_the_header_timeout_and_one_peer_holds_only_its_share() {
    let t = start(|c| c);
    let serve_with = |limits: HttpLimits| {
        let state = t.state.clone();
        async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let server = tokio::spawn(kino_server::serve::serve(listener, app(state), limits, async {
                let _ = stopped.await;
            }));
            (addr, stop, server)
        }
    };
    // An idle timeout far beyond the test's deadline: only the header timeout can close it.
    let (addr, stop, server) = serve_with(HttpLimits {
        header_read_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(3600),
        ..HttpLimits::default()
    })
    .await;
    tokio::task::spawn_blocking(move || {
        let silent = std::net::TcpStream::connect(addr).unwrap();
        assert!(closed_by_server(silent), "a silent connection is closed after the header timeout");
    })
    .await
    .unwrap();
    let _ = stop.send(());
    server.await.unwrap().unwrap();

    // Two silent connections of 127.0.0.1 hold its share; its third is closed at once (the
    // header timeout is beyond the deadline), while 127.0.0.2 is answered.
    let (addr, stop, server) = serve_with(HttpLimits {
        max_connections: 8,
        max_connections_per_peer: 2,
        header_read_timeout: Duration::from_secs(3600),
        idle_timeout: Duration::from_secs(3600),
        ..HttpLimits::default()
    })
    .await;
    let held = tokio::task::spawn_blocking(move || {
        let held = [std::net::TcpStream::connect(addr).unwrap(), std::net::TcpStream::connect(addr).unwrap()];
        // Once both are counted, a third from the same address is closed without an answer.
        let mut refused = false;
        let deadline = std::time::Instant::now() + DEADLINE;
        while !refused && std::time::Instant::now() < deadline {
            let mut third = std::net::TcpStream::connect(addr).unwrap();
            let _ = third.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            third.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut answer = String::new();
            let _ = third.read_to_string(&mut answer);
            refused = answer.is_empty();
        }
        assert!(refused, "the peer's third connection is closed");
        held
    })
    .await
    .unwrap();
    // Another peer address (127.0.0.2 is loopback too) is answered meanwhile.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
    let mut other = socket.connect(addr).await.unwrap();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    other.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(DEADLINE, other.read_to_string(&mut answer)).await.unwrap().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "another peer is answered: {answer:?}");
    drop(held);
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn generations_are_queued_bounded_and_shared() {
    let t = start(|c| Config { max_queued_generations: 2, ..c });
    t.movie("m1", Some("m1.mp4")).await;
    t.signals("m1").await;
    let org = t.state.store.orgs().unwrap()[0].0;
    t.state.store.set_catalog_generation(org, "acme", true).unwrap();
    let ask =
        |length: u32| format!("/results/jitpreviews/v2/m1?catalog=acme&trigger_generation=true&clip_length={length}");
    let (s, a) = t.call("GET", &ask(10), None).await;
    assert_eq!(s, StatusCode::OK, "{a}");
    let first = a["data"]["gen_id"].as_str().unwrap().to_string();
    let (_, again) = t.call("GET", &ask(10), None).await;
    assert_eq!(again["data"]["gen_id"], json!(first), "an identical pending request shares the generation");
    let (s, b) = t.call("GET", &ask(20), None).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let req = Request::builder().uri(format!("{}&key={}", ask(30), t.key)).body(Body::empty()).unwrap();
    let (s, headers, v) = send(&t.state, req).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(headers.get("retry-after").is_some());
    assert!(v["detail"].as_str().unwrap().contains("at most 2"), "{v}");
    // nothing renders until a renderer claims a generation; then the queue has room again
    assert!(kino_server::render::render_one(&t.state.renderer()));
    let (s, g) = t.call("GET", &format!("/results/jitpreviews/v2/gen/{first}/status?catalog=acme"), None).await;
    assert_eq!((s, g["status"].clone()), (StatusCode::OK, json!("FAILED")), "{g}");
    assert_eq!(t.call("GET", &ask(30), None).await.0, StatusCode::OK);
    // a restart renders what was queued or rendering instead of failing it
    let (requeued, failed) = t.state.store.recover_generations().unwrap();
    assert_eq!((requeued, failed), (0, 0));
    assert!(
        kino_server::render::render_one(&t.state.renderer()) && kino_server::render::render_one(&t.state.renderer())
    );
    assert!(!kino_server::render::render_one(&t.state.renderer()), "two were left");
}

#[tokio::test]
async fn media_paths_never_escape_the_media_root() {
    let t = start(|c| c);
    let root = t.dir.path();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("film.mp4")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("real.mp4.signals.json")).unwrap();
    }
    std::fs::write(root.join("real.mp4"), b"not a video").unwrap();
    for (id, uri) in
        [("link", "film.mp4"), ("missing", "nothing-here.mp4"), ("key", "token.key"), ("db", "kino.sqlite3")]
    {
        t.movie(id, Some(uri)).await;
        t.call("POST", &format!("/tasks/catalog-item/{id}/product/emotions/version/1"), None).await;
        while worker::run_one(&t.state.worker()) {}
        let (_, st) = t.call("GET", &format!("/tasks/catalog-item/{id}/product/emotions/version/1"), None).await;
        assert_eq!(st["status"], "failed", "{id}: {st}");
        assert_eq!(
            st["error"],
            json!(format!("file_uri {uri:?} is not a readable media file under the service's media root")),
            "{id}"
        );
    }
    // a sidecar that is a link out of the root is refused, not read
    t.movie("real", Some("real.mp4")).await;
    t.call("POST", "/tasks/catalog-item/real/product/emotions/version/1", None).await;
    while worker::run_one(&t.state.worker()) {}
    let (_, st) = t.call("GET", "/tasks/catalog-item/real/product/emotions/version/1", None).await;
    assert_eq!(st["status"], "failed", "{st}");
    assert!(!st["error"].as_str().unwrap().contains(root.to_str().unwrap()), "no server path: {st}");
    assert!(matches!(
        kino_server::files::local_media(
            &t.state.config,
            &kino_server::store::ItemRow {
                id: "secret".into(),
                service_id: "s".into(),
                item_type: kino_server::vocabulary::ItemType::Standalone,
                body: json!({"asset_info": {"file_uri": "secrets.key"}}),
                deleted: false,
            }
        ),
        LocalMedia::Unusable { .. }
    ));
}

#[cfg(unix)]
#[tokio::test]
async fn the_database_and_keys_are_private_and_webhook_secrets_sealed() {
    use std::os::unix::fs::PermissionsExt;
    let t = start(|c| Config { webhook_allow_loopback: true, ..c });
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for name in ["kino.sqlite3", "kino.sqlite3-wal", "kino.sqlite3-shm", "token.key", "secrets.key"] {
        let path = t.dir.path().join(name);
        if path.exists() {
            assert_eq!(mode(&path), 0o600, "{name}");
        }
    }
    let data = t.dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    kino_server::files::private_dir(&data).unwrap();
    assert_eq!(mode(&data), 0o700, "an existing data directory is tightened");

    let org = t.state.store.orgs().unwrap()[0].0;
    let (view, secret) = kino_server::webhooks::create(
        &t.state.store,
        &t.state.keys.secrets,
        t.state.config.webhook_allow_loopback,
        org,
        "http://127.0.0.1:9/hook",
        &["smart_list.updated".into()],
        false,
    )
    .expect("webhook created");
    let stored = t.state.store.webhook_secrets().unwrap();
    let (_, sealed) = stored.iter().find(|(id, _)| id == &view.id).unwrap();
    assert!(sealed.starts_with("kse1:") && !sealed.contains(&secret), "sealed at rest: {sealed}");
    assert_eq!(t.state.keys.secrets.open(sealed).unwrap(), secret);

    // a secret stored in plain text by an older version is sealed when the service starts
    t.state.store.set_webhook_secrets(&[(view.id.clone(), "plain-old-secret".into())]).unwrap();
    let again = Services::open(
        crate::support::store(t.dir.path()),
        Config { webhook_allow_loopback: true, ..Config::in_dir(t.dir.path()) },
    )
    .unwrap();
    let (_, resealed) = again.store.webhook_secrets().unwrap().into_iter().find(|(id, _)| id == &view.id).unwrap();
    assert!(resealed.starts_with("kse1:"));
    assert_eq!(again.keys.secrets.open(&resealed).unwrap(), "plain-old-secret");

    // rotation: every secret re-sealed under a new key, the old key dropped
    let before = std::fs::read_to_string(t.dir.path().join("secrets.key")).unwrap();
    let n = kino_server::state::rotate_secrets_key(&again.store, &t.dir.path().join("secrets.key")).unwrap();
    assert_eq!(n, 1);
    let after = std::fs::read_to_string(t.dir.path().join("secrets.key")).unwrap();
    assert_ne!(before, after);
    assert_eq!(after.lines().count(), 1);
    let rotated = kino_server::secrets::SecretBox::load_or_create(&t.dir.path().join("secrets.key")).unwrap();
    let (_, now) = again.store.webhook_secrets().unwrap().into_iter().find(|(id, _)| id == &view.id).unwrap();
    assert_eq!(rotated.open(&now).unwrap(), "plain-old-secret");
}

#[tokio::test]
async fn a_damaged_index_segment_is_reloaded_not_served() {
    let mut t = start(|c| c);
    // Every item flushes a segment of its own.
    let dir = t.state.config.index_dir.clone();
    let tuned = |c| kino::vectors::SegmentConfig { flush_vectors: 1, merge_segments: 8, ..c };
    std::sync::Arc::make_mut(&mut std::sync::Arc::make_mut(&mut t.state).effects).indexes =
        std::sync::Arc::new(kino_server::indexes::Indexes::tuned(dir.clone(), tuned));
    // The index opens with the first similar-titles request, and follows every job after that.
    t.movie("m1", None).await;
    t.signals("m1").await;
    t.call("POST", "/tasks/catalog-item/m1/product/similar/version/1", None).await;
    while worker::run_one(&t.state.worker()) {}
    assert_eq!(t.call("GET", "/results/similar/similar/v2/m1", None).await.0, StatusCode::OK);
    for id in ["m2", "m3"] {
        t.movie(id, None).await;
        t.signals(id).await;
        t.call("POST", &format!("/tasks/catalog-item/{id}/product/similar/version/1"), None).await;
    }
    while worker::run_one(&t.state.worker()) {}
    let org = t.state.store.ensure_org("acme").unwrap().0;
    let index = t.state.effects.indexes.loaded(org, kino_server::indexes::Collection::Items).unwrap();
    assert!(support::until(|| !index.needs_maintenance() && index.stats().delta_vectors == 0).await);
    let segments = dir.join(format!("org-{}", org.0)).join("items");
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(&segments)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".kvx"))
        .collect();
    assert!(!files.is_empty(), "the item index was written");
    // Flip payload bytes behind the service's back, then a fresh process maps the files (the
    // vectors follow the 1024-byte header: all-ones bytes are NaN floats).
    for file in &files {
        let mut bytes = std::fs::read(file).unwrap();
        for b in &mut bytes[1024..1024 + 256 * 4] {
            *b = 0xff;
        }
        std::fs::write(file, &bytes).unwrap();
    }
    let fresh = Services::open(crate::support::store(t.dir.path()), Config::in_dir(t.dir.path())).unwrap();
    let req = Request::builder()
        .uri(format!("/results/similar/similar/v2/m1?key={}&count=2", t.key))
        .body(Body::empty())
        .unwrap();
    let (s, _, v) = send(&fresh, req).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let text = v.to_string();
    assert!(!text.contains("null"), "no damaged score is served: {text}");
    assert!(text.contains("m2") && text.contains("m3"), "the damaged segments' items are loaded again: {text}");
}
