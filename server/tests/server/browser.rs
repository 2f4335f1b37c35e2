//! The web application in a real browser: Debian's Chromium, headless, driven through
//! chromedriver (WebDriver, the `fantoccini` client) against a real `kino-server` process started
//! as the README starts it (the demo catalog, an admin token). A new user signs in with the admin
//! token, creates an API key and sees it once, creates a webhook and sees a Test delivery arrive
//! at a local receiver and in the delivery log, opens an item page whose timeline (with its
//! emotional arc) and clip players render (the clips rendered from a real video by ffmpeg and played by the browser), and opens
//! the OpenAPI viewer.
//!
//! Needs `chromium`, `chromium-driver` and `ffmpeg` (`scripts/test.sh` installs them); skips when
//! they are missing, unless `KINO_REQUIRE_BROWSER=1` (set by `scripts/test.sh`), which makes a
//! missing browser a failure. With `KINO_SCREENSHOTS=DIR` the pages' screenshots are written to
//! DIR (`docs/screenshots` holds the README's).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::support::{DEADLINE, Receiver};

const ADMIN: &str = "browser-admin-token";
const PASSWORD: &str = "a long password for the browser";
/// The preview parameters of the test film (10 s): two short clips.
const PARAMS: &str = "clip_length=3&number_of_top_candidates=2&skip_start=0&skip_end=0&character_preference=None&minimum_clip_separation=0";

/// A child process killed when dropped, so a failed assertion leaves nothing running.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn found(program: &str) -> bool {
    Command::new("which").arg(program).stdout(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// Whether the browser, its driver and ffmpeg are here; without them the test skips, or fails
/// under `KINO_REQUIRE_BROWSER=1`.
fn tools_present() -> bool {
    let missing: Vec<&str> = ["chromium", "chromedriver", "ffmpeg"].into_iter().filter(|p| !found(p)).collect();
    if missing.is_empty() {
        return true;
    }
    let required = std::env::var("KINO_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "KINO_REQUIRE_BROWSER=1 but {missing:?} missing (apt-get install chromium chromium-driver ffmpeg)"
    );
    eprintln!("skipped: {missing:?} not installed (apt-get install chromium chromium-driver ffmpeg)");
    false
}

/// A free port on 127.0.0.1 (for chromedriver, which takes a port number).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A 10-second test card with a tone, H.264 and AAC in MP4.
fn make_film(path: &Path) {
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=10"])
        .args(["-f", "lavfi", "-i", "sine=frequency=440:duration=10"])
        .args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "ffmpeg made no test film");
}

/// The signals of the test film.
fn film_signals() -> Value {
    let zeros = vec![0.0; 10];
    json!({
        "format": "kino.signals/1", "inventory_id": "web-film", "duration": 10.0, "fps": 25.0,
        "frame_width": 320, "frame_height": 240, "step": 1.0,
        "timelines": {
            "relevance": [0.1, 0.3, 0.9, 0.8, 0.2, 0.1, 0.7, 0.95, 0.6, 0.1],
            "nudity": zeros, "blood_gore": zeros, "profanity": zeros,
            "brightness": [0.5, 0.5, 0.6, 0.6, 0.5, 0.4, 0.5, 0.6, 0.6, 0.5],
            "clip_types": {"Exciting": [0.1, 0.2, 0.9, 0.8, 0.1, 0.1, 0.6, 0.9, 0.5, 0.1]}
        },
        "shots": [2.0, 5.0, 8.0],
        "speech": [[0.5, 1.5], [5.5, 6.5]],
        "characters": [{"rank": 0, "spans": [[0.0, 10.0]]}]
    })
}

struct Server {
    _process: Killed,
    base: String,
}

/// `kino-server` as the README runs it, with the demo catalog, on an ephemeral port.
fn start_server(data: &Path, media: &Path) -> Server {
    let demo = crate::support::manifest_dir().join("../data/demo");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .arg("--data-dir")
        .arg(data)
        .arg("--media-root")
        .arg(media)
        .arg("--demo-dir")
        .arg(&demo)
        .args(["--no-models", "--webhook-allow-loopback", "--bind", "127.0.0.1:0", "--render-workers", "1"])
        .envs(crate::support::database_env(data))
        .env("KINO_ADMIN_TOKEN", ADMIN)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start kino-server");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines.next().expect("the server prints its address").unwrap();
        if let Some(addr) = line.strip_prefix("listening on ") {
            break addr.trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Server { _process: Killed(child), base }
}

/// chromedriver on a free port, and a headless Chromium session through it.
async fn browser() -> (Killed, Client) {
    let port = free_port();
    let driver = Killed(
        Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver"),
    );
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + DEADLINE;
    while reqwest::get(format!("{url}/status")).await.is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not answer");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,1000", "--autoplay-policy=no-user-gesture-required"]}),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector).capabilities(caps).connect(&url).await.expect("a Chromium session");
    (driver, client)
}

