//! The service with the pretrained models: `/version` lists them, `/text-embedding` answers with
//! the sentence model, an analysed item's results name the models in `version_id`, and a query
//! finds the scene it means through the API alone. Skips loudly without ffmpeg, espeak-ng or the
//! models, and fails instead when `KINO_REQUIRE_FFMPEG` / `KINO_REQUIRE_MODELS` is set (as the test
//! command does).

use crate::support;

use std::path::Path;
use std::process::Command;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kino_server::auth::{generate_key, hash_key, key_prefix};
use kino_server::{AppState, Config, Services, app, worker};
use serde_json::{Value, json};

pub(crate) fn ready() -> Option<std::path::PathBuf> {
    let ok = |t: &str, a: &str| Command::new(t).arg(a).output().is_ok_and(|o| o.status.success());
    if !(ok("ffmpeg", "-version") && ok("espeak-ng", "--version")) {
        assert!(
            std::env::var_os("KINO_REQUIRE_FFMPEG").is_none(),
            "KINO_REQUIRE_FFMPEG is set but ffmpeg/espeak-ng are missing"
        );
        eprintln!("\n!!! SKIPPED models: ffmpeg or espeak-ng not installed\n");
        return None;
    }
    let dir = kino_models::ModelsDir::resolve(None).unwrap();
    let missing: Vec<&str> =
        kino_models::default_models().into_iter().filter(|m| !dir.status(m).present()).map(|m| m.id).collect();
    if !missing.is_empty() {
        assert!(
            std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0"),
            "KINO_REQUIRE_MODELS is set but {missing:?} are missing; run `kino models fetch`"
        );
        eprintln!("\n!!! SKIPPED models: {missing:?} not fetched (kino models fetch)\n");
        return None;
    }
    Some(dir.path().to_path_buf())
}

pub(crate) fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// 20 s: a black, silent first half; a lit second half in which two lines are spoken.
fn make_video(dir: &Path) -> std::path::PathBuf {
    let wav = dir.join("talk.wav");
    run(Command::new("espeak-ng").arg("-w").arg(&wav).arg(
        "Oh shit, where were you last night? I waited for hours. I was at the station, I missed the last train home.",
    ));
    let video = dir.join("talk.mp4");
    run(Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=320x180:r=25:d=10"])
        .args(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=10", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono:d=20"])
        .arg("-i")
        .arg(&wav)
        .args([
            "-filter_complex",
            "[0:v][1:v]concat=n=2:v=1:a=0,format=yuv420p[v];[3:a]adelay=11000:all=1[s];[2:a][s]amix=inputs=2:normalize=0:duration=first[a]",
            "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", "20",
        ])
        .arg(&video));
    video
}

