//! What the third attack found (hardening III, items 1, 3 and 7): sign-in forms with huge
//! addresses refused before they cost memory, connections that stop in the protocol's detection
//! or idle on HTTP/2 closed after the header timeout, one address's share of the connections,
//! and a bucket root that would serve the data directory refused at start. (The throttle's
//! bounds, the password slots' use and the redacted `Debug` output are unit tests of
//! `throttle.rs`, `web/account.rs` and `secrets.rs`.)

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use kino_server::serve::HttpLimits;
use kino_server::{AppState, Config, Services, app};
use tower::ServiceExt;

/// How long a test waits for a connection to be closed: far beyond the 1 s header timeout the
/// tests set, far below the idle timeout (an hour) that held such connections before.
const CLOSE_DEADLINE: Duration = Duration::from_secs(20);

fn state(dir: &std::path::Path) -> AppState {
    Services::open(crate::support::store(dir), Config::in_dir(dir)).unwrap()
}

/// A sign-in answer: status and body.
async fn post_sign_in(state: &AppState, email: &str) -> (StatusCode, String) {
    let form_page =
        app(state.clone()).oneshot(Request::get("/app/sign-in").body(Body::empty()).unwrap()).await.unwrap();
    let cookie = form_page.headers()[header::SET_COOKIE].to_str().unwrap().split(';').next().unwrap().to_string();
    let csrf = cookie.strip_prefix("kino_form=").unwrap().to_string();
    let body =
        serde_urlencoded::to_string([("csrf", csrf.as_str()), ("email", email), ("password", "a long password")])
            .unwrap();
    let req = Request::post("/app/sign-in")
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .unwrap();
    let res = app(state.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    (status, String::from_utf8_lossy(&res.into_body().collect().await.unwrap().to_bytes()).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_addresses_are_bounded_and_checked_before_anything_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let state = state(dir.path());
    // 2 MB, the default body limit: refused by the sign-in form's own 16 KiB limit, with the rule.
    let (status, body) = post_sign_in(&state, &format!("{}@example.com", "a".repeat(2_000_000))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{}", &body[..body.len().min(500)]);
    assert!(body.contains("email must have at most 254 bytes"), "the answer names the field and the rule: {body}");
    assert!(body.len() < 20_000, "the address is not sent back");
    // Within the form's limit but past the address's: 400 naming the field, the address cut.
    let long = format!("{}@example.com", "a".repeat(10_000));
    let (status, body) = post_sign_in(&state, &long).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("email: must be at most 254 bytes (it has 10012)"), "{body}");
    assert!(body.len() < 20_000, "the address is not sent back whole");
    for bad in ["two@at@example.com", "@example.com", "ada@", "a da@example.com", "ada\u{1}@example.com"] {
        let (status, body) = post_sign_in(&state, bad).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad:?}");
        assert!(body.contains("email: must be an e-mail address"), "{bad:?}: {body}");
    }
    assert!(
        state.guards.sign_ins.is_empty(),
        "refused addresses are not remembered: {:?}",
        state.guards.sign_ins.len()
    );
    // A well-formed unknown address is a wrong password, remembered by its hash and its source.
    let (status, _) = post_sign_in(&state, "nobody@example.com").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(state.guards.sign_ins.len(), (1, 1));
}

/// A server on 127.0.0.1 with `limits`, stopped when the sender is used or dropped.
async fn serve(limits: HttpLimits) -> (SocketAddr, tokio::sync::oneshot::Sender<()>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(kino_server::serve::serve(listener, app(state(dir.path())), limits, async {
        let _ = stopped.await;
    }));
    (addr, stop, dir)
}

/// Limits with a 1 s header timeout and an idle timeout (an hour) that no test waits for.
fn short_header_timeout() -> HttpLimits {
    HttpLimits {
        header_read_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(3600),
        ..HttpLimits::default()
    }
}

/// Reads until the server closes the connection (end of file or a reset); whether it did within
/// [`CLOSE_DEADLINE`].
fn closed_within_deadline(mut s: TcpStream) -> bool {
    let deadline = Instant::now() + CLOSE_DEADLINE;
    let mut buf = [0u8; 1024];
    while let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true,
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sends_one_byte_of_the_http2_preface_is_closed_after_the_header_timeout() {
    let (addr, stop, _dir) = serve(short_header_timeout()).await;
    let closed = tokio::task::spawn_blocking(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"P").unwrap();
        closed_within_deadline(s)
    })
    .await
    .unwrap();
    assert!(closed, "a connection stopped in the protocol's detection is closed");
    let _ = stop.send(());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http2_connection_kept_alive_by_pings_is_closed_after_the_header_timeout() {
    let (addr, stop, _dir) = serve(short_header_timeout()).await;
    let closed = tokio::task::spawn_blocking(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
        s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap(); // an empty SETTINGS frame
        let mut pinger = s.try_clone().unwrap();
        let (done, stopped) = std::sync::mpsc::channel::<()>();
        let pings = std::thread::spawn(move || {
            // A PING frame (type 6, stream 0, 8 bytes of data) every 200 ms, until closed or told.
            let ping = [0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
            while pinger.write_all(&ping).is_ok() {
                if stopped.recv_timeout(Duration::from_millis(200)).is_ok() {
                    return;
                }
            }
        });
        let closed = closed_within_deadline(s);
        let _ = done.send(());
        pings.join().unwrap();
        closed
    })
    .await
    .unwrap();
    assert!(closed, "an HTTP/2 connection with no stream open is closed, pings or not");
    let _ = stop.send(());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_at_most_64_connections_by_default() {
    // The default share; the header timeout of an hour keeps silent connections open.
    let limits = HttpLimits {
        header_read_timeout: Duration::from_secs(3600),
        idle_timeout: Duration::from_secs(3600),
        ..HttpLimits::default()
    };
    assert_eq!(limits.max_connections_per_peer, 64);
    let (addr, stop, _dir) = serve(limits).await;
    tokio::task::spawn_blocking(move || {
        let held: Vec<TcpStream> = (0..64).map(|_| TcpStream::connect(addr).unwrap()).collect();
        // Accepted in order: the 65th is past the share, closed without an answer.
        let mut extra = TcpStream::connect(addr).unwrap();
        let _ = extra.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        extra.set_read_timeout(Some(CLOSE_DEADLINE)).unwrap();
        let mut answer = String::new();
        let _ = extra.read_to_string(&mut answer);
        assert_eq!(answer, "", "the 65th connection of one address is refused");
        // One of the 64 is answered: they were held, not refused.
        let mut first = held.into_iter().next().unwrap();
        first.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        first.set_read_timeout(Some(CLOSE_DEADLINE)).unwrap();
        let _ = first.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
    })
    .await
    .unwrap();
    let _ = stop.send(());
}

/// Runs `kino-server` with `args` in `cwd` until it exits (killed after two minutes): whether it
/// succeeded, and its standard error.
fn run_server(cwd: &std::path::Path, args: &[&str]) -> (bool, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .current_dir(cwd)
        .args(["--bind", "127.0.0.1:0", "--no-models", "--fetch-models", "never", "--demo", "false"])
        .args(args)
        .env_remove("KINO_BUCKET_ROOT")
        .env_remove("KINO_OBJECT_STORE")
        .env_remove("KINO_DATABASE_URL")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_bucket_root_that_would_serve_the_data_directory_is_refused_at_start() {
    let root = tempfile::tempdir().unwrap();
    let media = root.path().join("media");
    std::fs::create_dir(&media).unwrap();
    let media = media.to_str().unwrap();
    for (bucket, rule) in [
        (".", "contains the data directory"),
        ("kino-data", "is the data directory"),
        ("kino-data/../kino-data/indexes", "lies inside the data directory"),
    ] {
        let (ok, stderr) =
            run_server(root.path(), &["--data-dir", "kino-data", "--media-root", media, "--bucket-root", bucket]);
        assert!(!ok, "--bucket-root {bucket} is refused: {stderr}");
        assert!(stderr.contains(&format!("--bucket-root {bucket} {rule}")), "{bucket}: {stderr}");
    }
}