/// Saves a screenshot of the page when `KINO_SCREENSHOTS` names a directory.
async fn screenshot(c: &Client, name: &str) {
    let Ok(dir) = std::env::var("KINO_SCREENSHOTS") else { return };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let png = c.screenshot().await.unwrap();
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

/// Waits until `css` matches an element (pages waiting for background work reload themselves).
async fn wait_for(c: &Client, css: &str) -> fantoccini::elements::Element {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Ok(e) = c.find(Locator::Css(css)).await {
            return e;
        }
        assert!(Instant::now() < deadline, "{css} never appeared on {}", c.current_url().await.unwrap());
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

async fn fill(c: &Client, css: &str, text: &str) {
    let field = c.find(Locator::Css(css)).await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}")).click().await.unwrap();
}

async fn path(c: &Client) -> String {
    c.current_url().await.unwrap().path().to_string()
}

/// Waits until the browser is at `expected` (a click on a form's button returns before the
/// answer has loaded).
async fn wait_path(c: &Client, expected: &str) {
    let deadline = Instant::now() + DEADLINE;
    while path(c).await != expected {
        assert!(Instant::now() < deadline, "never reached {expected}: at {}", path(c).await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_user_signs_in_makes_a_key_and_a_webhook_and_watches_a_title() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (data, media) = (dir.path().join("data"), dir.path().join("media"));
    std::fs::create_dir_all(&media).unwrap();
    make_film(&media.join("film.mp4"));
    let server = start_server(&data, &media);
    let base = server.base.clone();
    let receiver = Receiver::start().await;
    let (_driver, c) = browser().await;

    // the application sends a stranger to the sign-in page; the admin token makes the first user
    c.goto(&format!("{base}/app/")).await.unwrap();
    wait_path(&c, "/app/sign-in").await;
    screenshot(&c, "sign-in").await;
    click(&c, "a[href='/app/setup']").await;
    wait_for(&c, "#admin_token").await;
    fill(&c, "#admin_token", ADMIN).await;
    fill(&c, "#org", "demo").await;
    fill(&c, "#email", "editor@example.com").await;
    fill(&c, "#password", PASSWORD).await;
    click(&c, "form[action='/app/setup'] button[type=submit]").await;
    wait_path(&c, "/app/catalog").await;
    let count = wait_for(&c, "#count").await.text().await.unwrap();
    assert!(count.starts_with("17 items"), "the demo catalog: {count}");
    screenshot(&c, "catalog").await;

    // an API key, shown once, with a copy button
    click(&c, "a[href='/app/keys']").await;
    wait_path(&c, "/app/keys").await;
    click(&c, "form[action='/app/keys'] button").await;
    let shown = wait_for(&c, "input[data-secret]").await;
    let key = shown.prop("value").await.unwrap().unwrap();
    assert!(key.starts_with("kino_") && key.len() == 69, "{key}");
    assert!(c.find(Locator::Css("button[data-copy]")).await.is_ok());
    screenshot(&c, "api-keys").await;
    c.goto(&format!("{base}/app/keys")).await.unwrap();
    let listed = wait_for(&c, "#keys").await.text().await.unwrap();
    assert!(c.find(Locator::Css("input[data-secret]")).await.is_err(), "shown once");
    assert!(listed.contains(&key[..13]), "{listed}");

    // the key works: a title with a real video and its signals, through the API
    let http = reqwest::Client::new();
    let item = json!({"id": "web-film", "type": "standalone", "title": "Test Card",
                      "asset_info": {"file_uri": "film.mp4", "duration": 10.0}});
    let put = http
        .put(format!("{base}/catalog/v1/item?key={key}"))
        .header("content-type", "application/json")
        .body(item.to_string())
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success(), "{}", put.text().await.unwrap());
    let put = http
        .put(format!("{base}/analysis/v1/item/standalone/web-film?key={key}"))
        .header("content-type", "application/json")
        .body(film_signals().to_string())
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success(), "{}", put.text().await.unwrap());

    // a webhook: its signing secret shown once; the Test action reaches the receiver and the log
    click(&c, "a[href='/app/webhooks']").await;
    wait_for(&c, "#url").await;
    fill(&c, "#url", &receiver.url("/kino")).await;
    click(&c, "form[action='/app/webhooks'] button[type=submit]").await;
    let secret = wait_for(&c, "input[data-secret]").await.prop("value").await.unwrap().unwrap();
    assert_eq!(secret.len(), 64, "{secret}");
    click(&c, "form[action$='/test'] button").await;
    wait_for(&c, "#deliveries").await;
    assert!(path(&c).await.starts_with("/app/webhooks/"), "the Test action leads to the delivery log");
    wait_for(&c, "tr[data-state='succeeded']").await;
    let hits = receiver.hits_on("/kino");
    assert_eq!(hits.len(), 1);
    let event: Value = serde_json::from_slice(&hits[0].body).unwrap();
    assert_eq!(event["event"], "test");
    let signature = crate::support::header(&hits[0], "x-service-signature").unwrap();
    assert!(kino::webhook::verify(&hits[0].body, signature, &secret), "signed with the secret shown: {signature}");
    let row = c.find(Locator::Css("tr[data-state='succeeded']")).await.unwrap().text().await.unwrap();
    assert!(row.contains("test") && row.contains("200"), "{row}");
    screenshot(&c, "webhook-log").await;
    click(&c, "tr[data-state='succeeded'] a").await;
    let body = wait_for(&c, "pre.body").await.text().await.unwrap();
    assert!(body.contains("\"event\": \"test\""), "the delivery's body: {body}");

    // a demo title: what kino measured, on one time axis, with the clips marked
    c.goto(&format!("{base}/app/catalog?q=iron")).await.unwrap();
    wait_for(&c, "#items a").await;
    click(&c, "#items a").await;
    let svg = wait_for(&c, "svg.timeline").await;
    let lanes: usize = svg.attr("data-lanes").await.unwrap().unwrap().parse().unwrap();
    assert!(lanes >= 5, "{lanes} lanes");
    assert!(c.find(Locator::Css("svg.timeline g.clip")).await.is_ok(), "the clips are marked");
    let arc = c.find(Locator::Css("svg.timeline g.lane[data-lane='emotional arc'] text.arc-shape")).await;
    let shape = arc.expect("the emotional arc is drawn").attr("data-shape").await.unwrap().unwrap_or_default();
    assert!(kino::ArcShape::parse(&shape).is_some(), "a story shape: {shape:?}");
    screenshot(&c, "title-timeline").await;
    let lane = "document.querySelector(\"g.lane[data-lane='emotional arc']\").scrollIntoView({block: 'center'})";
    c.execute(lane, vec![]).await.unwrap();
    screenshot(&c, "title-arc").await;

    // the test film: its clips rendered by ffmpeg, then played by the browser
    c.goto(&format!("{base}/app/catalog/web-film?params={}", urlencode(PARAMS))).await.unwrap();
    wait_for(&c, "svg.timeline").await;
    let clips = c.find_all(Locator::Css("#clips li.clip")).await.unwrap();
    assert_eq!(clips.len(), 2, "two clips of these parameters");
    click(&c, "form[action$='/render'] button").await;
    let video = wait_for(&c, "#clips video").await;
    let src = video.attr("src").await.unwrap().unwrap();
    assert!(src.starts_with("/media/"), "{src}");
    let deadline = Instant::now() + DEADLINE;
    let played = loop {
        let state = c
            .execute("const v = document.querySelector('#clips video'); return [v.readyState, v.duration, v.error ? v.error.code : 0];", vec![])
            .await
            .unwrap();
        if state[0].as_u64().unwrap_or(0) >= 1 || state[2].as_u64().unwrap_or(0) != 0 || Instant::now() > deadline {
            break state;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(played[2], json!(0), "the browser plays the rendered clip: {played}");
    let duration = played[1].as_f64().unwrap();
    assert!((2.0..=5.0).contains(&duration), "a clip of about 3 s: {played}");
    assert!(c.find(Locator::Css("#clips img.thumb")).await.is_ok(), "thumbnails");
    c.execute("document.querySelector('#clips').scrollIntoView();", vec![]).await.unwrap();
    screenshot(&c, "title-clips").await;

    // the API docs: the OpenAPI viewer shipped by kino
    c.goto(&format!("{base}/app/api/")).await.unwrap();
    wait_for(&c, ".opblock").await;
    screenshot(&c, "api-docs").await;

    // signing out
    c.goto(&format!("{base}/app/catalog")).await.unwrap();
    click(&c, "form.signout button").await;
    wait_path(&c, "/app/sign-in").await;
    c.goto(&format!("{base}/app/keys")).await.unwrap();
    wait_path(&c, "/app/sign-in").await;

    c.close().await.unwrap();
    receiver.stop().await;
}

fn urlencode(s: &str) -> String {
    serde_urlencoded::to_string([("", s)]).unwrap()[1..].to_string()
}