pub(crate) async fn call(state: &AppState, method: &str, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req.body(body.map_or_else(Body::empty, |b| Body::from(b.to_string()))).unwrap();
    let res = support::send(app(state.clone()), req).await;
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn dot(a: &Value, b: &Value) -> f64 {
    let (a, b) = (a.as_array().unwrap(), b.as_array().unwrap());
    a.iter().zip(b).map(|(x, y)| x.as_f64().unwrap() * y.as_f64().unwrap()).sum()
}

/// The least lead of the scene a query means over every other: ten times what ONNX Runtime's
/// kernels move a score between CPUs, so the test never rests on an order of two close scores.
const MARGIN: f64 = 0.05;

/// The best score of `query` among the scenes whose start `wanted` picks, and among the others.
fn lead(scenes: &[Value], query: &Value, wanted: impl Fn(f64) -> bool) -> (f64, f64) {
    let (mut hit, mut other) = (f64::MIN, f64::MIN);
    for scene in scenes {
        let score = dot(query, &scene["embedding"]);
        let best = if wanted(scene["start_ts"].as_f64().unwrap()) { &mut hit } else { &mut other };
        *best = best.max(score);
    }
    (hit, other)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_runs_its_models_and_names_them() {
    let Some(models_dir) = ready() else { return };
    let dir = tempfile::tempdir().unwrap();
    let video = make_video(dir.path());
    let config = Config { models_dir: Some(models_dir), ..Config::in_dir(dir.path()) };
    let state = Services::open(crate::support::store(dir.path()), config).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    let key = generate_key();
    state.store.add_key(org, &hash_key(&key), &key_prefix(&key)).unwrap();

    let (s, version) = call(&state, "GET", "/version", None).await;
    assert_eq!(s, StatusCode::OK, "{version}");
    let loaded = |id: &str| version["models"].as_array().unwrap().iter().any(|m| m["id"] == id && m["loaded"] == true);
    assert!(loaded("silero-vad") && loaded("all-minilm-l6-v2") && loaded("onnxruntime"), "{version}");
    assert_eq!(version["text_encoder"], "all-minilm-l6-v2 1.0.0 (lift-1024)");

    let item = json!({"id": "talk", "type": "standalone", "title": "The Last Train",
        "metadata": {"genres": ["drama"], "short_description": "Two people argue about a missed train."},
        "asset_info": {"file_uri": "talk.mp4"}});
    assert_eq!(call(&state, "PUT", &format!("/catalog/v1/item?key={key}"), Some(item)).await.0, StatusCode::OK);
    for product in
        ["jitpreviews", "semantic_scenes", "semantic", "profanity", "content_summary", "nudity", "scene_tags"]
    {
        let uri = format!("/tasks/catalog-item/talk/product/{product}/version/1.0.0?key={key}");
        assert_eq!(call(&state, "POST", &uri, Some(json!({}))).await.0, StatusCode::OK);
    }
    let s1 = state.clone();
    tokio::task::spawn_blocking(move || while worker::run_one(&s1.worker()) {}).await.unwrap();
    assert!(video.exists());
    // The fast pass stored during transcription was replaced by the final signals.
    assert!(!state.store.signals_partial(org, "talk").unwrap());
    let stored = kino_server::signals::prepared(&state.store, &state.signals, org, "talk").unwrap().unwrap();
    let reasons = &stored.signals().analysis.as_ref().unwrap().reasons;
    assert!(!reasons.values().any(|r| r == kino_media::PENDING_TRANSCRIPTION), "{reasons:?}");

    // The results name the models that produced them.
    let (s, scenes) =
        call(&state, "GET", &format!("/results/semantic_scenes/v1/video-embedding/talk?key={key}"), None).await;
    assert_eq!(s, StatusCode::OK, "{scenes}");
    assert_eq!(scenes["status"], "success", "{scenes}");
    assert_eq!(scenes["version_id"], "1.0.0+all-minilm-l6-v2@1.0.0", "{scenes}");
    let (_, item_vec) =
        call(&state, "GET", &format!("/results/semantic/v2/video-embedding/talk?key={key}"), None).await;
    assert_eq!(item_vec["data"]["embedding"].as_array().map(Vec::len), Some(256), "{item_vec}");
    let uri = format!("/results/jitpreviews/v2/talk?key={key}&catalog=acme&clip_length=4&character_preference=None");
    let (s, previews) = call(&state, "GET", &uri, None).await;
    assert_eq!(s, StatusCode::OK, "{previews}");
    let version_id = previews["version_id"].as_str().unwrap();
    assert!(version_id.contains("silero-vad@6.2.3") && version_id.contains("all-minilm-l6-v2@1.0.0"), "{version_id}");

    // A query finds the scene it means, through the API alone.
    let scenes = scenes["data"]["scene_embeddings"].as_array().unwrap();
    assert!(scenes.len() >= 2, "{scenes:?}");
    let (s, q) =
        call(&state, "GET", &format!("/results/semantic_scenes/v1/text-embedding?key={key}&q=people%20talking"), None)
            .await;
    assert_eq!(s, StatusCode::OK, "{q}");
    assert_eq!(q["version_id"], "all-minilm-l6-v2 1.0.0 (lift-1024)");
    let (talk, other) = lead(scenes, &q["embedding"], |start| start >= 9.0);
    eprintln!("people talking: dialogue scene {talk:.3}, best other {other:.3}");
    assert!(talk - other >= MARGIN, "the dialogue scene leads by {MARGIN}: {talk} against {other}");
    // A line of dialogue finds the scene in which it is said (the description quotes the speech).
    let (s, q) = call(
        &state,
        "GET",
        &format!("/results/semantic_scenes/v1/text-embedding?key={key}&q=I%20missed%20the%20last%20train%20home"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{q}");
    let (said, other) = lead(scenes, &q["embedding"], |start| start >= 9.0);
    eprintln!("a line of dialogue: its scene {said:.3}, best other {other:.3}");
    assert!(said - other >= MARGIN, "the line of dialogue finds its scene by {MARGIN}: {said} against {other}");

    // What is said: profanity from the transcript, with its time, named after the recogniser.
    let (s, prof) = call(&state, "GET", &format!("/results/profanity/v2/segments/talk?key={key}"), None).await;
    assert_eq!(s, StatusCode::OK, "{prof}");
    assert!(prof["version_id"].as_str().unwrap().contains("whisper-base@1.0.0"), "{prof}");
    let segments = prof["data"]["profanity"]["segments"].as_array().unwrap();
    assert_eq!(segments.len(), 1, "{prof}");
    let (a, b) = (segments[0]["start"].as_f64().unwrap(), segments[0]["end"].as_f64().unwrap());
    assert!((10.5..13.0).contains(&a) && b > a && b < 14.0, "\"shit\" is said at about 11 s: {prof}");
    // The previews' profanity filter keeps clips away from it; without it a clip may cover it.
    let uri = format!(
        "/results/jitpreviews/v2/talk?key={key}&catalog=acme&clip_length=3&number_of_top_candidates=5&max_profanity=0.1"
    );
    let (s, clean) = call(&state, "GET", &uri, None).await;
    assert_eq!(s, StatusCode::OK, "{clean}");
    for clip in clean["data"]["jitpreview"].as_array().unwrap() {
        let (cs, ce) = (clip["start_time"].as_f64().unwrap(), clip["stop_time"].as_f64().unwrap());
        assert!(
            ce <= a.floor() || cs >= b.ceil(),
            "a clip with max_profanity=0.1 covers the profanity at {a}-{b}: {clip}"
        );
    }
    // The content summary of what is said.
    let (s, summary) = call(&state, "GET", &format!("/results/content_summary/v1/talk?key={key}"), None).await;
    assert_eq!(s, StatusCode::OK, "{summary}");
    assert_eq!(summary["status"], "success", "{summary}");
    let cs = &summary["data"]["content_summary"];
    assert_eq!(cs["language"], "en", "{summary}");
    assert!(cs["sentence_count"].as_u64().unwrap() >= 2, "{summary}");
    assert!(cs["text"].as_str().unwrap().to_lowercase().contains("train"), "{summary}");
    assert_eq!(cs["encoder"], "all-minilm-l6-v2 1.0.0", "{summary}");
    // Nudity measured on the frames (none here) and scene tags heard by the sound model.
    let (s, nudity) = call(&state, "GET", &format!("/results/nudity/v1/talk?key={key}"), None).await;
    assert_eq!((s, nudity["status"].clone()), (StatusCode::OK, json!("success")), "{nudity}");
    assert!(nudity["version_id"].as_str().unwrap().contains("open-nsfw@0.1.0"), "{nudity}");
    assert_eq!(nudity["data"]["nudity"]["timeline"].as_array().map(Vec::len), Some(20), "{nudity}");
    assert!(nudity["data"]["nudity"]["max"].as_f64().unwrap() < 0.5, "a test pattern is not nudity: {nudity}");
    let (s, tags) = call(&state, "GET", &format!("/results/scene_tags/v1/talk?key={key}"), None).await;
    assert_eq!(s, StatusCode::OK, "{tags}");
    assert_eq!(tags["data"]["scene_tags"].as_array().map(Vec::len), Some(scenes.len()), "{tags}");
    let (s, listed) = call(&state, "GET", &format!("/results/content_summary/v1/?key={key}"), None).await;
    assert_eq!((s, listed["total_count"].as_u64()), (StatusCode::OK, Some(1)), "{listed}");
}

/// Previews with `character_preference` on a real video through the service: the analysed
/// characters of two real people (the astronaut alone for 8 s, then with Grace Hopper; see
/// `kino_models::testdata`) decide which clips a request may get.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn character_preference_picks_clips_by_who_is_on_screen() {
    use kino_models::testdata::{TWO_PEOPLE_GRAPH, TWO_PEOPLE_SECOND_FROM, test_photos};
    let Some(models_dir) = ready() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (astronaut, hopper) = test_photos(&dir.path().join("photos")).expect("the test photographs");
    run(Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i"])
        .arg(&astronaut)
        .arg("-i")
        .arg(&hopper)
        .args([
            "-filter_complex",
            TWO_PEOPLE_GRAPH,
            "-map",
            "[v]",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-t",
            "20",
        ])
        .arg(dir.path().join("two.mp4")));
    let config = Config { models_dir: Some(models_dir), ..Config::in_dir(dir.path()) };
    let state = Services::open(crate::support::store(dir.path()), config).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    state.store.ensure_catalog(org, "acme").unwrap();
    let key = generate_key();
    state.store.add_key(org, &hash_key(&key), &key_prefix(&key)).unwrap();
    let item = json!({"id": "two", "type": "standalone", "title": "Two", "asset_info": {"file_uri": "two.mp4"}});
    assert_eq!(call(&state, "PUT", &format!("/catalog/v1/item?key={key}"), Some(item)).await.0, StatusCode::OK);
    let uri = format!("/tasks/catalog-item/two/product/jitpreviews/version/1.0.0?key={key}");
    assert_eq!(call(&state, "POST", &uri, Some(json!({}))).await.0, StatusCode::OK);
    let s1 = state.clone();
    tokio::task::spawn_blocking(move || while worker::run_one(&s1.worker()) {}).await.unwrap();

    let clips = |preference: &'static str| {
        let state = state.clone();
        let key = key.clone();
        async move {
            let uri = format!(
                "/results/jitpreviews/v2/two?key={key}&catalog=acme&clip_length=3&skip_start=0&skip_end=0\
                 &minimum_clip_separation=0&number_of_top_candidates=4&{preference}"
            );
            let (s, body) = call(&state, "GET", &uri, None).await;
            assert_eq!(s, StatusCode::OK, "{preference}: {body}");
            // Where each clip ends: a clip "has" a character that is on screen in it.
            body["data"]["jitpreview"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["stop_time"].as_f64().unwrap())
                .collect::<Vec<f64>>()
        }
    };
    // Both people: clips that reach past Grace Hopper's entrance.
    let both = clips("character_preference=all_of&character_list=0,1").await;
    assert!(!both.is_empty(), "clips with both characters");
    assert!(both.iter().all(|&end| end > TWO_PEOPLE_SECOND_FROM), "all_of 0,1 ends before she enters: {both:?}");
    // The second character: the same part of the video.
    let second = clips("character_preference=any_of&character_list=1").await;
    assert!(!second.is_empty() && second.iter().all(|&end| end > TWO_PEOPLE_SECOND_FROM), "{second:?}");
    // The main character alone: clips anywhere, some before she enters.
    let main = clips("character_preference=any_of&character_list=0&number_of_top_candidates=10").await;
    assert!(main.iter().any(|&end| end <= TWO_PEOPLE_SECOND_FROM), "{main:?}");
    // The main character is always on screen: a clip with no character does not exist.
    assert!(clips("character_preference=avoid").await.is_empty());
    assert!(!clips("character_preference=any").await.is_empty());
}
