//! A newcomer's path through real media: ingest an item whose `file_uri` is a real (generated)
//! video, create a `jitpreviews` task, get clips snapped to the video's real cuts and clear of its
//! real speech, trigger generation and find playable files. Needs ffmpeg and espeak-ng; skips
//! loudly without them unless `KINO_REQUIRE_FFMPEG` is set (the test command sets it).

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::auth::{generate_key, hash_key, key_prefix};
use kino_server::store::{CreativeAssetStatus, RecipeStatus};
use kino_server::{AppState, Config, Services, app, worker};
use serde_json::{Value, json};

fn tools_present() -> bool {
    let ok = |t: &str| Command::new(t).arg("-version").output().is_ok_and(|o| o.status.success());
    let present = ok("ffmpeg") && ok("ffprobe") && Command::new("espeak-ng").arg("--version").output().is_ok();
    if !present {
        assert!(
            std::env::var_os("KINO_REQUIRE_FFMPEG").is_none(),
            "KINO_REQUIRE_FFMPEG is set but ffmpeg/espeak-ng are missing"
        );
        eprintln!("\n!!! SKIPPED media_pipeline: ffmpeg, ffprobe or espeak-ng not installed\n");
    }
    present
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{:?}: {}", cmd, String::from_utf8_lossy(&out.stderr));
}

/// 40 s at 25 fps: four 10 s shots (hard cuts at 10, 20, 30 s) and a spoken sentence from 14 s.
fn make_video(dir: &Path) -> (std::path::PathBuf, [f64; 2]) {
    let wav = dir.join("speech.wav");
    run(Command::new("espeak-ng")
        .args(["-w"])
        .arg(&wav)
        .arg("The quick brown fox jumps over the lazy dog near the river bank today."));
    let video = dir.join("movie.mp4");
    let src = |s: &str| format!("{s}size=320x240:rate=25:duration=10");
    run(Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args([
            "-f",
            "lavfi",
            "-i",
            &src("testsrc2="),
            "-f",
            "lavfi",
            "-i",
            &src("smptebars="),
            "-f",
            "lavfi",
            "-i",
            &src("color=c=0xa03020:"),
            "-f",
            "lavfi",
            "-i",
            &src("color=c=0x3060a0:"),
        ])
        .arg("-i")
        .arg(&wav)
        .args([
            "-filter_complex",
            "[0:v][1:v][2:v][3:v]concat=n=4:v=1:a=0[v];[4:a]aresample=16000,adelay=14000|14000,apad[a]",
            "-map",
            "[v]",
            "-map",
            "[a]",
            "-t",
            "40",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-g",
            "25",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
        ])
        .arg(&video));
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0"])
        .arg(&wav)
        .output()
        .unwrap();
    let len: f64 = String::from_utf8_lossy(&probe.stdout).trim().parse().unwrap();
    (video, [14.0, 14.0 + len])
}

fn signals_absent(state: &AppState, org: kino_server::store::OrgId) -> Vec<String> {
    let p = kino_server::signals::prepared(&state.store, &state.signals, org, "film").unwrap().unwrap();
    p.signals().analysis.as_ref().map(|a| a.absent.clone()).unwrap_or_default()
}

