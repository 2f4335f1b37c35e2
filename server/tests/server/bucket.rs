//! Rendered media in an object store: two service processes ("replicas", each with its own
//! local bucket root) share one store; a file one of them publishes is served by the other under
//! `/media`. Runs against a shared directory (`file://`) always, and against a real S3-compatible
//! server when `KINO_TEST_S3` names a bucket there (`scripts/test.sh` starts moto's server and
//! sets it and the AWS_* variables, with `KINO_REQUIRE_S3=1` so that its absence fails instead of
//! skipping).

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use kino_server::{AppState, Config, Services, app};

fn replica(dir: &std::path::Path, object_store: &str) -> AppState {
    let config = Config { object_store: Some(object_store.to_string()), ..Config::in_dir(dir) };
    Services::open(crate::support::store(dir), config).unwrap()
}

async fn get(state: &AppState, method: &str, path: &str) -> (StatusCode, Option<String>, Vec<u8>) {
    let req = Request::builder().method(method).uri(path).body(Body::empty()).unwrap();
    // `/media` is the bucket, not an operation of the OpenAPI document: sent without the
    // contract check of the other suites.
    let res = tower::ServiceExt::oneshot(app(state.clone()), req).await.unwrap();
    let kind = res.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap().to_string());
    let status = res.status();
    (status, kind, res.into_body().collect().await.unwrap().to_bytes().to_vec())
}

/// Replica `a` renders (writes under its bucket root) and publishes; replica `b` serves it.
async fn shared_between_replicas(url: &str) {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (replica(da.path(), url), replica(db.path(), url));
    assert!(a.bucket.is_remote() && b.bucket.is_remote());
    let clip: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 251) as u8).collect();
    for (path, bytes) in [("gen/g1/clip-0.mp4", &clip[..]), ("gen/g1/clip-0-large.jpg", b"jpeg bytes".as_slice())] {
        let local = a.config.bucket_root.join(path);
        std::fs::create_dir_all(local.parent().unwrap()).unwrap();
        std::fs::write(&local, bytes).unwrap();
        let bucket = a.bucket.clone();
        let path = path.to_string();
        tokio::task::spawn_blocking(move || bucket.publish(&path)).await.unwrap().expect("published");
    }
    assert!(!db.path().join("bucket/gen/g1/clip-0.mp4").exists(), "b never saw the file locally");
    let (status, kind, body) = get(&b, "GET", "/media/gen/g1/clip-0.mp4").await;
    assert_eq!((status, kind.as_deref()), (StatusCode::OK, Some("video/mp4")));
    assert_eq!(body, clip, "the bytes a published");
    let (status, kind, body) = get(&b, "HEAD", "/media/gen/g1/clip-0-large.jpg").await;
    assert_eq!((status, kind.as_deref(), body.len()), (StatusCode::OK, Some("image/jpeg"), 0));
    // Neither an unknown file, nor a path that climbs out, nor another method.
    for path in ["/media/gen/g1/clip-9.mp4", "/media/gen/../kino.sqlite3", "/media/gen//g1/clip-0.mp4"] {
        let (status, kind, body) = get(&b, "GET", path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(kind.as_deref(), Some("application/json"), "{path}");
        assert!(String::from_utf8_lossy(&body).contains("detail"), "{path}");
    }
    assert_eq!(get(&b, "POST", "/media/gen/g1/clip-0.mp4").await.0, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_rendered_media_through_a_shared_directory() {
    let shared = tempfile::tempdir().unwrap();
    shared_between_replicas(&format!("file://{}", shared.path().display())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_rendered_media_through_s3() {
    // `KINO_TEST_S3` names the bucket (`s3://kino-test`); the client takes the server and the
    // credentials from the AWS_* variables, which the test script sets for this run.
    let Ok(url) = std::env::var("KINO_TEST_S3") else {
        assert!(std::env::var_os("KINO_REQUIRE_S3").is_none(), "KINO_REQUIRE_S3 is set but not KINO_TEST_S3");
        eprintln!("skipped: no S3-compatible server (KINO_TEST_S3, AWS_ENDPOINT); scripts/test.sh starts one");
        return;
    };
    assert!(std::env::var_os("AWS_ENDPOINT").is_some(), "KINO_TEST_S3 needs AWS_ENDPOINT");
    shared_between_replicas(&format!("{}/run-{}", url.trim_end_matches('/'), std::process::id())).await;
}

/// Replica `a` publishes its scene index's files; replica `b`, with no index files, fetches them
/// (one database, two index directories). From a blocking thread, as the service does it.
fn shares_index_files(url: &str) {
    use kino_server::indexes::Collection;
    let dir = tempfile::tempdir().unwrap();
    let shared = |name: &str| {
        let config = Config {
            index_dir: dir.path().join(name).join("indexes"),
            bucket_root: dir.path().join(name).join("bucket"),
            object_store: Some(url.to_string()),
            ..Config::in_dir(dir.path())
        };
        Services::open(crate::support::store(dir.path()), config).unwrap()
    };
    let a = shared("a");
    let (org, _) = a.store.ensure_org("acme").unwrap();
    for id in ["m1", "m2"] {
        crate::replicas::store_scenes(&a, org, id);
    }
    a.effects.indexes.get(&a.store, org, Collection::Scenes).unwrap().compact().unwrap();
    assert_eq!(a.effects.indexes.publish_all(&a.store), 1);
    let b = shared("b");
    let index = b.effects.indexes.get(&b.store, org, Collection::Scenes).unwrap();
    assert!(index.contains("m1") && index.contains("m2"));
    assert_eq!(index.stats().delta_vectors, 0, "mapped from the fetched segments, not loaded from the database");
    assert!(index.stats().segments > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_index_files_through_a_shared_directory() {
    let shared = tempfile::tempdir().unwrap();
    let url = format!("file://{}", shared.path().display());
    tokio::task::spawn_blocking(move || shares_index_files(&url)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_index_files_through_s3() {
    let Ok(url) = std::env::var("KINO_TEST_S3") else {
        assert!(std::env::var_os("KINO_REQUIRE_S3").is_none(), "KINO_REQUIRE_S3 is set but not KINO_TEST_S3");
        eprintln!("skipped: no S3-compatible server (KINO_TEST_S3, AWS_ENDPOINT); scripts/test.sh starts one");
        return;
    };
    let url = format!("{}/indexes-{}", url.trim_end_matches('/'), std::process::id());
    tokio::task::spawn_blocking(move || shares_index_files(&url)).await.unwrap();
}