async fn get(state: &AppState, uri: &str) -> (StatusCode, Value) {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = support::send(app(state.clone()), req).await;
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_video_to_snapped_clips_and_rendered_files() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (video, spoken) = make_video(dir.path());
    let state = Services::open(crate::support::store(dir.path()), Config::in_dir(dir.path())).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    state.store.set_catalog_generation(org, "acme", true).unwrap();
    let (stop_tx, stop_renderers) = tokio::sync::watch::channel(false);
    let key = generate_key();
    state.store.add_key(org, &hash_key(&key), &key_prefix(&key)).unwrap();
    let item = json!({"id": "film", "type": "standalone", "title": "Film", "asset_info": {"file_uri": video.file_name().unwrap().to_str().unwrap()}});
    let req = Request::builder()
        .method("PUT")
        .uri(format!("/catalog/v1/item?key={key}"))
        .header("content-type", "application/json")
        .body(Body::from(item.to_string()))
        .unwrap();
    assert_eq!(support::send(app(state.clone()), req).await.status(), StatusCode::OK);
    let task = format!("/tasks/catalog-item/film/product/jitpreviews/version/1.0.0?key={key}");
    let req = Request::builder()
        .method("POST")
        .uri(&task)
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
    assert_eq!(support::send(app(state.clone()), req).await.status(), StatusCode::OK);
    // a second product of the same item: it waits for the one analysis instead of running its own
    let emotions = format!("/tasks/catalog-item/film/product/emotions/version/1.0.0?key={key}");
    let req = Request::builder()
        .method("POST")
        .uri(&emotions)
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
    assert_eq!(support::send(app(state.clone()), req).await.status(), StatusCode::OK);
    let (s1, s2) = (state.clone(), state.clone());
    let second = tokio::task::spawn_blocking(move || {
        std::thread::sleep(Duration::from_millis(300));
        while worker::run_one(&s2.worker()) {}
    });
    let work = tokio::task::spawn_blocking(move || while worker::run_one(&s1.worker()) {});
    // while the worker analyses the video, the task status says how far it has come
    let mut seen_progress = false;
    while !work.is_finished() {
        let (_, status) = get(&state, &task).await;
        seen_progress |= status["error"].as_str().is_some_and(|e| e.starts_with("analysing the media file:"));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    work.await.unwrap();
    second.await.unwrap();
    assert!(seen_progress, "analysis progress shows in the task status");
    // ...and emotions, which the analysis measures for every title with a picture (here from its
    // colour and motion alone: no model is loaded), are ready from the same analysis
    let (_, other) = get(&state, &emotions).await;
    assert_eq!(other["status"], "ready", "{other}");
    assert!(!signals_absent(&state, org).contains(&"emotions".to_string()));
    let (s, status) = get(&state, &task).await;
    assert_eq!(
        (s, status["status"].as_str(), status["error"].as_str()),
        (StatusCode::OK, Some("ready"), Some("")),
        "{status}"
    );

    let signals =
        kino_server::signals::prepared(&state.store, &state.signals, org, "film").unwrap().unwrap().signals().clone();
    let cuts = [10.0, 20.0, 30.0];
    assert_eq!(signals.shots.len(), 3, "{:?}", signals.shots);
    for (found, cut) in signals.shots.iter().zip(cuts) {
        assert!((found - cut).abs() <= 0.041, "cut at {found}, expected {cut}");
    }
    assert!(signals.speech.iter().any(|[a, b]| *a < spoken[1] && *b > spoken[0]), "{:?} vs {spoken:?}", signals.speech);

    let snap = "start_bwd_snap_search=4&start_fwd_snap_search=4&end_bwd_snap_search=4&end_fwd_snap_search=4";
    let uri = format!(
        "/results/jitpreviews/v2/film?key={key}&catalog=acme&clip_length=8&number_of_top_candidates=1&character_preference=None&skip_start=0&skip_end=0&{snap}&trigger_generation=true"
    );
    let (s, res) = get(&state, &uri).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let clip = &res["data"]["jitpreview"][0];
    let (start, stop) = (clip["start_time"].as_f64().unwrap(), clip["stop_time"].as_f64().unwrap());
    let on_cut = |t: f64| t.abs() < 0.05 || (t - 40.0).abs() < 0.05 || cuts.iter().any(|c| (t - c).abs() < 0.05);
    assert!(on_cut(start) || on_cut(stop), "a snapped edge lies on a real cut: {start}..{stop}");
    for t in [start, stop] {
        assert!(
            signals.speech.iter().all(|[a, b]| !(*a < t && t < *b)),
            "edge {t} cuts into speech {:?}",
            signals.speech
        );
    }
    let gen_id = res["data"]["gen_id"].as_str().unwrap().to_string();
    let status_uri = format!("/results/jitpreviews/v2/gen/{gen_id}/status?key={key}&catalog=acme");
    // generations are queued durably; the service's renderers claim them (here: run in the test)
    let renderers = tokio::spawn(kino_server::render::run_renderers(
        state.renderer(),
        state.effects.wake.renderers.clone(),
        1,
        stop_renderers.clone(),
    ));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    let generated = loop {
        let (s, g) = get(&state, &status_uri).await;
        if s == StatusCode::OK {
            break g;
        }
        assert!(tokio::time::Instant::now() < deadline, "generation did not finish");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(generated["status"], "SUCCESS", "{generated}");
    let g = &generated["data"]["jitpreview"][0]["gen"];
    let clip_file = state.config.bucket_root.join(g["clip_path"].as_str().unwrap());
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0"])
        .arg(&clip_file)
        .output()
        .unwrap();
    let length: f64 = String::from_utf8_lossy(&probe.stdout).trim().parse().unwrap();
    assert!((length - (stop - start)).abs() < 0.5, "clip of {length} s for {start}..{stop}");
    assert_eq!(g["clip_path"], clip["gen"]["clip_path"], "the previews answer names the files it will write");
    for (path, width) in [("large_image_path", "large_image_width"), ("small_image_path", "small_image_width")] {
        let bytes = std::fs::read(state.config.bucket_root.join(g[path].as_str().unwrap())).unwrap();
        assert_eq!(&bytes[..2], &[0xFF, 0xD8], "a JPEG");
        assert!(g[width].as_u64().unwrap() > 0);
    }
    assert_eq!(g["small_image_width"], 320);
    // 9:16: the clip follows the subject inside the frame, and so do its thumbnails
    let uri = format!(
        "/results/jitpreviews/v2/film?key={key}&catalog=acme&clip_length=8&number_of_top_candidates=1&character_preference=None&version=27-vertical&aspect_ratio=9:16&trigger_generation=true"
    );
    let (s, res) = get(&state, &uri).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let status_uri = format!(
        "/results/jitpreviews/v2/gen/{}/status?key={key}&catalog=acme",
        res["data"]["gen_id"].as_str().unwrap()
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    let vertical = loop {
        let (s, g) = get(&state, &status_uri).await;
        if s == StatusCode::OK {
            break g;
        }
        assert!(tokio::time::Instant::now() < deadline, "generation did not finish");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(vertical["status"], "SUCCESS", "{vertical}");
    let v = &vertical["data"]["jitpreview"][0]["gen"];
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
        .arg(state.config.bucket_root.join(v["clip_path"].as_str().unwrap()))
        .output()
        .unwrap();
    let dims: Vec<u64> = String::from_utf8_lossy(&probe.stdout).trim().split(',').map(|x| x.parse().unwrap()).collect();
    assert_eq!(dims[1], 240, "full height");
    assert!((dims[0] as f64 / dims[1] as f64 - 9.0 / 16.0).abs() < 0.02, "9:16: {dims:?}");
    assert_eq!(
        (v["large_image_width"].as_u64(), v["large_image_height"].as_u64()),
        (Some(dims[0]), Some(dims[1])),
        "{v}"
    );
    assert!(v["small_image_width"].as_u64().unwrap() < dims[0]);
    // jitthumbnails: a frame inside each chosen clip, away from the cuts, and its images rendered
    let uri = format!(
        "/results/jitthumbnails/v2/film?key={key}&catalog=acme&clip_length=8&number_of_top_candidates=2&character_preference=None&skip_start=0&skip_end=0&minimum_clip_separation=0&shot_margin=1&trigger_generation=true"
    );
    let (s, res) = get(&state, &uri).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let thumbs = res["data"]["jitthumbnail"].as_array().unwrap().clone();
    assert_eq!(thumbs.len(), 2, "{res}");
    for t in &thumbs {
        let (time, a, b) = (
            t["time"].as_f64().unwrap(),
            t["clip_start_time"].as_f64().unwrap(),
            t["clip_stop_time"].as_f64().unwrap(),
        );
        assert!(a <= time && time < b, "{t}");
        if t["relaxed"].as_array().unwrap().is_empty() {
            assert!(cuts.iter().all(|c| (time - c).abs() >= 1.0), "a frame 1 s from every cut: {t}");
        }
    }
    let status_uri = format!(
        "/results/jitthumbnails/v2/gen/{}/status?key={key}&catalog=acme",
        res["data"]["gen_id"].as_str().unwrap()
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    let stills = loop {
        let (s, g) = get(&state, &status_uri).await;
        if s == StatusCode::OK {
            break g;
        }
        assert!(tokio::time::Instant::now() < deadline, "thumbnail generation did not finish");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(stills["status"], "SUCCESS", "{stills}");
    assert_eq!(stills["data"]["jitpreview"], json!([]), "no clips are rendered for thumbnails");
    let rendered = stills["data"]["jitthumbnail"].as_array().unwrap();
    assert_eq!(rendered.len(), 2, "{stills}");
    for (r, t) in rendered.iter().zip(&thumbs) {
        assert_eq!(r["time"], t["time"]);
        assert_eq!(r["gen"]["large_image_path"], t["gen"]["large_image_path"], "the answer names the files");
        let bytes =
            std::fs::read(state.config.bucket_root.join(r["gen"]["large_image_path"].as_str().unwrap())).unwrap();
        assert_eq!(&bytes[..2], &[0xFF, 0xD8], "a JPEG");
        assert_eq!(r["gen"]["small_image_width"], 320);
    }
    // recipes render their creative assets from the same media
    for (kind, files) in [("thumbnails", 2), ("preview-clips", 3)] {
        let config = json!({"inventory_ids": ["film"], "vertical": true,
                            "previews": {"character_preference": "None", "clip_length": 8, "skip_start": 0, "skip_end": 0}});
        let input =
            json!({"title": kind, "type": kind, "catalog": "acme", "creator": "ed@example.com", "config": config});
        let recipe = kino_server::portal::recipes::create(&state.portal(), org, &input).unwrap();
        kino_server::portal::recipes::start(&state.portal(), org, &recipe.id).unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        while state.store.recipe(org, &recipe.id).unwrap().unwrap().status == RecipeStatus::Running {
            assert!(tokio::time::Instant::now() < deadline, "the recipe did not finish");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(state.store.recipe(org, &recipe.id).unwrap().unwrap().status, RecipeStatus::Completed);
        let assets = state.store.creative_assets(org, Some(&recipe.id)).unwrap();
        assert_eq!(assets.len(), 2, "{kind}: the asset and its vertical form");
        for a in &assets {
            assert_eq!(a.status, CreativeAssetStatus::Completed, "{kind}: {:?}", a.error);
            let paths: Vec<&String> = [&a.image_uri, &a.small_image_uri, &a.video_uri].into_iter().flatten().collect();
            assert_eq!(paths.len(), files, "{kind} {}: {paths:?}", a.kind);
            for p in paths {
                assert!(state.config.bucket_root.join(p).metadata().unwrap().len() > 0, "{p}");
            }
            let [large, _]: [(u32, u32); 2] = serde_json::from_value(a.metadata["image_sizes"].clone()).unwrap();
            assert_eq!(a.kind.as_str().ends_with("-vertical"), large.1 > large.0, "{} image {large:?}", a.kind);
        }
    }
    // the bucket is served under /media
    let (s, _) = get(&state, &format!("/media/{}", g["large_image_path"].as_str().unwrap())).await;
    assert_eq!(s, StatusCode::OK);
    let _ = stop_tx.send(true);
    renderers.await.unwrap();
}

/// Issue 45: a silent film (no audio stream at all) gets its emotions from its picture: the
/// emotions task succeeds, the result has windows over the whole title, and the signals say the
/// picture's colour and motion spoke.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_video_gets_emotions_from_its_picture() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("silent.mp4");
    run(Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=12"])
        .args(["-an", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        .arg(&video));
    let state = Services::open(crate::support::store(dir.path()), Config::in_dir(dir.path())).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    let key = generate_key();
    state.store.add_key(org, &hash_key(&key), &key_prefix(&key)).unwrap();
    let item = json!({"id": "film", "type": "standalone", "title": "Silent", "asset_info": {"file_uri": "silent.mp4"}});
    for (method, uri, body) in [
        ("PUT", format!("/catalog/v1/item?key={key}"), item.to_string()),
        ("POST", format!("/tasks/catalog-item/film/product/emotions/version/1.0.0?key={key}"), "{}".to_string()),
    ] {
        let req = Request::builder()
            .method(method)
            .uri(&uri)
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap();
        assert_eq!(support::send(app(state.clone()), req).await.status(), StatusCode::OK, "{method} {uri}");
    }
    let s = state.clone();
    tokio::task::spawn_blocking(move || while worker::run_one(&s.worker()) {}).await.unwrap();
    let (_, status) = get(&state, &format!("/tasks/catalog-item/film/product/emotions/version/1.0.0?key={key}")).await;
    assert_eq!(status["status"], "ready", "{status}");
    let (code, result) = get(&state, &format!("/results/emotions/v2/film?key={key}")).await;
    assert_eq!(code, StatusCode::OK, "{result}");
    let windows = result["data"]["emotion"].as_array().expect("emotion windows");
    assert!(!windows.is_empty(), "{result}");
    assert_eq!(windows.last().unwrap()["end_time"].as_f64(), Some(12.0), "{result}");
    let p = kino_server::signals::prepared(&state.store, &state.signals, org, "film").unwrap().unwrap();
    let feel = &p.signals().analysis.as_ref().unwrap().models["emotions"];
    assert!(feel.contains("colour 100%") && feel.contains("the video has no audio stream"), "{feel}");
}
